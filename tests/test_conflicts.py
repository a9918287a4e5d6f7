"""Conflict resolution never escalates: a merge settles on the strictest action only for the calls
the rules share, and the weaker rule's wider scope keeps its own action."""

from __future__ import annotations

from conftest import make_project
from policyc.compiler.harness import Evaluator
from policyc.compiler.pipeline import compile_paths
from policyc.emitters.guardrules import emit


def _decide(tmp_path, files: dict[str, str], command: str) -> str:
    root = make_project(tmp_path, files)
    doc = emit(compile_paths(sorted(root.joinpath(name) for name in files), root))
    return Evaluator(doc["rules"]).evaluate({"tool_name": "Bash", "tool_input": {"command": command}}).decision


def test_a_broad_ask_does_not_absorb_a_narrow_block(tmp_path):
    files = {"AGENTS.override.md": "Avoid running `git push`.\n", "AGENTS.md": "Never run `git push --force`.\n"}
    assert _decide(tmp_path / "a", files, "git push origin feature") == "ask"  # not escalated to block
    assert _decide(tmp_path / "b", files, "git push --force origin feature") == "block"  # the narrow block still fires


def test_a_broad_block_still_speaks_for_a_narrow_ask(tmp_path):
    files = {"AGENTS.override.md": "Never run `git push`.\n", "AGENTS.md": "Avoid running `git push --force`.\n"}
    root = make_project(tmp_path, files)
    ir = compile_paths(sorted(root.joinpath(name) for name in files), root)
    assert [len(c.overridden_ids) for c in ir.conflicts] == [1]
    rules = emit(ir)["rules"]
    assert [(r["action"], r["source"]["file"]) for r in rules] == [("block", "AGENTS.override.md")]
