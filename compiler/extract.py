"""Extraction: one source's blocks -> imperatives and skipped items (§4-§7), in stages.

Each stage is a function of the one before it, and returns plain data that can
be printed (`policyc explain` does):

1. `blocks(source)`: the markdown blocks of the body, with their line spans.
2. `units(source, blocks)`: walks the blocks in order, keeping the heading path
   and the last lead line ("Never run these commands:") so that list items and
   fenced lines under them inherit their marker (§4 forbidden and required
   lists); every sentence with a §5 marker becomes a `Unit`.
3. `clauses(source, units)`: each unit's quote and the `Clause` its governing
   marker rules, or the `Skipped` item it becomes (run-on, hedged, a question).
4. `candidates(source, readings)`: the `Imperative` each clause proposes (its
   trigger, action, scope and routes).

compiler/admission.py then decides whether a proposed rule enters Pass 1.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import NamedTuple

from ..grammar import load as load_grammar
from .admission import load_admission, surely_a_path
from .blocks import Block, load_block_parser, parse_blocks
from .clauses import Clause, Marker, Sentence, find_markers, lead_verb, load_scanner, place_as_object, read_clause, split_sentences, strongest, words_after_verb
from .ir import RUN_ON, Action, ClauseObject, ClauseObjectKind, Imperative, Pattern, Prose, Severity, Skipped, TriggerKind, proposed_routes, with_reviewer
from .ladder import load_ladder, normalise_word
from .regexes import any_of, glob_to_regex
from .sources import Source, load_conventions
from .triggers import COMMIT_VERBS, infer_sequence, infer_trigger, is_script, load_lexicon, object_kind, omp_trigger

_PREFIX = re.compile(r"^(\s*(?:[-*+]|\d{1,9}[.)])[ \t]+|\s*>[ \t]?|\s*#{1,6}[ \t]+)")
_GOOD_EXAMPLE = re.compile(r"^\W*(?:good|right|correct|do this|after)\s*:|✅|✔|✓", re.IGNORECASE)
_CROSS = re.compile(r"^\W*(?:❌|🚫|✗)")
_WORDS = re.compile(r"[\w'’]+")
_BAD_EXAMPLE = re.compile(
    r"^\W*(?:bad|wrong|incorrect|avoid this|don'?t do this|do not do this|anti-?pattern|before)\b|❌|🚫|✗",
    re.IGNORECASE,
)
# A do/don't pair's bad half: a "DON'T:" label and code alone ("* **DON'T:** `selected="true"`", then
# "* **DO:** `selected={{eq …}}`", or the label over a fenced block) shows one instance of the rule stated
# above it, not a thing to ban literally. (A bare "Do not:" over list items still hands them its ban.)
_DONT_LABEL = re.compile(r"^\W*(?:don[’']?t|do\s+not)\W*:\W*(?:`[^`]+`\W*(?:\([^)]*\))?\s*)?(?:\W*do\W*:.*)?$",
                         re.IGNORECASE | re.DOTALL)
# An unmarked line that lists instances of what the previous sentence forbids.
_EXAMPLES_OF = re.compile(r"^(?:examples?\s+include|such as|these include|this includes|including)\s*:$", re.IGNORECASE)
_LETTERS = re.compile(r"[a-z]+")
_STEP = re.compile(r"^\s*\d{1,9}[.)][ \t]")
_COMMENT_LINE = re.compile(r"^\s*(?:#|//|--|/\*|\*(?:\s|$)|<!--)")  # `*_FIX.md` is not a comment
# a comment after the code on a fenced line ("jest.fn().mockReturnValue(x); // widens to UnknownFunction",
# "git push -f  # rewrites history") annotates the code; it is no part of what the line forbids
_TRAILING_COMMENT = re.compile(r"\s+(?://|#)\s.*$")
# Real rule files put at most 5 rule words and 11 names in backticks in one sentence. Reading a
# clause per marker, and checking each name against the quote, is quadratic, so a run-on line
# of thousands ("| never … | never … |") is skipped, not read.
MAX_MARKERS_PER_SENTENCE = 12
MAX_NAMES_PER_SENTENCE = 64


@lru_cache(maxsize=1)
def _section_words() -> dict[str, re.Pattern]:
    """Each Pass 3 section's words, as one regex that finds any of them between spaces (whole words in `prose_section`)."""
    data = load_grammar("sections.yaml")
    return {kind: re.compile(" (?:" + "|".join(map(re.escape, data[kind])) + ") ") for kind in ("definitions", "principles", "methodology")}


def load_readers() -> None:
    """Build every grammar, word list and regex the readers and admission use. A process that calls
    this before forking its workers builds them once, and the workers share them."""
    load_block_parser()
    load_scanner()
    load_ladder()
    load_lexicon()
    load_conventions()
    load_admission()
    _section_words()


def prose_section(heading: str) -> str:
    """The Pass 3 section a heading opens (definitions, principles, methodology), or ''."""
    words = " " + " ".join(_LETTERS.findall(heading.lower())) + " "
    return next((kind for kind, keys in _section_words().items() if keys.search(words)), "")


class Heading(NamedTuple):
    """A heading on the path above a block."""

    level: int
    polar: Marker | None  # the polarity it gives the items under it (`## NEVER`), or None
    title: str
    section: str  # the Pass 3 section it opens (its own, or its parent's), or ''
    verb: str = ""  # the verb its rule word governs ("## Never commit"), which the items under it take


@dataclass(slots=True)
class Lead:
    """The marker a lead line ("Never run these commands:") or a polarity heading hands to what follows."""

    marker: Marker
    block: Block
    quote: str  # '' for a heading's polarity
    verb: str = ""  # the verb its rule word governs ("must NOT be committed:"), which its items take


@dataclass(slots=True)
class Span:
    """A span of text to read: a block, one table cell, or one fenced line."""

    block: Block
    text: str  # same length per line as the source lines, markup blanked out
    inherited: Lead | None = None


@dataclass(slots=True)
class Unit:
    """Stage 2: one marked sentence (or one line of a fenced list) with the context it is read in."""

    span: Span
    start: int  # [start, end) of the sentence in span.text
    end: int
    sentence: Sentence | None  # None: a line of a fenced list, which names one command
    markers: list[Marker]  # the sentence's own rule words
    governing: Marker | None  # the strongest of them, else the inherited one (index -1); None for a run-on
    headings: tuple[Heading, ...]  # the heading path above it
    role: str = "rule"  # rule | lead (only announces the list below it) | run-on (too many rule words or names)
    why: str = ""  # a run-on's reason
    objects: list[ClauseObject] | None = None  # a fenced line: the command it names (a lead line: the text a fence gives it)


@dataclass(slots=True)
class Units:
    """Stage 2's output: the units in source order, and the Pass 3 prose blocks met on the way."""

    units: list[Unit]
    prose: list[Prose]


@dataclass(slots=True)
class Reading:
    """Stage 3: a unit's verbatim quote and line span, and the clause read for its governing marker,
    or why it has none (`skipped`: a run-on, hedged or a question; neither: a lead line or no text)."""

    unit: Unit
    quote: str
    lines: list[int]
    clause: Clause | None = None
    skipped: Skipped | None = None


@dataclass(slots=True)
class Candidate:
    """Stage 4: the imperative a reading proposes (its trigger, action, scope and routes), before admission."""

    reading: Reading | None  # None: an OMP rule, read from the frontmatter
    imperative: Imperative


def _blank_prefix(line: str) -> str:
    m = _PREFIX.match(line)
    return " " * len(m.group(1)) + line[len(m.group(1)) :] if m else line


_SHELL_FENCE = re.compile(r"^\s*(?:```|~~~)\s*(?:bash|sh|shell|console|zsh|fish|shell-session)\s*$", re.IGNORECASE)
_SHELL_COMMENT = re.compile(r"(?:^|\s)#(?![!#])")


def _shell_comments(block: Block) -> list[Span]:
    """The comments of a shell code block, one span each: a comment may state a rule about its command
    ("cargo build  # build. never build with --release"). Code in any other language is an example, not read."""
    if not _SHELL_FENCE.match(block.lines[0]):
        return []
    found = ((n, _SHELL_COMMENT.search(line)) for n, line in enumerate(block.lines[1:-1], start=1))
    return [Span(block, "\n" * n + " " * m.end() + block.lines[n][m.end():]) for n, m in found if m]


def _spans(block: Block) -> list[Span]:
    if block.kind in ("paragraph", "item", "quote", "heading"):
        lines = list(block.lines)
        lines[0] = _blank_prefix(lines[0])
        if block.kind == "quote":
            lines = [_blank_prefix(line) for line in lines]
        return [Span(block, "\n".join(lines))]
    if block.kind == "table":
        spans = []
        for offset, row in enumerate(block.lines):
            if set(row.strip()) <= set("|-: "):
                continue
            bars = [i for i, c in enumerate(row) if c == "|"]
            edges = [-1, *bars, len(row)]
            for a, b in zip(edges, edges[1:]):
                cell = row[a + 1 : b]
                if cell.strip():
                    text = "\n" * offset + " " * (a + 1) + cell
                    spans.append(Span(block, text))
        return spans
    return []


def _line_of(text: str, offset: int) -> tuple[int, int]:
    """0-based (line index, column) of a character offset in span text."""
    line = text.count("\n", 0, offset)
    return line, offset - (text.rfind("\n", 0, offset) + 1)


def _quote(block: Block, text: str, start: int, end: int) -> tuple[str, list[int]]:
    """The verbatim source text of [start, end), whitespace-collapsed, and its line span."""
    (l0, c0), (l1, c1) = _line_of(text, start), _line_of(text, end)
    if l0 == l1:
        piece = block.lines[l0][c0:c1]
    else:
        piece = "\n".join([block.lines[l0][c0:], *block.lines[l0 + 1 : l1], block.lines[l1][:c1]])
    return " ".join(piece.split()), [block.start + l0, block.start + l1]


def _is_lead(sentence_text: str) -> bool:
    return sentence_text.rstrip(" *_`").endswith(":")


def _names_a_means(sentence: Sentence) -> bool:
    """"Regenerate all: `scripts/generate-test-files.sh`": a list item whose label before a colon says what to do
    with the value names a means, so it is no member of the list its lead line forbids ("Force push:
    `git push --force`" under "NEVER run these:" is one: its label names the thing). So does an item that opens
    with its purpose ("To regenerate, run `make gen`" under "## Forbidden")."""
    tokens = sentence.tokens
    if len(tokens) > 2 and tokens[0].norm == "to" and tokens[1].type == "WORD":
        comma = next((k for k, t in enumerate(tokens) if t == ","), -1)
        return comma > 0 and all(t.type == "WORD" for t in tokens[:comma])
    colon = next((k for k, t in enumerate(tokens) if t == ":"), -1)
    return (colon > 0 and all(t.type == "WORD" for t in tokens[:colon]) and tokens[0].norm in load_lexicon().clause_words["means_labels"]
            and any(t.type in ("CODE", "PATH") for t in tokens[colon + 1 :]))


def _in_parentheses(sentence: Sentence, governing: Marker) -> bool:
    """"Pull request base reference (use `origin/main`; never use a feature branch's upstream …):": the rule
    word speaks inside a parenthesis, not for the list the line introduces."""
    depth = 0
    for tok in sentence.tokens[: max(governing.index, 0)]:
        depth += (tok == "(") - (tok == ")")
    return depth > 0


def _names_the_means(sentence: Sentence, governing: Marker) -> bool:
    """"Avoid by being explicit on the first push:": what follows a prohibition's "by …ing" is how to
    keep it, so the list or code under such a lead line is recommended, not forbidden."""
    words = [t.norm for t in sentence.tokens[governing.index + 1 :] if t.type == "WORD"]
    openers = load_lexicon().clause_words["list_openers"]  # "Never bypass the hooks by using any of:": a list follows
    return any(w == "by" and nxt.endswith("ing") for w, nxt in zip(words, words[1:])) and not openers & set(words)


def _recommends_its_list(sentence: Sentence, governing: Marker) -> bool:
    """"Never call the API directly; use one of:": after a semicolon or comma the lead line turns to what to do
    instead, so the list under it is recommended, not forbidden; so does a lead line that opens with what to do
    before its prohibition ("Run per-package only, never repo-wide:")."""
    recommending = load_lexicon().clause_words["recommending"]
    before = sentence.tokens[: max(governing.index, 0)]
    first = next((t.norm for t in before if t.type == "WORD"), "")
    if first in recommending and "," in before:
        return True
    tokens = sentence.tokens[governing.index + 1 :]
    last = max((k for k, t in enumerate(tokens) if t in (";", ",")), default=-1)
    word = next((t.norm for t in tokens[last + 1 :] if t.type == "WORD"), "") if last >= 0 else ""
    return word in recommending


def _requires_its_list(sentence: Sentence, governing: Marker) -> bool:
    """"NEVER return control to the user without ensuring:": what a prohibition's "without" introduces is
    required, so the commands listed under such a lead line are to be run, not forbidden."""
    return "without" in (t.norm for t in sentence.tokens[governing.index + 1 :] if t.type == "WORD")


# -- Stage 1: blocks ---------------------------------------------------------------------------------


def blocks(source: Source) -> list[Block]:
    """Stage 1: the markdown blocks of a source's body, with their exact line spans."""
    return list(parse_blocks(source.lines[source.body_start - 1 :], first_line=source.body_start))


# -- Stage 2: units ----------------------------------------------------------------------------------


def units(source: Source, blocks: list[Block]) -> Units:
    """Stage 2: walk the blocks in order, keeping the heading path and the last lead line, and
    return every marked sentence with the marker it is governed by (its own strongest, else the
    one its lead line or heading hands it), and the Pass 3 prose blocks."""
    walk = _Walk(source)
    walk.run(blocks)
    return Units(walk.units, walk.prose)


class _Walk:
    """Stage 2's state while it walks one source's blocks."""

    def __init__(self, source: Source):
        self.source = source
        self.ladder = load_ladder()
        self.units: list[Unit] = []
        self.prose: list[Prose] = []
        self.marked = self.ladder.marked_lines(source.text)  # one pre-filter pass per file
        self.recent: tuple[Marker, Block] | None = None  # the last marker read, and its block
        self.announcing: Unit | None = None  # a lead line no list has inherited yet

    def _may_have_marker(self, block: Block) -> bool:
        i = bisect_left(self.marked, block.start)
        return i < len(self.marked) and self.marked[i] <= block.end

    def run(self, blocks: list[Block]) -> None:
        headings: list[Heading] = []
        lead: Lead | None = None
        for block in blocks:
            previous, self.recent = self.recent, None
            if block.kind == "heading":
                headings = [h for h in headings if h.level < block.depth]
                headings.append(self._heading(block, headings))
                lead = None
                self._announced_nothing()
            elif block.kind == "code":
                # (a lead that names its own object, "… the `Signed-off-by` trailer - agents must not add it:", is
                # followed by an example of it, not by a list of more things it forbids)
                if lead and (text := self._required_text(block, lead)):
                    # "you MUST include the following HTML comment at the bottom of the description:" over a fence of
                    # one line: the text the rule requires, not a list of things it requires one by one
                    self.announcing.role, self.announcing.objects = "rule", [ClauseObject(ClauseObjectKind.CODE, text)]  # type: ignore[union-attr]
                    self.announcing = None
                elif lead and lead.block.end >= block.start - 2 and not _BAD_EXAMPLE.search(lead.quote) and "`" not in lead.quote \
                        and not _DONT_LABEL.match(lead.quote):
                    self._fenced_list(block, lead, headings)
                    self.announcing = None
                elif self._may_have_marker(block):
                    self._read_comments(block, headings)
                lead = None
                self._announced_nothing()
            else:
                if headings and headings[-1].section and block.kind != "html":
                    self.prose.append(Prose(self.source.group_id, self.source.file, [block.start, block.end],
                                            headings[-1].section, headings[-1].title, block.text))
                lead = self._read_block(block, headings, lead, previous)
        self._announced_nothing()

    def _announced_nothing(self) -> None:
        """A lead line whose list never came ("… MUST follow conventional commit format:" over a heading) is a
        rule of its own."""
        if self.announcing is not None:
            self.announcing.role = "rule"
            self.announcing = None

    def _read_comments(self, block: Block, headings: list[Heading]) -> None:
        """The prohibitions a shell block's comments state ("cargo build  # never build with --release"); a comment's
        other rule words describe the command under it ("# Commit with required DCO sign-off")."""
        for comment in _shell_comments(block):
            before = len(self.units)
            self._read_span(comment, headings)
            self.units[before:] = [u for u in self.units[before:] if u.governing is not None
                                   and self.ladder.classes[u.governing.marker_class].polarity == "negative"]

    def _heading(self, block: Block, parents: list[Heading]) -> Heading:
        """A heading's level, the polarity it gives the items under it (`## NEVER`), its text and
        Pass 3 section (its own, or its parent's)."""
        sentences = split_sentences(_spans(block)[0].text, self.ladder.may_have_marker) if self._may_have_marker(block) else []
        markers = find_markers(sentences[0]) if sentences else []
        polar = strongest(markers) if markers and len(sentences[0].tokens) <= 4 else None
        title = block.text.strip("# ").strip()
        verb = lead_verb(sentences[0], polar, load_lexicon()) if polar is not None else ""
        return Heading(block.depth, polar, title, prose_section(title) or (parents[-1].section if parents else ""), verb)

    def _read_block(self, block: Block, headings: list[Heading], lead: Lead | None, previous) -> Lead | None:
        """Read a paragraph, item, table or quote; returns the lead that governs the blocks after it."""
        if lead and not (block.kind == "item" and block.depth > (lead.block.depth if lead.block.kind == "item" else -1)):
            lead = None
            self._announced_nothing()
        elif lead:
            self.announcing = None
        inherited = lead
        if inherited is None and block.kind == "item":
            heading = next((h for h in reversed(headings) if h.polar is not None), None)
            if heading is not None and heading.polar is not None:
                inherited = Lead(heading.polar, block, "", heading.verb)
        if inherited is not None or self._may_have_marker(block):
            for span in _spans(block):
                span.inherited = inherited
                lead = self._read_span(span, headings) or lead
        if lead is None and previous and block.kind == "paragraph" and _EXAMPLES_OF.match(block.text.strip(" *_")):
            # "Do NOT create summary files. Examples include:" + a list: the
            # unmarked colon line hands the previous marker to the list
            marker, before = previous
            if before.end >= block.start - 2:
                lead = Lead(marker, block, " ".join(block.text.split()))
        return lead

    def _required_text(self, block: Block, lead: Lead) -> str:
        """The one line of a fence right after a positive lead line that requires "the following" text ("you MUST
        include the following HTML comment …:"), or ''."""
        lines = [line.strip() for line in block.lines[1:-1] if line.strip()]
        if self.announcing is None or self.announcing.span.block is not lead.block or len(lines) != 1 \
                or lead.block.end < block.start - 2 or self.ladder.classes[lead.marker.marker_class].polarity != "positive" \
                or not _THE_FOLLOWING.search(lead.quote):
            return ""
        return lines[0]

    def _fenced_list(self, block: Block, lead: Lead, headings: list[Heading]) -> None:
        for offset, line in enumerate(block.lines[1:-1] if len(block.lines) > 1 else (), start=1):
            command = line.strip()
            if not command or _COMMENT_LINE.match(command) or block.start + offset == block.end and command.startswith(("```", "~~~")):
                continue
            span = Span(block, "\n".join(block.lines), inherited=lead)
            start = sum(len(x) + 1 for x in block.lines[:offset]) + line.index(command)
            self.units.append(Unit(span, start, start + len(command), None, [], lead.marker, tuple(headings),
                                   objects=[ClauseObject(ClauseObjectKind.CODE, _TRAILING_COMMENT.sub("", command))]))

    def _graded_by_heading(self, own: Marker, heading: Marker) -> Marker:
        """"## Never" right over "- Do not edit `Cargo.toml` by hand": a prohibition's own rule word reads its clause,
        and its own heading's stronger prohibition grades it (the strongest marker decides). A positive heading
        ("## Mandatory Rules" over a whole section) grades nothing: it would turn every preference into a block."""
        mine, above = self.ladder.classes[own.marker_class], self.ladder.classes[heading.marker_class]
        if mine.polarity == above.polarity == "negative" and above.rank < mine.rank:
            return replace(own, marker_class=heading.marker_class)
        return own

    def _bad_example(self, text: str) -> bool:
        """A span that opens as a bad example ("❌ `foo()`", "Bad: …"); a cross followed by a forbidding rule word
        ("❌ NEVER use `print()`") marks a prohibition instead."""
        text = text.lstrip()
        if "`" in text and _DONT_LABEL.match(text):
            return True
        if not _BAD_EXAMPLE.search(text[:12]):
            return False
        words = [normalise_word(w) for w in _WORDS.findall(text[:40])]
        found = self.ladder.match_at(words, 0) if words and _CROSS.match(text) else None
        return not (found and self.ladder.classes[found[1]].polarity == "negative")

    def _read_span(self, span: Span, headings: list[Heading]) -> Lead | None:
        """Every marked sentence of a span becomes a unit; returns a lead marker if the span introduces a list."""
        new_lead = None
        if self._bad_example(span.text):
            return None
        if span.inherited and _GOOD_EXAMPLE.search(span.text.lstrip()[:12]):
            span.inherited = None  # "- ✅ `useQuery(url)`" under "Never call `fetch` in render:" is the good example
        sentences = split_sentences(span.text, None if span.inherited else self.ladder.may_have_marker)
        for n, sentence in enumerate(sentences):
            markers = find_markers(sentence, self.ladder)
            if (markers or span.inherited) and (run_on := _run_on(sentence, markers)):  # (an inherited item too)
                self.units.append(Unit(span, sentence.start, sentence.end, sentence, markers, None, tuple(headings),
                                       role="run-on", why=run_on))
                continue
            governing = strongest(markers, self.ladder, sentence)
            if governing is None and span.inherited and not _names_a_means(sentence) and n == 0:
                # (only an item's first sentence is the banned thing: under a "## Do NOT" heading "Mix up linter
                # configs. Root Python is ruff at line length 120, …" explains it, and under "Never manually edit:"
                # "`.xlf` localization files. Change the source `.resx` strings instead" says what to do)
                governing = replace(span.inherited.marker, index=-1)
            elif governing is not None and headings and headings[-1].polar is not None and span.inherited is not None \
                    and not span.inherited.quote:
                governing = self._graded_by_heading(governing, headings[-1].polar)
            if governing is None:
                continue
            self.recent = (governing, span.block)
            role = "rule"
            negative = self.ladder.classes[governing.marker_class].polarity == "negative"
            if sentence.last and _is_lead(span.text[sentence.start : sentence.end]) and not _in_parentheses(sentence, governing) \
                    and not (negative and (_names_the_means(sentence, governing) or _requires_its_list(sentence, governing)
                                           or _recommends_its_list(sentence, governing))):
                quote, _ = _quote(span.block, span.text, sentence.start, sentence.end)
                new_lead = Lead(governing, span.block, quote, lead_verb(sentence, governing, load_lexicon()))
                if not any(t.type == "CODE" for t in sentence.tokens):
                    role = "lead"  # "Never run these commands:" only announces its list
            self.units.append(Unit(span, sentence.start, sentence.end, sentence, markers, governing, tuple(headings), role=role))
            if role == "lead":
                self.announcing = self.units[-1]
        return new_lead


# -- Stage 3: clauses --------------------------------------------------------------------------------


def clauses(source: Source, units: list[Unit]) -> list[Reading]:
    """Stage 3: each unit's quote, and the clause its governing marker rules; a run-on, a hedge
    ("consider", "prefer") or a question is set aside as a Skipped item."""
    return [_reading(source, unit) for unit in units]


def _reading(source: Source, unit: Unit) -> Reading:
    span = unit.span
    quote, lines = _quote(span.block, span.text, unit.start, unit.end)
    reading = Reading(unit, quote, lines)
    if unit.role == "run-on":
        marker = unit.markers[0] if unit.markers else span.inherited.marker if span.inherited else None
        reading.skipped = Skipped(source.group_id, source.file, lines, quote, marker.text if marker else "",
                                  "skip-no-imperative", f"{RUN_ON}: {unit.why}")
        return reading
    governing = unit.governing
    if unit.role == "lead" or not quote or governing is None:
        return reading
    ladder = load_ladder()
    if ladder.classes[governing.marker_class].polarity == "hedged":
        reading.skipped = Skipped(source.group_id, source.file, lines, quote, governing.text,
                                  "skip-hedged", f"hedged: '{governing.text}'")
        return reading
    if unit.sentence is not None:
        clause = read_clause(unit.sentence, unit.markers, governing, load_lexicon())
        clause.objects.extend(unit.objects or [])  # (the text a fence after it gives a lead line)
    else:
        clause = Clause(marker=governing, objects=unit.objects or [])
        clause.scope_text = " ".join(o.text.lower() for o in clause.objects)
    if unit.sentence is not None and span.text[unit.start : unit.end].rstrip().endswith("?"):
        reading.skipped = Skipped(source.group_id, source.file, lines, quote, governing.text,
                                  "skip-no-imperative", "a question, not an instruction")
        return reading
    if governing.index < 0 and span.inherited and not clause.verb:
        # "These files must NOT be committed:" over "- `cgmanifest.json` - Generated during CI builds": committing it
        clause.verb = span.inherited.verb
        place_as_object(clause, load_lexicon())  # "Never manually edit:" over "- man pages under `docs/man`"
    if span.block.kind == "item":
        _read_item_subject(clause, span.text)
    if unit.sentence is not None:
        # what stands before the rule word, else the sentence before it in the same block ("Code in `resources/`
        # and `types/` is generated. Avoid modifying these directly.")
        before = unit.sentence.tokens[: max(governing.index, 0)]
        if any(t.type in ("CODE", "PATH") for t in before):
            _read_antecedent(clause, before)
        else:
            _read_antecedent(clause, next((s.tokens for s in reversed(split_sentences(span.text[: unit.start]))), ()), True)
    reading.clause = clause
    return reading


# "- `manpages/`: Generated files." / "- **`_generated/`** — …": the path a list item's line opens with
# "include the following HTML comment at the bottom of the description:": a lead line that requires one text
_THE_FOLLOWING = re.compile(r"\b(?:include|add|append|end with|contain)\s+the\s+following\b", re.IGNORECASE)
# (a bold head names a path only when it has a slash: "**Build**:" is a label)
_ITEM_SUBJECT = re.compile(r"^\s*(?:[-*+]|\d+[.)])?\s*(?:\**`([^`\s]+)`\**|\*\*([^*`\s]+/[^*`\s]+)\*\*)\s*(?:—|–|-|:)")


def _read_item_subject(clause: Clause, item: str) -> None:
    """"- `manpages/`: Generated files. Don't edit directly, regenerate with `x`": an edit verb followed by nothing,
    or by words for the thing spoken of ("directly", "this package", "these"), and naming nothing an edit acts on
    (a command is not), acts on the path the item opens with. So does a run verb on a script the item opens with
    ("- **script/tag-release** - **NEVER USE THIS**"), which it runs."""
    lexicon = load_lexicon()
    subject = _ITEM_SUBJECT.match(item)
    verb = clause.verb
    references = lexicon.clause_words["self_references"]
    after = words_after_verb(clause)
    if subject is not None and verb in lexicon.run_verbs and not clause.objects and is_script(named := subject.group(1) or subject.group(2), lexicon):
        if after and all(w in references for w in after):
            clause.objects = [ClauseObject(ClauseObjectKind.CODE, named)]
        return
    if subject is not None and subject.group(1) is None:
        return
    if subject is None or verb not in lexicon.edit_verbs or not surely_a_path(subject.group(1)) \
            or "/" not in subject.group(1).strip("/") and not re.search(r"\.\w+$", subject.group(1)) \
            or any(object_kind(o, verb, lexicon) != "command" for o in clause.objects):
        return  # (a layout's bare folder, `completions/`, is the root's, and a rule on it would match every nested one)
    if after is not None and (not after or after[0] in references):
        clause.objects = [ClauseObject(ClauseObjectKind.PATH, subject.group(1))]


_POINTERS = frozenset({"that", "this", "it", "these", "those", "them"})
_CHANGES_TO = re.compile(r"^(?:any\s+|your\s+)?changes\s+(?:to|in)\s+(?=\S)")


def _read_antecedent(clause: Clause, before: tuple, earlier: bool = False) -> None:
    """"… commit the regenerated `docs/guide/cli-generated.md`; never edit that file by hand": an edit naming nothing
    but a pointer ("that file", "it") and words for the thing spoken of acts on the last path named before its rule word.
    So does a bare "do not commit" after a path ("`config-cloud.json` (generated, do not commit)"). From the sentence
    before (`earlier`), "these" takes every path it names, and "it" or "that file" its only one: of two ("regenerates
    `cli.md` via `generate.py`. Don't edit that file"), which one is meant is for the reader to judge."""
    lexicon = load_lexicon()
    after = words_after_verb(clause)
    commits = clause.verb in COMMIT_VERBS
    if clause.objects or after is None or not (commits or clause.verb in lexicon.edit_verbs):
        return
    if commits and (changes := _CHANGES_TO.match(" ".join(after))):
        after = after[len(changes.group(0).split()) :]  # "never commit changes to them": what the changes are to
    points = bool(after) and after[0] in _POINTERS and all(w in lexicon.clause_words["self_references"] for w in after)
    if not (points or commits and not after):
        return
    paths = _named_paths(before)
    plural = points and after[0] in ("these", "those", "them")
    if paths and not (earlier and len(paths) > 1 and not plural):
        clause.objects = [ClauseObject(ClauseObjectKind.PATH, p) for p in (paths if plural else paths[-1:])]


def _named_paths(tokens: tuple) -> list[str]:
    """The paths a sentence names, a folder that places a file glob before it folded into it: "Files matching
    `*.generated.ts` in `lib/`" names `lib/**/*.generated.ts`, not every file under `lib/`. A code span with a
    space is a command, not a path (`pnpm generate:*`)."""
    places = load_lexicon().clause_words["glob_place_prepositions"]
    paths: list[str] = []
    word = ""
    for token in tokens:
        text = str(token).strip("`")
        if token.type == "WORD":
            word = token.norm
        elif token.type in ("CODE", "PATH") and surely_a_path(text) and not re.search(r"\s", text):
            if word in places and paths and "/" not in paths[-1] and paths[-1].startswith("*"):
                paths[-1] = f"{text.rstrip('/')}/**/{paths[-1]}"
            else:
                paths.append(text)
            word = ""
    return paths


def skipped(readings: list[Reading]) -> list[Skipped]:
    """The Skipped items of stage 3, in source order."""
    return [r.skipped for r in readings if r.skipped is not None]


# -- Stage 4: candidates -----------------------------------------------------------------------------


def candidates(source: Source, readings: list[Reading]) -> list[Candidate]:
    """Stage 4: the imperative each read clause proposes (trigger, action, scope, routes), an OMP
    rule's first; compiler/admission.py then decides whether a proposed Pass 1 rule is admitted."""
    role_ok = not source.role or source.role in load_conventions().roles
    found = []
    if source.convention.name == "omp":
        omp = _omp_rule(source, role_ok)
        if omp is not None:
            found.append(Candidate(None, omp))
    for reading in readings:
        if reading.clause is not None:
            found.append(Candidate(reading, _imperative_from(source, reading, role_ok)))
    return found


def extract(source: Source) -> tuple[list[Imperative], list[Skipped], list[Prose]]:
    """One source's imperatives (proposed, before admission), skipped items and prose: stages 1-4."""
    walked = units(source, blocks(source))
    readings = clauses(source, walked.units)
    return [c.imperative for c in candidates(source, readings)], skipped(readings), walked.prose


class Extractor:
    """Per-source extraction; `run()` fills imperatives, skipped and prose (see `extract`)."""

    def __init__(self, source: Source):
        self.source = source
        self.imperatives: list[Imperative] = []
        self.skipped: list[Skipped] = []
        self.prose: list[Prose] = []

    def run(self) -> None:
        self.imperatives, self.skipped, self.prose = extract(self.source)


def _omp_rule(source: Source, role_ok: bool) -> Imperative | None:
    """An OMP rule delivers its text when its frontmatter `condition` matches (dsh-rules seed:
    none of them blocks a write): guidance, so a warn that carries the rule's body, never a block."""
    ladder, lexicon = load_ladder(), load_lexicon()
    fm = source.frontmatter
    trigger, why_not = omp_trigger(fm, lexicon)
    if trigger is None and not why_not:
        return None
    line = next((n for n, text in enumerate(source.lines, 1) if text.startswith(("condition:", "ttsr_trigger:"))), 1)
    quote = " ".join(source.lines[line - 1].split())
    body = " ".join("\n".join(source.lines[source.body_start - 1 :]).split())
    markers = [m for s in split_sentences(body) for m in find_markers(s, ladder)]
    found = strongest(markers, ladder)
    # the marker is one the text has: the body's strongest, else the `condition:` key itself
    text = found.text if found and ladder.classes[found.marker_class].polarity != "hedged" else quote.split(" ", 1)[0]
    marker = Marker(text, "advisory", False, -1)
    clause = Clause(marker=marker, scope_text=quote)
    imperative = build_imperative(source, quote, [line, line], marker, ladder.classes["advisory"], clause,
                                  trigger, {"omp": True}, role_ok)
    imperative.reasons.append("an OMP rule is guidance delivered when its condition matches: a warn, never a block")
    if trigger is None:
        imperative.reasons.append(why_not)
    elif body:
        imperative.suggestion = body
    return imperative


def _other_clause(sentence: Sentence, markers: list[Marker], governing: Marker, clause: Clause):
    """Every clause is read with its own marker: when the governing one names nothing concrete,
    the next clause that does gives the trigger ("You should not run pytest … — always use
    `breeze`"); the strongest marker still decides the action."""
    ladder, lexicon = load_ladder(), load_lexicon()
    for other in _by_strength(markers, ladder):
        cls = ladder.classes[other.marker_class]
        if other == governing or other.text in ladder.headers or cls.polarity == "hedged":
            continue
        candidate = read_clause(sentence, markers, other, lexicon)
        if candidate.marker != other or candidate.sequence:
            continue
        trigger = infer_trigger(candidate, cls.polarity, lexicon)
        if trigger is not None:
            return candidate, trigger
    return clause, None


def _imperative_from(source: Source, reading: Reading, role_ok: bool) -> Imperative:
    """The imperative a read clause proposes: its trigger (from another clause of the sentence when
    the governing one names nothing concrete), the heading's file scope, its context and routes."""
    ladder, lexicon = load_ladder(), load_lexicon()
    unit, clause = reading.unit, reading.clause
    assert clause is not None and unit.governing is not None
    headings = unit.headings
    cls = ladder.classes[unit.governing.marker_class]
    trigger = None if clause.sequence else infer_trigger(clause, cls.polarity, lexicon)
    if trigger is None and not clause.sequence and unit.sentence is not None:
        clause, trigger = _other_clause(unit.sentence, unit.markers, unit.governing, clause)
    if trigger is not None and trigger.kind != "mcp" and all(p.field != "command" for p in trigger.patterns):
        section = lexicon.section_scope([h.title for h in headings])
        if section and section not in trigger.file_scope:  # "## Testing": the heading scopes the file rules under it
            trigger.file_scope = f"^(?=.*{trigger.file_scope})(?=.*{section})" if trigger.file_scope else section
    if trigger is not None and trigger.kind == TriggerKind.PATH and cls.polarity == "negative" and unit.sentence is not None:
        _spare_nesting_paths(trigger, unit.sentence, lexicon)
    context: dict = {}
    if headings:
        context["heading"] = headings[-1].title
    block = unit.span.block
    if source.convention.name == "skill" and block.kind == "item" and _STEP.match(block.lines[0]):
        context["step"] = True  # a numbered step of the skill's procedure
    inherited = unit.span.inherited
    if inherited is not None and inherited.quote:
        context["lead"] = inherited.quote
        context["lead_lines"] = [inherited.block.start, inherited.block.end]
    imperative = build_imperative(source, reading.quote, reading.lines, clause.marker, cls, clause, trigger, context, role_ok)
    if clause.sequence:
        imperative.sequence = infer_sequence(clause, lexicon)
    if "pass1" not in imperative.routes and (cls.name == "advisory" or (headings and headings[-1].section)):
        imperative.routes = with_reviewer(imperative.routes)  # quality and principle rules also inform the reviewer
        imperative.reasons.append("rationale to Pass 3 prose (§15.1)")
    return imperative


def _spare_nesting_paths(trigger, sentence: Sentence, lexicon) -> None:
    """"Blog posts must be placed in `/infra/website/docs/blog/` — do NOT create blog posts under `docs/blog/`": a path
    the sentence names besides the forbidden one, holding it further down (`…/docs/blog/`), is another place, which
    a rule on the forbidden name anywhere would also stop: it stays allowed."""
    forbidden = re.compile(next(p.regex for p in trigger.patterns if not p.negate))
    spared = []
    for path in (p.lstrip("/") for p in _named_paths(sentence.tokens)):
        found = forbidden.search(path)
        if path not in trigger.values and found and found.start() > 0:
            spared.append(glob_to_regex(path))
    if spared:
        trigger.patterns += [Pattern(field=f, regex=any_of(spared), flags="", negate=True) for f in lexicon.tools["path_fields"]]


def _run_on(sentence: Sentence, markers: list[Marker]) -> str:
    names = sum(1 for t in sentence.tokens if t.type in ("CODE", "PATH"))
    if len(markers) > MAX_MARKERS_PER_SENTENCE:
        return f"{len(markers)} rule words, over the limit of {MAX_MARKERS_PER_SENTENCE}"
    if names > MAX_NAMES_PER_SENTENCE:
        return f"{names} names in backticks, over the limit of {MAX_NAMES_PER_SENTENCE}"
    return ""


def _by_strength(markers: list[Marker], ladder) -> list[Marker]:
    return sorted(markers, key=lambda m: ladder.classes[m.marker_class].rank)


def build_imperative(source: Source, quote, lines, marker: Marker, cls, clause, trigger, context, role_ok) -> Imperative:
    """Propose and grade one imperative (§5, §5f, §7): a concrete trigger proposes a Pass 1 rule,
    which admission may still demote; anything else is Pass 2 only (§15.1)."""
    reasons = []
    scope = dict(source.scope)
    if trigger is not None and source.subtree and trigger.kind in ("path", "content"):
        # a nested AGENTS.md speaks for its folder (§2a); shell commands cannot be scoped so
        subtree = glob_to_regex(source.subtree + "/")
        trigger.file_scope = f"^(?=.*{trigger.file_scope})(?=.*{subtree})" if trigger.file_scope else subtree
        reasons.append(f"scoped to {source.subtree}/ (nested {source.file.rsplit('/', 1)[-1]})")
    if trigger is not None and trigger.file_scope:
        inherited = scope.get("file_scope")
        # both the source's globs and the sentence's "only when editing X" must hold
        scope["file_scope"] = f"^(?=.*{inherited})(?=.*{trigger.file_scope})" if inherited else trigger.file_scope
    severity = cls.severity
    if cls.name == "block-direct" and (marker.text.lower().replace("’", "'") in cls.critical or clause.headed):
        severity = "critical"
    action = cls.action
    via = f"lexical '{marker.text}'" + (" (inherited from its lead line or heading)" if marker.index < 0 else "")
    if trigger is not None:
        confidence = 0.85 if cls.polarity == "positive" else 0.95
        if trigger.interpreted or marker.index < 0:
            confidence = 0.7
        inferred = [axis for axis in scope if axis not in source.scope]  # the source's own scope is given, not inferred
        confidence = round(confidence - 0.05 * max(0, len(inferred) - 1), 2)
        routes, cause = proposed_routes(concrete=True), ""
        reasons.append(f"{via} -> action={action} per §5 ({cls.name}); trigger {trigger.label}")
        if confidence < 0.7 and action != "warn":
            reasons.append(f"confidence {confidence} < 0.7 -> advisory per §7")
            action, severity = "warn", "low"
    else:
        confidence = 0.7
        routes = proposed_routes(concrete=False)
        cause = "no concrete trigger a regex can check: intent, quality or process"
        if clause.sequence:
            cause = "sequential precondition: the harness keeps no session state for it (§6 ‡)"
            reasons.append(f"{via}: sequential precondition ('{clause.sequence}') -> Pass 2 (§6 ‡, §15.7)")
        else:
            reasons.append(f"{via}: no concrete trigger -> Pass 2 (§6, §15.1)")
        action = "block" if cls.name == "block-direct" else "warn"
    return Imperative(
        id="",
        group_id=source.group_id,
        file=source.file,
        lines=lines,
        quote=quote,
        marker=marker.text,
        marker_class=cls.name,
        polarity=cls.polarity,
        clause=clause.record(),
        trigger=trigger.record() if trigger else None,
        scope=scope,
        routes=routes,
        action=Action(action),
        severity=Severity(severity),
        confidence=confidence,
        reasons=reasons,
        suggestion=trigger.suggestion if trigger else "",
        context=context,
        applies_to_roles=[source.role] if source.role and role_ok else [],
        pass2_cause=cause,
    )
