"""Extraction: one source's blocks -> imperatives and skipped items (§4-§7).

Walks the blocks in order, keeping the heading path and the last lead line
("Never run these commands:") so that list items and fenced lines under them
inherit their marker (§4 forbidden and required lists). Each sentence with a
§5 marker becomes an Imperative that proposes a rule (its trigger, action and
scope), or a Skipped item; compiler/admission.py decides whether a proposed
rule enters Pass 1.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, replace
from functools import lru_cache

import yaml

from ..grammar import read as read_grammar
from .blocks import Block, parse_blocks
from .clauses import Clause, Marker, Sentence, find_markers, read_clause, split_sentences, strongest
from .ir import ClauseObject, Imperative, Prose, Skipped
from .ladder import load_ladder
from .regexes import glob_to_regex
from .report import RUN_ON
from .resolve import proposed_routes, with_reviewer
from .sources import Source, load_conventions
from .triggers import infer_sequence, infer_trigger, load_lexicon, omp_trigger

_PREFIX = re.compile(r"^(\s*(?:[-*+]|\d{1,9}[.)])[ \t]+|\s*>[ \t]?|\s*#{1,6}[ \t]+)")
_BAD_EXAMPLE = re.compile(
    r"^\W*(?:bad|wrong|incorrect|avoid this|don'?t do this|do not do this|anti-?pattern|before)\b|❌|🚫|✗",
    re.IGNORECASE,
)
# An unmarked line that lists instances of what the previous sentence forbids.
_EXAMPLES_OF = re.compile(r"^(?:examples?\s+include|such as|these include|this includes|including)\s*:$", re.IGNORECASE)
_STEP = re.compile(r"^\s*\d{1,9}[.)][ \t]")
_COMMENT_LINE = re.compile(r"^\s*(?:#|//|--|/\*|\*(?:\s|$)|<!--)")  # `*_FIX.md` is not a comment
# Real rule files put at most 5 rule words and 11 names in backticks in one sentence. Reading a
# clause per marker, and checking each name against the quote, is quadratic, so a run-on line
# of thousands ("| never … | never … |") is skipped, not read.
MAX_MARKERS_PER_SENTENCE = 12
MAX_NAMES_PER_SENTENCE = 64


@lru_cache(maxsize=1)
def _section_words() -> dict[str, tuple[str, ...]]:
    text = read_grammar("sections.yaml")
    data = yaml.safe_load(text)
    return {kind: tuple(data[kind]) for kind in ("definitions", "principles", "methodology")}


def prose_section(heading: str) -> str:
    """The Pass 3 section a heading opens (definitions, principles, methodology), or ''."""
    words = " " + " ".join(re.findall(r"[a-z]+", heading.lower())) + " "
    for kind, keys in _section_words().items():
        if any(f" {key} " in words for key in keys):
            return kind
    return ""


@dataclass(slots=True)
class _Lead:
    marker: Marker
    block: Block
    quote: str


@dataclass(slots=True)
class Unit:
    """A span of text to read: a block, one table cell, or one fenced line."""

    block: Block
    text: str  # same length per line as the source lines, markup blanked out
    inherited: _Lead | None = None


def _blank_prefix(line: str) -> str:
    m = _PREFIX.match(line)
    return " " * len(m.group(1)) + line[len(m.group(1)) :] if m else line


def _units(block: Block) -> list[Unit]:
    if block.kind in ("paragraph", "item", "quote", "heading"):
        lines = list(block.lines)
        lines[0] = _blank_prefix(lines[0])
        if block.kind == "quote":
            lines = [_blank_prefix(line) for line in lines]
        return [Unit(block, "\n".join(lines))]
    if block.kind == "table":
        units = []
        for offset, row in enumerate(block.lines):
            if set(row.strip()) <= set("|-: "):
                continue
            bars = [i for i, c in enumerate(row) if c == "|"]
            edges = [-1, *bars, len(row)]
            for a, b in zip(edges, edges[1:]):
                cell = row[a + 1 : b]
                if cell.strip():
                    text = "\n" * offset + " " * (a + 1) + cell
                    units.append(Unit(block, text))
        return units
    return []


def _line_of(text: str, offset: int) -> tuple[int, int]:
    """0-based (line index, column) of a character offset in unit text."""
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


class Extractor:
    """Per-source extraction state; `run()` fills imperatives, skipped and prose."""

    def __init__(self, source: Source):
        self.source = source
        self.ladder = load_ladder()
        self.lexicon = load_lexicon()
        self.imperatives: list[Imperative] = []
        self.skipped: list[Skipped] = []
        self.prose: list[Prose] = []
        roles = load_conventions().roles
        self.role_ok = not source.role or source.role in roles
        self.marked = self.ladder.marked_lines(source.text)  # one pre-filter pass per file
        self.recent: tuple[Marker, Block] | None = None  # the last marker read, and its block

    def _may_have_marker(self, block: Block) -> bool:
        i = bisect_left(self.marked, block.start)
        return i < len(self.marked) and self.marked[i] <= block.end

    def run(self) -> None:
        if self.source.convention.name == "omp":
            self._omp_rule()
        body = self.source.lines[self.source.body_start - 1 :]
        headings: list[tuple[int, Marker | None, str, str]] = []  # (level, polarity marker, text, prose section)
        lead: _Lead | None = None
        for block in parse_blocks(body, first_line=self.source.body_start):
            previous, self.recent = self.recent, None
            if block.kind == "heading":
                headings = [h for h in headings if h[0] < block.depth]
                headings.append(self._heading(block, headings))
                lead = None
            elif block.kind == "code":
                if lead and lead.block.end >= block.start - 2 and not _BAD_EXAMPLE.search(lead.quote):
                    self._fenced_list(block, lead, headings)
                lead = None
            else:
                if headings and headings[-1][3] and block.kind != "html":
                    self.prose.append(Prose(self.source.group_id, self.source.file, [block.start, block.end],
                                            headings[-1][3], headings[-1][2], block.text))
                lead = self._read_block(block, headings, lead, previous)

    def _heading(self, block: Block, parents) -> tuple[int, Marker | None, str, str]:
        """A heading's level, the polarity it gives the items under it (`## NEVER`), its text and
        Pass 3 section (its own, or its parent's)."""
        sentences = split_sentences(_units(block)[0].text, self.ladder.may_have_marker) if self._may_have_marker(block) else []
        markers = find_markers(sentences[0]) if sentences else []
        polar = strongest(markers) if markers and len(sentences[0].tokens) <= 4 else None
        title = block.text.strip("# ").strip()
        return block.depth, polar, title, prose_section(title) or (parents[-1][3] if parents else "")

    def _read_block(self, block: Block, headings, lead: _Lead | None, previous) -> _Lead | None:
        """Read a paragraph, item, table or quote; returns the lead that governs the blocks after it."""
        if lead and not (block.kind == "item" and block.depth > (lead.block.depth if lead.block.kind == "item" else -1)):
            lead = None
        inherited = lead
        if inherited is None and block.kind == "item":
            polar = next((h[1] for h in reversed(headings) if h[1] is not None), None)
            if polar is not None:
                inherited = _Lead(polar, block, "")
        if inherited is not None or self._may_have_marker(block):
            for unit in _units(block):
                unit.inherited = inherited
                lead = self._read_unit(unit, headings) or lead
        if lead is None and previous and block.kind == "paragraph" and _EXAMPLES_OF.match(block.text.strip(" *_")):
            # "Do NOT create summary files. Examples include:" + a list: the
            # unmarked colon line hands the previous marker to the list
            marker, before = previous
            if before.end >= block.start - 2:
                lead = _Lead(marker, block, " ".join(block.text.split()))
        return lead

    def _omp_rule(self) -> None:
        """An OMP rule delivers its text when its frontmatter `condition` matches (dsh-rules seed:
        none of them blocks a write): guidance, so a warn that carries the rule's body, never a block."""
        fm = self.source.frontmatter
        trigger, why_not = omp_trigger(fm, self.lexicon)
        if trigger is None and not why_not:
            return
        line = next((n for n, text in enumerate(self.source.lines, 1) if text.startswith(("condition:", "ttsr_trigger:"))), 1)
        quote = " ".join(self.source.lines[line - 1].split())
        body = " ".join("\n".join(self.source.lines[self.source.body_start - 1 :]).split())
        markers = [m for s in split_sentences(body) for m in find_markers(s, self.ladder)]
        found = strongest(markers, self.ladder)
        # the marker is one the text has: the body's strongest, else the `condition:` key itself
        text = found.text if found and self.ladder.classes[found.marker_class].polarity != "hedged" else quote.split(" ", 1)[0]
        marker = Marker(text, "advisory", False, -1)
        clause = Clause(marker=marker, scope_text=quote)
        imperative = build_imperative(self.source, quote, [line, line], marker, self.ladder.classes["advisory"], clause,
                                      trigger, {"omp": True}, self.role_ok)
        imperative.reasons.append("an OMP rule is guidance delivered when its condition matches: a warn, never a block")
        if trigger is None:
            imperative.reasons.append(why_not)
        elif body:
            imperative.suggestion = body
        self.imperatives.append(imperative)

    def _fenced_list(self, block: Block, lead: _Lead, headings) -> None:
        for offset, line in enumerate(block.lines[1:-1] if len(block.lines) > 1 else (), start=1):
            command = line.strip()
            if not command or _COMMENT_LINE.match(command) or block.start + offset == block.end and command.startswith(("```", "~~~")):
                continue
            unit = Unit(block, "\n".join(block.lines), inherited=lead)
            start = sum(len(x) + 1 for x in block.lines[:offset]) + line.index(command)
            self._imperative_from(unit, None, start, start + len(command), [], lead.marker,
                                  [{"kind": "code", "text": command}], headings)

    def _read_unit(self, unit: Unit, headings) -> _Lead | None:
        """Read every sentence of a unit; return a lead marker if the unit introduces a list."""
        new_lead = None
        if _BAD_EXAMPLE.search(unit.text.lstrip()[:12]):
            return None
        sentences = split_sentences(unit.text, None if unit.inherited else self.ladder.may_have_marker)
        for sentence in sentences:
            markers = find_markers(sentence, self.ladder)
            if markers and (run_on := _run_on(sentence, markers)):
                quote, lines = _quote(unit.block, unit.text, sentence.start, sentence.end)
                self.skipped.append(Skipped(self.source.group_id, self.source.file, lines, quote, markers[0].text,
                                            "skip-no-imperative", f"{RUN_ON}: {run_on}"))
                continue
            governing = strongest(markers, self.ladder, sentence) or (replace(unit.inherited.marker, index=-1) if unit.inherited else None)
            if governing is None:
                continue
            self.recent = (governing, unit.block)
            if sentence.last and _is_lead(unit.text[sentence.start : sentence.end]):
                quote, _ = _quote(unit.block, unit.text, sentence.start, sentence.end)
                new_lead = _Lead(governing, unit.block, quote)
                if not any(t.type == "CODE" for t in sentence.tokens):
                    continue  # "Never run these commands:" only announces its list
            self._imperative_from(unit, sentence, sentence.start, sentence.end, markers, governing, None, headings)
        return new_lead

    def _other_clause(self, sentence: Sentence, markers: list[Marker], governing: Marker, clause: Clause):
        """Every clause is read with its own marker: when the governing one names nothing concrete,
        the next clause that does gives the trigger ("You should not run pytest … — always use
        `breeze`"); the strongest marker still decides the action."""
        for other in _by_strength(markers, self.ladder):
            cls = self.ladder.classes[other.marker_class]
            if other == governing or other.text in self.ladder.headers or cls.polarity == "hedged":
                continue
            candidate = read_clause(sentence, markers, other, self.lexicon)
            if candidate.marker != other or candidate.sequence:
                continue
            trigger = infer_trigger(candidate, cls.polarity, self.lexicon)
            if trigger is not None:
                return candidate, trigger
        return clause, None

    def _imperative_from(self, unit: Unit, sentence: Sentence | None, start: int, end: int,
                         markers: list[Marker], governing: Marker, objects: list[ClauseObject] | None,
                         headings=()) -> None:
        source = self.source
        quote, lines = _quote(unit.block, unit.text, start, end)
        if not quote:
            return
        cls = self.ladder.classes[governing.marker_class]
        if cls.polarity == "hedged":
            self.skipped.append(Skipped(source.group_id, source.file, lines, quote, governing.text,
                                        "skip-hedged", f"hedged: '{governing.text}'"))
            return
        if sentence is not None:
            clause = read_clause(sentence, markers, governing, self.lexicon)
        else:
            clause = Clause(marker=governing, objects=objects or [])
            clause.scope_text = " ".join(o["text"].lower() for o in clause.objects)
        if sentence is not None and unit.text[sentence.start : sentence.end].rstrip().endswith("?"):
            self.skipped.append(Skipped(source.group_id, source.file, lines, quote, governing.text,
                                        "skip-no-imperative", "a question, not an instruction"))
            return
        trigger = None if clause.sequence else infer_trigger(clause, cls.polarity, self.lexicon)
        if trigger is None and not clause.sequence and sentence is not None:
            clause, trigger = self._other_clause(sentence, markers, governing, clause)
        if trigger is not None and trigger.kind != "mcp" and all(p["field"] != "command" for p in trigger.patterns):
            section = self.lexicon.section_scope([h[2] for h in headings])
            if section and section not in trigger.file_scope:  # "## Testing": the heading scopes the file rules under it
                trigger.file_scope = f"^(?=.*{trigger.file_scope})(?=.*{section})" if trigger.file_scope else section
        context = {}
        if headings:
            context["heading"] = headings[-1][2]
        if source.convention.name == "skill" and unit.block.kind == "item" and _STEP.match(unit.block.lines[0]):
            context["step"] = True  # a numbered step of the skill's procedure
        if unit.inherited is not None and unit.inherited.quote:
            context["lead"] = unit.inherited.quote
            context["lead_lines"] = [unit.inherited.block.start, unit.inherited.block.end]
        imperative = build_imperative(source, quote, lines, clause.marker, cls, clause, trigger, context, self.role_ok)
        if clause.sequence:
            imperative.sequence = infer_sequence(clause, self.lexicon)
        if "pass1" not in imperative.routes and (cls.name == "advisory" or (headings and headings[-1][3])):
            imperative.routes = with_reviewer(imperative.routes)  # quality and principle rules also inform the reviewer
            imperative.reasons.append("rationale to Pass 3 prose (§15.1)")
        self.imperatives.append(imperative)


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
        reasons.append(f"{via} -> action={action} per §5 ({cls.name}); trigger {trigger.kind}")
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
        clause=clause.to_json(),
        trigger=trigger.to_json() if trigger else None,
        scope=scope,
        routes=routes,
        action=action,
        severity=severity,
        confidence=confidence,
        reasons=reasons,
        suggestion=trigger.suggestion if trigger else "",
        context=context,
        applies_to_roles=[source.role] if source.role and role_ok else [],
        pass2_cause=cause,
    )
