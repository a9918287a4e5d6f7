"""The hand-labelled corpus sample (tests/data/labelled_sample.yaml).

Each entry names a corpus line, the action a demanding user expects (or
`none`: no Pass 1 rule), and inputs the rule must and must not fire on,
evaluated with the harness's semantics. Entries the compiler does not meet
yet are listed in tests/data/known_misses.yaml with the reason; a listed
entry that starts passing fails the test, so the list stays honest.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from conftest import DATA, corpus_manifest, lay_out, load_yaml
from policyc.compiler.harness import rule_fires
from policyc.compiler.pipeline import compile_paths
from policyc.emitters.guardrules import emit

SAMPLE = load_yaml((DATA / "labelled_sample.yaml").read_text(encoding="utf-8"))
MISSES = {(m["file"], m["line"], m["text"]): m["reason"] for m in load_yaml((DATA / "known_misses.yaml").read_text(encoding="utf-8")) or []}
ROWS = {row["file"]: row for row in corpus_manifest()}


@cache
def _doc(corpus_file: str, workdir: str) -> dict:
    project = Path(workdir) / corpus_file.split("__", 1)[0]
    return emit(compile_paths([lay_out(ROWS[corpus_file], project)], project))


def _rules_at(entry: dict, workdir: str) -> list[dict]:
    """The rules from this line; a line merged into another rule (§10) counts through its winner."""
    doc = _doc(entry["file"], workdir)
    rules = [r for r in doc["rules"] if r["source"]["lines"][0] <= entry["line"] <= r["source"]["lines"][1]]
    where = f"{ROWS[entry['file']]['path']}:{entry['line']}"
    winners = {c["id"] for c in doc["conflicts"] if where in c["overridden_sources"]}
    return rules + [r for r in doc["rules"] if r["id"] in winners]


def _tool_input(entry: dict, value: str) -> dict:
    field = entry["field"]
    if field == "content" and entry["tool"] == "Edit":
        return {"file_path": "src/example", "new_string": value}
    if field == "content":
        return {"file_path": "src/example", "content": value}
    return {field: value}


def _problems(entry: dict, workdir: str) -> list[str]:
    rules = _rules_at(entry, workdir)
    if entry["expect"] == "none":
        return [f"unexpected Pass 1 rule {r['id']} ({r['action']})" for r in rules]
    problems = []
    if not any(r["action"] == entry["expect"] for r in rules):
        problems.append(f"no {entry['expect']} rule at line {entry['line']} (found {[r['action'] for r in rules]})")
        return problems
    rules = [r for r in rules if r["action"] == entry["expect"]]
    for value in entry.get("must_match", []):
        if not any(rule_fires(r, entry["tool"], _tool_input(entry, value)) for r in rules):
            problems.append(f"does not fire on {value!r}")
    for value in entry.get("must_not_match", []):
        if any(rule_fires(r, entry["tool"], _tool_input(entry, value)) for r in rules):
            problems.append(f"fires on {value!r}")
    return problems


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("labelled"))


def test_sample_is_large_enough():
    assert len(SAMPLE) >= 60
    assert len({e["file"] for e in SAMPLE}) >= 10


@pytest.mark.parametrize("entry", SAMPLE, ids=lambda e: f"{e['file'][:12]}:{e['line']}")
def test_labelled_entry(entry, workdir):
    problems = _problems(entry, workdir)
    key = (entry["file"], entry["line"], entry["text"])
    if key in MISSES:
        assert problems, f"listed as a known miss ({MISSES[key]}) but passes now: remove it from known_misses.yaml"
    else:
        assert not problems, problems
