"""`policyc check`: recorded events against the compiled rules, as the harness decides them."""

from __future__ import annotations

import io
import json

import pytest
from conftest import DATA, corpus_manifest, lay_out, load_yaml, make_project
from policyc.compiler.check import EXIT_BLOCKED, Event, run
from policyc.compiler.cli import main
from policyc.compiler.harness import Evaluator, split_compound

SAMPLE = load_yaml((DATA / "labelled_sample.yaml").read_text(encoding="utf-8"))
MISSES = {(m["file"], m["line"], m["text"]) for m in load_yaml((DATA / "known_misses.yaml").read_text(encoding="utf-8")) or []}


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




BAD_LINES = [
    ("not json", "not JSON: Expecting value: line 1 column 1 (char 0)"),
    ("[1]", "a JSON array, not an object"),
    ('{"tool_name": "Bash", "tool_input": "rm -rf /"}', "tool_input is a string, not an object"),
    ('{"tool_input": {"command": "ls"}}', "tool_name is missing"),
    ('{"type": "user", "message": {"role": "user", "content": "hi"}, "sessionId": "s"}',
     "a session transcript line (replay transcripts with `policyc check --transcript`)"),
    ('{"hook_event_name": "Stop", "tool_name": "Bash", "tool_input": {}}', "hook_event_name is 'Stop'"),
]


@pytest.fixture
def terraform(tmp_path, monkeypatch):
    root = make_project(tmp_path, {"AGENTS.md": "Never run `terraform destroy`.\nAvoid `git stash drop`.\n"})
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    return root


@pytest.mark.parametrize("line, problem", BAD_LINES)
def test_an_unreadable_line_is_never_allowed(terraform, capsys, line, problem):
    events = terraform / "events.jsonl"
    events.write_text(json.dumps(_event("Bash", "command", "ls")) + "\n" + line + "\n" + json.dumps(_event("Bash", "command", "ls")) + "\n")
    capsys.readouterr()
    assert main(["check", str(events), "--format", "json"]) == 1  # --gate: the run stops there
    out, err = capsys.readouterr()
    results = [json.loads(r) for r in out.splitlines()]
    assert [(r["decision"], r["at"]) for r in results] == [("allow", f"{events}:1"), ("error", f"{events}:2"), ("not-reached", f"{events}:3")]
    assert results[1]["error"] == problem
    assert err == f"policyc: error: {events}:2: unreadable: {problem}\n"
    assert main(["check", str(events), "--audit"]) == 1
    assert "Traceback" not in capsys.readouterr().err


def test_invalid_utf8_on_stdin(terraform, capsys, monkeypatch):
    lines = b'{"tool_name": "\xff"}\n' + json.dumps(_event("Bash", "command", "terraform destroy")).encode() + b"\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(lines)))
    assert main(["check", "-", "--audit"]) == 1  # unreadable wins over the block (3)
    out = capsys.readouterr().out
    assert "<stdin>:1: not UTF-8 (byte 15)" in out and "#1    block       enforce-local-agents-md-no-terraform-destroy" in out


def test_stdin_and_json_details(terraform, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(json.dumps(_event("Bash", "command", "terraform destroy")).encode())))
    capsys.readouterr()
    assert main(["check", "-", "--format", "json"]) == EXIT_BLOCKED
    assert json.loads(capsys.readouterr().out) == {
        "index": 0, "at": "<stdin>:1", "decision": "block", "rule_id": "enforce-local-agents-md-no-terraform-destroy", "warnings": [],
        "reason": 'AGENTS.md:1 — "Never run `terraform destroy`."', "quote": "Never run `terraform destroy`.",
        "source_file": "AGENTS.md", "source_lines": [1, 1]}


def _transcript_line(*calls, kind="assistant") -> str:
    content = [{"type": "text", "text": "Running it."}] + [{"type": "tool_use", "id": f"toolu_0{n}", "name": name, "input": tool_input}
                                                        for n, (name, tool_input) in enumerate(calls)]
    return json.dumps({"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/repo", "sessionId": "9f1c",
                       "version": "2.0.14", "type": kind, "uuid": "u1", "timestamp": "2026-11-30T10:00:00.000Z",
                       "message": {"id": "msg_01", "type": "message", "role": kind, "model": "claude-sonnet-4-5", "content": content}})


def test_transcripts_replay_every_tool_call(terraform, capsys):
    session = terraform / "session.jsonl"
    session.write_text("\n".join([
        json.dumps({"type": "summary", "summary": "Tidy the infra", "leafUuid": "u9"}),
        json.dumps({"type": "user", "message": {"role": "user", "content": "clean up"}, "cwd": "/repo", "sessionId": "9f1c"}),
        _transcript_line(("Bash", {"command": "git stash drop", "description": "drop"}), ("Read", {"file_path": "/repo/main.tf"})),
        json.dumps({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_00", "content": "ok"}]}}),
        _transcript_line(("Bash", {"command": "terraform destroy -auto-approve"})),
        _transcript_line(("Bash", "not an object")),
    ]) + "\n")
    capsys.readouterr()
    assert main(["check", "--transcript", str(session), "--audit", "--format", "json"]) == 1
    results = [json.loads(r) for r in capsys.readouterr().out.splitlines()]
    assert [(r["at"], r["decision"], r["rule_id"]) for r in results] == [
        (f"{session}:3", "ask", "enforce-local-agents-md-no-git-stash-drop"), (f"{session}:3", "allow", None),
        (f"{session}:5", "block", "enforce-local-agents-md-no-terraform-destroy"), (f"{session}:6", "error", None)]
    assert results[3]["error"] == "tool_input is a string, not an object"
    session.write_text("\n".join(session.read_text().splitlines()[:5]) + "\n")
    assert main(["check", "--transcript", str(session)]) == EXIT_BLOCKED
    assert "Halted at event #2" in capsys.readouterr().out


def test_check_takes_events_or_transcripts(terraform, capsys):
    assert main(["check"]) == 2
    assert main(["check", "x.jsonl", "--transcript", "y.jsonl"]) == 2
    assert "check takes an events file" in capsys.readouterr().err


def test_rules_of_two_skills_on_one_file_scope_are_each_decided_by_their_own_skill():
    from policyc.compiler.harness import Evaluator

    def rule(skill, literal):
        return {"id": f"enforce-x-{skill}", "enabled": True, "trigger": "PreToolUse", "tool_match": ["Write"], "action": "block",
                "patterns": [{"field": "content", "regex": literal, "flags": ""}], "reason": skill,
                "active_when": {"skill": skill, "file_scope": r"\.py$"}}

    evaluator = Evaluator([rule("alpha", "eval"), rule("beta", "exec")])
    event = {"tool_name": "Write", "tool_input": {"file_path": "a.py", "content": "exec(x)"}, "session": {"active_skills": ["beta"]}}
    assert evaluator.evaluate(event).rule_id == "enforce-x-beta"  # alpha being dormant does not switch beta off
