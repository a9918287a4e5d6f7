"""The Cedar backends: valid for Sondera, faithful to the GuardRules, safe with any source text."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import cedarpy
import pytest
from conftest import CORPUS, DATA, corpus_manifest, lay_out, load_yaml
from policyc.compiler.checks import cedar_check
from policyc.compiler.harness import rule_fires
from policyc.compiler.pipeline import compile_paths, compile_sources
from policyc.compiler.sondera import request
from policyc.compiler.sources import source_from_bytes
from policyc.compiler.targets import discover
from policyc.emitters import artifacts, cedar, guardrules, policy_md
from policyc.emitters.cedar_lowering import TARGETS
from policyc.emitters.plan import Group, plan
from policyc.schemas import read as read_schema

GOLDEN_CASES = Path(__file__).resolve().parents[1] / "golden" / "cases"
SAMPLE = load_yaml((DATA / "labelled_sample.yaml").read_text(encoding="utf-8"))
DEFAULT_PERMIT = '@id("default-permit")\npermit (principal, action, resource);\n'


def _schema(target: str) -> str:
    return read_schema(TARGETS[target].schema)


@cache
def _parsed(target: str) -> cedarpy.Schema:
    """Parsed once: authorizing every corpus request against schema text re-parses it each time."""
    return cedarpy.Schema.from_str(_schema(target))


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
    assert policies > 20  # the corpus really produces Cedar, not only comments (demoted rules give none)


# --- differential: GuardRule semantics against cedarpy on Sondera-shaped requests ---

CEDAR_TARGETS = ("sondera-v1", "sondera-v2")
# commands that showed gaps between the two backends, probed against every command rule
EDGE_COMMANDS = ["pip install requests", "pipenv install requests", "git tag -l", "git tag v1.0", "git  push  origin  main",
                 "sudo rm -rf /", "sudo git push --force origin main", "echo 'unterminated", "git commit -m 'Co-Authored-By: x"]


def _variants(value: str) -> list[str]:
    """A rule's own command and the edges around it: chained, double spaces, sudo, a parse failure."""
    return [value, f"cd /repo && {value}", "echo ok", value.replace(" ", "  "), f"sudo {value}", f"{value} 'unterminated"]


@cache
def _policy_set(policies: str) -> tuple[list[str], cedarpy.PolicySet]:
    """Policy ids in order, and the set parsed once: the differential asks each group about hundreds of commands."""
    ids = ["default-permit", *re.findall(r'^@id\("([^"]+)"\)', policies, re.MULTILINE)]
    return ids, cedarpy.PolicySet.from_str(DEFAULT_PERMIT + policies)


def _denied_by(policies: str, target: str, tool: str, field: str, value: str) -> list[str]:
    ids, parsed = _policy_set(policies)
    event = {"tool_name": tool, "tool_input": {field: value}, "cwd": "/repo", "session_id": "t1"}
    result = cedarpy.is_authorized(request(event, target), parsed, [], schema=_parsed(target))
    assert not result.diagnostics.errors, result.diagnostics.errors
    return [ids[int(r.removeprefix("policy"))] for r in result.diagnostics.reasons if result.decision == cedarpy.Decision.Deny]


@cache
def _compiled(key: str):
    if key.startswith("golden:"):
        root = GOLDEN_CASES / key.removeprefix("golden:")
        return compile_paths(discover(root).paths, root)
    row = next(r for r in corpus_manifest() if r["file"] == key)
    source = source_from_bytes(row["path"], (CORPUS / "files" / row["file"]).read_bytes())
    return compile_sources([source])


def _probes() -> list[tuple[str, str, str, str]]:
    """(ir key, tool, field, value): labelled inputs, each command rule's own commands and their edges."""
    probes = []
    for entry in SAMPLE:
        if entry["expect"] == "none" or entry["field"] == "content":
            continue
        for value in entry["must_match"] + entry["must_not_match"]:
            probes.append((entry["file"], entry["tool"], entry["field"], value))
    for case in sorted(p.name for p in GOLDEN_CASES.iterdir()):
        key = "golden:" + case
        for imp in _compiled(key).imperatives:
            if imp.trigger and imp.trigger.kind == "command":
                for value in imp.trigger.values:
                    probes += [(key, "Bash", "command", v) for v in _variants(value)]
        probes += [(key, "Bash", "command", c) for c in EDGE_COMMANDS]
    return probes


@cache
def _lowered(key: str, target: str) -> tuple[dict, list[tuple[Group, str]]]:
    """One IR's block GuardRules by id, and each of its groups with the group's Cedar text, rendered once."""
    ir = _compiled(key)
    groups = plan(ir, target)
    rules = {r["id"]: r for r in guardrules.emit(ir, target, groups)["rules"] if r["action"] == "block"}
    return rules, [(group, cedar.render_group(group, target, ir.distilled_at)) for group in groups]


@cache
def _agreement(target: str) -> dict:
    """Per target: checks, agreements, and the two kinds of disagreement."""
    counts = {"checks": 0, "agree": 0, "cedar_allows": [], "cedar_denies": [], "exact_disagree": []}
    for key, tool, field, value in _probes():
        rules, lowered = _lowered(key, target)
        for group, policies in lowered:
            checked = [e for e in group.entries if e.imperative.id in rules and e.policies("cedar")
                       and tool in rules[e.imperative.id]["tool_match"]]
            if not checked:
                continue
            denied = _denied_by(policies, target, tool, field, value)
            for entry in checked:
                fires = rule_fires(rules[entry.imperative.id], tool, {field: value})
                cedar_denies = any(p.id in denied for p in entry.policies("cedar"))
                counts["checks"] += 1
                counts["agree"] += fires == cedar_denies
                if fires != cedar_denies:
                    counts["cedar_denies" if cedar_denies else "cedar_allows"].append((entry.imperative.id, value))
                    if not any(p.approximate for p in entry.policies("cedar")):
                        counts["exact_disagree"].append((entry.imperative.id, value))
    return counts


@pytest.mark.parametrize("target", CEDAR_TARGETS)
def test_guardrules_and_cedar_agree(target):
    counts = _agreement(target)
    rate = counts["agree"] / counts["checks"]
    print(f"\ndifferential {target}: {counts['checks']} checks, agreement {rate:.1%}; Cedar allows what the GuardRule "
          f"blocks {len(counts['cedar_allows'])}, Cedar denies what it allows {len(counts['cedar_denies'])}")
    assert counts["checks"] > 500 and counts["exact_disagree"] == []  # a policy not marked approximate is exact
    assert rate >= {"sondera-v1": 0.9, "sondera-v2": 0.95}[target], counts


def test_v2_fails_closed_when_sondera_cannot_parse_the_command():
    ir = compile_sources([source_from_bytes("AGENTS.md", b"Never run `rm -rf /`.\n")])
    group = plan(ir, "sondera-v2")[0]
    policies = cedar.render_group(group, "sondera-v2", ir.distilled_at)
    assert "!context.parse.ok" in policies
    unparsable = "rm -rf / 'unterminated"
    assert request({"tool_name": "Bash", "tool_input": {"command": unparsable}}, "sondera-v2")["context"]["parse"]["ok"] is False
    assert _denied_by(policies, "sondera-v2", "Bash", "command", unparsable) == ["enforce-local-agents-md-no-rm-rf"]
    assert _denied_by(policies, "sondera-v2", "Bash", "command", "ls 'unterminated") == []  # only commands that match


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


# --- what lands on disk: canonical form, and no flavour loadable by mistake ---

def test_every_emitted_cedar_file_is_already_formatted():
    for case in ("conventions", "caps-and-ask", "ex2-positive-sequential", "forbidden-list-fence"):
        ir = _compiled("golden:" + case)
        for target in CEDAR_TARGETS:
            files = {p: t for p, t in artifacts(ir, target).items() if p.endswith(".cedar")}
            assert files and all(cedarpy.format_policies(t) == t for t in files.values()), (case, target)


def test_the_interlinked_flavour_fails_validation_under_every_vanilla_schema():
    files = {f"{case}/{p}": t for case in ("conventions", "ex2-positive-sequential", "ex4-advisory")
             for p, t in artifacts(_compiled("golden:" + case)).items() if p.endswith(".interlinked.cedar")}
    assert len(files) >= 3
    for path, text in files.items():
        assert cedar_check({path: text}, {".cedar": _schema("interlinked")}) == []
        for vanilla in CEDAR_TARGETS:  # a Sondera that loads every *.cedar rejects it instead of enforcing it
            failures = cedar_check({path: text}, {".cedar": _schema(vanilla)})
            assert {where.split("#")[1] for where, _ in failures} == set(re.findall(r'^@id\("([^"]+)"\)', text, re.M)), (path, vanilla)
        assert "NOT for Sondera" in text and "Vanilla Sondera rejects" not in text


@pytest.mark.parametrize("target", CEDAR_TARGETS)
def test_a_literal_star_in_a_command_is_matched_as_a_star(target):
    ir = compile_sources([source_from_bytes("AGENTS.md", b"Never run `rm -rf *`.\n")])
    group = plan(ir, target)[0]
    rule = guardrules.emit(ir, target)["rules"][0]
    policies = cedar.render_group(group, target, ir.distilled_at)
    for command in ("rm -rf *", "cd /repo && rm -rf *", "rm -rf build"):
        fires = rule_fires(rule, "Bash", {"command": command})
        assert (rule["id"] in _denied_by(policies, target, "Bash", "command", command)) == fires, (command, fires)
    assert rule_fires(rule, "Bash", {"command": "rm -rf *"})


def test_the_model_of_sonderas_command_parse():
    from policyc.compiler.sondera import shell_parse

    facts = shell_parse("FOO=1 sudo env -i TZ=UTC /usr/bin/RM -rf --no-preserve-root=x build | tee log > out.txt 2>&1")
    assert facts["ok"] is True and facts["programs"] == ["env", "rm", "sudo", "tee"]
    assert {"rm:-rf", "rm:-r", "rm:-f", "rm:--no-preserve-root", "env:-i"} <= set(facts["program_flags"])
    assert facts["program_args"] == ["rm:build", "tee:log"]  # the redirection targets are not arguments
    assert facts["has_pipeline"] and facts["has_redirection"] and not facts["has_dynamic_command"]
    assert shell_parse("terraform apply -auto-approve")["program_flags"] == ["terraform:-auto-approve"]  # not a bundle
    assert shell_parse("$(which rm) -rf /")["has_dynamic_command"] is True
    assert shell_parse("echo $(git log) done")["programs"] == ["echo", "git"]
    assert shell_parse("echo 'unterminated")["ok"] is False and shell_parse("(cd x && make")["ok"] is False


@pytest.mark.parametrize("target", CEDAR_TARGETS)
def test_the_requests_sondera_builds_validate_against_its_schema(target):
    events = [("Bash", {"command": "git push --force origin main"}), ("Edit", {"file_path": "C:\\\\Repo\\\\DB//x.sql"}),
              ("Read", {"file_path": "/repo/.env"}), ("WebFetch", {"url": "https://user@Example.com:8443/x", "prompt": "p"}),
              ("mcp__github__create_issue", {"title": "t"})]
    built = 0
    for tool, tool_input in events:
        req = request({"tool_name": tool, "tool_input": tool_input, "cwd": "/repo", "session_id": "s"}, target)
        if req is None:
            assert target == "sondera-v1" and tool.startswith("mcp__")  # v1 has no action for other tools
            continue
        result = cedarpy.is_authorized(req, DEFAULT_PERMIT, [], schema=_parsed(target))
        assert result.decision == cedarpy.Decision.Allow and not result.diagnostics.errors, (tool, result.diagnostics.errors)
        built += 1
    assert built == {"sondera-v1": 4, "sondera-v2": 5}[target]
    if target == "sondera-v2":
        fetch = request({"tool_name": "WebFetch", "tool_input": {"url": "https://user@Example.com:8443/x"}}, target)
        assert fetch["context"]["url_parse"] == {"ok": True, "scheme": "https", "host": "example.com", "port": 8443}
        edit = request({"tool_name": "Edit", "tool_input": {"file_path": "C:\\Repo\\DB//x.sql"}}, target)
        assert edit["context"]["path_normalized"] == "c:/repo/db/x.sql"


def test_check_cedar_compares_against_v2_requests(tmp_path, monkeypatch, capsys):
    from conftest import make_project
    from policyc.compiler.cli import main

    root = make_project(tmp_path, {"AGENTS.md": "Never run `rm -rf /`.\nMUST NOT edit files under db/migrations/ directly.\n"})
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    assert json.loads((root / ".interlinked" / "distilled-rules.json").read_text())["cedar_target"] == "sondera-v2"
    events = root / "events.jsonl"
    calls = [("Bash", "command", "rm -rf /"), ("Bash", "command", "cd /repo && rm -rf / 'oops"), ("Bash", "command", "ls -la"),
             ("Edit", "file_path", "/repo/db/migrations/001.sql"), ("Write", "file_path", "/repo/src/app.py")]
    events.write_text("".join(json.dumps({"tool_name": t, "tool_input": {f: v}}) + "\n" for t, f, v in calls))
    capsys.readouterr()
    assert main(["check", str(events), "--audit", "--cedar", "--format", "json"]) == 3
    out, err = capsys.readouterr()
    assert [json.loads(line)["decision"] for line in out.splitlines()] == ["block", "block", "allow", "block", "allow"]
    assert "cedar disagrees" not in err


@pytest.mark.parametrize("target", CEDAR_TARGETS)
def test_a_rule_the_admission_gates_demoted_gets_no_cedar_forbid(target):
    """Sondera enforces Cedar as deterministically as the harness enforces GuardRules, so a rule the gates kept
    out of distilled-rules.json (here: a qualifier no pattern can check) must not come back as a forbid."""
    ir = compile_sources([source_from_bytes("AGENTS.md", b"Never amend a pushed commit.\n")])
    (imp,) = ir.imperatives
    assert imp.admission.decision == "demoted" and guardrules.emit(ir, target)["rules"] == []
    text = cedar.render_group(plan(ir, target)[0], target, ir.distilled_at)
    assert "forbid (" not in text and "not a deterministic rule" in text
