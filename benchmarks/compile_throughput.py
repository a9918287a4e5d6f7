"""Compile throughput of policyc against markdown-it-py tokenizing the same text.

Run from the repository root (with policyc and markdown-it-py installed):

    python benchmarks/compile_throughput.py [--mb 20] [--repeat 3] [--corpus DIR]

The corpus (DIR/files/*, with DIR/MANIFEST.tsv giving each file's real
repository path) is replicated until it totals at least --mb megabytes; each
replica gets a unique path (copy0007/<real path>) so conventions are still
detected. In one process it then times

  compile:     source_from_bytes for every replica + compile_sources + emit
  markdown-it: MarkdownIt("commonmark").parse() of every replica's text

each --repeat times, alternating, and prints the best MB/s for both, the
ratio compile time / markdown-it time (<= 1.0 means policyc is at least as
fast as just reading the markdown in Python) and peak RSS (after compile, and
at the end). Targets: ratio <= 1.0 and peak
memory under 500 MB. It always exits 0: a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import csv
import resource
import sys
import time
from pathlib import Path

from markdown_it import MarkdownIt

from policyc.compiler.pipeline import compile_sources
from policyc.compiler.sources import source_from_bytes
from policyc.emitters.guardrules import emit

MB = 1024 * 1024
DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def load_corpus(corpus: Path) -> list[tuple[str, bytes]]:
    """(real repository path, bytes) for every file listed in MANIFEST.tsv."""
    with open(corpus / "MANIFEST.tsv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [(row["path"], (corpus / "files" / row["file"]).read_bytes()) for row in rows]


def replicate(files: list[tuple[str, bytes]], target: int) -> list[tuple[str, bytes]]:
    """Whole copies of the corpus, each under its own copyNNNN/ prefix, until >= target bytes."""
    out: list[tuple[str, bytes]] = []
    total, n = 0, 0
    while total < target:
        for path, data in files:
            out.append((f"copy{n:04d}/{path}", data))
            total += len(data)
        n += 1
    return out


def max_rss_mb() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / MB if sys.platform == "darwin" else rss / 1024  # bytes on macOS, KiB on Linux


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--mb", type=float, default=20, help="replicate the corpus to at least this many MB (default 20)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per side; the best counts (default 3)")
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="dir with files/ and MANIFEST.tsv")
    args = ap.parse_args()

    base = load_corpus(args.corpus)
    replicas = replicate(base, int(args.mb * MB))
    size_mb = sum(len(d) for _, d in replicas) / MB
    texts = [d.decode("utf-8") for _, d in replicas]  # markdown-it's input, decoded outside the timing
    rss_start = max_rss_mb()
    md = MarkdownIt("commonmark")

    def compile_all() -> int:
        sources = [source_from_bytes(path, data) for path, data in replicas]
        return len(emit(compile_sources(sources))["rules"])

    def tokenize_all() -> int:
        return sum(len(md.parse(text)) for text in texts)

    # best of --repeat runs for each side, alternating, as timeit does: the
    # minimum is the run least disturbed by the rest of the machine
    t_compile = t_md = float("inf")
    rss_compile = 0.0
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        n_rules = compile_all()
        t_compile = min(t_compile, time.perf_counter() - t0)
        rss_compile = rss_compile or max_rss_mb()
        t0 = time.perf_counter()
        n_tokens = tokenize_all()
        t_md = min(t_md, time.perf_counter() - t0)
    rss_final = max_rss_mb()

    ratio = t_compile / t_md
    print(f"corpus: {len(base)} files x {len(replicas) // len(base)} copies = {len(replicas)} files, {size_mb:.1f} MB")
    print(f"{'':<13}{'seconds':>9}{'MB/s':>9}  output")
    print(f"{'compile':<13}{t_compile:>9.2f}{size_mb / t_compile:>9.2f}  {n_rules} rules")
    print(f"{'markdown-it':<13}{t_md:>9.2f}{size_mb / t_md:>9.2f}  {n_tokens} tokens")
    print(f"peak RSS: {rss_start:.0f} MB before, {rss_compile:.0f} MB after compile, {rss_final:.0f} MB final "
          f"(target < 500): {'OK' if rss_compile < 500 else 'MISSED'}")
    print(f"ratio {ratio:.2f} (target <= 1.0): {'OK' if ratio <= 1.0 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
