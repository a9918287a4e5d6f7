"""False alarms on real ordinary traffic: the rules compiled from a repository's own rule files,
replayed over that repository's commit hunks, added files and CI commands (tests/data/benign, a
deterministic copy of one event in seven), must almost never interrupt them.

The threshold is the project's target: at most 0.05% of a repository's ordinary calls interrupted
(block or ask), in total and per repository, and no rule interrupting three or more of them. On about
50 events per repository that means none. The figure on the full collection comes from
`python benchmarks/false_alarms.py`.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from conftest import CORPUS, DATA

REPO = Path(__file__).resolve().parents[1]
BENIGN = DATA / "benign"
MAX_SHARE = 0.0005  # 0.05% of ordinary calls interrupted
MAX_EVENTS_PER_RULE = 2  # a rule that interrupts three ordinary calls is too broad


def _benchmark():
    spec = importlib.util.spec_from_file_location("false_alarms", REPO / "benchmarks" / "false_alarms.py")
    module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


BENCHMARK = _benchmark()


@pytest.fixture(scope="module")
def replays():
    return BENCHMARK.measure(CORPUS, BENIGN)


def _alarms(replay) -> str:
    return "\n".join(f"  {replay.repo}: {a.action} {a.rule_id} on {a.origin}" for a in replay.alarms
                     if a.action in BENCHMARK.INTERRUPTING)


def test_every_repository_with_traffic_is_replayed(replays):
    manifest = (BENIGN / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()[1:]
    expected = {line.split("\t", 1)[0]: int(line.split("\t")[2]) for line in manifest}
    assert {r.repo: r.events for r in replays} == expected


def test_ordinary_calls_are_rarely_interrupted(replays):
    events = sum(r.events for r in replays)
    interrupted = sum(r.interrupted for r in replays)
    too_many = [r for r in replays if r.share > MAX_SHARE]
    assert interrupted / events <= MAX_SHARE and not too_many, (
        f"{interrupted} of {events} ordinary calls interrupted; over {MAX_SHARE:.2%} in "
        + ", ".join(f"{r.repo} ({r.interrupted} of {r.events})" for r in too_many) + ":\n"
        + "\n".join(_alarms(r) for r in too_many))


def test_no_rule_interrupts_three_ordinary_calls(replays):
    offenders = BENCHMARK.repeat_offenders(replays, at_least=MAX_EVENTS_PER_RULE + 1)
    assert not offenders, "rules that interrupt ordinary work again and again:\n" + "\n".join(
        f"  {repo}: {rule_id} on {len(origins)} events: " + "; ".join(origins)
        for (repo, rule_id), origins in sorted(offenders.items()))
