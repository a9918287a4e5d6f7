"""Unit tests for the building blocks: blocks, markers, regexes, keywords, harness model."""

from __future__ import annotations

import pytest

from policyc.compiler.blocks import parse_blocks
from policyc.compiler.checks import node_problems
from policyc.compiler.clauses import find_markers, split_sentences, strongest
from policyc.compiler.harness import rule_fires
from policyc.compiler.regexes import command_regex, glob_to_regex, redos_reasons


def test_blocks_keep_exact_line_spans_and_fences():
    lines = "# Title\n\ntext one\ntext two\n\n- item\n  - nested\n\n```bash\n# not a heading\n```\n| a | b |\n|---|---|\n| c | d |".split("\n")
    kinds = [(b.kind, b.start, b.end, b.depth) for b in parse_blocks(lines)]
    assert kinds == [("heading", 1, 1, 1), ("paragraph", 3, 4, 0), ("item", 6, 6, 0), ("item", 7, 7, 1), ("code", 9, 11, 0), ("table", 12, 14, 0)]


def test_fence_closes_only_on_matching_fence():
    lines = ["````markdown", "```ts", "x", "```", "still code", "````", "after"]
    blocks = parse_blocks(lines)
    assert [(b.kind, b.start, b.end) for b in blocks] == [("code", 1, 6), ("paragraph", 7, 7)]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Never push.", ("never", "block-direct")),
        ("You should not push.", ("should not", "ask")),
        ("Do NOT push.", ("do not", "block-direct")),  # ALL-CAPS strengthens
        ("You don't have to push.", None),  # negated positive marker
        ("We usually try to push.", ("we usually", "skip-hedged")),  # a hedge wins
        ("Prefer rebase.", ("prefer", "advisory")),
    ],
)
def test_marker_ladder(text, expected):
    marker = strongest(find_markers(split_sentences(text)[0]))
    assert (marker and (marker.text.lower(), marker.marker_class)) == expected


def test_sentences_respect_abbreviations_and_code():
    sentences = split_sentences("Use e.g. `a.b`. Never run `x. y`! Done")
    assert len(sentences) == 3


@pytest.mark.parametrize(
    "glob, path, hit",
    [
        ("db/migrations/", "/repo/db/migrations/001.sql", True),
        ("db/migrations/", "/repo/db/migrations_old/001.sql", False),
        ("**/*.py", "src/a/b.py", True),
        ("*.E01", "/evidence/disk.E01", True),
        ("src/**/*.ts", "/r/src/a/b/c.ts", True),
        ("src/**/*.ts", "/r/lib/a.ts", False),
    ],
)
def test_glob_to_regex(glob, path, hit):
    rule = {"enabled": True, "trigger": "PreToolUse", "tool_match": ["Write"], "patterns": [{"field": "file_path", "regex": glob_to_regex(glob), "flags": ""}]}
    assert rule_fires(rule, "Write", {"file_path": path}) is hit


@pytest.mark.parametrize(
    "command, hit",
    [("git push origin main", True), ("cd x && git push", True), ("sudo git push", True), ("echo git push", False), ("git pushx", False)],
)
def test_command_regex_anchors_at_a_command_position(command, hit):
    rule = {"enabled": True, "trigger": "PreToolUse", "tool_match": ["Bash"], "keywords": ["git"],
            "patterns": [{"field": "command", "regex": command_regex(["git push"]), "flags": "", "strip_wrappers": True}]}
    assert rule_fires(rule, "Bash", {"command": command}) is hit


def test_redos_heuristic_matches_the_harness():
    assert redos_reasons(r"\btouch\s+([^|;&]*\s)?(-t\s)")  # the worked example the harness drops
    assert not redos_reasons(command_regex(["pip", "poetry"]))


def test_node_rejects_python_only_syntax():
    problems = node_problems([("(?P<x>a)", ""), ("a|", ""), ("ok", "")])
    if problems is None:
        pytest.skip("Node.js is not installed")
    assert problems[0] and problems[1] == "matches the empty string" and problems[2] == ""
