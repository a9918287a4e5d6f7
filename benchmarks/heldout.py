"""Precision and strict recall on the held-out set (tests/data/heldout), for any compiler checkout.

Run from the repository root with the checkout's policyc installed (its virtualenv active):

    python benchmarks/heldout.py [--policyc PATH] [--verbose]

The held-out files come from public repositories that are not in the corpus, and nobody tunes
the compiler on them. Each file is laid out at its repository path in a fresh git project and
compiled with the real command line, `policyc compile --root DIR --out OUT`; the
distilled-rules.json it writes is scored against tests/data/heldout/labels/<file>.yaml with the
closed-world scoring of tests/closed_world.py (labels-a):

  precision      correct emitted block/ask/warn rules / emitted rules. A rule is correct when a
                 label on its lines expects its action and it fires on one of that label's
                 must_match inputs and on none of its must_not_match inputs; a rule on an
                 unlabelled line is wrong (the labels are complete).
  strict recall  non-optional rule labels met / non-optional rule labels. A label is met when
                 the correct rules at its line fire on every must_match input.

Each file's line is followed by the figures of its set (each labelled blind, measured once, then read
by the team; see tests/data/heldout/README.md)
and of the whole set, each with strict recall per class.
--verbose lists every wrong rule and every strict miss. It always exits 0: a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import yaml  # noqa: E402
from closed_world import fit, judge_rule, recall_problems  # noqa: E402
from precision_recall import Tally, _ratio  # noqa: E402

HELDOUT = ROOT / "tests" / "data" / "heldout"
# (first file number, last file number, read by the team). Every set was measured blind once, then read on
# 2026-12-01 to find general fixes (tests/data/heldout/README.md); a new set is blind until it is read.
RANGES = ((1, 8, True), (9, 16, True), (17, 24, True), (25, 32, True), (33, 40, True), (41, 50, True), (51, 60, True),
          (61, 70, True), (71, 80, True), (81, 90, True), (91, 100, True), (102, 110, True), (111, 120, True),
          (121, 130, True), (131, 140, True), (141, 150, True),
          (151, 160, True), (161, 170, True), (171, 180, True),
          (181, 190, True), (191, 200, True), (201, 208, True),
          (209, 217, True), (218, 225, True), (226, 234, True),
          (235, 242, True), (243, 251, True), (252, 260, True),
          (261, 270, True), (271, 278, True))
SETS = tuple((f"set {n} ({first:03d}-{last:03d}, {'read by the team' if read else 'blind'})", first, last)
             for n, (first, last, read) in enumerate(RANGES, 1))


def manifest() -> list[dict]:
    with open(HELDOUT / "MANIFEST.tsv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def compile_file(policyc: str, row: dict, workdir: Path) -> dict:
    """distilled-rules.json for one held-out file laid out at its repository path in a git project."""
    project = workdir / row["file"].split("__", 1)[0]
    (project / ".git").mkdir(parents=True)
    target = project / row["path"]
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(HELDOUT / "files" / row["file"], target)
    out = workdir / f"{project.name}.out"
    run = subprocess.run([policyc, "compile", "--root", str(project), "--out", str(out)],
                         cwd=project, capture_output=True, text=True)
    rules = out / "distilled-rules.json"
    if not rules.exists():
        raise SystemExit(f"{row['file']}: policyc compile wrote no distilled-rules.json "
                         f"(exit {run.returncode}): {run.stderr.strip()[:300]}")
    return json.loads(rules.read_text(encoding="utf-8"))


def score_file(row: dict, doc: dict) -> tuple[Tally, list[str], list[str], int]:
    """The file's tally, its wrong rules and strict misses described, and how many wrong rules differ from
    their label in action only (the right trigger, block where the label says ask or the reverse)."""
    labels = yaml.safe_load((HELDOUT / "labels" / f"{row['file']}.yaml").read_text(encoding="utf-8"))["labels"]
    tally = Tally()
    wrong = []
    action_only = 0
    for rule in doc["rules"]:
        verdict = judge_rule(rule, labels)
        tally.emitted[rule["action"]] += 1
        tally.correct[rule["action"]] += verdict.correct
        if not verdict.correct:
            wrong.append(f"{verdict.describe()}  [{rule['source'].get('quote', '')[:90]!r}]")
            first, last = rule["source"]["lines"]
            action_only += any(not fit({**rule, "action": label["expect"]}, label) for label in labels
                               if first <= label["line"] <= last and label["expect"] != "none")
    misses = []
    for label in labels:
        if label["expect"] == "none" or label.get("optional"):
            continue
        problems = recall_problems(doc, row["path"], label)
        tally.labelled[label["class"]] += 1
        tally.met[label["class"]] += not problems
        if problems:
            misses.append(f"line {label['line']} {label['expect']} {label['text'][:70]!r}: {'; '.join(problems)}")
    return tally, wrong, misses, action_only


def set_of(row: dict) -> str:
    """The name of the set a held-out file belongs to (by its number)."""
    number = int(row["file"].split("__", 1)[0])
    return next(name for name, first, last in SETS if first <= number <= last)


def summary(name: str, tally: Tally, action_only: int) -> None:
    print(f"  {name:58}  precision {tally.precision()}  strict recall {tally.recall()}")
    print(f"  {'':58}  wrong in action only (right trigger, block for ask or the reverse): {action_only}")


def per_class(tally: Tally) -> None:
    for name in sorted(tally.labelled):
        print(f"    {name:22} {_ratio(tally.met[name], tally.labelled[name])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--policyc", default=shutil.which("policyc") or "policyc", help="policyc executable")
    parser.add_argument("--verbose", action="store_true", help="list wrong rules and strict misses")
    parser.add_argument("--sets", help="comma-separated set numbers to score (default: every set); "
                        "a blind set is measured once, on purpose")
    args = parser.parse_args()
    chosen = [SETS[int(n) - 1] for n in args.sets.split(",")] if args.sets else list(SETS)
    sets = {name: Tally() for name, _, _ in chosen}
    action_only = dict.fromkeys(sets, 0)
    print("Held-out set (tests/data/heldout): every emitted rule counts")
    print(f"  {'file':58}  {'emitted':>7}  {'correct':>7}  {'precision':>9}  strict recall")
    with tempfile.TemporaryDirectory() as tmp:
        for row in manifest():
            if set_of(row) not in sets:
                continue
            tally, wrong, misses, differ = score_file(row, compile_file(args.policyc, row, Path(tmp)))
            sets[set_of(row)].merge(tally)
            action_only[set_of(row)] += differ
            emitted, correct = sum(tally.emitted.values()), sum(tally.correct.values())
            precision = f"{correct / emitted:.2f}" if emitted else "n/a"
            print(f"  {row['file'][:58]:58}  {emitted:7}  {correct:7}  {precision:>9}  {tally.recall()}")
            if args.verbose:
                for line in wrong:
                    print(f"      WRONG {line}")
                for line in misses:
                    print(f"      MISS  {line}")
    total = Tally()
    for name, tally in sets.items():
        total.merge(tally)
        print()
        summary(name, tally, action_only[name])
        print("  strict recall per class:")
        per_class(tally)
    print()
    summary("TOTAL", total, sum(action_only.values()))
    print("  strict recall per class:")
    per_class(total)


if __name__ == "__main__":
    main()
