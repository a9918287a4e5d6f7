"""Incremental re-runs: a no-change compile of 1,000 rule files against a cold one.

    python benchmarks/incremental.py [--files 1000] [--corpus DIR]

Builds a project of --files small rule files cut from the real corpus (12
lines each, cycling through the corpus, under the conventions a big monorepo
mixes: nested AGENTS.md, .cursor/rules/*.mdc, .clinerules/*.md), compiles it
cold, then compiles it again with nothing changed, and once more after
touching one file. (Whole corpus copies would overflow the 2 MB limit that
§12 sets on distilled-rules.json long before 1,000 files.) Prints
the seconds of each and the ratio warm / cold. Target: the no-change re-run
takes under 10% of the cold run. Always exits 0: a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

from policyc.compiler.cli import main as policyc

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


LAYOUTS = ("pkg{n:04d}/AGENTS.md", ".cursor/rules/rule{n:04d}.mdc", ".clinerules/rule{n:04d}.md")
CHUNK_LINES = 12


def build_project(root: Path, corpus: Path, count: int) -> Path:
    """A git project of `count` rule files; returns the first file's path."""
    lines = []
    for path in sorted((corpus / "files").iterdir()):
        lines += path.read_text(encoding="utf-8").split("\n")
    (root / ".git").mkdir(parents=True)
    (root / ".interlinked").mkdir()
    first = None
    for n in range(count):
        start = (n * CHUNK_LINES) % max(1, len(lines) - CHUNK_LINES)
        target = root / LAYOUTS[n % len(LAYOUTS)].format(n=n)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(lines[start : start + CHUNK_LINES]) + "\n", encoding="utf-8")
        first = first or target
    return first


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
