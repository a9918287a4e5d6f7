"""False alarms: how often the rules compiled from a repository's own rule files interrupt its ordinary work.

    python benchmarks/false_alarms.py [--corpus DIR] [--benign DIR]

For every repository that has both rule files in the corpus (MANIFEST.tsv: file,
repo, path) and ordinary traffic (<benign>/events/<owner>__<name>.jsonl: real
commit hunks as Edit, added files as Write, CI and script commands as Bash),
lays the rule files out at their repository paths in a temporary project,
compiles them as `policyc compile` would, and replays every event through the
harness model (compiler.harness.Evaluator). Prints, per repository and in total,
the share of ordinary calls interrupted (block or ask) and the calls warned
about, then every rule that fires with the origin of each event, and last:

    interrupted: X of Y ordinary calls (Z%)

The target is at most 0.05% per repository and no rule firing on three or more
events. Defaults: the corpus and benign traffic beside the repository
(../shared/corpus, ../shared/benign). Always exits 0: a benchmark, not a test
(tests/test_false_alarms.py keeps the figure on the copy in tests/data/benign).
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from policyc.compiler.harness import Evaluator
from policyc.compiler.pipeline import compile_paths
from policyc.emitters.guardrules import emit

HERE = Path(__file__).resolve().parent
# ../shared beside the checkout (or beside a folder of worktrees holding it)
SHARED = next((p / "shared" for p in HERE.parents[1:] if (p / "shared").is_dir()), HERE.parents[1] / "shared")
INTERRUPTING = ("block", "ask")


@dataclass(frozen=True, slots=True)
class Alarm:
    rule_id: str
    action: str  # block | ask | warn
    origin: str  # where the event came from


@dataclass(slots=True)
class Replay:
    repo: str
    events: int
    interrupted: int = 0  # events blocked or asked about
    warned: int = 0  # events with at least one warning
    alarms: list[Alarm] = field(default_factory=list)

    @property
    def share(self) -> float:
        return self.interrupted / self.events if self.events else 0.0


def _rows(corpus: Path) -> list[dict]:
    with open(corpus / "MANIFEST.tsv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def _events(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def compile_repository(corpus: Path, rows: list[dict], workdir: Path) -> list[dict]:
    """The GuardRules of a repository's rule files, laid out at their paths in a fresh project."""
    project = workdir / rows[0]["repo"].replace("/", "__")
    (project / ".git").mkdir(parents=True)
    paths = []
    for row in rows:
        target = project / row["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(corpus / "files" / row["file"], target)
        paths.append(target)
    return emit(compile_paths(paths, project))["rules"]


def replay(repo: str, rules: list[dict], events: list[dict]) -> Replay:
    """Every event through the evaluator: what is interrupted, what is warned about, and by which rule."""
    evaluator = Evaluator(rules)
    actions = {rule["id"]: rule["action"] for rule in rules}
    result = Replay(repo, len(events))
    for event in events:
        decision = evaluator.evaluate(event)
        origin = event.get("origin", "")
        if decision.decision in INTERRUPTING:
            result.interrupted += 1
            result.alarms.append(Alarm(decision.rule_id, actions.get(decision.rule_id, decision.decision), origin))
        if decision.warnings:
            result.warned += 1
            result.alarms.extend(Alarm(rule_id, "warn", origin) for rule_id in decision.warnings)
    return result


def measure(corpus: Path, benign: Path) -> list[Replay]:
    """One Replay per repository with both rule files and traffic, in repository order."""
    by_repo: dict[str, list[dict]] = defaultdict(list)
    for row in _rows(corpus):
        by_repo[row["repo"]].append(row)
    results = []
    with tempfile.TemporaryDirectory(prefix="policyc-false-alarms-") as tmp:
        for repo in sorted(by_repo, key=str.lower):
            traffic = benign / "events" / f"{repo.replace('/', '__')}.jsonl"
            if traffic.is_file():
                rules = compile_repository(corpus, by_repo[repo], Path(tmp))
                results.append(replay(repo, rules, _events(traffic)))
    return results


def repeat_offenders(results: list[Replay], at_least: int = 3) -> dict[tuple[str, str], list[str]]:
    """(repository, rule id) -> origins, for every rule that interrupts `at_least` events or more."""
    fired: dict[tuple[str, str], list[str]] = defaultdict(list)
    for result in results:
        for alarm in result.alarms:
            if alarm.action in INTERRUPTING:
                fired[(result.repo, alarm.rule_id)].append(alarm.origin)
    return {key: origins for key, origins in fired.items() if len(origins) >= at_least}


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.2f}%" if whole else "0.00%"


def report(results: list[Replay]) -> list[str]:
    lines = [f"{'repository':44} {'events':>6} {'interrupted':>11} {'share':>7} {'warned':>6}"]
    for r in results:
        lines.append(f"{r.repo:44} {r.events:>6} {r.interrupted:>11} {_percent(r.interrupted, r.events):>7} {r.warned:>6}")
    for r in results:
        grouped: dict[tuple[str, str], list[str]] = defaultdict(list)
        for alarm in r.alarms:
            grouped[(alarm.rule_id, alarm.action)].append(alarm.origin)
        if grouped:
            lines.append(f"\n{r.repo}: rules that fire")
        for (rule_id, action), origins in sorted(grouped.items(), key=lambda item: (-len(item[1]), item[0])):
            lines.append(f"  {action:10} {rule_id} ({len(origins)} event{'s' * (len(origins) != 1)})")
            lines.extend(f"      {origin}" for origin in origins)
    events = sum(r.events for r in results)
    warned = sum(r.warned for r in results)
    interrupted = sum(r.interrupted for r in results)
    lines.append("")
    lines.append(f"warned: {warned} of {events} ordinary calls ({_percent(warned, events)})")
    lines.append(f"interrupted: {interrupted} of {events} ordinary calls ({_percent(interrupted, events)})")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=SHARED / "corpus", help="rule files with MANIFEST.tsv")
    parser.add_argument("--benign", type=Path, default=SHARED / "benign", help="ordinary traffic: events/<owner>__<name>.jsonl")
    args = parser.parse_args(argv)
    for folder, needed in ((args.corpus, "MANIFEST.tsv"), (args.benign, "events")):
        if not (folder / needed).exists():
            parser.error(f"{folder}: no {needed} there")
    print("\n".join(report(measure(args.corpus, args.benign))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
