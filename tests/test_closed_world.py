"""The closed-world labelled set: corpus files labelled completely (tests/data/labels/).

Each corpus file is compiled at its repository path. Precision is not negotiable:
every Pass 1 rule must sit on a labelled line that expects its action, fire on at
least one of that label's must_match inputs and on none of its must_not_match inputs.
Recall misses (a labelled, non-optional rule with no correct rule, or correct rules
that miss some must_match input) are allowed only when listed in
tests/data/closed_world_misses.yaml with a reason; a listed miss that starts passing
fails, so the list only shrinks. See tests/closed_world.py for the scoring.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from closed_world import MISSES_FILE, assert_labels_well_formed, compile_corpus_file, key, label_files, load_labels, load_misses, repo_path, score
from conftest import CORPUS, corpus_manifest, make_project
from policyc.compiler.pipeline import compile_paths
from policyc.emitters.guardrules import emit

FILES = {p.name: load_labels(p) for p in label_files()}
MISSES = load_misses()
ROWS = {r["file"]: r for r in corpus_manifest()}
RULE_LABELS = [(doc["file"], label) for doc in FILES.values() for label in doc["labels"]
               if label["expect"] != "none" and not label.get("optional")]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("closed-world")


@cache
def _score(corpus_file: str, workdir: Path):
    labels = FILES[f"{corpus_file}.yaml"]["labels"]
    return score(repo_path(corpus_file), labels, compile_corpus_file(corpus_file, workdir))


def test_label_set_size():
    # This branch labels nine files; labels-b labels the rest. Raise to 15 once both are merged.
    assert len(FILES) >= 9


@pytest.mark.parametrize("name", sorted(FILES))
def test_label_file_is_well_formed(name):
    doc = FILES[name]
    assert name == f"{doc['file']}.yaml", "a label file is named after its corpus file"
    assert doc["file"] in ROWS, f"{doc['file']} is not in the corpus MANIFEST"
    lines = (CORPUS / "files" / doc["file"]).read_text(encoding="utf-8").split("\n")
    assert_labels_well_formed(doc["labels"], lines)


def test_listed_misses_name_labelled_rules():
    labelled = {key(corpus_file, label) for corpus_file, label in RULE_LABELS}
    stale = sorted(set(MISSES) - labelled)
    assert not stale, f"{MISSES_FILE.name} lists entries that are not non-optional rule labels: {stale}"


@pytest.mark.parametrize("name", sorted(FILES))
def test_every_emitted_rule_is_labelled_and_correct(name, workdir):
    result = _score(FILES[name]["file"], workdir)
    wrong = [v.describe() for v in result.rules if not v.correct]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("corpus_file,label", RULE_LABELS, ids=lambda v: v["line"] if isinstance(v, dict) else v[:12])
def test_labelled_rule_is_met(corpus_file, label, workdir):
    result = _score(corpus_file, workdir)
    problems = next(p for other, p in result.recall if other is label)
    reason = MISSES.get(key(corpus_file, label))
    if reason:
        assert problems, f"listed as a miss ({reason}) but passes now: remove it from {MISSES_FILE.name}"
    else:
        assert not problems, problems


def _publish_rule(label: dict | None, tmp_path: Path):
    """Score one small AGENTS.md whose line 3 forbids `npm publish`, against one label (or none)."""
    project = make_project(tmp_path, {"AGENTS.md": "# Rules\n\n- Never run `npm publish`.\n"})
    doc = emit(compile_paths([project / "AGENTS.md"], project))
    base = {"line": 3, "text": "Never run `npm publish`.", "class": "backticked-command", "tool": "Bash",
            "field": "command", "must_match": ["npm publish"], "must_not_match": ["npm test"], "why": "test"}
    return score("AGENTS.md", [{**base, **label}] if label is not None else [], doc)


@pytest.mark.parametrize("label,problem", [
    ({"expect": "block"}, None),
    (None, "rule on an unlabelled line"),
    ({"expect": "none"}, "labelled none"),
    ({"expect": "ask"}, "labelled ask, emitted block"),
    ({"expect": "block", "must_not_match": ["npm publish --tag next"]}, "fires on must_not_match 'npm publish --tag next'"),
    ({"expect": "block", "must_match": ["yarn publish"]}, "fires on no must_match input (wrong object)"),
])
def test_scoring_names_what_is_wrong(label, problem, tmp_path):
    result = _publish_rule(label, tmp_path)
    assert [p for v in result.rules for p in v.problems] == ([problem] if problem else [])


def test_recall_counts_inputs_the_rules_miss(tmp_path):
    result = _publish_rule({"expect": "block", "must_match": ["npm publish", "pnpm publish"]}, tmp_path)
    assert [p for _, p in result.recall] == [["does not fire on 'pnpm publish'"]]
