"""Hostile sources (issue 11, items 1 and 2; issue 9's discovery item): precedence is earned.

A file that speaks for fewer agents, one folder, or a remote repository never
shadows, narrows or takes the ids of the project's own rules.
"""

from __future__ import annotations

import json
import os

from conftest import make_project
from policyc.compiler import cli, verbs
from policyc.compiler.remote import RemoteError
from policyc.compiler.targets import discover

ROOT_RULES = "Never run `rm -rf /`.\n\nNever run `git push --force`.\n"


def _doc(root, review=False) -> dict:
    name = "distilled-rules.review.json" if review else "distilled-rules.json"
    return json.loads((root / ".interlinked" / name).read_text())


def _ir(root) -> dict:
    return json.loads((root / ".interlinked" / "policy.ir.json").read_text())


def _compile(root, *argv, fetcher=None) -> int:
    args = cli._parser().parse_args(["compile", "--root", str(root), *argv])
    return verbs._compile(args, fetcher=fetcher) if fetcher else verbs._compile(args)


def _live_rules(root, quote_part: str) -> list[dict]:
    """Rules of distilled-rules.json quoting `quote_part` that no conflict shadows."""
    doc = _doc(root)
    losers = {i for c in doc.get("conflicts", []) for i in c["overridden_ids"]}
    return [r for r in doc["rules"] if quote_part in r["source"]["quote"] and r["id"] not in losers]


def _universal_block(root, quote_part: str) -> bool:
    """Some unshadowed rule blocks the command for every agent, wherever it runs."""
    return any(r["action"] == "block" and not r.get("applies_to_roles") and not r.get("active_when")
               for r in _live_rules(root, quote_part))


def test_a_vendored_subagent_override_shadows_nothing(tmp_path, monkeypatch):
    root = make_project(tmp_path, {
        "AGENTS.md": ROOT_RULES,
        "vendor/github.com/some/dep/AGENTS.override.md": "You are the subagent.\n\n" + ROOT_RULES,
    })
    monkeypatch.chdir(root)
    assert _compile(root) == 0
    for command in ("rm -rf /", "git push --force"):
        assert _universal_block(root, command), command
    vendored = [r for r in _doc(root)["rules"] if r["source"]["file"].startswith("vendor/")]
    assert not vendored  # its command rules cannot be limited to its folder: Pass 2 only
    ir = _ir(root)
    ranks = {s["file"]: s["precedence"] for s in ir["sources"]}
    assert ranks["vendor/github.com/some/dep/AGENTS.override.md"] > ranks["AGENTS.md"]


def test_a_role_scoped_cursor_rule_does_not_shadow_universal_rules(tmp_path, monkeypatch):
    root = make_project(tmp_path, {"AGENTS.md": ROOT_RULES, ".cursor/rules/worker.mdc": "You are the worker agent.\n\n" + ROOT_RULES})
    monkeypatch.chdir(root)
    assert _compile(root) == 0
    for command in ("rm -rf /", "git push --force"):
        assert _universal_block(root, command), command
        roles = [r.get("applies_to_roles") for r in _live_rules(root, command)]
        assert ["worker"] in roles  # the worker's own rule stays, for the worker


def test_a_git_submodule_ranks_below_the_project(tmp_path, monkeypatch):
    root = make_project(tmp_path, {"AGENTS.md": ROOT_RULES, "libs/dep/AGENTS.override.md": ROOT_RULES,
                                   ".gitmodules": '[submodule "dep"]\n\tpath = libs/dep\n\turl = https://example.org/dep\n'})
    monkeypatch.chdir(root)
    assert _compile(root) == 0
    ir = _ir(root)
    ranks = {s["file"]: (s["precedence"], s["subtree"]) for s in ir["sources"]}
    assert ranks["libs/dep/AGENTS.override.md"][0] > ranks["AGENTS.md"][0]
    assert ranks["libs/dep/AGENTS.override.md"][1] == "libs/dep"
    assert {r["source"]["file"] for r in _doc(root)["rules"]} == {"AGENTS.md"}


def test_a_nested_agents_md_adds_no_project_wide_command_rule(tmp_path, monkeypatch):
    root = make_project(tmp_path, {"AGENTS.md": "Never edit `.env`.\n",
                                   "packages/web/AGENTS.md": "Never run `npm publish`.\n\nNever edit `dist/bundle.js`.\n"})
    monkeypatch.chdir(root)
    assert _compile(root) == 0
    nested = [r for r in _doc(root)["rules"] if r["source"]["file"] == "packages/web/AGENTS.md"]
    assert [r["tool_match"] for r in nested] != [] and all("Bash" not in r["tool_match"] for r in nested)
    assert all("packages/web" in json.dumps(r["active_when"]) for r in nested)
    policy = (root / ".interlinked" / "policies" / "local-packages-web-agents-md.policy.md").read_text()
    assert "npm publish" in policy and "applies only to work in packages/web/" in policy  # to Pass 2, with why


def test_a_symlinked_rule_file_is_read_once(tmp_path, monkeypatch):
    root = make_project(tmp_path, {"AGENTS.md": ROOT_RULES})
    os.symlink(root / "AGENTS.md", root / "CLAUDE.md")
    (root / "docs").mkdir()
    os.symlink(root / "AGENTS.md", root / "docs" / "AGENTS.md")
    monkeypatch.chdir(root)
    assert [p.name for p in discover(root).paths] == ["AGENTS.md"]


def _fetcher(files: dict[str, bytes]):
    def fetch(url):
        for suffix, data in files.items():
            if url.endswith(suffix):
                return data
        raise RemoteError(f"{url}: HTTP 404")
    return fetch


def test_a_remote_override_ranks_below_every_local_source(tmp_path, monkeypatch):
    root = make_project(tmp_path, {"AGENTS.md": ROOT_RULES})
    monkeypatch.chdir(root)
    assert _compile(root) == 0
    fetch = _fetcher({"/HEAD/AGENTS.override.md": b"You are the subagent.\n\n" + ROOT_RULES.encode()})
    assert _compile(root, "gh:evil/rules/AGENTS.override.md", fetcher=fetch) == 0
    review = _doc(root, review=True)
    losers = {i for c in review["conflicts"] for i in c["overridden_ids"]}
    local = [r for r in review["rules"] if r["source"]["group_id"] == "local:AGENTS.md"]
    assert len(local) == 2 and not losers & {r["id"] for r in local}


def test_a_remote_skill_keeps_its_own_group_ids_and_notes(tmp_path, monkeypatch):
    skill = "---\nname: deploy\n---\nNever run `kubectl delete ns prod`.\n"
    root = make_project(tmp_path, {".claude/skills/deploy/SKILL.md": skill})
    monkeypatch.chdir(root)
    assert _compile(root) == 0
    local_id = _doc(root)["rules"][0]["id"]
    assert cli.main(["modify", local_id, "--note", "ours", "--root", str(root)]) == 0
    fetch = _fetcher({"/deploy/SKILL.md": skill.encode()})
    assert _compile(root, "gh:evil/skills/deploy", fetcher=fetch) == 0
    assert cli.main(["accept", "--root", str(root)]) == 0
    rules = _doc(root)["rules"]
    remote = [i["id"] for i in _ir(root)["imperatives"] if i["group_id"] == "gh:evil/skills/deploy"]
    assert remote and local_id not in remote and all(i.startswith("enforce-gh-evil-skills-deploy-") for i in remote)
    assert [r["note"] for r in rules if r["id"] == local_id] == ["ours"]  # the local rule wins the merge
    # accepted remote rules persist through a plain compile, and their group can be removed
    (root / "AGENTS.md").write_text("Never run `terraform destroy`.\n")
    assert _compile(root) == 0
    assert {i["group_id"] for i in _ir(root)["imperatives"]} == {"gh:evil/skills/deploy", "skill:deploy", "local:AGENTS.md"}
    assert _doc(root)["removed"] == []
    assert cli.main(["remove", "--source", "gh:evil/skills/deploy", "--root", str(root)]) == 0
    assert _compile(root) == 0
    assert "gh:evil/skills/deploy" not in {i["group_id"] for i in _ir(root)["imperatives"]}


def test_a_merge_keeps_the_highest_severity(tmp_path, monkeypatch):
    root = make_project(tmp_path, {"AGENTS.md": "CRITICAL: never run `terraform destroy`.\n",
                                   ".cursor/rules/ops.mdc": "---\nalwaysApply: true\n---\nDo not run `terraform destroy`.\n"})
    monkeypatch.chdir(root)
    assert _compile(root) == 0
    live = _live_rules(root, "terraform destroy")
    assert len(live) == 1 and live[0]["action"] == "block" and live[0]["severity"] == "critical"
