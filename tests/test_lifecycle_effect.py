"""Lifecycle verbs take effect at once: distilled-rules.json, list and the companions agree with the
overrides right after each verb, with no compile in between."""

from __future__ import annotations

import json

from conftest import make_project
from policyc.compiler.cli import main

RULES = {"AGENTS.md": "- Never run `terraform destroy`.\n- Never run `rm -rf /`.\n"}


def _doc(root) -> dict:
    return json.loads((root / ".interlinked" / "distilled-rules.json").read_text())


def _rule(root, rule_id) -> dict:
    return next(r for r in _doc(root)["rules"] if r["id"] == rule_id)


def test_each_verb_leaves_the_rules_file_current(tmp_path, monkeypatch, capsys):
    root = make_project(tmp_path, RULES)
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    rule_id = next(r["id"] for r in _doc(root)["rules"] if "terraform" in r["source"]["quote"])
    policy_md = root / ".interlinked" / "policies" / "local-agents-md.policy.md"
    assert rule_id in policy_md.read_text()

    assert main(["disable", rule_id]) == 0
    assert _rule(root, rule_id)["enabled"] is False
    assert rule_id not in policy_md.read_text()  # a disabled rule is not a policy either
    capsys.readouterr()
    assert main(["list", "local:AGENTS.md", "--format", "json"]) == 0
    listed = {r["id"]: r for r in json.loads(capsys.readouterr().out)["rules"]}
    assert listed[rule_id]["inactive"] == "disabled"

    assert main(["enable", rule_id]) == 0
    assert _rule(root, rule_id)["enabled"] is True
    assert rule_id in policy_md.read_text()

    assert main(["modify", rule_id, "--action", "ask"]) == 0
    assert (_rule(root, rule_id)["action"], _rule(root, rule_id)["user_modified"]) == ("ask", True)
    assert main(["reset", rule_id]) == 0
    assert _rule(root, rule_id)["action"] == "block" and "user_modified" not in _rule(root, rule_id)


def test_a_hand_edited_ir_is_not_rendered(tmp_path, monkeypatch, capsys):
    root = make_project(tmp_path, RULES)
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    ir_path = root / ".interlinked" / "policy.ir.json"
    ir_path.write_text(ir_path.read_text().replace("terraform destroy", "terraform plan"))
    rule_id = _doc(root)["rules"][0]["id"]
    before = (root / ".interlinked" / "distilled-rules.json").read_text()
    capsys.readouterr()
    assert main(["disable", rule_id]) == 0
    assert "run `policyc compile`" in capsys.readouterr().out
    assert (root / ".interlinked" / "distilled-rules.json").read_text() == before


def test_a_disabled_rule_is_not_counted_as_enforcing(tmp_path, monkeypatch, capsys):
    root = make_project(tmp_path, RULES)
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    assert main(["disable", _doc(root)["rules"][0]["id"]]) == 0
    capsys.readouterr()
    assert main(["compile", "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["distilled"]["block"], summary["user_disabled"], summary["passes"]["pass1"]) == (1, 1, 1)
