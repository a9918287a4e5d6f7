"""Markdown block structure: lines -> tokens -> Lark LALR -> Block list.

The line classifier below does the context-sensitive part of markdown block
lexing (an open fence swallows lines until a matching closer, list nesting is
decided by indentation, `---` is a setext underline only under a paragraph
line); `grammar/blocks.lark` assembles the classified lines into blocks.
Lark's own lexers match regexes without state, which cannot express "the
closing fence must repeat the opening fence's character and length"; hence a
custom line lexer in front of the LALR parser (see docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple, cast

from lark import Lark, Token, Transformer
from lark.lexer import Lexer

from ..grammar import read as read_grammar

_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_HR = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")
_BULLET = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])(?:([ \t]+)|$)")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(?:\|\s*:?-{1,}:?\s*)*\|?\s*$")
_QUOTE = re.compile(r"^ {0,3}>")


class Block(NamedTuple):
    """A markdown block with its exact 1-based line span."""

    kind: str  # heading | paragraph | item | code | table | quote | html
    start: int
    end: int
    lines: tuple[str, ...]  # raw source lines of the span
    depth: int = 0  # list nesting depth for items, heading level for headings

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


class _LineToken(Token):
    """A run of whole lines of one kind; `depth` is the list nesting depth at its first line."""

    __slots__ = ("depth", "lines")
    line: int  # always set (Token's may be None)
    depth: int
    lines: list[str]


# Consecutive lines of these kinds travel as one token, and so do a bullet and
# its continuation lines: the grammar only needs to know where a run starts and
# ends, and fewer tokens make parsing cheaper.
_RUNS = frozenset({"TEXT", "CODE", "NESTED", "TABLE_ROW", "QUOTE", "HTML", "INDENTED"})


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def classify_lines(lines: list[str], first_line: int = 1) -> list[_LineToken]:
    """Classify each source line; runs of same-kind lines share one token."""
    tokens: list[_LineToken] = []
    fence: tuple[str, int] | None = None  # (char, length) of the open fence
    in_comment = False
    items: list[int] = []  # content columns of the open list items
    prev = "_BLANK"
    for offset, line in enumerate(lines):
        number = first_line + offset
        kind, depth = "TEXT", len(items)
        stripped = line.lstrip()
        lead = stripped[:1]  # (each regex below is tried only on a line whose first character it can match)
        if fence is not None:
            m = _FENCE.match(line) if lead == fence[0] else None
            if m and m.group(2)[0] == fence[0] and len(m.group(2)) >= fence[1] and not m.group(3).strip():
                kind, fence = "FENCE_CLOSE", None
            else:
                kind = "CODE"
        elif in_comment or (lead == "<" and stripped.startswith("<!--")):
            kind = "HTML"
            in_comment = "-->" not in (line if in_comment else line.split("<!--", 1)[1])
        elif not stripped:
            kind = "_BLANK"
        elif prev in ("_BLANK", "INDENTED") and _indent(line.expandtabs(4)) >= (items[-1] if items else 0) + 4:
            # four columns past the text it would continue: an indented code block, whatever
            # its lines look like ("Example of a bad AGENTS.md:" + an indented example)
            kind = "INDENTED"
        elif lead in "`~" and (m := _FENCE.match(line)) and not (m.group(2)[0] == "`" and "`" in m.group(3)):
            kind, fence = "FENCE_OPEN", (m.group(2)[0], len(m.group(2)))
            while items and items[-1] > _indent(line):
                items.pop()
        elif lead in "=-" and prev == "TEXT" and _SETEXT.match(line) and not items:
            kind = "SETEXT"
        elif lead in "-*_" and _HR.match(line):
            kind, items = "_HR", []
        elif lead == "#" and _ATX.match(line):
            kind, items = "ATX", []
        elif lead in "-*+0123456789" and (m := _BULLET.match(line)) and (m.group(3) or line.strip() in "-*+"):
            indent = len(m.group(1))
            while items and items[-1] > indent:
                items.pop()
            depth = len(items)
            items.append(indent + len(m.group(2)) + len(m.group(3) or " "))
            kind = "BULLET"
        elif lead == ">" and _QUOTE.match(line):
            kind, items = "QUOTE", []
        elif prev in ("TABLE_ROW", "TABLE_SEP") and "|" in line:
            kind = "TABLE_SEP" if _TABLE_SEP.match(line) else "TABLE_ROW"
        elif "|" in line and offset + 1 < len(lines) and "-" in lines[offset + 1] and _TABLE_SEP.match(lines[offset + 1]) and "|" in lines[offset + 1]:
            kind, items = "TABLE_ROW", []
        elif items and (prev in ("BULLET", "CONT") or _indent(line) >= items[0]):
            while items and items[-1] > _indent(line) and prev not in ("BULLET", "CONT"):
                items.pop()
            if not items:
                kind, depth = "TEXT", 0
            else:
                kind, depth = ("CONT" if prev in ("BULLET", "CONT") else "NESTED"), len(items) - 1
        else:
            items = []
            kind, depth = "TEXT", 0
        if kind not in ("BULLET", "CONT", "NESTED", "CODE", "FENCE_CLOSE"):
            depth = len(items)
        run = (kind in _RUNS and prev == kind and tokens and tokens[-1].type == kind) or kind == "CONT"
        prev = kind
        if kind == "_BLANK":
            continue
        if run:  # a continuation line joins its bullet's token
            tokens[-1].lines.append(line)
            continue
        token = _LineToken(kind, line, line=number)
        token.depth = depth
        token.lines = [line]
        tokens.append(token)
    return tokens


def _with_gaps(tokens: list[_LineToken]) -> tuple[str, ...]:
    """The lines of several tokens, with the blank lines between them kept: line i of a block is line start + i."""
    lines: list[str] = []
    for token in tokens:
        lines += [""] * (token.line - tokens[0].line - len(lines))
        lines += token.lines
    return tuple(lines)


class _ToBlocks(Transformer):
    """Turn the LALR parse of line tokens into Block objects."""

    @staticmethod
    def _make(kind: str, tokens: list[_LineToken], depth: int | None = None) -> Block:
        return Block(
            kind=kind,
            start=tokens[0].line,
            end=tokens[-1].line + len(tokens[-1].lines) - 1,
            lines=tuple(tokens[0].lines) if len(tokens) == 1 else _with_gaps(tokens),
            depth=tokens[0].depth if depth is None else depth,
        )

    def start(self, children):
        return children[0] if children else []

    def blocks(self, children):
        found = children[0] if isinstance(children[0], list) else []
        found += [c for c in children[-1:] if isinstance(c, Block)]  # a thematic break (---) yields no block
        return found

    def heading(self, tokens):
        (atx,) = tokens
        level = len(atx.lstrip()) - len(atx.lstrip().lstrip("#"))
        return self._make("heading", [atx], depth=level)

    def setext_heading(self, children):
        text, underline = children
        return self._make("heading", [text], depth=1 if underline.strip().startswith("=") else 2)

    def paragraph(self, tokens):
        return self._make("paragraph", tokens)

    def nested_paragraph(self, tokens):
        return self._make("paragraph", tokens)

    def item(self, tokens):
        return self._make("item", tokens)

    def fence(self, tokens):
        return self._make("code", tokens)

    def indented_code(self, tokens):
        return self._make("code", tokens)

    def table(self, tokens):
        return self._make("table", tokens)

    def quote(self, tokens):
        return self._make("quote", tokens)

    def html(self, tokens):
        return self._make("html", tokens)


class _LineLexer(Lexer):
    """Adapter that lets Lark consume pre-classified line tokens."""

    def __init__(self, lexer_conf):
        pass

    def lex(self, data, parser_state=None):
        return iter(data)


@lru_cache(maxsize=1)
def load_block_parser() -> Lark:
    grammar = read_grammar("blocks.lark")
    return Lark(grammar, parser="lalr", lexer=_LineLexer, transformer=_ToBlocks())


def parse_blocks(lines: list[str], first_line: int = 1) -> list[Block]:
    """Parse markdown body lines (starting at `first_line`) into blocks."""
    if not lines:
        return []
    return cast("list[Block]", load_block_parser().parse(classify_lines(lines, first_line)))  # what _ToBlocks made of the tree
