"""Incremental re-runs: a no-change compile of 1,000 rule files against a cold one.

    python benchmarks/incremental.py [--files 1000] [--corpus DIR]

Builds a project of --files rule files from the real corpus (each copy in its
own folder, at the file's repository path), compiles it cold, then compiles it
again with nothing changed, and once more after touching one file. Prints
the seconds of each and the ratio warm / cold. Target: the no-change re-run
takes under 10% of the cold run. Always exits 0: a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from policyc.compiler.cli import main as policyc

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def build_project(root: Path, corpus: Path, count: int) -> Path:
    with open(corpus / "MANIFEST.tsv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    (root / ".git").mkdir(parents=True)
    (root / ".interlinked").mkdir()
    for n in range(count):
        row = rows[n % len(rows)]
        target = root / f"pkg{n:04d}" / row["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(corpus / "files" / row["file"], target)
    return root / f"pkg0000" / rows[0]["path"]


def timed(root: Path) -> float:
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = policyc(["compile", "--root", str(root)])
    elapsed = time.perf_counter() - start
    if code not in (0, 1):
        sys.exit(f"compile exited {code}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        touched = build_project(root, args.corpus, args.files)
        os.environ.pop("SOURCE_DATE_EPOCH", None)
        cold = timed(root)
        warm = timed(root)
        touched.write_text(touched.read_text(encoding="utf-8") + "\nNever run `rm -rf /tmp/bench`.\n", encoding="utf-8")
        one = timed(root)
    ratio = warm / cold
    print(f"{args.files} rule files")
    print(f"cold compile          {cold:7.2f} s")
    print(f"no-change re-run      {warm:7.2f} s")
    print(f"one file changed      {one:7.2f} s")
    print(f"ratio {ratio:.3f} (target < 0.10): {'OK' if ratio < 0.10 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
