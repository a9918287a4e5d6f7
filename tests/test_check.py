"""`policyc check`: recorded events against the compiled rules, as the harness decides them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from policyc.compiler.check import EXIT_BLOCKED, Event, run
from policyc.compiler.cli import main
from policyc.compiler.harness import Evaluator, split_compound

from conftest import DATA, corpus_manifest, lay_out, make_project

SAMPLE = yaml.safe_load((DATA / "labelled_sample.yaml").read_text(encoding="utf-8"))
MISSES = {(m["file"], m["line"], m["text"]) for m in yaml.safe_load((DATA / "known_misses.yaml").read_text(encoding="utf-8")) or []}


def _event(tool: str, field: str, value: str) -> dict:
    tool_input = {"command": value} if field == "command" else {"file_path": value}
    return {"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": "/repo", "tool_name": tool, "tool_input": tool_input}


def test_recorded_events_from_the_labelled_sample(tmp_path):
    """Every must-match input of a met label is blocked; no must-not-match input is."""
    rows = {r["file"]: r for r in corpus_manifest()}
    checked = 0
    for corpus_file in sorted({e["file"] for e in SAMPLE}):
        entries = [e for e in SAMPLE if e["file"] == corpus_file and e["expect"] == "block" and e["field"] != "content"
                   and (e["file"], e["line"], e["text"]) not in MISSES]
        if not entries:
            continue
        project = make_project(tmp_path / corpus_file.split("__", 1)[0], {})
        lay_out(rows[corpus_file], project)
        assert main(["compile", "--root", str(project)]) in (0, 1)
        events, expected = [], []
        for entry in entries:
            for value in entry["must_match"]:
                events.append(_event(entry["tool"], entry["field"], value))
                expected.append(True)
            for value in entry["must_not_match"]:
                events.append(_event(entry["tool"], entry["field"], value))
                expected.append(False)
        recorded = project / "events.jsonl"
        recorded.write_text("".join(json.dumps(e) + "\n" for e in events))
        rules = json.loads((project / ".interlinked" / "distilled-rules.json").read_text())["rules"]
        skills = sorted({r["active_when"]["skill"] for r in rules if "skill" in r.get("active_when", {})})
        for event in events:  # a skill's rules are live while the skill is
            event["session"] = {"active_skills": skills}
        report = run([Event(f"events.jsonl:{n}", e) for n, e in enumerate(events, 1)], rules, gate=False)
        for event, should_block, result in zip(events, expected, report.results):
            assert (result["decision"] == "block") == should_block, (corpus_file, event["tool_input"], result)
            checked += 1
    assert checked >= 40


def test_gate_stops_at_the_first_block_and_json_lines(tmp_path, capsys, monkeypatch):
    root = make_project(tmp_path, {"AGENTS.md": "Never run `terraform destroy`.\nAvoid `git stash drop`.\nPrefer `pnpm` over `npm`.\n"})
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    events = root / "events.jsonl"
    events.write_text("\n".join(json.dumps(_event("Bash", "command", c)) for c in
                                ["npm test", "git stash drop", "terraform destroy", "ls"]) + "\n")
    capsys.readouterr()
    assert main(["check", str(events), "--format", "json"]) == EXIT_BLOCKED
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["index"], r["decision"]) for r in lines] == [(0, "allow"), (1, "ask"), (2, "block"), (3, "not-reached")]
    assert lines[0]["warnings"] == ["enforce-local-agents-md-avoid-npm"]
    assert main(["check", str(events), "--audit"]) == EXIT_BLOCKED
    out = capsys.readouterr().out
    assert "Attempts per rule:" in out and "#3    allow" in out


def test_cedar_agrees_with_the_guardrules_on_exact_rules(tmp_path, capsys, monkeypatch):
    root = make_project(tmp_path, {"AGENTS.md": "MUST NOT edit files under db/migrations/ directly.\n"})
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    events = root / "events.jsonl"
    events.write_text("".join(json.dumps(_event(t, "file_path", p)) + "\n" for t, p in
                              [("Edit", "/repo/db/migrations/001.sql"), ("Write", "/repo/src/app.py")]))
    capsys.readouterr()
    assert main(["check", str(events), "--audit", "--cedar"]) == EXIT_BLOCKED
    assert "Cedar disagrees" not in capsys.readouterr().out


def test_compound_commands_and_the_skill_scope_defect():
    rule = {"id": "enforce-skill-x-no-rm", "enabled": True, "trigger": "PreToolUse", "tool_match": ["Bash"], "action": "block",
            "patterns": [{"field": "command", "regex": "(?:^|[;&|(]\\s*)rm\\s", "flags": ""}], "reason": "r",
            "severity": "high", "active_when": {"skill": "x"}, "source": {"quote": "q"}}
    evaluator = Evaluator([rule])
    assert evaluator.evaluate(_event("Bash", "command", "rm -r build")).decision == "allow"  # skill inactive
    decision = evaluator.evaluate(_event("Bash", "command", "cd /repo && rm -r build"))
    assert decision.decision == "block" and "ignores active_when" in decision.defects[0]
    active = {**_event("Bash", "command", "rm -r build"), "session": {"active_skills": ["x"]}}
    assert evaluator.evaluate(active).decision == "block"
    assert split_compound('a && b || c; d | e & f\ng "h;i" $(j && k)') == ["a", "b", "c", "d", "e", "f", 'g "h;i" $(j && k)']


