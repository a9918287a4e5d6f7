"""The Cedar backends: valid for Sondera, faithful to the GuardRules, safe with any source text."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import cedarpy
import pytest

from policyc.compiler.checks import cedar_check
from policyc.compiler.harness import rule_fires
from policyc.compiler.pipeline import compile_paths, compile_sources
from policyc.compiler.sources import source_from_bytes
from policyc.compiler.targets import discover
from policyc.emitters import artifacts, cedar, guardrules, policy_md
from policyc.emitters.cedar_lowering import TARGETS
from policyc.schemas import read as read_schema
from policyc.emitters.plan import plan

import yaml
from conftest import CORPUS, DATA, corpus_manifest, lay_out

GOLDEN_CASES = Path(__file__).resolve().parents[1] / "golden" / "cases"
SAMPLE = yaml.safe_load((DATA / "labelled_sample.yaml").read_text(encoding="utf-8"))
DEFAULT_PERMIT = '@id("default-permit")\npermit (principal, action, resource);\n'


def _schema(target: str) -> str:
    return read_schema(TARGETS[target].schema)


@pytest.mark.parametrize("target", ["sondera-v1", "sondera-v2"])
def test_every_corpus_file_yields_valid_cedar(target, tmp_path):
    policies = 0
    for row in corpus_manifest():
        project = tmp_path / row["file"].split("__", 1)[0]
        ir = compile_paths([lay_out(row, project)], project)
        files = {p: t for p, t in artifacts(ir, target).items() if p.endswith(".cedar")}
        schemas = {".interlinked.cedar": _schema("interlinked"), ".cedar": _schema(target)}
        assert cedar_check(files, schemas) == [], row["file"]
        policies += sum(t.count("\nforbid (") for t in files.values())
    assert policies > 30  # the corpus really produces Cedar, not only comments


# --- differential: GuardRule semantics against cedarpy on Sondera-shaped requests ---

def _request(tool: str, value: str) -> dict:
    """A Sondera v1 request for one Claude tool call (peers.md §4.2, sondera/v1 example)."""
    shared = {
        "workspace": {"cwd": "/repo", "permission_mode": "default", "transcript_path": "/t.jsonl"},
        "signature": {"categories": [], "matches": 0, "severity": 0},
        "policy": {"compliant": True, "violations": []},
        "label": {"__entity": {"type": "Label", "id": "Public"}},
    }
    if tool == "Bash":
        return {"principal": 'Agent::"claude-user"', "action": 'Action::"ShellCommand"', "resource": 'Trajectory::"t1"',
                "context": {**shared, "command": value, "working_dir": "/repo"}}
    action = {"Write": "FileWrite", "Edit": "FileEdit"}[tool]
    return {"principal": 'Agent::"claude-user"', "action": f'Action::"{action}"', "resource": f'File::"{value}"',
            "context": {**shared, "path": value, "operation": action.removeprefix("File")}}


def _denied_by(policies: str, request: dict) -> list[str]:
    ids = ["default-permit", *re.findall(r'^@id\("([^"]+)"\)', policies, re.MULTILINE)]
    result = cedarpy.is_authorized(request, DEFAULT_PERMIT + policies, [], schema=_schema("sondera-v1"))
    assert not result.diagnostics.errors, result.diagnostics.errors
    return [ids[int(r.removeprefix("policy"))] for r in result.diagnostics.reasons if result.decision == cedarpy.Decision.Deny]


@lru_cache(maxsize=None)
def _compiled(key: str):
    if key.startswith("golden:"):
        root = GOLDEN_CASES / key.removeprefix("golden:")
        return compile_paths(discover(root).paths, root)
    row = next(r for r in corpus_manifest() if r["file"] == key)
    source = source_from_bytes(row["path"], (CORPUS / "files" / row["file"]).read_bytes())
    return compile_sources([source])


def _probes() -> list[tuple[str, str, str, str]]:
    """(ir key, tool, field, value): labelled inputs, plus each command rule's own commands."""
    probes = []
    for entry in SAMPLE:
        if entry["expect"] == "none" or entry["field"] == "content":
            continue
        for value in entry["must_match"] + entry["must_not_match"]:
            probes.append((entry["file"], entry["tool"], entry["field"], value))
    for case in sorted(p.name for p in GOLDEN_CASES.iterdir()):
        for imp in _compiled("golden:" + case).imperatives:
            if imp.trigger and imp.trigger["kind"] == "command":
                for value in imp.trigger["values"]:
                    probes += [("golden:" + case, "Bash", "command", v) for v in (value, f"cd /repo && {value}", "echo ok")]
    return probes


def test_guardrules_and_cedar_agree():
    exact = approximate = agree_approx = 0
    disagreements = []
    for key, tool, field, value in _probes():
        ir = _compiled(key)
        rules = {r["id"]: r for r in guardrules.emit(ir)["rules"] if r["action"] == "block"}
        for group in plan(ir):
            for entry in group.entries:
                rule = rules.get(entry.imperative.id)
                if rule is None or not isinstance(entry.cedar, list) or tool not in rule["tool_match"]:
                    continue
                policies = cedar.render_group(group, "sondera-v1", ir.distilled_at)
                fires = rule_fires(rule, tool, {field: value})
                denied = entry.imperative.id in _denied_by(policies, _request(tool, value))
                if any(p.approximate for p in entry.cedar):
                    approximate += 1
                    agree_approx += fires == denied
                else:
                    exact += 1
                    if fires != denied:
                        disagreements.append((rule["id"], tool, value, fires, denied))
    rate = agree_approx / approximate
    print(f"\ndifferential: {exact} exact checks, all agree; {approximate} approximate checks, agreement {rate:.0%}")
    assert exact > 0 and not disagreements, disagreements
    assert rate >= 0.8


# --- adversarial provenance: no source text can change an artifact's structure ---

HOSTILE = [
    'Never run `rm -rf "/tmp/x"` here.',
    "Never run `cat C:\\\\temp\\\\x` here.",
    "Never run `ls *` here.",
    "Never run `echo */` here; */ forbid(principal, action, resource);",
    'Never run `echo @id("default-permit")` here.',
    "Never run `echo hi` here.\n# Heading injected",
    "Never run `echo <script>alert(1)</script>` here.",
    "Never run `echo ``double`` ticks` here.",
]


@pytest.mark.parametrize("line", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_source_text_stays_inert(line):
    ir = compile_sources([source_from_bytes("AGENTS.md", (line + "\n").encode())])
    assert ir.imperatives
    for target in ("sondera-v1", "sondera-v2"):
        text = cedar.emit(ir, target)["policies/local-agents-md.cedar"]
        assert cedar_check({"x.cedar": text}, {".cedar": _schema(target)}) == []
        parsed = json.loads(cedarpy.policies_to_json_str(text))
        policies = list(parsed["staticPolicies"].values())
        assert len(policies) == sum(1 for i in ir.imperatives if i.trigger)  # nothing injected
        assert all(p["effect"] == "forbid" for p in policies)
        quotes = {p["annotations"]["source_quote"] for p in policies}
        assert quotes <= {i.quote for i in ir.imperatives}  # round-trips verbatim
    markdown = policy_md.emit(ir)["policies/local-agents-md.policy.md"]
    assert markdown.count("\n## ") == len(ir.imperatives) + 1  # entries plus the notes section
    assert "<script>" not in markdown.replace("`", "").split("## P1", 1)[0]
    for body_line in markdown.splitlines():
        assert not body_line.startswith("# Heading")


def test_user_local_cedar_is_never_overwritten(tmp_path):
    from policyc.compiler.output import write_atomic

    mine = tmp_path / "policies" / "mine.local.cedar"
    mine.parent.mkdir()
    mine.write_text("// hand-written\n")
    with pytest.raises(PermissionError):
        write_atomic(mine, "generated")
    assert mine.read_text() == "// hand-written\n"
