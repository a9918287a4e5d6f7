"""What a user waits for: the whole `policyc compile` process against markdown-it-py tokenizing the same files.

Run from the repository root (policyc installed, and markdown-it-py: `pip install '.[bench]'`):

    python benchmarks/compile_throughput.py [--mb 12] [--repeat 3] [--corpus DIR] [--project-mb 4]

The corpus (DIR/files/*, with DIR/MANIFEST.tsv giving each file's real repository path) is
replicated into a temporary git project until it totals at least --mb megabytes; each file sits under
its own folder (copy0007/<owner__name>/<real path>) so conventions are still detected. Then, alternating,
--repeat times each:

  policyc:     `policyc compile` in a fresh process (discovery, parsing, extraction, admission,
               every artifact rendered, every regex checked by Node.js, the self-checks, then
               Cedar validated and everything written unless a self-check fails); each run starts
               from an empty output folder. On a large tree it forks one worker per core for
               extraction and rendering, so its memory is measured over all its processes.
               The rules of a large tree exceed the harness's 2 MB limit for one distilled-rules.json
               (the corpus gives about 0.3 MB of rules per MB of text), so that run writes nothing and
               validates no Cedar. Hence also
  policyc, split: the same files as several git projects of at most --project-mb MB each (whole
               copies of the corpus), each compiled by its own `policyc compile` process, one after
               the other: every artifact written and every Cedar file validated, in every project.
               The time is the sum, process start-ups included
  markdown-it: a fresh Python process that reads every replica and runs
               MarkdownIt("commonmark").parse() on it

and prints the median wall time of each, the ratios policyc / markdown-it (target <= 1.5) and the
peak memory of the compile, its forked workers and Node.js trials together (PSS, target < 500 MB). A benchmark, not a test: it always exits 0.
"""

from __future__ import annotations

import argparse
import csv
import math
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

MB = 1024 * 1024
DEFAULT_CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "corpus"
_TOKENIZE = """
import sys
from pathlib import Path
from markdown_it import MarkdownIt
md = MarkdownIt("commonmark")
print(sum(len(md.parse(p.read_text(encoding="utf-8"))) for p in Path(sys.argv[1]).rglob("*") if p.is_file() and ".git" not in p.parts))
"""


def lay_out(corpus: Path, project: Path, target_bytes: int) -> tuple[int, float]:
    """Copies of the corpus under project/copyNNNN/<repository>/<real path> until >= target bytes: (files, MB)."""
    with open(corpus / "MANIFEST.tsv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    total = files = copy = 0
    while total < target_bytes:
        for row in rows:
            destination = project / f"copy{copy:04d}" / row["repo"].replace("/", "__") / row["path"]
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(corpus / "files" / row["file"], destination)
            total += destination.stat().st_size
            files += 1
        copy += 1
    return files, total / MB


def tree_arguments(parser: argparse.ArgumentParser, mb: float, repeat: int) -> None:
    """The options of a benchmark on the replicated corpus: --mb, --repeat, --corpus."""
    parser.add_argument("--mb", type=float, default=mb, help=f"replicate the corpus to at least this many MB (default {mb:g})")
    parser.add_argument("--repeat", type=int, default=repeat, help=f"runs of each; the median counts (default {repeat})")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="dir with files/ and MANIFEST.tsv")


def replicated_project(tmp: str, corpus: Path, mb: float) -> tuple[Path, int, float]:
    """A git project in tmp holding the corpus replicated to at least mb megabytes: (project, files, MB)."""
    project = Path(tmp) / "project"
    (project / ".git").mkdir(parents=True)
    files, size_mb = lay_out(corpus, project, int(mb * MB))
    return project, files, size_mb


def _tree_pss_kb(pid: int) -> int:
    """Proportional set size of a process and its descendants (kB; shared pages counted once): what the
    compile's forked workers and Node.js trials hold together. 0 where /proc has no smaps_rollup.
    A child caught between vfork and exec (starting Node.js) still shows its parent's memory as its
    own, so a rare sample reads high: the figure errs upward, never down."""
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        try:
            with open(f"/proc/{current}/smaps_rollup", encoding="ascii") as rollup:
                total += next((int(line.split()[1]) for line in rollup if line.startswith("Pss:")), 0)
            with open(f"/proc/{current}/task/{current}/children", encoding="ascii") as children:
                stack += map(int, children.read().split())
        except (OSError, ValueError):
            continue
    return total


def timed(command: list[str], cwd: Path) -> tuple[float, float, float, str]:
    """(wall seconds, peak RSS of the largest process in MB, peak PSS of the whole process tree in MB,
    last line of stdout) of one process; the tree is sampled every 20 ms."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak_tree, done = [0], threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak_tree[0] = max(peak_tree[0], _tree_pss_kb(process.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = process.communicate()
    elapsed = time.perf_counter() - start
    done.set()
    sampler.join()
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if process.returncode not in (0, 1):
        sys.exit(f"{command[:3]} failed ({process.returncode}): {stderr.strip()[-300:]}")
    return elapsed, max(peak, before) / 1024, peak_tree[0] / 1024, (stdout.strip().splitlines() or [""])[-1]


def split_projects(tmp: str, project: Path, project_mb: float) -> list[Path]:
    """The copies of `project` as the fewest git projects of at most `project_mb` MB each, of whole copies
    shared out evenly, in order."""
    copies = sorted(project.glob("copy*"))
    total = sum(p.stat().st_size for p in project.rglob("*") if p.is_file())
    count = min(len(copies), math.ceil(total / (project_mb * MB)))
    roots = []
    for number in range(count):
        root = Path(tmp) / f"part{number:02d}"
        (root / ".git").mkdir(parents=True)
        for copy in copies[number * len(copies) // count : (number + 1) * len(copies) // count]:
            shutil.copytree(copy, root / copy.name)
        roots.append(root)
    return roots


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    tree_arguments(parser, mb=12, repeat=3)
    parser.add_argument("--project-mb", type=float, default=4, help="largest project of the split run, in MB (default 4: "
                        "its rules stay under the harness's 2 MB limit)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        project, files, size_mb = replicated_project(tmp, args.corpus, args.mb)
        parts = split_projects(tmp, project, args.project_mb)
        out = Path(tmp) / "out"

        def compile_cmd(root: Path, folder: Path) -> list[str]:
            return [sys.executable, "-m", "policyc.compiler.cli", "compile", "--root", str(root), "--out", str(folder)]

        tokenize_cmd = [sys.executable, "-c", _TOKENIZE, str(project)]
        compile_times, split_times, tokenize_times, peaks, trees = [], [], [], [], []
        for _ in range(args.repeat):
            shutil.rmtree(out, ignore_errors=True)
            seconds, peak, tree, _ = timed(compile_cmd(project, out), project)
            written = (out / "distilled-rules.json").is_file()
            compile_times.append(seconds)
            peaks.append(peak)
            trees.append(tree)
            split_seconds, split_written = 0.0, []
            for number, root in enumerate(parts):
                folder = Path(tmp) / f"out{number:02d}"
                shutil.rmtree(folder, ignore_errors=True)
                seconds, peak, tree, _ = timed(compile_cmd(root, folder), root)
                split_seconds += seconds
                split_written.append((folder / "distilled-rules.json").is_file() and any((folder / "policies").glob("*.cedar")))
                peaks.append(peak)
                trees.append(tree)
            split_times.append(split_seconds)
            seconds, _, _, tokens = timed(tokenize_cmd, project)
            tokenize_times.append(seconds)
    t_compile, t_split, t_md = (statistics.median(times) for times in (compile_times, split_times, tokenize_times))
    ratio, split_ratio = t_compile / t_md, t_split / t_md
    print(f"corpus: {files} files, {size_mb:.1f} MB (median of {args.repeat} runs each, alternating)")
    print(f"{'':<16}{'seconds':>9}{'MB/s':>9}")
    print(f"{'policyc':<16}{t_compile:>9.2f}{size_mb / t_compile:>9.2f}  whole `policyc compile` process, one project")
    print(f"{'policyc, split':<16}{t_split:>9.2f}{size_mb / t_split:>9.2f}  the same files as {len(parts)} projects of at most "
          f"{args.project_mb:g} MB, one `policyc compile` each, one after the other")
    print(f"{'markdown-it':<16}{t_md:>9.2f}{size_mb / t_md:>9.2f}  {tokens} tokens")
    print("one project: artifacts written" if written else "one project: nothing written: the rules exceed the harness's 2 MB limit for one "
          "distilled-rules.json, so the run stops after the self-checks (every artifact rendered, every regex "
          "tried in Node.js; Cedar not validated, nothing written)")
    print(f"split: every artifact written and Cedar validated in {sum(split_written)} of {len(parts)} projects")
    memory = max(max(trees), max(peaks))  # the tree's PSS, or the largest process where /proc cannot tell
    print(f"peak memory of compile: {memory:.0f} MB, all its processes together (PSS; largest single process "
          f"{max(peaks):.0f} MB RSS) (target < 500): {'OK' if memory < 500 else 'MISSED'}")
    print(f"ratio {ratio:.2f}, split {split_ratio:.2f} (target <= 1.5): {'OK' if max(ratio, split_ratio) <= 1.5 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
