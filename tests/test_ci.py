"""The CI integrations, offline: the pre-commit hook manifest and the composite GitHub Action.

The hooks' entries run as pre-commit would run them (no file names, in the repository root). The
action's shell steps run with bash against a temporary git repository, with its inputs and
GitHub's contexts substituted; the steps that `uses:` another action (setup-python, upload-sarif)
and the pip install step (policyc is already installed here) are not run.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml
from policyc.schemas import read as read_schema

ROOT = Path(__file__).resolve().parents[1]
HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
CONVENTIONS = yaml.safe_load((ROOT / "grammar" / "conventions.yaml").read_text(encoding="utf-8"))
ENV = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "GIT_AUTHOR_NAME": "t",
       "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
RULES = "# Rules\n\nNever run `terraform destroy`.\nNever push to main without code review.\n"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=ENV).stdout


def _policyc(repo: Path, *args: str) -> int:
    return subprocess.run(["policyc", *args], cwd=repo, capture_output=True, env=ENV).returncode


@pytest.fixture(scope="module")
def committed(tmp_path_factory) -> Path:
    """A project whose rule file and compiled artifacts are committed, made once; tests change copies."""
    repo = tmp_path_factory.mktemp("committed") / "repo"
    (repo / ".interlinked").mkdir(parents=True)
    (repo / "AGENTS.md").write_text(RULES)
    _git(repo, "init", "-q")
    assert _policyc(repo, "compile") == 0
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "rules")
    return repo


@pytest.fixture
def repo(committed, tmp_path) -> Path:
    """This test's own copy of the committed project (a git repository moves with its folder)."""
    return Path(shutil.copytree(committed, tmp_path / "repo", symlinks=True))


def _weaken(repo: Path) -> None:
    (repo / "AGENTS.md").write_text(RULES.replace("Never run `terraform destroy`.\n", ""))


# --- pre-commit ---

def test_the_hooks_fire_on_every_rule_file_convention_and_nothing_else():
    examples = [c["pattern"].replace("*", "x") for c in CONVENTIONS["conventions"]]
    for hook in HOOKS:
        files = re.compile(hook["files"])
        for path in examples + [f"services/api/{e}" for e in examples if "/" not in e] + [".interlinked/distilled-rules.json"]:
            assert files.search(path), (hook["id"], path)
        for path in ("README.md", "docs/guide.md", "src/app.py", "pyproject.toml"):
            assert not files.search(path), (hook["id"], path)
        assert hook["pass_filenames"] is False and hook["language"] == "python"


def _hook(repo: Path, hook_id: str) -> int:
    entry = next(h["entry"] for h in HOOKS if h["id"] == hook_id)
    return subprocess.run(shlex.split(entry), cwd=repo, capture_output=True, env=ENV).returncode


def test_the_hook_entries_run(repo):
    assert {h["id"] for h in HOOKS} == {"policyc-check", "policyc-diff"}
    assert _hook(repo, "policyc-check") == 0 and _hook(repo, "policyc-diff") == 0
    _weaken(repo)
    assert _hook(repo, "policyc-check") == 1  # the artifacts no longer match the rule file
    assert _hook(repo, "policyc-diff") == 1  # a rule is gone against the previous commit
    assert _policyc(repo, "compile") == 0
    assert _hook(repo, "policyc-check") == 0 and _hook(repo, "policyc-diff") == 1


# --- the composite action ---

def _expression(text: str, context: dict) -> object:
    """A GitHub expression of the forms action.yml uses: names, 'strings', ==, &&, ||, always()."""
    def lookup(match: re.Match) -> str:
        value: object = context
        for part in match.group(0).split("."):
            value = value.get(part, "") if isinstance(value, dict) else ""
        return repr(value)

    python = re.sub(r"\b(?:inputs|github|runner|steps)(?:\.[\w-]+)+", lookup, text.replace("always()", "True"))
    python = python.replace("&&", " and ").replace("||", " or ")
    return eval(python, {"__builtins__": {}}, {"True": True})  # noqa: S307 (our own action.yml, in a test)


def _substitute(value: str, context: dict) -> str:
    return re.sub(r"\$\{\{\s*(.*?)\s*\}\}", lambda m: str(_expression(m.group(1), context)), str(value))


def _run_action(repo: Path, tmp_path: Path, inputs: dict, base: str = "") -> tuple[dict, Path, dict]:
    """Run the action's shell steps in order, as a runner would; (step outcomes, summary file, outputs)."""
    values = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()} | inputs
    summary, outputs, temp = tmp_path / "summary.md", tmp_path / "output.txt", tmp_path / "runner"
    temp.mkdir()
    summary.touch()
    outcomes: dict = {}
    context = {"inputs": values, "github": {"action_path": str(ROOT), "event": {"pull_request": {"base": {"sha": base}}}},
               "runner": {"temp": str(temp)}, "steps": outcomes}
    for step in ACTION["runs"]["steps"]:
        if "run" not in step or step.get("id") == "install":
            if step.get("id"):
                outcomes[step["id"]] = {"outcome": "success"}
            continue
        if "if" in step and not _expression(step["if"], context):
            outcomes[step["id"]] = {"outcome": "skipped"}
            continue
        env = {**ENV, "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(outputs), "RUNNER_TEMP": str(temp)}
        env |= {k: _substitute(v, context) for k, v in step.get("env", {}).items()}
        cwd = repo / _substitute(step.get("working-directory", "."), context)
        assert "${{" not in step["run"]  # scripts read inputs from env only (no expression injection)
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=cwd, env=env,
                              capture_output=True, text=True)
        outcomes[step["id"]] = {"outcome": "success" if done.returncode == 0 else "failure", "stdout": done.stdout}
    produced = dict(line.split("=", 1) for line in outputs.read_text().splitlines()) if outputs.exists() else {}
    return outcomes, summary, produced


def test_a_weakening_pull_request_fails_with_a_summary(repo, tmp_path):
    base = _git(repo, "rev-parse", "HEAD").strip()
    _weaken(repo)
    assert _policyc(repo, "compile") == 0
    _git(repo, "commit", "-qam", "drop a rule")
    outcomes, summary, outputs = _run_action(repo, tmp_path, {"fail-on-weaken": "true", "sarif": "true"}, base=base)
    assert outcomes["check"]["outcome"] == "success"
    assert outcomes["diff"]["outcome"] == "failure" and outputs == {"weakens": "true"}
    text = summary.read_text()
    assert text.startswith("<!-- policyc-diff -->\n") and "enforce-local-agents-md-no-terraform-destroy" in text
    assert "::warning file=AGENTS.md,line=3,endLine=3,title=policyc/removed::" in outcomes["diff"]["stdout"]
    sarif = json.loads((tmp_path / "runner" / "policyc.sarif").read_text())
    assert list(jsonschema.Draft4Validator(json.loads(read_schema("sarif-schema-2.1.0.json"))).iter_errors(sarif)) == []


def test_stale_artifacts_fail_the_check_and_a_report_only_diff_passes(repo, tmp_path):
    base = _git(repo, "rev-parse", "HEAD").strip()
    _weaken(repo)
    _git(repo, "commit", "-qam", "drop a rule, forget to compile")
    outcomes, summary, outputs = _run_action(repo, tmp_path, {}, base=base)
    assert outcomes["check"]["outcome"] == "failure" and "title=policyc/stale-artifact" in outcomes["check"]["stdout"]
    assert outcomes["diff"]["outcome"] == "success" and outputs == {"weakens": "true"}  # fail-on-weaken is off
    assert outcomes["findings"]["outcome"] == "skipped"
    assert "<!-- policyc-diff -->" in summary.read_text()


def test_without_a_base_there_is_no_diff(repo, tmp_path):
    outcomes, summary, outputs = _run_action(repo, tmp_path, {})
    assert outcomes["check"]["outcome"] == "success" and outcomes["diff"]["outcome"] == "success"
    assert summary.read_text() == "" and outputs == {}
