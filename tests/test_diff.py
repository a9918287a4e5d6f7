"""`policyc diff` on real history: a corpus file, realistic edits, a git repository."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import CORPUS, make_project
from policyc.compiler.cli import main

EDITS = [  # (what, old text, new text)
    ("reworded", "**Never run pytest, python, or airflow commands directly on the host**",
     "**Never run pytest, python, or airflow commands on the host directly**"),
    ("deleted", "- NEVER add Co-Authored-By with yourself as co-author of the commit. ", "- "),
    ("never->should", "\nNever push directly to `main`.", "\nYou should not push directly to `main`."),
    ("pattern changed", "Do not use `datetime.now()`", "Do not use `datetime.utcnow()`"),
]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
                   check=True, capture_output=True)


@pytest.fixture
def history(tmp_path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    text = (CORPUS / "files" / "010__apache__airflow__AGENTS.md").read_text(encoding="utf-8")
    (repo / "AGENTS.md").write_text(text)
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "before")
    for _, old, new in EDITS:
        assert old in text
        text = text.replace(old, new)
    (repo / "AGENTS.md").write_text("<!-- three lines -->\n\ninserted above\n" + text)
    _git(repo, "commit", "-qam", "after")
    return repo


def _diff(repo, capsys, *extra) -> tuple[int, str]:
    code = main(["diff", "--git", "HEAD~1", "HEAD", "--root", str(repo), *extra])
    return code, capsys.readouterr().out


def test_the_diff_names_exactly_the_edits(history, capsys, snapshot):
    snapshot.snapshot_dir = Path(__file__).parent / "snapshots" / "diff"
    code, out = _diff(history, capsys, "--format", "json")
    assert code == 0
    result = json.loads(out)
    assert [r["id"] for r in result["removed"]] == ["enforce-local-agents-md-no-co-authored-by"]
    assert result["added"] == []
    changed = {c["id"]: c for c in result["changed"]}
    assert set(changed) == {"enforce-local-agents-md-no-pytest-python-airflow", "enforce-local-agents-md-no-push-main",
                            "enforce-local-agents-md-no-datetime-utcnow"}
    reworded = changed["enforce-local-agents-md-no-pytest-python-airflow"]
    assert set(reworded["fields"]) == {"quote", "lines"} and reworded["weakens"] is False
    softer = changed["enforce-local-agents-md-no-push-main"]
    assert softer["fields"]["action"] == ["block", "ask"] and softer["weakens"] is True
    pattern = changed["enforce-local-agents-md-no-datetime-utcnow"]
    assert pattern["old_id"] == "enforce-local-agents-md-no-datetime-now" and pattern["weakens"] is True
    assert "patterns" in pattern["fields"]
    assert {m["id"] for m in result["moved"]} and all(m["new_lines"][0] == m["old_lines"][0] + 3 for m in result["moved"])
    snapshot.assert_match(out, "airflow.json")
    _, markdown = _diff(history, capsys, "--format", "markdown")
    snapshot.assert_match(markdown, "airflow.md")
    _, text = _diff(history, capsys)
    snapshot.assert_match(text, "airflow.txt")


def test_exit_codes(history, capsys):
    assert _diff(history, capsys, "--exit-code")[0] == 1
    assert _diff(history, capsys, "--fail-on", "weaken")[0] == 1
    assert main(["diff", "--git", "HEAD", "HEAD", "--root", str(history), "--exit-code"]) == 0


def test_diff_of_saved_irs(tmp_path, capsys, monkeypatch):
    root = make_project(tmp_path, {"AGENTS.md": "Never run `terraform destroy`.\n"})
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    old = tmp_path / "old.ir.json"
    old.write_bytes((root / ".interlinked" / "policy.ir.json").read_bytes())
    (root / "AGENTS.md").write_text("Never run `terraform destroy`.\nNever run `terraform apply -auto-approve`.\n")
    assert main(["compile"]) == 0
    capsys.readouterr()
    assert main(["diff", str(old), str(root), "--format", "json", "--fail-on", "weaken"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [a["id"] for a in result["added"]] == ["enforce-local-agents-md-no-terraform-apply-auto-approve"]


def _saved_ir(tmp_path, monkeypatch, text: str) -> Path:
    root = make_project(tmp_path / "p", {"AGENTS.md": text})
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    return root / ".interlinked" / "policy.ir.json"


def test_pass2_rules_and_routing_changes_count(tmp_path, monkeypatch, capsys):
    old = _saved_ir(tmp_path, monkeypatch, "Never run `terraform destroy`.\nAlways keep functions small and focused.\n")
    doc = json.loads(old.read_text())
    gate_only = next(i for i in doc["imperatives"] if i["routes"] == ["pass2"])
    rule = next(i for i in doc["imperatives"] if "pass1" in i["routes"])
    new_doc = json.loads(old.read_text())
    new_doc["imperatives"] = [dict(rule, routes=["pass2"], pass2_cause="its pattern cannot load in the harness")]
    new = tmp_path / "new.ir.json"
    new.write_text(json.dumps(new_doc))
    capsys.readouterr()
    assert main(["diff", str(old), str(new), "--format", "json", "--fail-on", "weaken"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert [(r["id"], r["routes"]) for r in result["removed"]] == [(gate_only["id"], ["pass2"])]  # a Pass 2 sentence went away
    (change,) = result["changed"]
    assert change["fields"]["routes"] == [["pass1", "pass2"], ["pass2"]] and change["weakens"] is True
    assert change["why"] == ["Pass 1 -> Pass 2: no longer enforced deterministically, only by the policy gate"]
    for entry in result["removed"] + result["changed"]:  # file and line on every entry
        assert entry["file"] == "AGENTS.md" and entry["lines"][0] >= 1
    assert main(["diff", str(old), str(new), "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    assert markdown.startswith("<!-- policyc-diff -->\n") and "(policy gate only)" in markdown
