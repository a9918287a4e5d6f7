"""Precision and strict recall of the compiled Pass 1 rules against the labelled sets.

Run from the repository root (with policyc installed):

    python benchmarks/precision_recall.py

Two sets, reported separately:

  closed world   tests/data/labels/*.yaml: corpus files labelled completely, so every
                 emitted rule counts; a rule on an unlabelled line is a wrong rule.
  sample         tests/data/labelled_sample.yaml: chosen lines only, so only rules on
                 labelled lines count toward precision.

precision      correct emitted rules / emitted rules, per action (block, ask, warn)
strict recall  labelled non-optional rules met / labelled non-optional rules, also per
               class (the sample has no classes)

A rule is correct when a label on its lines expects its action and it fires on one of
that label's must_match inputs and on none of its must_not_match inputs; a labelled
rule is met when the correct rules at its line fire on every must_match input
(tests/closed_world.py). It always exits 0: a benchmark, not a test.
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import yaml  # noqa: E402
from closed_world import ACTIONS, compile_corpus_file, label_files, load_labels, repo_path, score  # noqa: E402
from conftest import DATA  # noqa: E402


class Tally:
    """Counts of emitted/correct rules per action and labelled/met rules per class."""

    def __init__(self) -> None:
        self.emitted, self.correct = Counter(), Counter()
        self.labelled, self.met = Counter(), Counter()

    def add(self, result, classify=lambda label: label.get("class", "unclassified")) -> None:
        for verdict in result.rules:
            self.emitted[verdict.rule["action"]] += 1
            self.correct[verdict.rule["action"]] += verdict.correct
        for label, problems in result.strict:
            self.labelled[classify(label)] += 1
            self.met[classify(label)] += not problems

    def merge(self, other: Tally) -> None:
        for mine, theirs in ((self.emitted, other.emitted), (self.correct, other.correct),
                             (self.labelled, other.labelled), (self.met, other.met)):
            mine.update(theirs)

    def precision(self) -> str:
        parts = [f"{a} {_ratio(self.correct[a], self.emitted[a])}" for a in ACTIONS if self.emitted[a]]
        total = _ratio(sum(self.correct.values()), sum(self.emitted.values()))
        return f"{total}" + (f"  ({', '.join(parts)})" if parts else "")

    def recall(self) -> str:
        return _ratio(sum(self.met.values()), sum(self.labelled.values()))


def _ratio(part: int, whole: int) -> str:
    return f"{part}/{whole} = {part / whole:.2f}" if whole else "n/a (0)"


def closed_world(workdir: Path) -> None:
    print("Closed world (tests/data/labels): every emitted rule counts")
    total = Tally()
    for path in label_files():
        doc = load_labels(path)
        tally = Tally()
        tally.add(score(repo_path(doc["file"]), doc["labels"], compile_corpus_file(doc["file"], workdir)))
        total.merge(tally)
        print(f"  {doc['file'][:60]:60}  precision {tally.precision():40}  strict recall {tally.recall()}")
    print(f"  {'TOTAL':60}  precision {total.precision():40}  strict recall {total.recall()}")
    print("  strict recall per class:")
    for name in sorted(total.labelled):
        print(f"    {name:22} {_ratio(total.met[name], total.labelled[name])}")


def sample(workdir: Path) -> None:
    print("Sample (tests/data/labelled_sample.yaml): only rules on labelled lines count")
    entries = yaml.safe_load((DATA / "labelled_sample.yaml").read_text(encoding="utf-8"))
    by_file: dict[str, list[dict]] = {}
    for entry in entries:
        by_file.setdefault(entry["file"], []).append(entry)
    total = Tally()
    for corpus_file, labels in sorted(by_file.items()):
        result = score(repo_path(corpus_file), labels, compile_corpus_file(corpus_file, workdir))
        lines = {label["line"] for label in labels}
        result.rules = [v for v in result.rules if any(v.rule["source"]["lines"][0] <= n <= v.rule["source"]["lines"][1]
                                                       for n in lines)]
        total.add(result)
    print(f"  {'TOTAL':60}  precision {total.precision():40}  strict recall {total.recall()}")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        closed_world(Path(tmp) / "closed")
        print()
        sample(Path(tmp) / "sample")


if __name__ == "__main__":
    main()
