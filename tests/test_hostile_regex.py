"""Regexes that would hang the harness (issue 11, item 3): each keeps its rule out of Pass 1, with the
reason, and the run goes on. The analysis and the Node.js trial are in compiler/regex_safety.py."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import make_project
from policyc.compiler import regex_safety
from policyc.compiler.checks import self_check
from policyc.compiler.cli import main
from policyc.compiler.regexes import command_regex, glob_to_regex

UNSAFE = [
    r"^(a+)+$",  # nested quantifiers
    r"(x+x+)+y",
    r"(?:\s*\S*)*;",  # a repeated group that can match the empty string
    r"(?:.|.)*!$",  # overlapping alternatives, as written (Python's parser folds them into one class)
    r"(a|ab)*c",
    r".*.*=.*",
    r"\N{DIGIT ONE}",  # Python-only escape: never fires in V8
    r"a)(",  # does not parse
]
# Globs that used to translate into catastrophic regexes: stacked wildcards now collapse and
# `*a*a*` reads each run up to its next literal, so the translation itself is safe.
HOSTILE_GLOBS = ["**/*e**e**e**e**e**e**e**e*.zz", "src/**/**/**/**/**/x.ts", "**/a*a*a*a*a*a*a*a*.py"]
SAFE = [
    command_regex(["git push --force"]), command_regex(["rm -rf /"]), glob_to_regex("src/**/*.ts"), glob_to_regex("*.py"),
    glob_to_regex("db/migrations/"), r"\bdatetime\.now\(", r"(?:\s+\S+)*x", r"^(?=.*(?:^|/)src/)(?=.*\.ts$)",
    r"(?:^|[;&|(]\s*)(?:pytest|[\w./-]*/pytest)(?![\w-])(?:(?!.*\s--reuse-db(?![\w-])))",
]


@pytest.mark.parametrize("regex", UNSAFE)
def test_the_static_analysis_rejects_backtracking_and_foreign_syntax(regex):
    assert regex_safety.static_problem(regex, "i")


@pytest.mark.parametrize("regex", SAFE)
def test_what_the_compiler_emits_is_proven_safe(regex):
    assert regex_safety.problems([(regex, "i")]) == [""]


@pytest.mark.parametrize("glob", HOSTILE_GLOBS)
def test_hostile_globs_translate_to_regexes_proven_safe(glob):
    regex = glob_to_regex(glob)
    assert regex_safety.static_problem(regex, "i") == ""
    assert regex_safety.problems([(regex, "i")]) == [""]


def test_the_node_trial_bounds_every_regex_and_reports_what_it_rejects():
    assert shutil.which("node"), "Node.js is on PATH in this project's environment"
    alternation, python_only_group, quadratic = r"(?:.|.)*!$", r"(?P<x>a)", r"[^/]*e[^/]*\.zz$"
    verdicts = regex_safety.trial([(alternation, ""), (python_only_group, "i"), (quadratic, "i"), *[(r, "i") for r in SAFE]])
    assert "did not finish" in verdicts[0] or "ms on a 10000-character input" in verdicts[0]
    assert verdicts[1].startswith("JavaScript rejects it")
    assert "10000-character input" in verdicts[2]
    assert verdicts[3:] == [""] * len(SAFE)


def test_the_worker_trial_stops_a_hanging_test_and_goes_on_with_the_next_regex(monkeypatch):
    """Many tests run in a worker thread that Node's main thread stops at the hard stop; the verdicts are the
    ones each test under its own vm timeout gives."""
    monkeypatch.setattr(regex_safety, "WORKER_MIN_TESTS", 0)
    hanging, rejected = r"^(a+)+$", r"(?P<x>a)"
    pairs = [(r, "i") for r in SAFE[:3]] + [(hanging, ""), (rejected, "i")] + [(r, "i") for r in SAFE[3:]] + [(hanging, "")]
    verdicts = regex_safety.trial(pairs)
    assert verdicts[3] == verdicts[-1] == "did not finish within 1000 ms on a 10000-character input"
    assert verdicts[4].startswith("JavaScript rejects it")
    assert verdicts[:3] + verdicts[5:-1] == [""] * len(SAFE)


def _compile(root) -> dict:
    assert main(["compile", "--root", str(root), "--format", "json"]) == 0
    out = root / ".interlinked"
    return {"rules": json.loads((out / "distilled-rules.json").read_text())["rules"],
            "ir": json.loads((out / "policy.ir.json").read_text())}


def _dropped(ir: dict, part: str) -> list[str]:
    """Why the admission gates kept the rule whose quote holds `part` out of Pass 1."""
    return [i["admission"]["reason"] for i in ir["imperatives"]
            if part in i["quote"] and (i.get("admission") or {}).get("decision") == "demoted"]


def test_hostile_conditions_go_to_pass_2_hostile_globs_become_safe_and_the_run_goes_on(tmp_path, monkeypatch):
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
    # stacked and repeated wildcards translate to regexes proven safe, so those rules stay live
    assert sorted({r["source"]["file"] for r in result["rules"]}) == [".cursor/rules/e.mdc", ".github/instructions/a.instructions.md", "AGENTS.md"]
    emitted = [(p["regex"], p.get("flags", "i")) for r in result["rules"] for p in r["patterns"]]
    emitted += [(r["active_when"]["file_scope"], "i") for r in result["rules"] if "file_scope" in r.get("active_when", {})]
    assert regex_safety.problems(emitted) == [""] * len(emitted)
    for part in ("(?:.|.)", "DIGIT ONE", "a)("):  # an OMP rule's quote is its condition
        assert _dropped(result["ir"], part), part
    # the loadable gate decides before breadth replays the condition over ordinary calls (it would hang there)
    slow = next(i for i in result["ir"]["imperatives"] if "(?:.|.)" in i["quote"])
    assert slow["admission"]["gate"] == "loadable"


def test_the_self_check_refuses_an_unsafe_scope_that_reaches_it(tmp_path):
    rule = {"id": "enforce-x-no-eval", "enabled": True, "trigger": "PreToolUse", "tool_match": ["Write"], "action": "block",
            "patterns": [{"field": "content", "regex": r"\beval\(", "flags": "i"}],
            "active_when": {"file_scope": r"(?:^|/)[^/]*e.*e.*e.*e.*e[^/]*\.zz$"},  # what `*e**e**e**e**e*.zz` once gave
            "source": {"file": "AGENTS.md", "lines": [1, 1], "quote": "Never use eval."}}
    failures = self_check({"rules": [rule]}, {"AGENTS.md": "Never use eval.\n"}, use_node=False)
    assert any("file_scope" in message and "unbounded quantifiers" in message for _, message in failures)


def test_the_kept_node_trial_comes_back_after_it_dies_and_follows_its_bounds(monkeypatch):
    """One Node.js process serves every trial of this process; killed, the next trial starts another, and a
    change of the trial's bounds starts one that keeps them."""
    regex_safety.trial([(SAFE[0], "i")])
    kept = regex_safety._node_trials[0]
    kept.process.kill()
    kept.process.wait()
    assert regex_safety.trial([(SAFE[1], "i"), (r"(?P<x>a)", "i")])[1].startswith("JavaScript rejects it")
    assert regex_safety._node_trials[0] is not kept
    restarted = regex_safety._node_trials[0]
    monkeypatch.setattr(regex_safety, "WORKER_MIN_TESTS", 0)
    assert regex_safety.trial([(SAFE[2], "i")]) == [""]
    assert regex_safety._node_trials[0].script == regex_safety._trial_script() != restarted.script
    assert restarted.process.poll() is not None  # the one with the old bounds is stopped
    regex_safety.stop_node_trials()
    assert regex_safety._node_trials == {}
