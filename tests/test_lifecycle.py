"""Lifecycle: overrides (§9), conflicts (§10), the verbs (§14), locking and crash safety."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import copy_project, make_project
from policyc.compiler.cli import main
from policyc.compiler.output import locked

RULES = {
    "AGENTS.override.md": "Never run `terraform destroy`.\n",
    "AGENTS.md": "- Never run `rm -rf /`.\n- Do not run `terraform destroy`.\n- Never push to main.\n",
    ".claude/skills/a/SKILL.md": "---\nname: alpha\n---\nNever run `make deploy`.\n",
    ".claude/skills/b/SKILL.md": "---\nname: beta\n---\nNever run `make deploy`.\n",
}


def _project(tmp_path, files=RULES):
    return make_project(tmp_path, files)


def _doc(root) -> dict:
    return json.loads((root / ".interlinked" / "distilled-rules.json").read_text())


def _run(root, *argv, capsys=None):
    code = main([*argv, "--root", str(root)])
    return code, (capsys.readouterr() if capsys else None)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Path:
    """The project of RULES compiled once, from its own folder."""
    root = _project(tmp_path_factory.mktemp("lifecycle"))
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        assert main(["compile"]) == 0
    return root


@pytest.fixture
def project(compiled, tmp_path, monkeypatch):
    root = copy_project(compiled, tmp_path)
    monkeypatch.chdir(root)
    return root


# --- conflicts (§10) ---

def test_strictest_action_wins_and_the_loser_is_listed(project):
    doc = _doc(project)
    rules = {r["id"]: r for r in doc["rules"]}
    winner = rules["enforce-local-agents-override-md-no-terraform-destroy"]
    assert winner["action"] == "block"
    assert "enforce-local-agents-md-no-terraform-destroy" not in rules
    conflict = next(c for c in doc["conflicts"] if c["id"] == winner["id"])
    assert conflict["winning_source"] == "AGENTS.override.md:1"
    assert conflict["overridden_sources"] == ["AGENTS.md:2"]


def test_scope_disjoint_skills_do_not_conflict(project):
    ids = {r["id"] for r in _doc(project)["rules"]}
    assert {"enforce-skill-alpha-no-make-deploy", "enforce-skill-beta-no-make-deploy"} <= ids


def test_stricter_loser_raises_the_winner(tmp_path, monkeypatch):
    root = _project(tmp_path, {"AGENTS.override.md": "Avoid `git stash drop`.\n", "AGENTS.md": "Never run `git stash drop`.\n"})
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    (rule,) = _doc(root)["rules"]
    assert rule["source"]["file"] == "AGENTS.override.md" and rule["action"] == "block"


# --- overrides (§9) ---

def test_removed_and_disabled_rules_stay_with_enabled_false(project):
    assert main(["remove", "enforce-local-agents-md-no-rm-rf"]) == 0
    assert main(["disable", "enforce-local-agents-md-no-push-main"]) == 0
    (project / "AGENTS.md").write_text(RULES["AGENTS.md"] + "- Never run `git clean -fdx`.\n")
    assert main(["compile"]) == 0
    rules = {r["id"]: r for r in _doc(project)["rules"]}
    assert rules["enforce-local-agents-md-no-rm-rf"]["enabled"] is False and rules["enforce-local-agents-md-no-rm-rf"]["note"]
    assert rules["enforce-local-agents-md-no-push-main"]["enabled"] is False
    assert rules["enforce-local-agents-md-no-git-clean-fdx"]["enabled"] is True


def test_modification_survives_redistillation(project):
    assert main(["modify", "enforce-local-agents-md-no-rm-rf", "--action", "ask", "--severity", "medium", "--note", "noisy"]) == 0
    (project / "AGENTS.md").write_text(RULES["AGENTS.md"] + "- Never run `git clean -fdx`.\n")
    assert main(["compile"]) == 0
    assert main(["compile", "AGENTS.md"]) == 0  # subset runs keep it too
    rule = next(r for r in _doc(project)["rules"] if r["id"] == "enforce-local-agents-md-no-rm-rf")
    assert (rule["action"], rule["severity"], rule["user_modified"], rule["note"]) == ("ask", "medium", True, "noisy")
    assert main(["reset", "enforce-local-agents-md-no-rm-rf"]) == 0
    assert main(["compile"]) == 0
    rule = next(r for r in _doc(project)["rules"] if r["id"] == "enforce-local-agents-md-no-rm-rf")
    assert rule["action"] == "block" and "user_modified" not in rule


def test_removed_group_is_never_read_or_fetched(project):
    from policyc.compiler import cli, verbs

    assert main(["remove", "--source", "skill:alpha"]) == 0
    assert main(["compile"]) == 0
    assert not any(r["source"]["group_id"] == "skill:alpha" for r in _doc(project)["rules"])
    overrides = project / ".interlinked" / "distilled-rules.overrides.json"
    data = json.loads(overrides.read_text())
    data["removed_groups"].append("gh:evil/skills/qa")
    overrides.write_text(json.dumps(data))
    args = cli._parser().parse_args(["compile", "gh:evil/skills/qa"])
    assert verbs._compile(args, fetcher=lambda url: pytest.fail(f"fetched {url} of a removed group")) == 2
    assert main(["add", "--source", "skill:alpha"]) == 0
    assert main(["compile"]) == 0
    assert any(r["source"]["group_id"] == "skill:alpha" for r in _doc(project)["rules"])


def test_malformed_overrides_stop_the_run_and_are_kept(project, capsys):
    overrides = project / ".interlinked" / "distilled-rules.overrides.json"
    overrides.write_text('{"removed_rule_ids": "not a list"}')
    before = (project / ".interlinked" / "distilled-rules.json").read_bytes()
    assert main(["compile"]) == 1
    assert "invalid overrides file" in capsys.readouterr().err
    assert overrides.read_text() == '{"removed_rule_ids": "not a list"}'
    assert (project / ".interlinked" / "distilled-rules.json").read_bytes() == before


# --- verbs (§14) ---

def test_unknown_ids_and_groups_name_the_closest(project, capsys):
    assert main(["disable", "enforce-local-agents-md-no-rm-r"]) == 2
    assert "closest: enforce-local-agents-md-no-rm-rf" in capsys.readouterr().err
    assert main(["list", "local:AGENT.md"]) == 2
    assert "closest: local:AGENTS.md" in capsys.readouterr().err


def _normalise(text: str, root: Path) -> str:
    return text.replace(str(root), "<root>")


@pytest.mark.parametrize("argv", [
    ["list"], ["list", "--format", "json"], ["list", "local:AGENTS.md"], ["list", "skill:alpha", "--format", "json"],
    ["show", "enforce-local-agents-md-no-rm-rf"], ["show", "enforce-local-agents-md-no-rm-rf", "--format", "json"],
    ["disable", "enforce-local-agents-md-no-rm-rf", "--format", "json"], ["remove", "--source", "skill:beta"],
    ["modify", "enforce-local-agents-md-no-push-main", "--severity", "low"],
    ["enable", "enforce-local-agents-md-no-rm-rf"], ["reset", "enforce-local-agents-md-no-rm-rf", "--format", "json"],
    ["add", "--source", "skill:beta"],
], ids=lambda a: "-".join(a).replace("--", ""))
def test_verb_output(project, argv, capsys, snapshot):
    snapshot.snapshot_dir = Path(__file__).parent / "snapshots" / "verbs"
    if argv[0] in ("enable", "reset", "add"):  # something to undo first
        main(["disable", argv[1]] if argv[0] != "add" else ["remove", "--source", argv[2]])
    capsys.readouterr()
    assert main(argv) == 0
    after = capsys.readouterr().out
    if argv[0] in ("disable", "remove", "modify", "enable", "reset", "add"):  # the state the verb leaves behind, too
        assert main(["list", "--format", "json"]) == 0
        after += capsys.readouterr().out
    snapshot.assert_match(_normalise(after, project), "-".join(argv).replace("--", "").replace(":", "_") + ".txt")


def test_inactive_reasons(project, capsys):
    assert main(["disable", "enforce-local-agents-md-no-rm-rf"]) == 0
    capsys.readouterr()
    assert main(["list", "local:AGENTS.md", "--format", "json"]) == 0
    reasons = {r["id"]: r["inactive"] for r in json.loads(capsys.readouterr().out)["rules"]}
    assert reasons["enforce-local-agents-md-no-rm-rf"] == "disabled"
    assert reasons["enforce-local-agents-md-no-terraform-destroy"] == "shadowed"
    assert main(["list", "skill:alpha", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["rules"][0]["inactive"] == "dormant-scope"


def test_list_reads_the_rules_file_alone_without_an_ir(project, capsys):
    assert main(["disable", "enforce-local-agents-md-no-rm-rf"]) == 0
    (project / ".interlinked" / "policy.ir.json").unlink()
    capsys.readouterr()
    assert main(["list", "local:AGENTS.md", "--format", "json"]) == 0
    rules = {r["id"]: r for r in json.loads(capsys.readouterr().out)["rules"]}
    assert rules["enforce-local-agents-md-no-rm-rf"]["inactive"] == "disabled"
    assert all(r["trigger"] == "" for r in rules.values())


# --- no data lost ---

def test_a_second_writer_fails_fast(project, monkeypatch, capsys):
    monkeypatch.setenv("POLICYC_LOCK_TIMEOUT", "0.2")
    with locked(project / ".interlinked"):
        assert subprocess.run([sys.executable, "-m", "policyc.compiler.cli", "disable", "enforce-local-agents-md-no-rm-rf"],
                              cwd=project, capture_output=True, text=True, env={**os.environ}).returncode == 2
    assert main(["disable", "enforce-local-agents-md-no-rm-rf"]) == 0


def test_a_conflict_is_resolved_afresh_when_the_rival_goes(tmp_path, monkeypatch):
    root = _project(tmp_path, {"AGENTS.override.md": "Avoid `git stash drop`.\n", "AGENTS.md": "Never run `git stash drop`.\n"})
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    assert _doc(root)["rules"][0]["action"] == "block"
    (root / "AGENTS.md").write_text("Never run `git clean -fdx`.\n")
    assert main(["compile"]) == 0  # AGENTS.override.md is reused unchanged, and no longer raised
    rules = {r["source"]["file"]: r for r in _doc(root)["rules"]}
    assert (rules["AGENTS.override.md"]["action"], rules["AGENTS.override.md"]["severity"]) == ("ask", "medium")
    assert _doc(root)["conflicts"] == []
