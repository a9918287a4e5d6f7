"""The imperative-clause layer: sentences, §5 markers and the clause shapes.

`grammar/inline.lark` splits a block's text into sentences of inline tokens
(code spans, paths, words, tags, punctuation) with character offsets. This
module finds the lexical markers in a sentence (grammar/ladder.yaml), picks
the strongest, and reads the clause around it: the verb, its objects, and
the shapes "X instead of Y", "before/after X", "unless/except X" and "only
when editing files matching X".
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache

from lark import Lark

from ..grammar import read as read_grammar
from .ir import ClauseObject, ClauseObjectKind, ClauseRecord
from .ladder import Ladder, load_ladder, normalise_word

# Words that end the clause a marker governs (besides ; — – and another marker).
_CLAUSE_BREAKS = frozenset({"instead", "rather", "over", "unless", "except", "but", "otherwise", "however"})
_SEQUENCE_WORDS = frozenset({"before", "after", "until", "first", "then", "once"})
_LIST_NOUNS = frozenset({"command", "commands", "tool", "tools", "binary", "binaries", "cli", "clis"})


class InlineToken(str):
    """An inline token: its text, terminal name, offsets, and `norm` (lower-cased, ’ as ')."""

    __slots__ = ("type", "start_pos", "end_pos", "norm")
    type: str
    start_pos: int
    end_pos: int
    norm: str


@dataclass(frozen=True, slots=True)
class Sentence:
    start: int  # character offsets into the block text
    end: int
    tokens: tuple[InlineToken, ...]
    last: bool  # the last sentence of its block


@dataclass(frozen=True, slots=True)
class Marker:
    text: str  # the phrase as written
    marker_class: str  # ladder class, after ALL-CAPS strengthening
    caps: bool
    index: int  # token index in the sentence (-1: inherited from a heading or lead line)
    exception: int = -1  # a sentence form's: the token index where the rule's exception opens ("Only commit when asked")


@dataclass(slots=True)
class Clause:
    """What the compiler read from one imperative sentence."""

    marker: Marker
    verb: str = ""
    objects: list[ClauseObject] = field(default_factory=list)  # what the sentence names (code, paths, programs)
    instead_of: list[ClauseObject] = field(default_factory=list)  # what to use instead of (the trigger of a positive rule)
    rejected: str = ""  # the words of a positive clause's rejected side ("not to upstream", "over raw SQL"), lower-cased
    alternatives: list[ClauseObject] = field(default_factory=list)  # what the source says to do instead
    examples: list[ClauseObject] = field(default_factory=list)  # "e.g. `X`": instances, never the trigger
    asides: list[ClauseObject] = field(default_factory=list)  # objects of parentheses and subordinate clauses
    qualifiers: list[str] = field(default_factory=list)  # "in screens": narrows the rule, no file scope found
    purpose: str = ""  # "to model optional collections": narrows what a content rule forbids
    exceptions: list[ClauseObject] = field(default_factory=list)  # unless / except objects
    condition: str = ""  # unless/except text that is not concrete ("unless asked")
    sequence: str = ""  # before/after phrase of a sequential precondition
    file_scope: list[str] = field(default_factory=list)  # "only when editing files matching X"
    scope_text: str = ""  # the words of the governed clause, lower-cased
    headed: bool = False  # the sentence opens with a §5a header label (CRITICAL:, DO NOT:, ...)
    commas: frozenset[int] = frozenset()  # the words of scope_text a comma follows ("rebase, amend or force-push")
    quoted_words: bool = False  # its objects are quoted words ('Never "Netbox"'): text, which prose files hold too

    def record(self) -> ClauseRecord:
        """The IR's record of it."""
        return ClauseRecord(
            self.marker.text, self.marker.marker_class, self.marker.caps, self.marker.index < 0, self.verb, tuple(self.objects),
            tuple(self.instead_of), self.rejected, tuple(self.alternatives), tuple(self.examples), tuple(self.asides),
            tuple(self.qualifiers), self.purpose, tuple(self.exceptions), self.condition, self.sequence, tuple(self.file_scope),
            self.headed,
        )


@lru_cache(maxsize=1)
def inline_grammar() -> Lark:
    grammar = read_grammar("inline.lark")
    return Lark(grammar, parser="lalr", lexer="basic")


@lru_cache(maxsize=1)
def load_scanner() -> re.Pattern:
    """The inline grammar's terminals as one regex, strongest priority first.

    A sentence in inline.lark is a maximal run of tokens between END tokens,
    which a scanner can group without a parser; running Lark's LALR parser on
    every block cost two thirds of the compile time (benchmarks/).
    """
    lark = inline_grammar()
    terminals = sorted((t for t in lark.terminals if t.name not in lark.ignore_tokens), key=lambda t: -t.priority)
    return re.compile("|".join(f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in terminals))


def _token(text: str, kind: str, start: int, stop: int) -> InlineToken:
    token = InlineToken(text[start:stop])
    token.type, token.start_pos, token.end_pos = kind, start, stop
    token.norm = normalise_word(token)
    return token


def _sentence(text: str, spans: list[tuple[str, int, int]], last: bool) -> Sentence:
    tokens = [_token(text, *span) for span in spans]
    end = spans[-1][2]
    if end < len(text) and text[end] in ".!?":  # keep the full stop in the quote
        end += len(text[end:]) - len(text[end:].lstrip(".!?"))
    return Sentence(spans[0][1], end, tuple(tokens), last)


def split_sentences(text: str, keep=None) -> list[Sentence]:
    """Sentences of a block's text, each with its inline tokens and offsets.

    `keep`, a predicate on a sentence's text, drops the other sentences of a
    multi-sentence block before their tokens are built (the caller only reads
    sentences with a marker, and has checked the block as a whole).
    """
    spans = [(m.lastgroup or "", *m.span()) for m in load_scanner().finditer(text)]  # (every terminal is a named group)
    runs: list[list[tuple[str, int, int]]] = []
    begin = 0
    for i, span in enumerate(spans):
        if span[0] == "END":
            runs.append(spans[begin:i])
            begin = i + 1
    runs.append(spans[begin:])
    runs = [run for run in runs if run]
    return [
        _sentence(text, run, i == len(runs) - 1)
        for i, run in enumerate(runs)
        if keep is None or len(runs) == 1 or keep(text[run[0][1] : run[-1][2]])
    ]


def _is_caps(phrase: str) -> bool:
    last = phrase.split()[-1]
    letters = [c for c in last if c.isalpha()]
    return len(letters) > 1 and all(c.isupper() for c in letters)


def _in_condition(tokens, condition_words: frozenset[str]) -> frozenset[int]:
    """Token indices inside a conditional clause ("if … ," up to its comma or colon, or "if … then")."""
    inside, open_ = set(), False
    for i, tok in enumerate(tokens):
        if tok.type == "WORD" and tok.norm in condition_words:
            open_ = True
        elif tok.type == "PUNCT" and tok in ",;:—–" or tok.type == "OTHER" and tok == ":" or tok.type == "WORD" and tok.norm == "then":
            open_ = False
        elif open_:
            inside.add(i)
    return frozenset(inside)


def find_markers(sentence: Sentence, ladder: Ladder | None = None) -> list[Marker]:
    """Every §5 marker in the sentence, in order, after negation and caps rules."""
    ladder = ladder or load_ladder()
    positions = [i for i, t in enumerate(sentence.tokens) if t.type == "WORD"]
    words = [sentence.tokens[i].norm for i in positions]
    conditional: frozenset[int] | None = None  # (the tokens of conditions and examples, found at the first phrase)
    found: list[tuple[int, int, str]] = []  # (word index, length, class)
    end = 0  # the word after the last marker phrase: no phrase starts inside another
    for i in (i for i, word in enumerate(words) if word in ladder.phrases):
        hit = ladder.match_at(words, i) if i >= end else None
        if hit is None:
            continue
        length, own = hit
        if conditional is None:
            conditional = _conditional(sentence.tokens, words, ladder)
        cls = ladder.read_after(words, i + length, own)
        after = positions[i] + 1
        next_word = sentence.tokens[after].norm if length == 1 and after < len(sentence.tokens) and sentence.tokens[after].type == "WORD" else ""
        if cls is None or ladder.is_void(words, i, own, next_word) or positions[i] in conditional:
            pass  # "If you don't have the tool:" states a condition, not an instruction
        elif ladder.classes[cls].polarity == "positive" and i and words[i - 1] in ladder.negators:
            # "not always", "don't have to": no marker, and the negator is void too
            if found and found[-1][0] == i - 1:
                found.pop()
        else:
            found.append((i, length, cls))
        end = i + length
    exceptions: dict[int, int] = {}
    for i, length, cls, exception in ladder.form_markers(words) if ladder.forms else ():
        # "Only commit when explicitly asked", "The rule is not to …": a rule word the sentence's shape makes
        if any(k < i + length and i < k + n for k, n, _ in found):
            continue
        conditional = _conditional(sentence.tokens, words, ladder) if conditional is None else conditional
        cls = ladder.read_after(words, i + length, cls)
        if cls is not None and positions[i] not in conditional:
            found.append((i, length, cls))
            found.sort()
            if exception >= 0:
                exceptions[i] = positions[exception]
    markers = []
    for i, length, cls in found:
        first, last = positions[i], positions[i + length - 1]
        phrase = " ".join(sentence.tokens[k] for k in range(first, last + 1) if sentence.tokens[k].type == "WORD")
        caps = _is_caps(phrase)
        if caps:
            cls = ladder.caps_strengthen.get(cls, cls)
        markers.append(Marker(phrase, cls, caps, first, exceptions.get(i, -1)))
    head = "".join(t for t in sentence.tokens[:4] if t.type in ("WORD", "PUNCT", "OTHER")).replace(" ", "")
    for header, cls in ladder.headers.items():
        if head.startswith(header.replace(" ", "")):
            if cls == "label":  # "CRITICAL: Use `pnpm`" asks for pnpm: the label keeps the sentence's polarity
                negative = any(ladder.classes[m.marker_class].polarity == "negative" for m in markers)
                cls = "block-direct" if negative else "block-positive"
            markers.insert(0, Marker(header, cls, True, 0))
    return markers


def _conditional(tokens, words: list[str], ladder: Ladder) -> frozenset[int]:
    """Token indices inside a condition or an example (`words`: the sentence's words), each looked for only when
    the sentence has a condition word or a parenthesis."""
    found = _in_condition(tokens, ladder.condition_words) if not ladder.condition_words.isdisjoint(words) else frozenset()
    return found | _in_example(tokens) if "(" in tokens else found


def _in_example(tokens) -> frozenset[int]:
    """Token indices inside a parenthesis that opens with an example ("(e.g., avoid `firestore_list_collections`)"):
    a rule word there is part of the example, not a rule of its own."""
    inside, depth, example = set(), 0, False
    for i, tok in enumerate(tokens):
        if tok == "(":
            depth += 1
            example = example or (depth == 1 and i + 1 < len(tokens) and tokens[i + 1].norm in ("e.g", "eg", "for"))
        elif tok == ")":
            depth = max(depth - 1, 0)
            example = example and depth > 0
        elif example:
            inside.add(i)
    return frozenset(inside)


def _label_end(part) -> int:
    """Where a part's own words start after a leading label ("**Spans:** in handlers …"): 0 without one."""
    colon = next((k for k, t in enumerate(part[:6]) if t == ":"), 0)
    if not colon or not all(t.type in ("WORD", "EMPH") for t in part[:colon]):
        return 0
    return colon + 1 + (colon + 1 < len(part) and part[colon + 1].type == "EMPH")


def _no_label(part) -> tuple[int, int]:
    """The words a leading label that opens with "No" names ("**No bare `except`**:" names bare `except`), as a
    token range; (0, 0) without one."""
    start = int(bool(part) and part[0].type == "EMPH")
    colon = next((k for k, t in enumerate(part[:8]) if t == ":"), 0)
    end = colon - (colon > 0 and part[colon - 1].type == "EMPH")
    if not colon or colon + 1 != len(part) or end - start < 2 or part[start].type != "WORD" or part[start].norm != "no" \
            or not all(t.type in ("WORD", "EMPH", "CODE") for t in part[:colon]):
        return (0, 0)
    return (start + 1, end)


def _first_word(part) -> str:
    return part[0].norm if part and part[0].type == "WORD" else ""


def _clause_starts(sentence: Sentence) -> list[int]:
    """Token indices where a new clause starts: after ; — – (a hedge governs only its clause)."""
    return [i + 1 for i, t in enumerate(sentence.tokens) if t.type == "PUNCT" and t in ";—–"]


def strongest(markers: list[Marker], ladder: Ladder | None = None, sentence: Sentence | None = None) -> Marker | None:
    """The governing marker: a hedge wins over every marker of its clause (skip when uncertain),
    else the strongest class. Without the sentence, any hedge wins."""
    ladder = ladder or load_ladder()
    if not markers:
        return None
    hedges = [m for m in markers if ladder.classes[m.marker_class].polarity == "hedged"]
    if hedges and sentence is not None:
        # "Never run `rm -rf /`; maybe ask first.": the hedge voids only "maybe ask first"
        starts = _clause_starts(sentence)
        hedged = {bisect_right(starts, max(h.index, 0)) for h in hedges}
        free = [m for m in markers if m not in hedges and bisect_right(starts, max(m.index, 0)) not in hedged]
        if free:
            markers, hedges = free, []
    if hedges:
        return hedges[0]
    # a header label ("CRITICAL:") grades the sentence; the marker after it reads the clause
    return min(markers, key=lambda m: (ladder.classes[m.marker_class].rank, m.text in ladder.headers))


MCP_TOOL = re.compile(r"^(?:mcp__[\w-]+|[\w-]*mcp[\w-]*__[\w-]+)$")


def _object(token: InlineToken) -> ClauseObject | None:
    if token.type == "WORD" and "__" in token and MCP_TOOL.match(token):
        return ClauseObject(ClauseObjectKind.CODE, str(token))
    if token.type == "CODE":
        return ClauseObject(ClauseObjectKind.CODE, token.strip("`").strip())
    if token.type == "PATH":
        return ClauseObject(ClauseObjectKind.PATH, str(token))
    return None


_CALL_NOUNS = frozenset({"call", "calls"})
_PLAIN_NAME = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")


def _called(tokens) -> set[int]:
    """The code spans a sentence names as calls: "`then` calls", "`Promise` and `then` calls" (the noun
    governs the whole coordinated run of names before it)."""
    called: set[int] = set()
    run: list[int] = []
    for i, tok in enumerate(tokens):
        if tok.type == "CODE":
            run.append(i)
        elif tok == "," or tok.type == "WORD" and tok.norm in ("and", "or"):
            continue
        else:
            if tok.type == "WORD" and tok.norm in _CALL_NOUNS:
                called.update(run)
            run = []
    return called


def _concepts_outnumber_names(tokens: list[InlineToken]) -> bool:
    """A list whose items are mostly plain noun phrases ("a lock, a mutex, a sentinel file, or `finalize`"): its
    names in backticks stand for kinds of thing too, so none is a literal trigger."""
    items: list[list[InlineToken]] = [[]]
    for tok in tokens:
        if tok == "," or tok.norm in ("or", "and"):
            if items[-1]:
                items.append([])
        else:
            items[-1].append(tok)
    items = [item for item in items if item]
    named = sum(1 for item in items if any(t.type in ("CODE", "PATH") for t in item))
    return 0 < named < len(items) - named


@lru_cache(maxsize=4)
def _by_first_word(phrases: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """The phrases by the word they open with (each token is tried against only those)."""
    found: dict[str, tuple[str, ...]] = {}
    for phrase in sorted(phrases):
        first = phrase.split()[0]
        found[first] = (*found.get(first, ()), phrase)
    return found


def _starts_with(part, i: int, phrase: str) -> bool:
    """The words of `phrase` start at token i of `part`."""
    words = phrase.split()
    return [t.norm for t in part[i : i + len(words)]] == words


def _names_a_folder(tokens, i: int, words: dict[str, frozenset[str]]) -> bool:
    """The name at token i is followed by a folder noun that ends its noun phrase ("`dist` folder.", not
    "the `config` directory helper")."""
    if i + 1 >= len(tokens) or tokens[i + 1].norm not in words["folder_nouns"]:
        return False
    after = tokens[i + 2] if i + 2 < len(tokens) else None
    ends = words["connectors"] | words["qualifier_openers"] | words["conditions"] | words["explanations"] | words["exception_openers"]
    return after is None or after.type != "WORD" or after.norm in ends


def _objects(tokens, lexicon) -> list[ClauseObject]:
    """The code spans, paths and MCP tool names among tokens; `npm/yarn/pnpm` is three programs.
    A name the sentence calls a call ("`then` calls") is the call, `then()`, not every use of the word."""
    named = [(i, obj) for i, obj in enumerate(map(_object, tokens)) if obj is not None]
    called = _called(tokens) if named else set()
    found: list[ClauseObject] = []
    for i, obj in named:
        if any(t.type == "WORD" and t.norm in lexicon.clause_words["judgements"] for t in tokens[max(i - 2, 0) : i]):
            continue  # "unnecessary `useEffect`", "multiple duplicative `[Fact]` methods": some uses, judged
        if _names_the_enforcer(tokens, i, lexicon.clause_words["enforcing_participles"]):
            continue  # "banned by `no-restricted-globals`": the lint rule that enforces the rule, not a thing it bans
        following = tokens[i + 1].norm if i + 1 < len(tokens) else ""
        if following in lexicon.clause_words["git_names"] and not obj.text.startswith("@"):
            continue  # "a `cursor/` branch": the name of a branch, tag or remote, which no file path or content shows
            # ("`@author` tags" are Javadoc's, written in code)
        if following in lexicon.clause_words["construct_nouns"] and _PLAIN_NAME.match(obj.text):
            continue  # "the `deprecated` directive": a form the sentence does not spell
        if following in lexicon.clause_words["statement_nouns"] and obj.text in lexicon.programs:
            continue  # "bare `go` statements": Go's statement, which the sentence does not spell, not the program
        if _names_a_folder(tokens, i, lexicon.clause_words) and "/" not in obj.text.rstrip("/"):
            obj = ClauseObject(ClauseObjectKind.PATH, obj.text.rstrip("/") + "/")  # "`generated` subdirectories"
        if i in called and obj.kind == ClauseObjectKind.CODE and _PLAIN_NAME.match(obj.text):
            obj = ClauseObject(obj.kind, obj.text + "()")
        parts = obj.text.split("/")
        if obj.kind == ClauseObjectKind.PATH and len(parts) > 1 and all(p in lexicon.programs for p in parts):
            found.extend(ClauseObject(ClauseObjectKind.WORD, p) for p in parts)
        else:
            found.append(obj)
    return found


_ENFORCER_RUN = frozenset({",", "/", "and", "or", "the", "a", "an", "its"})


def _names_the_enforcer(tokens, i: int, participles: frozenset[str]) -> bool:
    """The name at token i follows "banned by", "enforced by", "flagged via" (with the names coordinated before it):
    it names the check that enforces the rule (`no-restricted-globals`), not what the rule forbids."""
    k = i - 1
    while k >= 0 and (tokens[k].type in ("CODE", "EMPH") or tokens[k].norm in _ENFORCER_RUN):
        k -= 1
    return k >= 1 and tokens[k].norm in ("by", "via") and tokens[k - 1].type == "WORD" and tokens[k - 1].norm in participles


def _as_extensions(objects: list[ClauseObject]) -> list[ClauseObject]:
    """`.test` in a sentence about extensions is the glob `*.test` (`.sql.out`: `*.sql.out`)."""
    return [ClauseObject(ClauseObjectKind.PATH, "*" + o.text) if re.match(r"^\.\w+(?:\.\w+)*$", o.text) else o for o in objects]


_FILE_ENDING = re.compile(r"^`?\*?\.\w+(?:\.\w+)*`?$")
_FILE_GLOB = re.compile(r"^`?[\w.*/-]*\*[\w.*/-]*\.\w+`?$")  # `.github/workflows/*.lock.yml`
_FILE_FOLDER = re.compile(r"^`?\.?[\w-]+(?:/[\w.-]+)*/`?$")  # `build/`, `.ccache/`


def _file_or_folder(text: str) -> bool:
    """A file ending, a file glob or a folder: what a parenthesis or a list after "files" may name them by."""
    return bool(_FILE_ENDING.match(text) or _FILE_GLOB.match(text) or _FILE_FOLDER.match(text))


def _ending_files(tokens) -> bool:
    """"`.xlf` localization files": a file ending, then "files" within two words, names the files by their ending."""
    return any(t.type == "CODE" and _FILE_ENDING.match(str(t)) and any(
        w.type == "WORD" and w.norm in ("file", "files") for w in tokens[k + 1 : k + 4]) for k, t in enumerate(tokens))


def _names_the_files(part: tuple[InlineToken, ...], opening: int) -> bool:
    """"the generated golden files (`.sql.out`)", "lock files (`.github/workflows/*.lock.yml`)": a parenthesis after
    "files" holding only file endings or globs names them."""
    before = next((t for t in reversed(part[:opening]) if t.type != "EMPH"), None)  # ("**lock files** (`…`)")
    inside = list(itertools.takewhile(lambda t: t != ")", part[opening + 1 :]))
    endings = [t for t in inside if t.type in ("CODE", "PATH")]
    if not endings or not all(t.type in ("CODE", "PATH") or t == "," or t.type == "WORD" and t.norm in ("or", "and") for t in inside):
        return False
    if before is None or before.norm not in ("file", "files", "artifacts", "artefacts"):
        # "new markdown (.md) files": file endings alone, right before "files"
        after = part[opening + len(inside) + 2] if opening + len(inside) + 2 < len(part) else None
        return after is not None and after.type == "WORD" and after.norm in ("file", "files") \
            and all(_FILE_ENDING.match(str(t)) for t in endings)
    # ("build artifacts (`build/`, `.ccache/`, `*.o`)": their folders too)
    return all(_file_or_folder(str(t)) for t in endings)


def _enumerates_the_files(part, own, objs, lexicon) -> bool:
    """"generated files — notably `**/zz_generated*.go`, everything under `webui/static/`": a later segment that
    opens with a word that names members ("notably", "namely") after a clause that ends on "files", and names only
    files, folders or globs, says which files the clause means."""
    words = [t for t in part if t.type == "WORD"]
    last = next((t for t in reversed(own) if t.type == "WORD"), None)
    return bool(words) and words[0].norm in lexicon.clause_words["enumerating"] and last is not None \
        and last.norm in ("files", "directories", "folders", "artifacts", "artefacts") \
        and not any(t.type == "WORD" for t in part[: part.index(words[0])]) \
        and all(o.kind in (ClauseObjectKind.CODE, ClauseObjectKind.PATH) and _file_or_folder(o.text) for o in objs)


def _glosses(part: tuple[InlineToken, ...], opening: int) -> bool:
    """'mark PRs as "ready for review" (`gh pr ready`)': a parenthesis right after a quoted name, holding one code
    span alone, gives the code of what the quote names. (After plain words the span may as well be the means the
    sentence recommends, "ad-hoc HTTP clients (`apiClient`)", or an example, so it stays an aside.)"""
    return opening > 0 and part[opening - 1] in ('"', "”") and opening + 2 < len(part) \
        and part[opening + 1].type == "CODE" and part[opening + 2] == ")"


_QUOTES = frozenset({'"', "“", "”"})
_QUOTED_NAME = re.compile(r"^[A-Za-z][\w.-]*$")


def _quoted_names(part: tuple[InlineToken, ...], marker: int, words: dict[str, frozenset[str]]) -> tuple[InlineToken, ...]:
    """'Never "Netbox"', 'Never use "any".', 'Prefer "Postgres" instead of "PostgreSQL"': a clause that names nothing in
    backticks and whose rule word (and a writing verb) is followed by one quoted word, or a list of them, and nothing that
    continues the noun phrase, names that word as text: the quote reads as a code span. A quoted word before a noun
    ("no "magic" numbers", '"Act" comments') is a description, not the text, and stays words."""
    if marker < 0 or any(t.type in ("CODE", "PATH") for t in part):
        return part
    k = marker + 1
    while k < len(part) and (part[k].type == "EMPH" or part[k].type == "WORD" and part[k].norm in ("use", "using", "write", "writing")):
        k += 1
    out, found, rejected_side = list(part[:k]), False, False
    while k < len(part):
        if part[k] in _QUOTES and k + 2 < len(part) and part[k + 2] in _QUOTES and part[k + 1].type == "WORD" \
                and _QUOTED_NAME.match(part[k + 1]):
            name = _token(str(part[k + 1]), "CODE", 0, len(part[k + 1]))
            name.start_pos, name.end_pos = part[k].start_pos, part[k + 2].end_pos
            out.append(name)
            found, k = True, k + 3
            continue
        tok = part[k]
        if found and (tok == "," or tok.type == "WORD" and tok.norm in ("or", "and", "nor")) and k + 1 < len(part) and (
                part[k + 1] in _QUOTES or tok == "," and not rejected_side and part[k + 1].norm in words["quoted_rejecting"]):
            out.append(tok)
            k += 1
            continue
        if found and not rejected_side and tok.type == "WORD" and tok.norm in words["quoted_rejecting"]:
            # "… instead of "PostgreSQL"": the rejected side, quoted the same way
            while k < len(part) and part[k].type == "WORD" and part[k].norm in words["quoted_rejecting"]:
                out.append(part[k])
                k += 1
            rejected_side = True
            continue
        break
    if not found:
        return part
    if k < len(part) and not (part[k].type in ("PUNCT", "OTHER") and part[k] != "(" or part[k].type == "WORD" and part[k].norm in words["quoted_enders"]):
        return part  # "no "magic" numbers": the quote describes the noun after it
    return (*out, *part[k:])


def _segments(sentence: Sentence, markers: list[Marker]) -> list[tuple[int, int]]:
    """InlineToken ranges split at clause breaks and at every marker."""
    starts = {m.index for m in markers if m.index > 0} | {m.exception for m in markers if m.exception > 0}
    cuts = [0]
    for i, tok in enumerate(sentence.tokens):
        word = tok.norm if tok.type == "WORD" else ""
        breaks = i in starts or word in _CLAUSE_BREAKS or (tok.type == "PUNCT" and tok in ";—–-")
        if breaks and i > cuts[-1]:
            cuts.append(i)
    cuts.append(len(sentence.tokens))
    return list(zip(cuts, cuts[1:]))


_STRICT_RUN = frozenset({"run", "execute", "invoke", "launch", "call"})
_FILENAME = re.compile(r"^[\w-]+(?:\.[\w-]+)*\.(?:md|mdx|json|lock|ya?ml|toml|ini|cfg|txt|rst|py|ts|tsx|js|jsx|go|rs|sql|sh|env"
                       r"|config|xml|csproj|props|targets|gradle|kts|properties|mod|sum)$")


def _program_alone(tokens: list[InlineToken], governing: Marker, programs: frozenset[str]) -> list[ClauseObject]:
    """"ONLY use uv, NEVER pip": a tool's name alone after the rule word is that tool (only the tool families'
    names, which are no English words: "Never go." is not about `go`)."""
    words = [t for t in tokens if t.type == "WORD"]
    marker = [normalise_word(w) for w in governing.text.split()]
    if len(words) == len(marker) + 1 and [t.norm for t in words[:-1]] == marker and words[-1].norm in programs:
        return [ClauseObject(ClauseObjectKind.WORD, words[-1].norm)]
    return []


def _bare_objects(tokens: tuple[InlineToken, ...], programs: frozenset[str], edit_verbs: frozenset[str]) -> list[ClauseObject]:
    """Objects written without backticks: what a run verb runs (see `_program_run`), or the file name an edit verb
    acts on ("edit CHANGELOG.md"). Anything else in plain prose is not an object."""
    words = [(i, t) for i, t in enumerate(tokens) if t.type == "WORD"]
    for i, verb in words:
        if verb.norm in _STRICT_RUN and (found := _program_run(tokens[i + 1 :], programs)) is not None:
            return found
    if any(t.norm in edit_verbs for _, t in words):
        return [ClauseObject(ClauseObjectKind.PATH, str(t)) for _, t in words if _FILENAME.match(str(t))]
    return []


def _program_run(rest: tuple[InlineToken, ...], programs: frozenset[str]) -> list[ClauseObject] | None:
    """The words after a run verb: a list of programs ("run pytest, python, or airflow commands", "never run
    pytest"), or one program with its subcommand and options ("never run prisma migrate reset", "don't run
    docker-compose down -v"); None when they name no known program, or when more words narrow it ("never
    launch jupyter with a public IP", "never call prisma from components"), which the Pass 2 gate reads."""
    names: list[str] = []
    for k, nxt in enumerate(rest):
        w = nxt.norm if nxt.type == "WORD" else str(nxt)
        if w in (",", "or", "and", "the", "any", "directly", "locally"):
            continue
        if w in _LIST_NOUNS:  # "run pytest, python, or airflow commands"
            return [ClauseObject(ClauseObjectKind.WORD, n) for n in names] if len(names) > 1 or set(names) & programs else []
        if nxt.type == "WORD" and str(nxt) == w and re.fullmatch(r"[a-z][\w.-]*", w) and w not in _NARROWING_WORDS:
            j = k
            while names and j > 0 and rest[j - 1] in ("-", "--") and rest[j - 1].end_pos == rest[j].start_pos:
                j -= 1  # an option: "docker-compose down -v", "git push --force"
            names.append("".join(rest[j:k]) + w)
            continue
        if names and w in ("-", "--") and k + 1 < len(rest) and rest[k + 1].start_pos == nxt.end_pos:
            continue  # the dash of an option
        if w not in _CLAUSE_END:
            return None  # narrowed
        break
    if not names or names[0] not in programs:
        return None
    if all(n in programs for n in names):
        return [ClauseObject(ClauseObjectKind.WORD, n) for n in names]
    return [ClauseObject(ClauseObjectKind.WORD, " ".join(names))]


# Words that open what narrows a bare command ("with a public IP", "against production"); what ends it.
_NARROWING_WORDS = frozenset({"with", "without", "against", "in", "on", "from", "to", "for", "at", "when", "while", "unless",
                              "until", "before", "after", "inside", "outside", "as", "via", "by", "into", "during", "if"})
_CLAUSE_END = frozenset({".", ";", ":", "!", "?", ")", "—", "–", "-"})


_SCOPE_VERBS = frozenset({"editing", "modifying", "changing", "writing", "touching", "working"})
_SCOPE_PREPS = frozenset({"matching", "in", "under", "named", "like", "on"})


def _only_when_editing(tokens: tuple[InlineToken, ...]) -> list[ClauseObject]:
    """The globs of "only when editing files matching X" (§6.5 file_scope)."""
    if not any(t.norm == "only" for t in tokens):
        return []
    words = [(i, t.norm) for i, t in enumerate(tokens) if t.type == "WORD"]
    for k, (i, w) in enumerate(words):
        window = [x for _, x in words[k + 1 : k + 4]]
        if w == "only" and any(x in _SCOPE_VERBS for x in window):
            for j in range(i + 1, min(i + 8, len(tokens) - 1)):
                if tokens[j].type == "WORD" and tokens[j].norm in _SCOPE_PREPS:
                    found = [o for o in map(_object, tokens[j + 1 : j + 4]) if o]
                    return found[:1]
    return []


_EXAMPLE_OPENERS = frozenset({"e.g", "eg", "i.e", "ie", "like", "such", "for", "including", "say"})
_ALTERNATIVE_OPENERS = frozenset({"use", "see", "prefer", "try"})


@dataclass(slots=True)
class _Parts:
    """The tokens of a governed clause, sorted by the role they play in it."""

    main: list[InlineToken] = field(default_factory=list)  # the verb and its objects
    examples: list[InlineToken] = field(default_factory=list)  # "e.g. `X`", "like `X`", "such as `X`"
    alternatives: list[InlineToken] = field(default_factory=list)  # "(use `Y`)"
    asides: list[InlineToken] = field(default_factory=list)  # parentheses, "when …", "because …"
    rejected: list[InlineToken] = field(default_factory=list)  # "use `ruff` and not `black`": the "not" side
    qualifiers: list[list[InlineToken]] = field(default_factory=list)  # "in tests", "for v2 API payload fields"
    purpose: list[InlineToken] = field(default_factory=list)  # "to model optional collections"


def _is_object_token(tok: InlineToken, lexicon) -> bool:
    return _object(tok) is not None or tok.norm in lexicon.programs or bool(_FILENAME.match(tok))


def _split_clause(part: tuple[InlineToken, ...], lexicon, positive: bool) -> _Parts:
    """Split a governed clause into its own tokens and the tokens that are not its objects.

    Only `main` names what the rule is about: examples stand for a class the
    sentence does not spell out, asides (parentheses, subordinate clauses) and
    qualifiers narrow or explain it, and a positive clause's "not X" is the
    side it rejects (its inverse trigger).
    """
    parts = _Parts()
    words = lexicon.clause_words
    depth, bucket = 0, parts.main
    pronouns, roles = load_ladder().relative_pronouns, _by_first_word(words["role_phrases"])
    seen_object = second_act = False  # (a "to" after a second act is its own, "or make changes to other files")
    for i, tok in enumerate(part):
        if tok == "(" and not depth:
            opener = part[i + 1].norm if i + 1 < len(part) else ""
            depth = 1
            bucket = parts.alternatives if opener in _ALTERNATIVE_OPENERS else parts.examples if opener in _EXAMPLE_OPENERS \
                else parts.main if _names_the_files(part, i) or _glosses(part, i) else parts.asides
            continue
        if tok == ")" and not depth and bucket is parts.main and seen_object:
            # "always return `async Task` (never `async void`) and `await` …": the parenthesis that held the rule word
            # closes, and the sentence goes back to what it recommends
            bucket = parts.alternatives
            continue
        if depth:
            depth += (tok == "(") - (tok == ")")
            if not depth:
                bucket = parts.main if not parts.qualifiers else parts.qualifiers[-1]
                continue
        elif tok == ":" and i + 1 < len(part) and part[i + 1].type == "WORD" and part[i + 1][:1].isupper() \
                and not _rule_word_label(part[:i]):
            bucket = parts.asides  # "NEVER use code regions: If complexity suggests …, refactor": an explanation
        elif tok == ":" and bucket is parts.rejected:
            bucket = parts.asides  # "Use Maven Wrapper, not system Maven: `./mvnw`": the colon names the recommended one
        elif tok.type == "WORD" and bucket is not parts.examples and bucket is not parts.asides:
            word = tok.norm
            if (word in ("like", "including", "e.g") and not (word == "like" and i > 0 and part[i - 1].norm in words["not_example"])) \
                    or (word == "such" and i + 1 < len(part) and part[i + 1].norm == "as"):  # ("or the like" is no example)
                bucket = parts.examples
            elif word in roles and any(_starts_with(part, i, phrase) for phrase in roles[word]) or (
                    word == "as" and seen_object and i + 1 < len(part) and part[i + 1].norm not in words["explanation_subjects"]):
                parts.qualifiers.append([])  # "as a substitute for `_wait_for()`": forbidden in that role only
                bucket = parts.qualifiers[-1]
            elif word in pronouns and not seen_object and bucket is parts.main and i > 0 \
                    and _plain_plural(part[i - 1], lexicon):
                bucket = parts.asides  # "avoid helper functions that hide `nn.Module` calls": which helpers, not `nn.Module`
            elif word in words["explanations"] or word == "to" and i + 1 < len(part) and part[i + 1].norm in words["why_verbs"]:
                # "because …", "so that …", "to prevent …": why, not what
                bucket = parts.asides
            elif word in words["conditions"] and i > 0 and part[i - 1].norm in words["concessive"]:
                bucket = parts.asides  # "even if you're rewriting the change": the rule holds all the more
            elif word in words["conditions"]:  # "when …", "if …": a condition that narrows the rule
                parts.qualifiers.append([])
                bucket = parts.qualifiers[-1]
            elif word in words["place_adverbs"] and seen_object:  # "… colors here": narrowed to a place
                parts.qualifiers.append([tok])
                continue
            elif not positive and seen_object and i > 0 and part[i - 1] == "," and word in words["recommending"]:
                bucket = parts.alternatives  # "Don't use `npm install`, use `npm ci`": the side it recommends
            elif positive and word == "not" and (seen_object or (i > 0 and part[i - 1] == ",")):
                # "use `ruff`, not `black`"; "push to the fork (`origin`), not to `upstream`": after a comma the
                # recommended side may be named only in parentheses
                bucket = parts.rejected
            elif word in ("to", "into") and seen_object and bucket is parts.main and i + 1 < len(part) \
                    and part[i + 1].norm in words["determiners"] and any(t.norm in words["placing_verbs"] for t in parts.main):
                parts.qualifiers.append([])  # "never add `TODO` to the README": where it goes narrows the rule
                bucket = parts.qualifiers[-1]
            elif word == "or" and not positive and seen_object and bucket is parts.main and i + 1 < len(part) \
                    and part[i + 1].type == "WORD" and part[i + 1].norm in words["second_verbs"]:
                second_act = True  # "Do not run `dotnet format` or make formatting changes to …": another act follows
            elif word == "to" and seen_object and bucket is parts.main and i + 1 < len(part) and part[i + 1].type == "WORD" \
                    and part[i + 1].norm not in words["determiners"] and not part[i + 1].norm.endswith("ed") and not second_act:
                bucket = parts.purpose  # "do not use `#[serde(default)]` to model optional collections"
            elif word == "for" and parts.qualifiers and bucket is parts.qualifiers[-1] and bucket[0].norm == "without" \
                    and lexicon.qualifiers["person"].search(_qualifier_text(bucket)):
                pass  # "without explicit user approval for the exact rule": what the person approves, part of the exception
            elif word in words["qualifier_openers"] and bucket is not parts.rejected and (
                seen_object or sum(t.type == "WORD" for t in parts.main) >= 2
            ) and not _coordinated_place(part, i, words):
                # "in tests" after the object; "add newsfragments for `providers/`": a place, not the object
                parts.qualifiers.append([])
                bucket = parts.qualifiers[-1]
        if not seen_object and bucket is parts.main and _is_object_token(tok, lexicon):
            seen_object = True
        bucket.append(tok)
    return parts


def _rule_word_label(before) -> bool:
    """"**Don't**: Use the `any` type": the words before the colon are the rule word alone, a label for the rule that
    follows it, not a rule the colon goes on to explain."""
    words = [t.norm for t in before if t.type != "EMPH"]
    return bool(words) and all(t.type in ("WORD", "EMPH") for t in before) \
        and tuple(words) in {phrase for found in load_ladder().phrases.get(words[0], []) for phrase in found[:1]}


def _coordinated_place(part, i: int, words) -> bool:
    """"Never edit `zz_generated.*` or content in `pkg/client/`": a second object, what a place holds, joined to the
    first by "or"/"and" (the place is what is forbidden, not where the first is)."""
    return _word_at(part, i - 2) in ("or", "and") and _word_at(part, i - 1) in words["place_contents"] \
        and i + 1 < len(part) and part[i + 1].type in ("CODE", "PATH")


def _word_at(part, k: int) -> str:
    return part[k].norm if 0 <= k < len(part) and part[k].type == "WORD" else ""


def _plain_plural(token: InlineToken, lexicon) -> bool:
    """A plain plural noun ("functions", "files"), which a relative clause after it describes."""
    return token.type == "WORD" and len(token.norm) > 3 and token.norm.endswith("s") and token.norm not in lexicon.verbs \
        and token.norm not in lexicon.clause_words["subject_verbs"]


def _qualifier_text(tokens) -> str:
    return " ".join(t.norm if t.type == "WORD" else str(t).strip("`") for t in tokens if t.type in ("WORD", "CODE", "PATH"))


def _read_subject(clause: Clause, tokens, lexicon) -> None:
    """The subject before the marker narrows the rule unless it is the agent itself:
    "any new developer fragment must …", "Tests must not …" (-> test files)."""
    words = lexicon.clause_words
    dropped = words["subjects"] | words["connectors"]
    kept = [t for t in tokens if t.type == "CODE" or t.type == "WORD" and t.norm not in dropped]
    text = _qualifier_text(kept)
    if text:
        _narrow(clause, text, lexicon.qualifier_scope("in " + text, [o for o in map(_object, kept) if o]))


def _read_qualifier(clause: Clause, tokens, lexicon) -> None:
    """A qualifier narrows the rule: files it names become file scope, harmless ones
    ("on the host", "in a PR") go, and any other is kept for admission to judge."""
    tokens = list(tokens)
    while tokens and tokens[-1].type == "WORD" and tokens[-1].norm in lexicon.clause_words["connectors"]:
        tokens.pop()  # "in the lockfile and ALWAYS use …": the "and" joins the next clause
    text = _qualifier_text(tokens)
    if not text:
        return
    if tokens[0].norm == "without" and lexicon.qualifiers["person"].search(text):
        # "Never push without asking": a person's exception, as "unless asked" is; it and what follows it ("to do
        # so") are no part of what is forbidden
        clause.condition = clause.condition or text
        words = " ".join(t.norm for t in tokens if t.type in ("WORD", "CODE", "PATH"))
        if (at := clause.scope_text.find(f" {words}")) > 0:
            clause.scope_text = clause.scope_text[:at]
        return
    _narrow(clause, text, lexicon.qualifier_scope(text, [o for o in map(_object, tokens) if o]))


_REJECTED_LEADS = frozenset({"not", "of", "than", "to"})


def _add_rejected(clause: Clause, tokens) -> None:
    """The words of a positive clause's rejected side, for the prose shapes ("over raw SQL"); the
    words that only introduce it ("not", "instead of", "rather than", "not to") are left out."""
    words = [t for t in tokens if t.type in ("WORD", "CODE", "PATH")]
    while words and words[0].type == "WORD" and words[0].norm in _REJECTED_LEADS:
        words = words[1:]
    text = _qualifier_text(words)
    if text:
        clause.rejected = f"{clause.rejected} {text}".strip()


def _adds_a_concept_to(main, lexicon) -> bool:
    """"add logging to the `packages/` directory": a placing verb whose thing placed is words, not a name or files,
    before "to"/"into" and a named place."""
    words = lexicon.clause_words
    start = next((k for k, t in enumerate(main) if t.norm in words["placing_verbs"]), -1)
    end = next((k for k in range(start + 1, len(main)) if main[k].norm in ("to", "into")), -1)
    between = [t for t in main[start + 1 : end] if t.type == "WORD"]
    place = next((t for t in main[end + 1 :] if t.norm not in words["determiners"]), None) if end > 0 else None
    return start >= 0 and end > start + 1 and len(between) == end - start - 1 and place is not None \
        and _object(place) is not None and not {t.norm for t in between} & set(words["placed_files"])


def _narrow(clause: Clause, text: str, scope: list[str] | None) -> None:
    if scope is None:
        clause.qualifiers.append(text)
    else:
        clause.file_scope.extend(g for g in scope if g not in clause.file_scope)


def _antecedent(tokens, lexicon) -> str:
    """The last plural noun before the rule word, which "ones" after it stands for ("" when there is none)."""
    plurals = [t.norm for t in tokens if t.type == "WORD" and len(t.norm) > 3 and t.norm.endswith("s")
               and t.norm not in lexicon.verbs and t.norm not in lexicon.clause_words["subject_verbs"]]
    return plurals[-1] if plurals else ""


def _commas(tokens) -> frozenset[int]:
    """The positions, among the word, code and path tokens, of those a comma follows."""
    words, after = 0, set()
    for t in tokens:
        if t.type in ("WORD", "CODE", "PATH"):
            words += 1
        elif t == "," and words:
            after.add(words - 1)
    return frozenset(after)


@lru_cache(maxsize=4)
def _participles(passives: frozenset[str]) -> dict[str, str]:
    """Each past participle of the lexicon's `passives` ("committed:commit") -> its verb."""
    return dict(p.split(":") for p in passives)


def lead_verb(sentence: Sentence, governing: Marker, lexicon) -> str:
    """The verb a lead line's rule word governs, which its list items take ("must NOT be committed:" -> commit), or ""."""
    participles = _participles(lexicon.clause_words["passives"])
    words = [t.norm for t in sentence.tokens[governing.index + 1 :] if t.type == "WORD" and t.norm not in ("ever", "be")]
    if words and words[0] in lexicon.clause_words["protecting_verbs"]:
        return words[0]  # "## Never skip" over "- `npm test`": what the items must not lose, not what to stop
    for token in sentence.tokens[governing.index + 1 :]:
        if token.type == "WORD" and (token.norm in lexicon.verbs or token.norm in participles):
            return participles.get(token.norm, token.norm)
    return ""


def _passive_verb(own: tuple[InlineToken, ...], lexicon) -> str:
    """The verb of a governed clause that is a passive and nothing else ("must not be used", "… by hand"), or ""."""
    words = [t.norm for t in own if t.type == "WORD"]
    be = next((k for k, w in enumerate(words) if w == "be"), -1)
    if be < 0 or be + 2 > len(words) or any(t.type in ("CODE", "PATH") for t in own) \
            or any(w not in lexicon.clause_words["self_references"] for w in words[be + 2 :]):
        return ""  # ("must never be edited by hand" is one; "must not be used for X" is not)
    return _participles(lexicon.clause_words["passives"]).get(words[be + 1], "")


def _passive_subject(part: tuple[InlineToken, ...], lexicon) -> list[ClauseObject]:
    """The objects a passive forbids: those right before its relative pronoun ("This replaces `AppContext` which …
    should NEVER be used"), else the subject's own when it has no verb of its own ("The old types `X` and `Y`")."""
    pronouns = [k for k, t in enumerate(part) if t.type == "WORD" and t.norm in load_ladder().relative_pronouns]
    if pronouns:
        run: list[InlineToken] = []
        for t in reversed(part[: pronouns[-1]]):
            if t.type in ("CODE", "PATH"):
                run.insert(0, t)
            elif not (t in (",",) or t.type == "WORD" and t.norm in ("and", "or")):
                break
        return _objects(tuple(run), lexicon)
    if any(t.type == "WORD" and (t.norm in lexicon.verbs or t.norm in lexicon.clause_words["subject_verbs"]) for t in part):
        return []
    return _objects(part, lexicon)


def _pronoun_subject(clause: Clause, before, lexicon) -> None:
    """"`expect`, `jest-util` … are consumed by browser bundles — they must NOT use `node:`": a pronoun right before the
    rule word stands for things the sentence named before it, and they, not every file, are what must not use the
    object. Which files those things are no pattern knows, so the rule is narrowed (Pass 2)."""
    words = [t for t in before if t.type != "EMPH"]
    if not words or words[-1].type != "WORD" or words[-1].norm not in lexicon.clause_words["antecedent_pronouns"]:
        return
    objects = _objects(tuple(words[:-1]), lexicon)
    named = [o.text for o in objects]
    if named and not {o.text for o in clause.objects} & set(named):
        # ("`legacy/` holds old code — it must never import `moment`": those files, the rule's file scope)
        scope = lexicon.qualifier_scope("in " + " and ".join(named), objects)
        shown = ", ".join(f"`{n}`" for n in named[:2]) + (", …" if len(named) > 2 else "")
        _narrow(clause, f"{words[-1].norm} ({shown})", scope or None)


def place_as_object(clause: Clause, lexicon) -> None:
    """"Never write in `/etc/`": with no object, the place an edit verb acts in is what it acts on."""
    if not clause.objects and clause.file_scope and clause.verb in lexicon.edit_verbs \
            and not any(g.startswith("!") for g in clause.file_scope) and not _acts_on_a_word(clause, lexicon):
        clause.objects = [ClauseObject(ClauseObjectKind.PATH, glob) for glob in clause.file_scope]
        clause.file_scope = []


def words_after_verb(clause: Clause) -> list[str] | None:
    """The clause's words after its verb, or None when the verb is not among them."""
    words = clause.scope_text.split()
    return words[words.index(clause.verb) + 1 :] if clause.verb in words else None


def _acts_on_a_word(clause: Clause, lexicon) -> bool:
    """"Update state directly inside coroutines": the verb has an object of its own in words, and the place, a plain
    word (no path is written: "edit translated docs under `docs/ja`" names its folder), only says where in the code."""
    if any(glob in clause.scope_text for glob in clause.file_scope):
        return False
    known = lexicon.clause_words
    after = words_after_verb(clause) or []
    passed = known["self_references"] | lexicon.verbs | {"or", "and"}  # ("delete or rename files under …")
    named = next((w for w in after if w not in passed), "")
    return bool(named) and named not in known["place_prepositions"] | known["glob_place_prepositions"] | known["place_objects"]


def _drop_agent_made(clause: Clause, agent_made: re.Pattern) -> None:
    """Words true of anything the agent makes or does ("that are AI-generated", "on their behalf") narrow nothing:
    they leave the clause's text and qualifiers."""
    found = [m.group(0).strip() for m in agent_made.finditer(clause.scope_text)]
    if not found:
        return
    clause.scope_text = agent_made.sub("", clause.scope_text)
    kept = []
    for qualifier in clause.qualifiers:
        for phrase in found:
            qualifier = re.sub(rf"(?:^| ){re.escape(phrase)}(?= |$)", "", qualifier).strip()
        if qualifier:
            kept.append(qualifier)
    clause.qualifiers = kept


def read_clause(sentence: Sentence, markers: list[Marker], governing: Marker, lexicon) -> Clause:
    """Read the clause governed by `governing` and the shapes around it."""
    clause = Clause(marker=governing, headed=any(m.text in load_ladder().headers for m in markers))
    tokens = sentence.tokens
    segments = _segments(sentence, markers)

    def segment_of(marker: Marker) -> tuple[int, int]:
        index = max(marker.index, 0)
        return next((s for s in segments if s[0] <= index < s[1]), segments[0])

    own = segment_of(governing)
    if not any(t.type in ("CODE", "PATH") for t in tokens[own[0] : own[1]]):
        # "Avoid hardcoded white: do not use `.white()`": an equally strong
        # marker whose clause names something concrete reads the sentence
        for other in markers:
            span = segment_of(other)
            if other.marker_class == governing.marker_class and any(t.type in ("CODE", "PATH") for t in tokens[span[0] : span[1]]):
                own, governing, clause.marker = span, other, other
                break
    clause.scope_text = " ".join(t.norm for t in tokens[own[0] : own[1]] if t.type in ("WORD", "CODE", "PATH"))
    clause.commas = _commas(tokens[own[0] : own[1]])
    if " ones" in f" {clause.scope_text} " and (antecedent := _antecedent(tokens[: own[0]], lexicon)):
        # "Legacy enums exist but don't add new ones": the plural the sentence named before its rule word
        clause.scope_text = re.sub(r"\bones\b", antecedent, clause.scope_text)
    polarity = load_ladder().classes[governing.marker_class].polarity
    passive = _passive_verb(tokens[own[0] : own[1]], lexicon) if polarity == "negative" else ""
    subject: list[ClauseObject] = []
    # a later clause with its own prohibition ("…; avoid `b`") forbids its objects too, never recommends them
    coordinated = {m.index for m in markers if m.index > own[0] and (
        m.marker_class == governing.marker_class or polarity == "negative" == load_ladder().classes[m.marker_class].polarity)}
    examples = _in_example(tokens)
    quoted_own = False
    for start, end in segments:
        part = tokens[start:end]
        lead = part[0].norm if part[0].type == "WORD" else ""
        objs = _objects(part, lexicon) if (start, end) != own else []  # (the own clause's are read from its parts)
        if (start, end) == own:
            quoted = _quoted_names(part, governing.index - start, lexicon.clause_words)
            quoted_own, part = quoted is not part, quoted
            clause.quoted_words = quoted_own
            parts = _split_clause(part, lexicon, polarity == "positive")
            clause.objects = (_objects(parts.main, lexicon) or _bare_objects(tuple(parts.main), lexicon.programs, lexicon.edit_verbs)
                              or _program_alone(parts.main, governing, lexicon.family_tools))
            clause.examples = _objects(parts.examples, lexicon)
            clause.asides = _objects(parts.asides, lexicon)
            rejected = _split_clause(tuple(parts.rejected), lexicon, False)
            # "over something more service-like such as `X.new(a).call`": an example of the rejected side is not it
            clause.instead_of.extend(_objects(rejected.main, lexicon))
            _add_rejected(clause, rejected.main)
            clause.alternatives.extend(_objects(parts.alternatives, lexicon))
            clause.verb = next((t.norm for t in parts.main if t.type == "WORD" and t.norm in lexicon.verbs), "")
            if clause.verb in lexicon.clause_words["placing_verbs"]:
                # "Never add `follow-redirects` to `minimumReleaseAgeExclude`": where the thing goes is not forbidden
                # itself; it narrows the rule in a way a literal does not see. A file or folder ("to `src/`") is the
                # rule's file scope
                places = [found for k, t in enumerate(parts.main[2:], 2)
                          if parts.main[k - 1].norm in ("to", "into") and _object(parts.main[k - 2]) is not None
                          and (found := _object(t)) is not None]
                if places and any(o not in places for o in clause.objects):
                    clause.objects = [o for o in clause.objects if o not in places]
                    text = " ".join(p.text for p in places)
                    _narrow(clause, f"to {text}", lexicon.qualifier_scope(f"in {text}", places))
                elif _adds_a_concept_to(parts.main, lexicon):
                    # "Don't add logging to the `packages/` directory": what is added is no name, and where it goes is
                    # no file it forbids ("Never add files to `dist/`" still is one)
                    _narrow(clause, " ".join(t.norm for t in parts.main[1:]), None)
                    clause.objects = []
            words_git = lexicon.clause_words["git_names"]
            if polarity == "negative" and clause.verb not in lexicon.content_verbs:
                # "Never return ORM fields directly from `api/limits.py`": where something comes from, not the file acted
                # on; "Put checks in `page.tsx`, never in `layout.tsx`": where something goes, unless an edit verb acts there
                known = lexicon.clause_words
                places = known["source_prepositions"] | (frozenset() if clause.verb in lexicon.edit_verbs else known["place_prepositions"])
                sources = {found.text for k, t in enumerate(parts.main[1:], 1)
                           if parts.main[k - 1].norm in places and (found := _object(t)) is not None}
                if any(t.norm in words_git for t in parts.main if t.type == "WORD"):
                    # "Do not create a branch prefixed with claude/": names of branches, tags or remotes, never paths
                    sources |= {o.text for o in clause.objects if "/" in o.text}
                clause.objects = [o for o in clause.objects if o.text not in sources]
            if polarity == "negative" and _concepts_outnumber_names(parts.main):
                # "Do not add a repository lock, host-wide mutex, sentinel file, or user-triggered `finalize`"
                clause.objects = []
            for qualifier in parts.qualifiers:
                _read_qualifier(clause, qualifier, lexicon)
            clause.purpose = _qualifier_text(parts.purpose)
            if clause.verb in lexicon.clause_words["placing_verbs"] and clause.purpose.startswith("to "):
                # "Do not add `PRAGMA enable_verification` to tests": where the thing goes, not why
                place = lexicon.qualifier_scope("in " + clause.purpose[3:], [])
                if place is not None:
                    clause.file_scope.extend(g for g in place if g not in clause.file_scope)
                    clause.purpose = ""
            place_as_object(clause, lexicon)
        elif start < own[0] and start == 0 and _first_word(part[_label_end(part):]) in lexicon.clause_words["leading_qualifiers"]:
            # "In `airflow-core`, functions … must not …", "if the rebase stops …, do NOT run …", and after a label
            # ("**Spans:** in handlers only `Span::add()` — never `Span::init`")
            # the last comma ends the qualifier ("When a PR applies a workaround, version cap, or fix, you …")
            comma = max((k for k, t in enumerate(part) if t == ","), default=len(part))
            _read_qualifier(clause, part[_label_end(part) : comma], lexicon)
            if end == own[0] and comma < len(part):  # "In Python, I want you to …": the subject after the comma
                _read_subject(clause, part[comma + 1 :], lexicon)
        elif start == 0 and end == own[0] and polarity == "positive" and any(_no_label(part)):
            # "**No bare `except`**: always catch specific exception types": the label names what the rule turns down
            _add_rejected(clause, part[slice(*_no_label(part))])
        elif end == own[0] and passive and objs:
            # "The old types `WindowContext` and `ViewContext<T>` should NEVER be used": what the passive forbids
            subject = _passive_subject(part, lexicon)
        elif polarity == "negative" and lead in lexicon.clause_words["recommending"] \
                and (end == own[0] and part[-1] == "," or list(tokens[end : own[0]]) == [";"]):
            # "Use `globalThis`, never `global`", "Reuse the flags in `utils/import_utils.py`; don't call …": the side
            # it recommends
            clause.alternatives.extend(objs)
        elif end == own[0] and (start == 0 or lead in lexicon.clause_words["connectors"]) and part[-1] not in (",", ":", ";") \
                and normalise_word(governing.text) not in load_ladder().form_phrases:
            # (a sentence form's own words before its rule word, "The most important rule is not to …", are no subject)
            # the words right before the marker, unless they end a clause of their own ("Releases go through a PR, never …")
            _read_subject(clause, part, lexicon)
        elif (lead in ("instead", "rather") or (lead == "over" and polarity == "positive")) and start not in examples:
            # (not inside "(e.g., `<C visible={true} />` instead of `<C visible />`)": an example pair, not the rule's sides)
            if quoted_own:  # 'Prefer "Postgres" instead of "PostgreSQL"': the rejected side is quoted the same way
                part = _quoted_names(part, 1 if len(part) > 1 and part[1].norm in ("of", "than") else 0, lexicon.clause_words)
                objs = _objects(part, lexicon)
            split = _split_clause(part[1:], lexicon, False)
            side = split.main  # ("over something such as `X`": X is an example)
            (clause.instead_of if polarity == "positive" else clause.alternatives).extend(_objects(side, lexicon))
            if polarity == "positive":  # "over raw SQL": the words of the side the sentence turns down
                _add_rejected(clause, side)
                # "Prefer `fixture.Flush()` over direct `sentry.Flush(...)` in tests built on `internal/sentrytest`": a
                # place after the side it turns down that names a module or folder is where the whole preference holds
                # (a place in words alone, "in specs", "in comments, error messages and docs", is how the side is met,
                # and is left as it was)
                if any(t.type in ("CODE", "PATH") for qualifier in split.qualifiers for t in qualifier):
                    for qualifier in split.qualifiers:
                        if qualifier and qualifier[0].type == "WORD" and qualifier[0].norm in ("in", "inside", "within"):
                            _read_qualifier(clause, qualifier, lexicon)
        elif lead in lexicon.clause_words["exception_openers"] or start == governing.exception > 0:
            # ("Only commit when explicitly asked": the sentence form's exception, as "unless asked" is one)
            clause.exceptions.extend(objs)
            clause.condition = " ".join(t.norm for t in part if t.type == "WORD")
        elif start > own[0] and polarity == "negative" and not clause.objects and objs \
                and _enumerates_the_files(part, tokens[own[0] : own[1]], objs, lexicon):
            # "Do not hand-edit generated files — notably `**/zz_generated*.go` and `webui/static/`": the files it means
            clause.objects.extend(objs)
            clause.scope_text += " " + " ".join(t.norm for t in part if t.type in ("WORD", "CODE", "PATH"))
        elif start in coordinated:
            # "Never push to `upstream` (and never push to `main` …)": a second prohibition of the same strength
            clause.objects.extend(o for o in objs if o not in clause.objects)
            clause.scope_text += " " + " ".join(t.norm for t in part if t.type in ("WORD", "CODE", "PATH"))
        elif start > own[0] and polarity == "negative":
            clause.alternatives.extend(objs)
        if start > own[0] and lead not in lexicon.clause_words["exception_openers"] and start != governing.exception:
            # a condition after the clause ("… over `X` when tests need …") narrows the rule too
            for qualifier in _split_clause(part, lexicon, False).qualifiers:
                # ("let the user decide when to mark them ready": a question, not a condition)
                if qualifier and qualifier[0].norm in lexicon.clause_words["conditions"] \
                        and not (len(qualifier) > 1 and qualifier[1].norm == "to"):
                    _read_qualifier(clause, qualifier, lexicon)
    if subject:
        clause.verb, clause.objects = passive, subject
        clause.scope_text = f"{' '.join(o.text.lower() for o in subject)} {clause.scope_text}"
    elif polarity == "negative" and not passive and clause.objects:
        _pronoun_subject(clause, tokens[: own[0]], lexicon)
    words = [t.norm for t in tokens[own[0] : own[1]] if t.type == "WORD"]
    for i, w in enumerate(words):
        if w in _SEQUENCE_WORDS and polarity == "positive":
            clause.sequence = " ".join(words[i:])
            break
    if any(t.type == "WORD" and t.norm in lexicon.clause_words["extension_nouns"] for t in tokens) \
            or any(t == "(" and _names_the_files(tokens, k) for k, t in enumerate(tokens)) or _ending_files(tokens):
        # "Slow tests should use `.test_slow` extension instead of `.test`": the endings of file names
        clause.objects, clause.instead_of = _as_extensions(clause.objects), _as_extensions(clause.instead_of)
        # ("never hardcode package versions in `.csproj` files": the files a qualifier names by their ending)
        clause.file_scope = [o.text for o in _as_extensions([ClauseObject(ClauseObjectKind.PATH, g) for g in clause.file_scope])]
    _drop_agent_made(clause, lexicon.qualifiers["agent_made"])
    scoped = _only_when_editing(tokens)
    if scoped:
        clause.file_scope.extend(o.text for o in scoped if o.text not in clause.file_scope)
        clause.objects = [o for o in clause.objects if o not in scoped]
    return clause
