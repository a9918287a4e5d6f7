"""Findings as SARIF 2.1.0 (validated against the official schema) and as GitHub workflow commands (golden)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from conftest import make_project
from policyc.compiler.cli import main
from policyc.compiler.findings import CLASSES, Finding, render_github
from policyc.schemas import read as read_schema
from test_diff import history  # noqa: F401  (the fixture: a real rulebook edited in one commit)

SNAPSHOTS = Path(__file__).parent / "snapshots" / "findings"
SARIF = jsonschema.Draft4Validator(json.loads(read_schema("sarif-schema-2.1.0.json")))
FILES = {
    "AGENTS.md": "# Rules\n\nNever push to main without code review.\nMaybe avoid `git stash drop`.\n"
                 "Should we run `make lint`?\nNever run `terraform destroy`.\n",
    ".cursor/rules/db.mdc": "---\nglobs: db/**\n---\nNever run `rm -rf /`.\n",
}


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    root = make_project(tmp_path, FILES)
    (root / "CLAUDE.md").write_bytes(b"\xff\xfe\x00binary")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    monkeypatch.chdir(root)
    return root


def _run(capsys, *argv) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(argv))
    return code, capsys.readouterr().out


def _valid_sarif(text: str) -> dict:
    log = json.loads(text)
    errors = sorted(SARIF.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]]
    return log


def test_compile_findings_as_sarif(project, capsys):
    code, out = _run(capsys, "compile", "--format", "sarif")
    assert code == 1  # CLAUDE.md cannot be read
    (run,) = _valid_sarif(out)["runs"]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    found = {r["ruleId"] for r in run["results"]}
    assert found == {"policyc/source-error", "policyc/pass2-demotion", "policyc/hedged", "policyc/skipped", "policyc/approximate-cedar"}
    assert set(rules) == found and set(rules) <= set(CLASSES)
    for result in run["results"]:
        assert rules[result["ruleIndex"]] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] in ("AGENTS.md", ".cursor/rules/db.mdc", "CLAUDE.md")
    demoted = next(r for r in run["results"] if r["ruleId"] == "policyc/pass2-demotion")
    assert demoted["locations"][0]["physicalLocation"]["region"] == {"startLine": 4, "endLine": 4}
    assert demoted["level"] == "warning" and "scoped to files" in demoted["message"]["text"]


def test_fingerprints_survive_a_line_shift(project, capsys):
    def fingerprints() -> dict:
        results = json.loads(_run(capsys, "compile", "--format", "sarif")[1])["runs"][0]["results"]
        return {r["fingerprints"]["policyc/v1"]: r["ruleId"] for r in results}

    before = fingerprints()
    (project / "AGENTS.md").write_text("<!-- a comment -->\n\n" + FILES["AGENTS.md"])
    assert fingerprints() == before and len(before) >= 5  # several findings, of several classes


def test_compile_findings_as_github_commands(project, capsys, snapshot):
    snapshot.snapshot_dir = SNAPSHOTS
    code, out = _run(capsys, "compile", "--format", "github")
    assert code == 1
    snapshot.assert_match(out, "compile.github.txt")


def test_diff_findings(history, capsys, snapshot):  # noqa: F811
    snapshot.snapshot_dir = SNAPSHOTS
    code, out = _run(capsys, "diff", "--git", "HEAD~1", "HEAD", "--root", str(history), "--format", "sarif", "--fail-on", "weaken")
    assert code == 1
    results = _valid_sarif(out)["runs"][0]["results"]
    assert sorted(r["ruleId"] for r in results) == ["policyc/removed", "policyc/weakens", "policyc/weakens"]
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "AGENTS.md" for r in results)
    code, out = _run(capsys, "diff", "--git", "HEAD~1", "HEAD", "--root", str(history), "--format", "github")
    snapshot.assert_match(out, "diff.github.txt")


def test_workflow_command_escaping():
    finding = Finding("policyc/weakens", "50% weaker:\nnow, softer", "dir,a/b:c.md", (3, 4), "x")
    assert render_github([finding]) == ("::warning file=dir%2Ca/b%3Ac.md,line=3,endLine=4,title=policyc/weakens"
                                        "::50%25 weaker:%0Anow, softer\n")


def test_self_check_failures_point_at_the_rule_they_name():
    from policyc.compiler.findings import compile_findings, to_sarif
    from policyc.compiler.pipeline import compile_sources
    from policyc.compiler.sources import source_from_bytes

    ir = compile_sources([source_from_bytes("AGENTS.md", b"# Rules\n\nNever delete files under `migrations/`.\n")])
    rule_id = next(i.id for i in ir.imperatives if i.trigger)
    failures = [f"{rule_id}: duplicate id", f"policies/local-agents-md.cedar#{rule_id}-shell: unexpected token", "-: stats.skipped is 1"]
    found = [f for f in compile_findings(ir, failures, "sondera-v2") if f.rule == "policyc/self-check"]
    assert [(f.file, f.lines) for f in found] == [("", (0, 0)), ("AGENTS.md", (3, 3)), ("AGENTS.md", (3, 3))]
    assert _valid_sarif(json.dumps(to_sarif(found)))["runs"][0]["results"][0]["ruleId"] == "policyc/self-check"
