"""The backend registry: a lowering backend is one module plus one registry entry.

The acceptance test registers a Rego-shaped toy backend for one run, without
touching any other code, and finds its files, its companions, its stats and
its index column; then the registry is restored and nothing of it is left.
"""

from __future__ import annotations

import json
import types
from types import SimpleNamespace

import pytest
from conftest import make_project
from policyc.compiler.cli import main
from policyc.compiler.pipeline import compile_paths
from policyc.compiler.targets import discover
from policyc.emitters import artifacts, registry
from policyc.emitters.backend import Backend, Omitted
from policyc.emitters.cedar_lowering import Target
from policyc.emitters.plan import lower, plan

# What emitters/rego.py would hold: the whole backend, as one module.
REGO_MODULE = '''
"""`<group>.rego`: deny and warn rules for OPA, from each Pass 2 rule's command patterns."""

import json

from policyc.emitters.backend import Backend, Omitted


def lower(imp, target):
    if "skill" in imp.scope:
        return Omitted("skill scope needs the Interlinked extension", extension=True)
    regexes = [p.regex for p in (imp.trigger.patterns if imp.trigger else ()) if p.field == "command" and not p.negate]
    if not regexes:
        return Omitted("no command pattern")
    return [{"id": imp.id, "set": "warn" if imp.action == "warn" else "deny", "regexes": regexes}]


def render(group, target, generated_at):
    lines = [f"package policyc.{group.stem.replace('-', '_')}", "", "import rego.v1"]
    for entry in group.entries:
        for rule in entry.policies("rego"):
            lines += ["", f"# P{entry.number}: {rule['id']}"]
            for regex in rule["regexes"]:
                lines += [f"{rule['set']} contains {json.dumps(rule['id'])} if {{",
                          f"\\tregex.match({json.dumps('(?i)' + regex)}, input.tool_input.command)", "}"]
    return "\\n".join(lines) + "\\n"


BACKEND = Backend(name="rego", kind="rego", title="Rego", about="`<group>.rego` files load into OPA",
                  stat="rego_policies", lower=lower, render=render)
'''

RULES = {
    "AGENTS.md": "# Rules\n\nNever run `rm -rf /`.\nAvoid `git stash drop`.\nPrefer `pnpm` over `npm`.\n"
    "Never weaken a test to make it pass.\n",
    ".claude/skills/rebase/SKILL.md": "---\nname: rebase\ndescription: Rebase a branch.\n---\n\n# Rebase\n\n"
    "Never run `git push --force`.\n",
    "CLAUDE.md": "# Notes\n\nThis project uses Python 3.11 and maybe uv.\n",  # no Pass 2 rule: no files of any backend
}
RM_RF = "enforce-local-agents-md-no-rm-rf"


def _rego_module() -> types.ModuleType:
    module = types.ModuleType("policyc_rego_toy")
    exec(compile(REGO_MODULE, "policyc_rego_toy.py", "exec"), module.__dict__)
    return module


def _compiled(root):
    return compile_paths(discover(root).paths, root)


def test_a_registered_backend_appears_everywhere_and_nothing_else_changes(tmp_path, monkeypatch, capsys):
    root = make_project(tmp_path, RULES)
    monkeypatch.chdir(root)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    ir = _compiled(root)
    before = artifacts(ir)
    rego = _rego_module()

    with monkeypatch.context() as registered:
        registered.setattr(registry, "BACKENDS", (*registry.BACKENDS, rego.BACKEND))
        assert main(["compile"]) == 0
        with_rego = artifacts(ir)
        groups = {g.stem: g for g in plan(ir)}
        assert main(["compile", "--check"]) == 0  # the drift check knows the new files too
    out = root / ".interlinked"

    # a file for every group with Pass 2 rules, on disk as compile wrote it
    assert {g.stem for g in groups.values() if g.entries} == {"local-agents-md", "skill-rebase"} and "local-claude-md" in groups
    assert sorted(p.name for p in (out / "policies").glob("*.rego")) == ["local-agents-md.rego", "skill-rebase.rego"]
    agents = (out / "policies" / "local-agents-md.rego").read_text(encoding="utf-8")
    assert agents.startswith("package policyc.local_agents_md\n")
    assert f'deny contains "{RM_RF}" if {{' in agents and 'warn contains "enforce-local-agents-md-avoid-npm"' in agents
    assert (out / "policies" / "skill-rebase.rego").read_text(encoding="utf-8") == (  # its one rule is skill-scoped
        "package policyc.skill_rebase\n\nimport rego.v1\n"
    )

    doc = json.loads((out / "distilled-rules.json").read_text(encoding="utf-8"))
    assert doc["policies_emitted"] == [
        f"policies/{stem}.{kind}" for stem in ("local-agents-md", "skill-rebase") for kind in ("policy.md", "cedar", "rego")
    ] + ["policies/local-agents-md.interlinked.cedar", "policies/skill-rebase.interlinked.cedar"]
    rules = {r["id"]: r for r in doc["rules"]}
    assert rules[RM_RF]["companions"]["rego"] == f"policies/local-agents-md.rego#{RM_RF}"
    assert "rego" not in rules["enforce-skill-rebase-no-git-push-force"]["companions"]  # omitted: skill scope
    assert doc["stats"]["rego_policies"] == 3  # rm -rf, git stash drop, npm; not the untriggered rule, not the skill's

    index = (out / "policies" / "README.md").read_text(encoding="utf-8")
    assert "`<group>.rego` files load into OPA." in index
    assert "| Group | Files | Pass 2 policies | Cedar | Interlinked Cedar | Rego | Prose |" in index
    assert "[local-agents-md.rego](local-agents-md.rego) |" in index

    # exactly these artifacts mention the new backend; every other one is byte for byte the same
    changed = {p for p in before if with_rego[p] != before[p]}
    assert set(with_rego) - set(before) == {"policies/local-agents-md.rego", "policies/skill-rebase.rego"}
    assert changed == {
        "distilled-rules.json",
        "policies/README.md",
        "policies/local-agents-md.cedar",
    }  # its omitted warn rule: "see ... and local-agents-md.rego#..."
    assert "local-agents-md.rego#enforce-local-agents-md-avoid-npm" in with_rego["policies/local-agents-md.cedar"]

    # removed again: the run is as before
    assert artifacts(ir) == before


def test_a_backend_that_extends_another_lowers_only_its_extension_omissions():
    asked = []

    def backend(name, extends=None, answer=None):
        def lower_one(imp, target):
            asked.append((name, imp.id))
            return answer(imp) if answer else [name]

        return Backend(name=name, kind=name, title=name, about="", stat=name, lower=lower_one, render=lambda *a: "", extends=extends)

    base = backend(
        "base", answer=lambda imp: {"ok": ["policy"], "ext": Omitted("needs more", extension=True), "never": Omitted("nothing can")}[imp.id]
    )
    backends = (base, backend("more", extends="base"), backend("other"))
    lowered = {i: lower(SimpleNamespace(id=i), "sondera-v2", backends) for i in ("ok", "ext", "never")}
    assert lowered["ok"] == {"base": ["policy"], "other": ["other"]}
    assert lowered["ext"] == {"base": Omitted("needs more", extension=True), "more": ["more"], "other": ["other"]}
    assert lowered["never"] == {"base": Omitted("nothing can"), "other": ["other"]}
    assert [name for name, _ in asked] == ["base", "other", "base", "more", "other", "base", "other"]


def test_a_policy_file_names_its_backend_by_kind():
    assert registry.backend_of("policies/local-agents-md.cedar").name == "cedar"
    assert registry.backend_of("policies/local-agents-md.interlinked.cedar").name == "interlinked_cedar"
    assert registry.backend_of("policies/local-agents-md-1a2b3c.cedar").name == "cedar"
    for other in ("policies/local-agents-md.policy.md", "policies/README.md", "distilled-rules.json", "mine.local.cedar"):
        assert registry.backend_of(other) is None
    assert [b.name for b in registry.BACKENDS] == ["cedar", "interlinked_cedar"]


def test_cedar_target_capabilities_are_named():
    with pytest.raises(TypeError):
        Target("custom", "", "sondera-v1.cedarschema", True)  # the positional form is refused
    target = Target(name="custom", namespace="", schema="sondera-v1.cedarschema", escalate=True)
    assert (target.escalate, target.parse_fields, target.extensions) == (True, False, False)


def test_registered_backends_are_well_formed():
    names = [b.name for b in registry.BACKENDS]
    assert len(set(names)) == len(names) and len({b.kind for b in registry.BACKENDS}) == len(names)
    for n, backend in enumerate(registry.BACKENDS):  # an extending backend comes after the one it extends
        assert backend.extends is None or backend.extends in names[:n], backend.name
        assert "." not in backend.name and not backend.kind.startswith(".")
