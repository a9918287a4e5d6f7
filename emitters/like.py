"""Lowering a GuardRule regex to Cedar `like` globs (spec §15.3).

Cedar's `like` knows one wildcard, `*` (any characters, `/` included), is
case-sensitive and always matches the whole string. A regex is parsed with
Python's own parser (the emitted regexes are in the subset Python and
JavaScript read alike) and rewritten into alternatives, each a glob with the
globs it must not match (from negative lookaheads). Alternations and small
character classes expand exactly; `\\s+`, `\\b`, classes like `[^/]` and
case-insensitive letters are approximated and say so; anything else is
unsupported, with the reason.
"""

from __future__ import annotations

import re
import re._constants as C
import re._parser as sre
from dataclasses import dataclass, field
from itertools import product
from math import prod

MAX_ALTERNATIVES = 64
_WILD = object()  # `*` in a glob


class Unsupported(Exception):
    """The regex has no `like` form; the message says why."""


@dataclass(slots=True)
class Alternative:
    pieces: list = field(default_factory=list)  # literal characters and _WILD
    anchored_start: bool = False
    anchored_end: bool = False
    excludes: list[str] = field(default_factory=list)  # globs this alternative must not match
    requires: list[str] = field(default_factory=list)  # globs it must also match

    def copy(self) -> Alternative:
        return Alternative(list(self.pieces), self.anchored_start, self.anchored_end, list(self.excludes), list(self.requires))

    def glob(self) -> str:
        out = [] if self.anchored_start else ["*"]
        for piece in self.pieces:
            if piece is _WILD:
                if not out or out[-1] != "*":
                    out.append("*")
            else:
                out.append({"*": "\\*", "\\": "\\\\"}.get(piece, piece))  # literal star and backslash, escaped for `like`
        if not self.anchored_end and (not out or out[-1] != "*"):
            out.append("*")
        return "".join(out)


@dataclass(slots=True)
class LikeForm:
    alternatives: list[Alternative]
    exact: bool
    notes: list[str]  # what was approximated


def _char_class(items) -> list[str] | None:
    """A class as its literal characters; None when it is too wide to enumerate."""
    if len(items) > 6 or any(op is not C.LITERAL for op, _ in items):
        return None
    return [chr(av) for _, av in items]


class _Lowering:
    def __init__(self, ignore_case: bool):
        self.ignore_case = ignore_case
        self.notes: list[str] = []

    def approximate(self, note: str) -> None:
        if note not in self.notes:
            self.notes.append(note)

    def seq(self, items, alts: list[Alternative]) -> list[Alternative]:
        for op, av in items:
            alts = self.item(op, av, alts)
            if len(alts) > MAX_ALTERNATIVES:
                raise Unsupported(f"more than {MAX_ALTERNATIVES} alternatives")
        return alts

    def item(self, op, av, alts: list[Alternative]) -> list[Alternative]:
        if op is C.LITERAL:
            char = chr(av)
            if self.ignore_case and char.isalpha():
                self.approximate(_CASE_NOTE)
            return [self._append(a, char) for a in alts]
        if op is C.AT:
            if av is C.AT_BEGINNING:
                for a in alts:
                    if a.pieces:
                        raise Unsupported("^ in the middle of a pattern")
                    a.anchored_start = True
            elif av is C.AT_END:
                for a in alts:
                    a.anchored_end = True
            else:
                self.approximate("word boundaries are dropped")
            return alts
        if op is C.ANY:
            self.approximate("a single-character wildcard becomes *")
            return [self._append(a, _WILD) for a in alts]
        if op is C.IN:
            chars = _char_class(av)
            if chars is not None:
                return [self._append(a.copy(), c) for a in alts for c in chars]
            if av == [(C.CATEGORY, C.CATEGORY_SPACE)]:
                self.approximate("white space matches a single space")
                return [self._append(a, " ") for a in alts]
            self.approximate("a character class becomes *")
            return [self._append(a, _WILD) for a in alts]
        if op in (C.MAX_REPEAT, C.MIN_REPEAT):
            low, high, sub = av
            if low == 0 and high == 1:  # optional: with and without
                return alts + self.seq(sub, [a.copy() for a in alts])
            single = len(sub) == 1 and sub[0][0] in (C.ANY, C.IN, C.NOT_LITERAL)
            if single and sub[0] == (C.IN, [(C.CATEGORY, C.CATEGORY_SPACE)]):
                if low == 0 and all(a.anchored_start and not a.pieces for a in alts):
                    self.approximate("leading white space is not matched")
                    return alts
                if low == 0:
                    return [self._append(a, _WILD) for a in alts]
                self.approximate("white space matches a single space")
                return [self._append(a, " ") for a in alts]
            if not single and low == 0:  # wrappers before a program, options before a subcommand
                self.approximate("an optional repeated group is matched zero times")
                return alts
            if not (single and sub[0][0] is C.ANY and low == 0 and high == C.MAXREPEAT):
                self.approximate("a repetition becomes *")
            return [self._append(a, _WILD) for a in alts]
        if op is C.SUBPATTERN:
            return self.seq(av[3], alts)
        if op is C.BRANCH:
            out = []
            for branch in av[1]:
                out.extend(self.seq(branch, [a.copy() for a in alts]))
            return out
        if op is C.ASSERT_NOT and av[0] == 1:
            return self._lookahead(av[1], alts, negative=True)
        if op is C.ASSERT and av[0] == 1:
            return self._lookahead(av[1], alts, negative=False)
        if op is C.ASSERT_NOT and av[0] == -1:  # what may not stand before (`vi.` of `vi.waitFor`): wider, fails closed
            self.approximate("a look-behind is dropped")
            return alts
        raise Unsupported(f"regex construct {op} has no like form")

    def _lookahead(self, sub, alts: list[Alternative], negative: bool) -> list[Alternative]:
        inner = _Lowering(self.ignore_case)
        globs = [g.glob() for g in inner.seq(sub, [Alternative()])]
        if not any(len(g.replace("*", "")) >= 2 for g in globs):
            self.approximate("a one-character look-ahead is dropped")
            return alts
        self.approximate("a look-ahead applies to the whole value")
        for a in alts:
            (a.excludes if negative else a.requires).extend(globs)
        return alts

    @staticmethod
    def _append(alt: Alternative, piece) -> Alternative:
        if alt.anchored_end:
            raise Unsupported("$ in the middle of a pattern")
        alt.pieces.append(piece)
        return alt


def lower(regex: str, flags: str = "") -> LikeForm:
    """The `like` form of a GuardRule regex, or Unsupported."""
    if set(flags) - set("i"):
        raise Unsupported(f"flags {flags!r} have no like form")
    try:
        parsed = sre.parse(regex)
    except re.error as exc:  # pragma: no cover - the compiler only emits valid regexes
        raise Unsupported(f"regex does not parse: {exc}") from None
    lowering = _Lowering("i" in flags)
    alternatives = lowering.seq(parsed.data, [Alternative()])
    unique = []
    seen = set()
    for alt in alternatives:
        key = (alt.glob(), tuple(alt.excludes), tuple(alt.requires))
        if key not in seen:
            seen.add(key)
            unique.append(alt)
    if _CASE_NOTE in lowering.notes:
        variants = {(v.glob(), tuple(v.excludes), tuple(v.requires)): v for alt in unique for v in _case_variants(alt)}
        unique = list(variants.values())
    return LikeForm(unique, exact=not lowering.notes, notes=lowering.notes)


_CASE_NOTE = "case-insensitive letters match in four spellings: as written, lower, upper and Title-Case"
_MAX_CASE_VARIANTS = 16


def _spell(run: str, kind: int) -> str:
    """A run of text as written (0), lower-case (1), upper-case (2) or Title-Case (3)."""
    if kind == 3:
        return "".join(c.lower() if i and run[i - 1].isalpha() else c.upper() for i, c in enumerate(run))
    return (run, run.lower(), run.upper())[kind]


def _case_variants(alt: Alternative) -> list[Alternative]:
    """`Co-authored-by` as written and as `co-authored-by`, `CO-AUTHORED-BY`, `Co-Authored-By`,
    each run of literal text on its own (`git commit*Co-Authored-By*`): `like` is
    case-sensitive, and these are the spellings people and tools write."""
    runs: list[list[str]] = [[]]
    for piece in alt.pieces:
        if piece is _WILD:
            runs.append([])
        else:
            runs[-1].append(piece)
    texts = ["".join(run) for run in runs]
    choices = [list(dict.fromkeys(_spell(t, kind) for kind in range(4))) for t in texts]
    if prod(map(len, choices)) <= _MAX_CASE_VARIANTS:
        combos = list(product(*choices))
    else:  # too many: the whole text in each spelling
        combos = list(dict.fromkeys(tuple(_spell(t, kind) for t in texts) for kind in range(4)))
    variants = []
    for combo in combos:
        variant = alt.copy()
        variant.pieces = [piece for n, run in enumerate(combo) for piece in ([_WILD] if n else []) + list(run)]
        variants.append(variant)
    return variants
