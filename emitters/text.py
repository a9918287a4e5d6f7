"""Text shared by the emitters: titles, trigger signals, file names, safe quoting.

Source text reaches Markdown and Cedar artifacts only through these helpers,
so no quote or path can change an artifact's structure (a heading, an HTML
tag or `*/` in a rule stays inert text).
"""

from __future__ import annotations

import re

from ..compiler.ids import group_stem
from ..compiler.ir import TriggerKind
from ..compiler.sondera import cedar_string

_TOOL_WORDS = {"command": "runs a shell command", "path": "writes or edits a file", "content": "writes file content",
               "mcp": "calls the tool",
               "required-form": "runs a shell command"}


def file_stem(group_id: str) -> str:
    """`skill:disk-forensics` -> `skill-disk-forensics`, the artifact file name stem."""
    return group_stem(group_id)


def one_line(text: str) -> str:
    return " ".join(text.split())


_MARKUP = re.compile(r"\*\*|__|[`#>]")
_BACKTICKS = re.compile(r"`+")
_SPECIAL = re.compile(r"([\\`*_\[\]{}#|~!])")


def title(imp, limit: int = 60) -> str:
    """A short title from the quote, cut at a word boundary."""
    text = _MARKUP.sub("", one_line(imp.quote)).strip(" :-—*")
    if len(text) <= limit:
        return text.rstrip(".")
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(",;:.") + "…"


def md_code(text: str) -> str:
    """Inline code that holds any text literally: the fence is longer than any backtick run inside."""
    text = one_line(text)
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0) if "`" in text else 0
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_text(text: str) -> str:
    """Plain Markdown text: every character that could start markup is escaped."""
    return _escape(one_line(text))


def _escape(text: str) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _SPECIAL.sub(r"\\\1", text)


def md_spans(text: str) -> str:
    """Text whose `backticked` parts are code (an admission reason): each part quoted safely."""
    parts = re.split(r"`([^`]+)`", one_line(text))
    return "".join(md_code(part) if i % 2 else _escape(part) for i, part in enumerate(parts))


def md_fence(text: str, info: str = "") -> str:
    """A fenced block that holds any text literally."""
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}{info}\n{text}{'' if text.endswith(chr(10)) else chr(10)}{fence}"


def cedar_like(glob: str) -> str:
    """A Cedar `like` pattern literal from a glob that writes a literal star `\\*` and a literal backslash `\\\\`.

    Cedar reads `\\*` inside a pattern as a literal star, so that escape is kept
    as it is (escaping its backslash would turn it into a backslash and a
    wildcard); every other character is escaped as in any Cedar string.
    """
    out, i = [], 0
    while i < len(glob):
        if glob[i] == "\\" and glob[i + 1 : i + 2] in ("*", "\\"):
            out.append("\\" + glob[i + 1])
            i += 2
            continue
        out.append(cedar_string(glob[i])[1:-1])
        i += 1
    return '"' + "".join(out) + '"'


def trigger_signal(imp) -> str:
    """What the Tier 2 gate looks for in one tool call plus the trajectory."""
    trigger = imp.trigger
    roles = imp.applies_to_roles
    role = f" when the acting agent's role is {md_code(roles[0])}" if roles else ""
    if imp.sequence:
        requires = " or ".join(md_code(c) for c in imp.sequence.requires)
        return (f"The agent runs {md_code(imp.sequence.event)} and the trajectory shows no {requires} "
                f"since the last change it made{role}.")
    if trigger is None:
        verb = imp.clause.verb
        objects = ", ".join(md_code(o.text) for o in imp.clause.objects)
        what = " (" + " ".join(filter(None, [md_text(verb) if verb else "", objects])) + ")" if verb or objects else ""
        clause = "must not be done" if imp.polarity == "negative" else "is required and missing"
        return f"The tool call or recent trajectory shows that what the source describes {clause}{what}: {md_code(imp.quote)}{role}."
    doing = _TOOL_WORDS.get(trigger.kind, "makes a tool call")
    if trigger.kind == TriggerKind.PROSE:
        return f"The agent {doing} that does this: {trigger.summary} (regex {md_code(trigger.patterns[0].regex)}){role}."
    values = " or ".join(md_code(v) for v in trigger.values)
    if trigger.kind == TriggerKind.MCP:
        values = " or ".join(md_code(t) for t in trigger.tool_match)
    elif not values and trigger.patterns:
        values = "regex " + md_code(trigger.patterns[0].regex)
    where = {"command": "matching", "path": "at a path matching", "content": "containing", "mcp": ""}.get(trigger.kind, "matching")
    return f"The agent {doing} {where} {values}{role}.".replace("  ", " ")
