"""Writing and reading policy.ir.json: `PolicyIR.dumps()` and `PolicyIR.from_json()` on a compiled corpus.

Run from the repository root (policyc installed):

    python benchmarks/ir_write.py [--mb 5] [--repeat 5] [--corpus DIR]

The corpus is laid out as compile_throughput.py does (replicated to at least --mb megabytes), compiled
once in process, then `ir.dumps()` (what `policyc compile` writes) and
`PolicyIR.from_json(json.loads(...))` (what `render`, `diff` and the lifecycle verbs read) are timed
--repeat times each; the median is printed. A benchmark, not a test: it always exits 0.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from compile_throughput import DEFAULT_CORPUS, MB, lay_out
from policyc.compiler.ir import PolicyIR
from policyc.compiler.pipeline import compile_paths
from policyc.compiler.targets import discover


def _median(action, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mb", type=float, default=5, help="replicate the corpus to at least this many MB (default 5)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each; the median counts (default 5)")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="dir with files/ and MANIFEST.tsv")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        files, size_mb = lay_out(args.corpus, project, int(args.mb * MB))
        ir = compile_paths(discover(project).paths, project)
    text = ir.dumps()
    data = json.loads(text)
    write = _median(ir.dumps, args.repeat)
    read = _median(lambda: PolicyIR.from_json(data), args.repeat)
    print(f"corpus: {files} files, {size_mb:.1f} MB; {len(ir.imperatives)} imperatives; policy.ir.json {len(text) / MB:.1f} MB")
    print(f"dumps      {write * 1000:8.1f} ms  (median of {args.repeat})")
    print(f"from_json  {read * 1000:8.1f} ms  (median of {args.repeat}, from parsed JSON)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
