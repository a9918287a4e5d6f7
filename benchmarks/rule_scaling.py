"""How compile time grows with the number of rules in one file (issue 11, item 8).

Run from the repository root:

    python benchmarks/rule_scaling.py [--sizes 1000 2000 4000 8000] [--no-node]

Builds one AGENTS.md of N one-line rules ("- Never run `toolN --flagN`."),
compiles it (extraction, the regex safety proof, conflicts) and renders every
artifact, for each N, with the per-file imperative limit lifted for the
measurement. Prints the seconds per size and the fitted exponent k of
time ~ N^k (least squares on log-log): 1.0 is linear. `--no-node` leaves out
the Node.js trial (a fixed cost per distinct regex). It always exits 0.
"""

from __future__ import annotations

import argparse
import math
import time

from policyc.compiler import pipeline, regex_safety
from policyc.compiler.sources import source_from_bytes
from policyc.emitters import artifacts


def document(n: int) -> bytes:
    return "".join(f"- Never run `tool{i} --flag{i}`.\n" for i in range(n)).encode()


def exponent(sizes: list[int], seconds: list[float]) -> float:
    xs, ys = [math.log(n) for n in sizes], [math.log(s) for s in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000, 8000])
    parser.add_argument("--no-node", action="store_true")
    args = parser.parse_args()
    if args.no_node:
        regex_safety.shutil.which = lambda name: None
    pipeline.MAX_IMPERATIVES_PER_FILE = max(args.sizes)
    artifacts(pipeline.compile_sources([source_from_bytes("AGENTS.md", document(50))]))  # grammars and data loaded
    seconds = []
    for n in args.sizes:
        regex_safety._static.clear()  # every size proves its regexes afresh
        regex_safety._tried.clear()
        source = source_from_bytes("AGENTS.md", document(n))
        start = time.perf_counter()
        ir = pipeline.compile_sources([source])
        artifacts(ir)
        seconds.append(time.perf_counter() - start)
        print(f"{n:>6} rules  {seconds[-1]:7.2f} s  ({len(ir.imperatives)} imperatives)")
    print(f"exponent k (time ~ N^k): {exponent(args.sizes, seconds):.2f}")


if __name__ == "__main__":
    main()
