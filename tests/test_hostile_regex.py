"""Regexes that would hang the harness (issue 11, item 3): each keeps its rule out of Pass 1, with the
reason, and the run goes on. The analysis and the Node.js trial are in compiler/regex_safety.py."""

from __future__ import annotations

import json
import shutil

import pytest

from policyc.compiler import regex_safety
from policyc.compiler.checks import self_check
from policyc.compiler.cli import main
from policyc.compiler.regexes import command_regex, glob_to_regex

from conftest import make_project

UNSAFE = [
    r"^(a+)+$",  # nested quantifiers
    r"(x+x+)+y",
    r"(?:\s*\S*)*;",  # a repeated group that can match the empty string
    r"(?:.|.)*!$",  # overlapping alternatives, as written (Python's parser folds them into one class)
    r"(a|ab)*c",
    glob_to_regex("**/*e**e**e**e**e**e**e**e*.zz"),
    glob_to_regex("src/**/**/**/**/**/x.ts"),
    glob_to_regex("**/a*a*a*a*a*a*a*a*.py"),
    r".*.*=.*",
    r"\N{DIGIT ONE}",  # Python-only escape: never fires in V8
    r"a)(",  # does not parse
]
SAFE = [
    command_regex(["git push --force"]), command_regex(["rm -rf /"]), glob_to_regex("src/**/*.ts"), glob_to_regex("*.py"),
    glob_to_regex("db/migrations/"), r"\bdatetime\.now\(", r"(?:\s+\S+)*x", r"^(?=.*(?:^|/)src/)(?=.*\.ts$)",
    r"(?:^|[;&|(]\s*)(?:pytest|[\w./-]*/pytest)(?![\w-])(?:(?!.*\s--reuse-db(?![\w-])))",
]


@pytest.mark.parametrize("regex", UNSAFE)
def test_the_static_analysis_rejects_backtracking_and_foreign_syntax(regex):
    assert regex_safety.static_problem(regex, "i")


@pytest.mark.parametrize("regex", SAFE)
def test_the_static_analysis_accepts_what_the_compiler_emits(regex):
    assert regex_safety.static_problem(regex, "i") == ""


def test_the_node_trial_bounds_every_regex_and_reports_what_it_rejects():
    assert shutil.which("node"), "Node.js is on PATH in this project's environment"
    alternation, python_only_group, quadratic = r"(?:.|.)*!$", r"(?P<x>a)", r"[^/]*e[^/]*\.zz$"
    verdicts = regex_safety.trial([(alternation, ""), (python_only_group, "i"), (quadratic, "i"), *[(r, "i") for r in SAFE]])
    assert "did not finish" in verdicts[0] or "ms on a 10000-character input" in verdicts[0]
    assert verdicts[1].startswith("JavaScript rejects it")
    assert "10000-character input" in verdicts[2]
    assert verdicts[3:] == [""] * len(SAFE)


def _compile(root) -> dict:
    assert main(["compile", "--root", str(root), "--format", "json"]) == 0
    out = root / ".interlinked"
    return {"rules": json.loads((out / "distilled-rules.json").read_text())["rules"],
            "ir": json.loads((out / "policy.ir.json").read_text())}


def _dropped(ir: dict, part: str) -> list[str]:
    return [r for i in ir["imperatives"] if part in i["quote"] for r in i["reasons"] if r.startswith("Pass 1 dropped")]


def test_hostile_globs_and_conditions_go_to_pass_2_and_the_run_goes_on(tmp_path, monkeypatch):
    root = make_project(tmp_path, {
        "AGENTS.md": "Never run `terraform destroy`.\n\nNever edit `src/**/**/**/**/**/**/x.ts`.\n",
        ".cursor/rules/e.mdc": '---\nglobs: "**/*e**e**e**e**e**e**e**e*.zz"\n---\nNever use `eval`.\n',
        ".github/instructions/a.instructions.md": '---\napplyTo: "**/a*a*a*a*a*a*a*.py"\n---\nNever use `exec`.\n',
        ".omp/rules/slow.md": '---\ncondition: "(?:.|.)*!$"\nscope: "tool:bash"\n---\nDo not shout at the shell.\n',
        ".omp/rules/python.md": '---\ncondition: "\\\\N{DIGIT ONE}"\nscope: "tool:bash"\n---\nNever type the digit one.\n',
        ".omp/rules/broken.md": '---\ncondition: "a)("\nscope: "tool:bash"\n---\nNever type this.\n',
    })
    monkeypatch.chdir(root)
    result = _compile(root)
    assert [r["source"]["file"] for r in result["rules"]] == ["AGENTS.md"]  # only the safe rule is live
    for part in ("x.ts", "eval", "exec", "(?:.|.)", "DIGIT ONE", "a)("):  # an OMP rule's quote is its condition
        assert _dropped(result["ir"], part), part
    policy = (root / ".interlinked" / "policies" / "local-cursor-rules-e-mdc.policy.md").read_text()
    assert "cannot load in the harness" in policy


def test_the_self_check_refuses_an_unsafe_scope_that_reaches_it(tmp_path):
    rule = {"id": "enforce-x-no-eval", "enabled": True, "trigger": "PreToolUse", "tool_match": ["Write"], "action": "block",
            "patterns": [{"field": "content", "regex": r"\beval\(", "flags": "i"}],
            "active_when": {"file_scope": glob_to_regex("**/*e**e**e**e**e*.zz")},
            "source": {"file": "AGENTS.md", "lines": [1, 1], "quote": "Never use eval."}}
    failures = self_check({"rules": [rule]}, {"AGENTS.md": "Never use eval.\n"}, use_node=False)
    assert any("file_scope" in message and "unbounded quantifiers" in message for _, message in failures)
