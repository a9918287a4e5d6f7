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

from compile_throughput import MB, replicated_project, tree_arguments
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
    tree_arguments(parser, mb=5, repeat=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project, files, size_mb = replicated_project(tmp, args.corpus, args.mb)
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
