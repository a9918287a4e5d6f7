"""`policyc explain`: each sentence's journey through the front end, stage by stage.

The stages are the front end's own (compiler/extract.py for the first four):

    blocks -> units -> clauses -> candidates -> admission -> IR imperatives

`journey` runs them on one source and keeps what each stage returned, up to the
one asked for; `render_text` says in words what happened to every sentence,
and `to_json` gives the same as data. Admission, naming and conflicts run here
on copies of the candidates, for this file alone, exactly as a compile runs them
(compiler/pipeline.py), so the rules shown are the ones a compile of the file
gives (a compile of the whole project may name a rule differently when two
files share a group).
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field

from .blocks import Block
from .extract import Candidate, Reading, Unit, Units, blocks, candidates, clauses, units
from .ir import ClauseObject, Imperative, Prose, Route, TriggerKind, plain
from .sources import Source

STAGES = ("blocks", "units", "clauses", "candidates", "admission")


@dataclass(slots=True)
class Journey:
    """What each stage returned for one source, up to `stop`; the later stages are empty."""

    source: Source
    stop: str
    blocks: list[Block]
    units: Units | None = None
    readings: list[Reading] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    imperatives: list[Imperative] = field(default_factory=list)  # admitted and named, in candidates' order
    settled: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (conflict winner or "", the action it enforces)


def admitted(source: Source, found: list[Candidate]) -> list[Imperative]:
    """Stage 5: the admission gates' decision on each candidate (copies: the candidates are left as proposed)."""
    from .admission import admit_all
    from .pipeline import source_ir

    imperatives = [copy.deepcopy(c.imperative) for c in found]
    admit_all(imperatives, {source.file: source_ir(source)})
    return imperatives


def named(imperatives: list[Imperative]) -> list[Imperative]:
    """Stage 6: the IR imperatives, with the ids a fresh compile gives them."""
    from .ids import assign_ids

    assign_ids(imperatives)
    return imperatives


def settled(source: Source, imperatives: list[Imperative]) -> dict[str, tuple[str, str]]:
    """Conflicts between this file's rules, settled as a compile settles them: id -> (the winner that
    speaks for it, or ""; the action its GuardRule enforces, the strictest of its conflict)."""
    from .conflicts import resolve as resolve_conflicts
    from .ir import PolicyIR
    from .pipeline import source_ir
    from .resolve import resolve

    ir = PolicyIR(distiller="", distilled_at="", sources=[source_ir(source)], imperatives=imperatives)
    resolve_conflicts(ir)
    return {r.imperative.id: (r.shadowed_by, r.action) for r in resolve(ir).rules}


def journey(source: Source, stop: str = "admission") -> Journey:
    """Run the stages on `source` up to and including `stop` (one of STAGES)."""
    found = Journey(source, stop, blocks(source))
    if stop == "blocks":
        return found
    found.units = units(source, found.blocks)
    if stop == "units":
        return found
    found.readings = clauses(source, found.units.units)
    if stop == "clauses":
        return found
    found.candidates = candidates(source, found.readings)
    if stop == "candidates":
        return found
    found.imperatives = named(admitted(source, found.candidates))
    found.settled = settled(source, found.imperatives)
    return found


# -- words -------------------------------------------------------------------------------------------

_BLOCK_WORDS = {"heading": "heading", "paragraph": "paragraph", "item": "list item", "code": "fenced code block",
                "table": "table", "quote": "block quote", "html": "HTML block"}
_CLASS_WORDS = {
    "block-direct": "forbids: a rule that blocks the call",
    "block-positive": "requires: a rule that blocks what goes against it",
    "ask": "discourages: a rule that asks the user before the call",
    "advisory": "recommends: a rule that warns",
    "skip-hedged": "hedges: never enforced",
}
_CLAUSE_WORDS = (  # (ClauseRecord key, what it means to a reader)
    ("verb", "verb"), ("objects", "about"), ("instead_of", "instead of"), ("rejected", "rather than"),
    ("alternatives", "what to do instead"), ("examples", "examples (never the rule's target)"),
    ("asides", "asides (ignored)"), ("qualifiers", "only"), ("purpose", "purpose"), ("exceptions", "except"),
    ("condition", "unless"), ("sequence", "order"), ("file_scope", "files"),
)
_TRIGGER_WORDS = {"command": "a shell command", "required-form": "a shell command not in the required form",
                  "path": "a file path a tool touches", "content": "the content a tool writes", "mcp": "an MCP tool call",
                  "omp-condition": "the OMP rule's condition"}
_ROUTE_WORDS = {"pass1": "the hook, which enforces it before the tool call (distilled-rules.json, Pass 1)",
                "pass2": "the LLM policy gate and Cedar (policy.md and .cedar, Pass 2)",
                "pass3": "a reviewer's guidance (prose.md, Pass 3)"}


def _routes(routes: list[Route]) -> str:
    return "; ".join(_ROUTE_WORDS[r] for r in routes)


def _lines(lines: list[int]) -> str:
    return f"line {lines[0]}" if lines[0] == lines[1] else f"lines {lines[0]}-{lines[1]}"


def _names(values: tuple) -> str:
    return ", ".join(f"`{v.text}`" if isinstance(v, ClauseObject) else repr(v) for v in values)


def _where(unit: Unit) -> str:
    block = unit.span.block
    kind = "line of a fenced list" if unit.sentence is None else _BLOCK_WORDS.get(block.kind, block.kind)
    if block.kind == "table":
        kind = "table cell"
    path = " > ".join(h.title for h in unit.headings)
    return f"a {kind}" + (f' under "{path}"' if path else "")


def _unit_words(unit: Unit) -> str:
    if unit.role == "run-on":
        return f"{_where(unit)}; too long to read as one rule ({unit.why})"
    governing = unit.governing
    assert governing is not None
    what = _CLASS_WORDS.get(governing.marker_class, governing.marker_class)
    inherited = unit.span.inherited
    if unit.sentence is not None and governing.index >= 0:
        own = f'rule word "{governing.text}" ({what})'
        if inherited is not None and not inherited.quote and governing.marker_class == inherited.marker.marker_class \
                and all(m.marker_class != governing.marker_class for m in unit.markers):
            own += f', graded by its heading\'s "{inherited.marker.text}"'
        if len(unit.markers) > 1:
            own += "; the strongest of " + ", ".join(f'"{m.text}"' for m in unit.markers)
    elif inherited is not None and inherited.quote:
        own = f'no rule word of its own: takes "{governing.text}" ({what}) from the lead line at {_lines([inherited.block.start, inherited.block.end])}'
    else:
        own = f'no rule word of its own: takes "{governing.text}" ({what}) from its heading'
    words = f"{_where(unit)}; {own}"
    if unit.role == "lead":
        words += "; it only announces the list below it, which inherits its rule word"
    return words


def _clause_words(reading: Reading) -> str:
    if reading.skipped is not None:
        return f"set aside ({reading.skipped.marker_class}): {reading.skipped.reason}"
    if reading.clause is None:
        return "no rule of its own" if reading.unit.role == "lead" else "no text to read"
    record = reading.clause.record()
    parts = []
    for key, label in _CLAUSE_WORDS:
        value = getattr(record, key)
        if value:
            parts.append(f"{label} {_names(value) if isinstance(value, tuple) else repr(value)}")
    return "; ".join(parts) or "nothing concrete named (a trigger may still come from the words)"


def _candidate_words(imp: Imperative) -> str:
    trigger = imp.trigger
    if trigger is None:
        return f"no rule the hook can check ({imp.pass2_cause}); proposed for {_routes(imp.routes)}"
    kind = trigger.label
    if trigger.kind == TriggerKind.PROSE:  # a lexicon entry read from the words watches a command or what is written
        shell = any(p.field == "command" for p in trigger.patterns)
        what = ("a shell command" if shell else "the content a tool writes") + " (read from the words)"
    else:
        what = _TRIGGER_WORDS[trigger.kind]
    named = ", ".join(trigger.values) or trigger.summary or ", ".join(trigger.keywords)
    return (f"{imp.action} when {what} matches" + (f" {named!r}" if named else "")
            + f" (trigger {kind}); proposed for {_routes(imp.routes)}")


def _admission_words(imp: Imperative) -> str:
    admission = imp.admission
    if admission is None:
        return "not decided"
    if admission.decision == "admitted":
        return f"admitted: {admission.reason}"
    if admission.decision == "demoted":
        return f"demoted by the {admission.gate} gate: {admission.reason}"
    return f"nothing to admit: {admission.reason}"


def _result_words(imp: Imperative, settled: tuple[str, str]) -> str:
    winner, action = settled
    if winner:
        return f"no rule of its own, id {imp.id}: it conflicts with {winner}, which speaks for both"
    hook = "a hook rule" if "pass1" in imp.routes else "no hook rule"
    stricter = f", raised to {action} by a conflict" if action and action != imp.action else ""
    return f"{hook}, {imp.action} ({imp.severity}){stricter}, id {imp.id}; goes to {_routes(imp.routes)}"


def _entries(found: Journey) -> list[tuple[list[int], str, Unit | None, Reading | None, Candidate | None, Imperative | None]]:
    """One entry per sentence, in source order: (lines, quote, its unit, reading, candidate and imperative, as far as they go)."""
    decided: list[Imperative | None] = list(found.imperatives) if found.imperatives else [None] * len(found.candidates)
    pairs = list(zip(found.candidates, decided))
    by_reading: dict[int, tuple[Candidate | None, Imperative | None]] = {id(c.reading): (c, imp) for c, imp in pairs}
    rows: list = []
    for c, imp in pairs:
        if c.reading is None:  # an OMP rule, from the frontmatter
            rows.append((c.imperative.lines, c.imperative.quote, None, None, c, imp))
    if found.units is None:
        return rows
    readings: list[Reading | None] = list(found.readings) if found.readings else [None] * len(found.units.units)
    for unit, reading in zip(found.units.units, readings):
        cand, decided_imp = by_reading.get(id(reading), (None, None)) if reading is not None else (None, None)
        lines, quote = (reading.lines, reading.quote) if reading is not None else (_unit_lines(unit), _unit_quote(unit))
        rows.append((lines, quote, unit, reading, cand, decided_imp))
    return rows


def _unit_lines(unit: Unit) -> list[int]:
    text, block = unit.span.text, unit.span.block
    return [block.start + text.count("\n", 0, unit.start), block.start + text.count("\n", 0, unit.end)]


def _unit_quote(unit: Unit) -> str:
    return " ".join(unit.span.text[unit.start : unit.end].split())


def render_text(found: Journey) -> str:
    """Every sentence's journey in words, with its line numbers."""
    source = found.source
    out = [f"{source.file} ({source.convention.name} convention, {source.convention.kind})"]
    if found.stop == "blocks":
        out.append(f"{len(found.blocks)} blocks:")
        for block in found.blocks:
            first = " ".join(block.lines[0].split())
            out.append(f"  {_lines([block.start, block.end]):<14} {_BLOCK_WORDS.get(block.kind, block.kind):<18} {first[:70]}")
        return "\n".join(out) + "\n"
    rows = _entries(found)
    if not rows:
        out.append("No sentence has a rule word (never, must, always, avoid, should, ...), so no rule comes from this file.")
    for lines, quote, unit, reading, cand, imp in rows:
        out.append("")
        out.append(f"{_lines(lines)}: {quote!r}")
        if unit is None and cand is not None:
            out.append("  units       the OMP rule's frontmatter condition (not a sentence of the body)")
        if unit is not None:
            out.append(f"  units       {_unit_words(unit)}")
        if found.stop == "units":
            continue
        if reading is not None:
            out.append(f"  clauses     {_clause_words(reading)}")
        if found.stop == "clauses" or cand is None:
            if found.stop != "clauses":
                out.append("  result      no rule")
            continue
        out.append(f"  candidates  {_candidate_words(cand.imperative)}")
        if imp is not None:
            out.append(f"  admission   {_admission_words(imp)}")
            out.append(f"  result      {_result_words(imp, found.settled.get(imp.id, ('', '')))}")
    out.append("")
    out.append("Only sentences with a rule word are listed; any other sentence makes no rule."
               + (f" {len(found.units.prose)} blocks go verbatim to the Pass 3 prose (under a definitions, principles or methodology heading)."
                  if found.units is not None and found.units.prose else ""))
    return "\n".join(out) + "\n"


def _prose_json(prose: Prose) -> dict:
    return {"lines": prose.lines, "section": prose.section, "heading": prose.heading}


def to_json(found: Journey) -> dict:
    """The journey as data: the blocks, or one record per sentence with what each stage made of it."""
    source = found.source
    doc: dict = {"file": source.file, "convention": source.convention.name, "stage": found.stop}
    if found.stop == "blocks":
        doc["blocks"] = [{"kind": b.kind, "lines": [b.start, b.end], "depth": b.depth, "text": b.text} for b in found.blocks]
        return doc
    sentences = []
    for lines, quote, unit, reading, cand, imp in _entries(found):
        record: dict = {"lines": lines, "quote": quote}
        if unit is not None:
            record["unit"] = _unit_json(unit)
        if reading is not None and found.stop != "units":
            record["clause"] = plain(reading.clause.record().to_json()) if reading.clause is not None else None
            record["skipped"] = asdict(reading.skipped) if reading.skipped is not None else None
        if cand is not None:
            record["candidate"] = _imperative_json(cand.imperative)
        if imp is not None:
            record["admission"] = plain(imp.admission)
            record["imperative"] = _imperative_json(imp)
            winner, action = found.settled.get(imp.id, ("", ""))
            record["conflict"] = {"spoken_for_by": winner, "action": action}  # as a compile settles it
        sentences.append(record)
    doc["sentences"] = sentences
    doc["prose"] = [_prose_json(p) for p in found.units.prose] if found.units is not None else []
    return doc


def _unit_json(unit: Unit) -> dict:
    governing = unit.governing
    inherited = unit.span.inherited
    return {
        "block": {"kind": unit.span.block.kind, "lines": [unit.span.block.start, unit.span.block.end]},
        "role": unit.role,
        "headings": [h.title for h in unit.headings],
        "markers": [{"text": m.text, "class": m.marker_class} for m in unit.markers],
        "governing": {"text": governing.text, "class": governing.marker_class, "inherited": governing.index < 0} if governing else None,
        "lead": {"quote": inherited.quote, "lines": [inherited.block.start, inherited.block.end]} if inherited and inherited.quote else None,
        "why": unit.why,
    }


def _imperative_json(imp: Imperative) -> dict:
    record = plain(imp.to_json())
    if not imp.id:
        del record["id"]
    if imp.admission is None:
        del record["admission"]
    return record
