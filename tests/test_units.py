"""Unit tests for the building blocks: blocks, markers, regexes, keywords, harness model."""

from __future__ import annotations

import re

import pytest
from policyc.compiler.blocks import parse_blocks
from policyc.compiler.checks import node_problems
from policyc.compiler.clauses import find_markers, split_sentences, strongest
from policyc.compiler.harness import rule_fires
from policyc.compiler.regexes import COMMAND_START, command_regex, glob_to_regex, lexicon_regex, missing_flags_regex, redos_reasons
from policyc.compiler.triggers import load_lexicon
from policyc.emitters.cedar_lowering import _parse_condition
from policyc.emitters.like import lower


def test_blocks_keep_exact_line_spans_and_fences():
    lines = ["# Title", "", "text one", "text two", "", "- item", "  - nested", "", "```bash", "# not a heading", "```", "| a | b |", "|---|---|", "| c | d |"]
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
        ("src/**/*.{ts,tsx}", "/r/src/a/b.tsx", True),  # braces expand
        ("src/**/*.{ts,tsx}", "/r/src/a/b.ts.orig", False),
        ("*.[jt]s", "/r/web/a.js", True),  # a character class stays a class
        ("*.[jt]s", "/r/web/a.[jt]s", False),
        ("**/**/*.md", "docs/a/b.md", True),  # stacked ** collapse
    ],
)
def test_glob_to_regex(glob, path, hit):
    rule = {"enabled": True, "trigger": "PreToolUse", "tool_match": ["Write"], "patterns": [{"field": "file_path", "regex": glob_to_regex(glob), "flags": ""}]}
    assert rule_fires(rule, "Write", {"file_path": path}) is hit


@pytest.mark.parametrize(
    "command, hit",
    [("git push origin main", True), ("cd x && git push", True), ("sudo git push", True), ("echo git push", False), ("git pushx", False),
     ("git add .\ngit push", True), ("CI=1 git push", True), ("/usr/bin/git push", True), ("git -C sub push", True),
     ("bash -lc 'git push'", True), ("  git push", True), ("gitlab push", False), ('echo "git push"', False)],
)
def test_command_regex_anchors_at_a_command_position(command, hit):
    rule = {"enabled": True, "trigger": "PreToolUse", "tool_match": ["Bash"], "keywords": ["git"],
            "patterns": [{"field": "command", "regex": command_regex(["git push"]), "flags": ""}]}
    assert rule_fires(rule, "Bash", {"command": command}) is hit


@pytest.mark.parametrize(
    "commands, command, hit",
    [(["npm install"], "npm i -D vitest", True), (["npm install"], "npm run install-deps", False), (["npm install"], "npm ci", False),
     (["pip"], "python3 -m pip install x", True), (["pip"], "pip3.12 install x", True), (["pip"], "pip-audit", False),
     (["eslint"], "npx -y eslint .", True), (["eslint"], "pnpm exec eslint", True), (["eslint"], "eslint-doc", False)],
)
def test_command_regex_reads_aliases_wrappers_and_versions(commands, command, hit):
    assert bool(re.search(command_regex(commands, frozenset({"pip"})), command)) is hit


@pytest.mark.parametrize(
    "command, hit",
    [("pytest -x", True), ("python -m pytest -x", True), ("./venv/bin/pytest", True), ("uv run pytest --reuse-db -x", False),
     ("pytest --reuse-db", False), ("pytest-watch", False)],
)
def test_missing_flags_regex_sees_wrapped_runs(command, hit):
    assert bool(re.search(missing_flags_regex("pytest --reuse-db"), command)) is hit


def test_lexicon_placeholders_are_filled():
    lexicon = load_lexicon()
    for entry in [*lexicon.prose, *lexicon.events]:
        regex = entry.get("regex", "")
        assert not re.search(r"\{[a-z]+\}", regex) and not redos_reasons(regex), entry
    assert lexicon_regex("{git}\\s+push").startswith(COMMAND_START + "git(?:")


def test_case_insensitive_like_keeps_the_common_spellings():
    globs = {alt.glob() for alt in lower("git commit.*co-authored-by", "i").alternatives}
    assert {"*git commit*co-authored-by*", "*git commit*Co-Authored-By*", "*git commit*CO-AUTHORED-BY*"} <= globs
    assert {alt.glob() for alt in lower("drop table", "").alternatives} == {"*drop table*"}  # case-sensitive: as written


def test_v2_parse_facts_take_subcommand_aliases():
    condition, _ = _parse_condition("npm install")
    assert 'program_args.contains("npm:i")' in condition and 'program_args.contains("npm:install")' in condition


def test_redos_heuristic_matches_the_harness():
    assert redos_reasons(r"\btouch\s+([^|;&]*\s)?(-t\s)")  # the worked example the harness drops
    assert not redos_reasons(command_regex(["pip", "poetry"]))


def test_node_rejects_python_only_syntax():
    problems = node_problems([("(?P<x>a)", ""), ("a|", ""), ("ok", "")])
    if problems is None:
        pytest.skip("Node.js is not installed")
    assert problems[0] and problems[1] == "matches the empty string" and problems[2] == ""


def test_node_judges_each_regex_once_per_process(monkeypatch):
    from policyc.compiler import checks

    calls = []
    real_run = checks.subprocess.run
    monkeypatch.setattr(checks.subprocess, "run", lambda *a, **k: calls.append(k["input"]) or real_run(*a, **k))
    first = node_problems([("a+b", ""), ("(?P<y>a)", "")])
    again = node_problems([("(?P<y>a)", ""), ("a+b", ""), ("a+b", "")])
    if first is None:
        pytest.skip("Node.js is not installed")
    assert len(calls) <= 1 and again == [first[1], first[0], first[0]] and first[0] == "" and first[1]
