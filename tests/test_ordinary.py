"""The bundled sample of ordinary tool calls and the breadth measure (compiler/ordinary.py)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import PurePosixPath

import pytest
from conftest import corpus_manifest, lay_out
from hypothesis import given
from hypothesis import strategies as st
from policyc.compiler import ordinary
from policyc.compiler.harness import Evaluator
from policyc.compiler.ordinary import Rate, fire_rate, sample
from policyc.compiler.pipeline import compile_paths
from policyc.emitters.guardrules import emit

SHAPES = {
    "Read": {"file_path"},
    "Write": {"file_path", "content"},
    "Edit": {"file_path", "old_string", "new_string"},
    "MultiEdit": {"file_path", "edits"},
    "Bash": {"command"},
}
# what rulebooks forbid as destructive or risky: the sample must hold none of it
RISKY = re.compile(r"push\b.*(--force|\s-f\b)|reset\s+--hard|rm\s+-\w*r\w*\s+(/|~)(\s|$)|\bsudo\b|curl[^|]*\|\s*(ba|z)?sh"
                   r"|\bpublish\b|drop\s+table|--no-verify|git\s+push", re.IGNORECASE)


def _rule(tools, patterns, action="block", **extra) -> dict:
    return {"id": "test-rule", "enabled": True, "trigger": "PreToolUse", "tool_match": tools, "action": action,
            "patterns": patterns, **extra}


def _content(regex: str, **extra) -> dict:
    return _rule(["Write", "Edit"], [{"field": "content", "regex": regex}, {"field": "new_string", "regex": regex}], **extra)


def _command(regex: str, action: str = "block", **extra) -> dict:
    return _rule(["Bash"], [{"field": "command", "regex": regex}], action, **extra)


def _events(tool: str) -> list[dict]:
    return [e for e in sample() if e["tool_name"] == tool]


# --- the sample ---------------------------------------------------------------------


def test_the_sample_is_deterministic():
    rebuilt = ordinary.sample.__wrapped__()
    assert json.dumps(rebuilt, sort_keys=True) == json.dumps(sample(), sort_keys=True)
    assert sample() is sample()


def test_the_sample_is_large_and_balanced():
    events = sample()
    kinds = Counter(e["tool_name"] for e in events)
    assert len(events) >= 1000
    assert set(kinds) == set(SHAPES)
    programs = Counter(e["tool_input"]["command"].split()[0] for e in _events("Bash"))
    assert max(programs.values()) / kinds["Bash"] < 0.2, programs.most_common(3)  # git, the most common, is 15%


def test_every_event_is_well_formed():
    origins = [e["origin"] for e in sample()]
    assert len(origins) == len(set(origins))
    for event in sample():
        tool_input = event["tool_input"]
        assert set(event) == {"tool_name", "tool_input", "origin"}
        assert set(tool_input) == SHAPES[event["tool_name"]], event["origin"]
        if "file_path" in tool_input:
            path = PurePosixPath(tool_input["file_path"])
            assert not path.is_absolute() and ".." not in path.parts, event["origin"]
        if event["tool_name"] == "Write":
            assert "policyc ordinary sample" not in tool_input["content"], event["origin"]
        edits = tool_input.get("edits") or ([tool_input] if event["tool_name"] == "Edit" else [])
        for edit in edits:
            assert edit["old_string"] != edit["new_string"], event["origin"]
            assert edit["old_string"] and edit["new_string"], event["origin"]


def test_edits_are_hunks_of_ten_to_thirty_lines():
    sizes = [e["tool_input"]["new_string"].count("\n") + 1 for e in _events("Edit")]
    assert min(sizes) >= 10 and max(sizes) <= 30


def test_the_common_languages_are_there():
    names = {PurePosixPath(e["tool_input"]["file_path"]).name for e in _events("Write")}
    suffixes = {PurePosixPath(name).suffix for name in names}
    assert {".py", ".ts", ".tsx", ".js", ".rs", ".go", ".java", ".cs", ".rb", ".php", ".kt", ".swift", ".sh",
            ".sql", ".css", ".html", ".vue", ".yml", ".yaml", ".json", ".toml", ".md"} <= suffixes
    assert {"Dockerfile", "Makefile", "README.md", "CHANGELOG.md"} <= names
    assert any(e["tool_input"]["file_path"] == ".github/workflows/ci.yml" for e in _events("Write"))


def test_nothing_risky_is_ordinary():
    risky = [e["tool_input"]["command"] for e in _events("Bash") if RISKY.search(e["tool_input"]["command"])]
    assert risky == []


# --- fire_rate ------------------------------------------------------------------------


def test_a_common_word_as_content_fires_on_many_edits():
    rate = fire_rate(_content(r"\bcount\b"))
    assert rate.total == len(_events("Write")) + len(_events("Edit"))
    assert rate.fired >= 10 and rate.share > 0.01
    assert len(rate.examples) == 3
    assert all(origin.startswith("code/") for origin in rate.examples)


def test_a_destructive_command_fires_on_nothing():
    for keyword, regex in (("push", r"\bgit\s+push\b.*--force"), ("reset", r"\bgit\s+reset\s+--hard\b"),
                           ("sudo", r"\bsudo\b"), ("rm", r"\brm\s+-rf\s+/(\s|$)")):
        rate = fire_rate(_command(regex, keywords=[keyword]))
        assert rate == Rate(0, len(_events("Bash")), ()), regex


def test_a_common_command_fires_and_names_its_lines():
    rate = fire_rate(_command(r"^git\s+status\b"))
    assert rate.fired >= 3
    assert all(re.fullmatch(r"commands\.txt:\d+", origin) for origin in rate.examples)


def test_the_share_of_nothing_is_zero():
    rate = fire_rate(_rule(["NotebookEdit"], [{"field": "new_source", "regex": "x"}]))
    assert rate == Rate(0, 0, ()) and rate.share == 0.0


def test_a_file_scope_narrows_what_the_rule_applies_to():
    scoped = fire_rate(_content(r"\bcount\b", active_when={"file_scope": r"\.py$"}))
    python = [e for e in sample() if e["tool_name"] in ("Write", "Edit") and e["tool_input"]["file_path"].endswith(".py")]
    assert scoped.total == len(python)
    assert 0 < scoped.fired < fire_rate(_content(r"\bcount\b")).fired


def test_session_scopes_count_as_active_and_unknown_predicates_keep_a_rule_dormant():
    plain = fire_rate(_command(r"^git\s+status\b"))
    assert fire_rate(_command(r"^git\s+status\b", active_when={"skill": "release"})) == plain
    assert fire_rate(_command(r"^git\s+status\b", applies_to_roles=["worker"])) == plain
    assert fire_rate(_command(r"^git\s+status\b", active_when={"predicate": "on_main"})).total == 0


def test_keywords_reject_as_the_harness_does():
    rate = fire_rate(_command(r"\binstall\b", keywords=["pip"]))
    assert 0 < rate.fired < fire_rate(_command(r"\binstall\b")).fired


def test_the_compound_path_follows_the_harness():
    # `^npm install` meets "cd frontend && npm install && npm run build" only as a subcommand;
    # the harness's compound path acts on block and warn rules, not on ask rules
    block = fire_rate(_command(r"^npm\s+install\b"))
    ask = fire_rate(_command(r"^npm\s+install\b", action="ask"))
    assert block.fired == ask.fired + 1


def test_disabled_rules_and_other_triggers_fire_on_nothing():
    assert fire_rate({**_command("git"), "enabled": False}) == Rate(0, 0, ())
    assert fire_rate({**_command("git"), "trigger": "PostToolUse"}) == Rate(0, 0, ())


def test_rules_with_the_same_trigger_share_one_measure():
    first = fire_rate(_content(r"\bnull\b"))
    assert fire_rate({**_content(r"\bnull\b"), "id": "another-rule", "reason": "other words"}) is first


@pytest.fixture(scope="module")
def corpus_rules(tmp_path_factory) -> list[dict]:
    rules = []
    for n, row in enumerate(corpus_manifest()):
        project = tmp_path_factory.mktemp(f"corpus{n}")
        rules += emit(compile_paths([lay_out(row, project)], project))["rules"]
    return rules


def test_fire_rate_agrees_with_the_evaluator(corpus_rules):
    """Every rule compiled from the corpus: the measure is what the harness would do on each event
    (rules the sample cannot place in a session, by skill, role or command history, left aside)."""
    session_free = [r for r in corpus_rules if not r.get("applies_to_roles")
                    and not set(r.get("active_when") or {}) - {"file_scope"}]
    assert len(session_free) > 40  # admission keeps about 45 of the corpus rules
    differ = []
    for rule in session_free:
        evaluator = Evaluator([rule])
        acted = [e["origin"] for e in sample() if (d := evaluator.evaluate(e)).decision != "allow" or d.warnings]
        rate = fire_rate(rule)
        if (rate.fired, rate.examples) != (len(acted), tuple(acted[:3])):
            differ.append(f"{rule['id']}: fire_rate {rate.fired}, evaluator {len(acted)}")
    assert differ == []


QUICK_TEST_CASES = [r"(?:\bnull\b|\bundefined\b)", r"(?:a|b)+c", r"(?:ab)?cd|ef", r"(?:x|)yz", r"a\|b",
                    r"(?:^|[;&|(]\s*)(?:pip[0-9.]*(?![\w-])|uv(?![\w-]))", r"[|(]ab|cd", r"(?!(?:abc))x(?:de|fg)",
                    r"(?:(?::\s*any\b|\bas\s+any\b|<any>)|\bunknown\b)", r"(?:api[_-]?key|token)[\"']?\s*[:=]"]


@given(st.sampled_from(QUICK_TEST_CASES), st.text(alphabet="abcdefgnulxyzipvkto|;&( :=_-'\"<>ANYUL", max_size=40))
def test_the_quick_literal_test_never_rejects_a_match(regex, text):
    literals = ordinary.required_literals(regex)
    if literals and re.search(regex, text, re.IGNORECASE):
        assert any(literal in text.lower() for literal in literals)
