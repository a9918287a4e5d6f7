"""The front end's stages one by one (blocks -> units -> clauses -> candidates -> admission), `policyc
explain`, and the staged path giving exactly the imperatives a compile gives."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from policyc.compiler import cli, explain
from policyc.compiler.admission import admit_all
from policyc.compiler.extract import blocks, candidates, clauses, units
from policyc.compiler.ids import assign_ids
from policyc.compiler.ir import ClauseObject, ClauseObjectKind
from policyc.compiler.pipeline import compile_sources, load_sources, source_ir
from policyc.compiler.sources import SourceError, source_from_bytes
from policyc.compiler.targets import discover

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "cases"

RULES = """\
# Project rules

Never run `rm -rf /` on the build machine.
You should consider using `uv` for installs.

## Safety

Never run these commands:

```bash
git push --force
```

- Do not edit `package-lock.json` by hand.
- Always run `pytest` before committing?
- We might use `make`.
"""


def _source(text: str = RULES, name: str = "AGENTS.md"):
    return source_from_bytes(name, text.encode("utf-8"))


def _units():
    source = _source()
    return source, units(source, blocks(source))


def test_blocks_stage_has_every_block_with_its_lines():
    found = [(b.kind, b.start, b.end) for b in blocks(_source())]
    assert found == [("heading", 1, 1), ("paragraph", 3, 4), ("heading", 6, 6), ("paragraph", 8, 8),
                     ("code", 10, 12), ("item", 14, 14), ("item", 15, 15), ("item", 16, 16)]


def test_units_stage_keeps_heading_path_lead_line_and_list_context():
    _, walked = _units()
    rows = [(u.role, u.governing.text if u.governing else None, [h.title for h in u.headings],
             u.span.inherited.quote if u.span.inherited else None, u.sentence is None) for u in walked.units]
    assert rows == [
        ("rule", "Never", ["Project rules"], None, False),
        ("rule", "should", ["Project rules"], None, False),
        ("lead", "Never", ["Project rules", "Safety"], None, False),  # only announces the list
        ("rule", "Never", ["Project rules", "Safety"], "Never run these commands:", True),  # a fenced line
        ("rule", "Do not", ["Project rules", "Safety"], None, False),
        ("rule", "Always", ["Project rules", "Safety"], None, False),
        ("rule", "We might", ["Project rules", "Safety"], None, False),  # a hedge: stage 3 sets it aside
    ]
    assert walked.prose == []


def test_clauses_stage_reads_the_governed_clause_or_sets_the_sentence_aside():
    source, walked = _units()
    readings = clauses(source, walked.units)
    assert [r.lines for r in readings] == [[3, 3], [4, 4], [8, 8], [11, 11], [14, 14], [15, 15], [16, 16]]
    first = readings[0].clause
    assert first is not None and [o.text for o in first.objects] == ["rm -rf /"]
    assert readings[2].clause is None and readings[2].skipped is None  # the lead line
    assert readings[3].clause is not None and readings[3].clause.objects == [ClauseObject(ClauseObjectKind.CODE, "git push --force")]
    assert readings[5].skipped is not None and readings[5].skipped.reason == "a question, not an instruction"
    assert readings[6].skipped is not None and readings[6].skipped.marker_class == "skip-hedged"


def test_candidates_stage_proposes_before_admission():
    source, walked = _units()
    found = candidates(source, clauses(source, walked.units))
    assert [c.reading.lines for c in found if c.reading] == [[3, 3], [4, 4], [11, 11], [14, 14]]
    imps = [c.imperative for c in found]
    assert all(i.admission is None and i.id == "" for i in imps)
    assert [i.trigger.kind if i.trigger else None for i in imps] == ["command", None, "command", "path"]
    assert imps[0].routes == ["pass1", "pass2"]  # proposed: admission has not run


def test_admission_stage_decides_on_copies():
    source, walked = _units()
    found = candidates(source, clauses(source, walked.units))
    decided = explain.admitted(source, found)
    assert [i.admission.decision if i.admission else None for i in decided] == ["demoted", "no-candidate", "admitted", "admitted"]
    assert decided[0].admission.gate == "scope" and decided[0].routes == ["pass2"]
    assert all(c.imperative.admission is None for c in found)  # the candidates are left as proposed


def test_journey_stops_at_the_stage_asked_for():
    source = _source()
    assert explain.journey(source, "blocks").units is None
    assert explain.journey(source, "units").readings == []
    assert explain.journey(source, "clauses").candidates == []
    assert explain.journey(source, "candidates").imperatives == []
    assert len(explain.journey(source).imperatives) == 4
    assert cli.EXPLAIN_STAGES == explain.STAGES


def test_explain_verb_prints_each_sentence_journey(tmp_path, capsys):
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text(RULES, encoding="utf-8")
    assert cli.main(["explain", str(tmp_path / "AGENTS.md")]) == 0
    out = capsys.readouterr().out
    assert "line 11: 'git push --force'" in out
    assert 'takes "Never" (forbids: a rule that blocks the call) from the lead line at line 8' in out
    assert "demoted by the scope gate" in out
    assert "a question, not an instruction" in out
    assert "a hook rule, block (critical), id enforce-local-agents-md-no-git-push-force" in out
    assert cli.main(["explain", str(tmp_path / "AGENTS.md"), "--stage", "units"]) == 0
    out = capsys.readouterr().out
    assert "line 11: 'git push --force'\n  units       a line of a fenced list under \"Project rules > Safety\"" in out
    assert "clauses" not in out
    assert cli.main(["explain", str(tmp_path / "AGENTS.md"), "--stage", "clauses"]) == 0
    out = capsys.readouterr().out
    assert "candidates" not in out and "  clauses     verb 'run'; about `rm -rf /`" in out
    assert cli.main(["explain", str(tmp_path / "AGENTS.md"), "--stage", "blocks", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["stage"] == "blocks" and doc["blocks"][4]["kind"] == "code"
    assert cli.main(["explain", str(tmp_path / "AGENTS.md"), "--stage", "units", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["sentences"][3]["quote"] == "git push --force" and doc["sentences"][3]["unit"]["lead"]["lines"] == [8, 8]
    assert cli.main(["explain", str(tmp_path / "AGENTS.md"), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [s["lines"][0] for s in doc["sentences"]] == [3, 4, 8, 11, 14, 15, 16]
    assert doc["sentences"][3]["imperative"]["id"] == "enforce-local-agents-md-no-git-push-force"
    assert cli.main(["explain", str(tmp_path / "missing.md")]) == 2


def test_a_rule_read_from_the_words_says_which_call_it_watches(tmp_path, capsys):
    (tmp_path / "AGENTS.md").write_text("- Never skip tests.\n- Never force push.\n", encoding="utf-8")
    assert cli.main(["explain", str(tmp_path / "AGENTS.md"), "--stage", "candidates"]) == 0
    out = capsys.readouterr().out
    assert "block when the content a tool writes (read from the words) matches 'skip tests'" in out
    assert "block when a shell command (read from the words) matches 'force push'" in out


def _staged(sources) -> list[dict]:
    """The imperatives of a run by the stages alone: blocks, units, clauses, candidates, then admission and ids."""
    imperatives = []
    for source in sorted(sources, key=lambda s: s.file):
        imperatives += [c.imperative for c in candidates(source, clauses(source, units(source, blocks(source)).units))]
    admit_all(imperatives, {s.file: source_ir(s) for s in sources})
    assign_ids(imperatives)
    return [asdict(i) for i in imperatives]


CASES = sorted(p for p in GOLDEN.iterdir() if p.is_dir())


def test_the_staged_path_equals_the_compile_on_every_golden_case():
    for case in CASES:
        sources = load_sources(discover(case), case)[0]
        assert _staged(sources) == [asdict(i) for i in compile_sources(sources).imperatives], case.name


def _golden_files() -> list[tuple[str, str]]:
    files = []
    for case in CASES:
        for path in discover(case).paths:
            files.append((path.relative_to(case).as_posix(), path.read_text(encoding="utf-8")))
    return files


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_golden_files()), st.data())
def test_the_staged_path_equals_the_compile_on_golden_lines(file, data):
    """Any selection of a golden file's lines, in order: the stages give the compile's imperatives."""
    name, text = file
    lines = text.splitlines(keepends=True)
    kept = data.draw(st.lists(st.booleans(), min_size=len(lines), max_size=len(lines)))
    try:
        source = source_from_bytes(name, "".join(line for line, keep in zip(lines, kept) if keep).encode("utf-8"))
    except SourceError:
        return
    assert _staged([source]) == [asdict(i) for i in compile_sources([source]).imperatives]
    journey = explain.journey(source)
    assert [asdict(i) for i in journey.imperatives] == _staged([source])


def test_a_rule_a_conflict_speaks_for_is_not_shown_as_its_own(tmp_path):
    """The result line gives the rules a compile gives: of two rules with the same trigger, one stands for both."""
    path = tmp_path / "AGENTS.md"
    path.write_text("- Never run `git push --force`.\n- You must not run `git push --force`.\n")
    found = explain.journey(source_from_bytes("AGENTS.md", path.read_bytes()))
    text = explain.render_text(found)
    assert text.count("a hook rule") == 1 and "no rule of its own" in text
    winners = {w for w, _ in found.settled.values() if w}
    assert len(winners) == 1
