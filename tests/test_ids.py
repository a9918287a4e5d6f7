"""Rule ids are stable across runs: a new sentence never takes over an existing rule's id or its overrides."""

from __future__ import annotations

import json

from conftest import make_project
from policyc.compiler.cli import main


def _ids(root) -> dict[str, str]:
    doc = json.loads((root / ".interlinked" / "distilled-rules.json").read_text())
    return {r["source"]["quote"]: r["id"] for r in doc["rules"]}


def _rules(root) -> dict[str, dict]:
    doc = json.loads((root / ".interlinked" / "distilled-rules.json").read_text())
    return {r["source"]["quote"]: r for r in doc["rules"]}


def test_an_inserted_sentence_does_not_take_over_a_disabled_rule(tmp_path, monkeypatch):
    root = make_project(tmp_path, {"AGENTS.md": "- Never import `lodash`.\n"})
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    (original,) = _ids(root).values()
    assert main(["disable", original]) == 0
    # a new rule with the same summary (and so the same fresh id) is inserted above it
    (root / "AGENTS.md").write_text("- Never edit files under `lodash/`.\n- Never import `lodash`.\n")
    assert main(["compile"]) == 0
    rules = _rules(root)
    assert rules["Never import `lodash`."]["id"] == original
    assert rules["Never import `lodash`."]["enabled"] is False  # the override stays with its rule
    new = rules["Never edit files under `lodash/`."]
    assert new["id"] != original and new["enabled"] is True


def test_an_edited_sentence_keeps_its_id_through_its_trigger(tmp_path, monkeypatch):
    root = make_project(tmp_path, {"AGENTS.md": "Never run `terraform destroy`.\n"})
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    (original,) = _ids(root).values()
    (root / "AGENTS.md").write_text("You must never run `terraform destroy` here.\n")
    assert main(["compile"]) == 0
    assert list(_ids(root).values()) == [original]


def test_deleting_a_rule_does_not_hand_its_id_to_the_next_one(tmp_path, monkeypatch):
    root = make_project(tmp_path, {"AGENTS.md": "- Never run `make deploy`.\n- Never run `make deploy-prod`.\n"})
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    before = _ids(root)
    (root / "AGENTS.md").write_text("- Never run `make deploy-prod`.\n- Never run `make deploy-all`.\n")
    assert main(["compile"]) == 0
    after = _ids(root)
    assert after["Never run `make deploy-prod`."] == before["Never run `make deploy-prod`."]
    assert after["Never run `make deploy-all`."] not in before.values()
