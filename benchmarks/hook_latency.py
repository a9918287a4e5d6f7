"""Start-up cost: `policyc hook claude`, `policyc --help` and a no-change compile against a bare interpreter.

    python benchmarks/hook_latency.py [--runs 30] [--rules 500] [--corpus DIR]

Compiles the real corpus (replicated under copyNNNN/ folders until it yields at
least --rules Pass 1 rules) into a temporary project, then times whole
processes, alternating each command with `python -c pass` (the same
interpreter, so both pay the same site start-up): the hook on a Bash event and
on a Write event (each after one warm-up call, which writes the rules cache),
`policyc --help`, and a no-change `policyc compile` of examples/acme-service.
Prints the median wall time of each and its ratio to the bare interpreter (the
target), and the median CPU time (user + system), steadier on a shared machine.
Measure from a regular install (`pip install .`): an editable install's import
hook also slows `python -c pass`, which flatters every ratio; the script says so.
Targets: hook <= 2.5x, --help and the no-change compile <= 3x. Always exits
0: a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import policyc.compiler  # noqa: E402
import policyc.emitters  # noqa: E402
import policyc.schemas  # noqa: E402
from check_throughput import compile_corpus  # noqa: E402  (the same 500-rule corpus project)
from policyc.emitters import artifacts  # noqa: E402

_SCRIPT = Path(sys.executable).parent / "policyc"  # the installed console script, as Claude Code would run it
POLICYC = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-c", "import sys; from policyc.compiler.cli import main; sys.exit(main())"]
BARE = [sys.executable, "-c", "pass"]


def _editable() -> bool:
    """Whether policyc was imported through setuptools' editable-install finder."""
    return any(name.startswith("__editable__") and "policyc" in name for name in sys.modules)


def timed(command: list[str], stdin: bytes | None, env: dict, cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, input=stdin, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def compare(name: str, command: list[str], runs: int, env: dict, cwd: Path, stdin: bytes | None = None) -> tuple:
    """Median wall and CPU times of `command` and of the bare interpreter, run alternately."""
    subprocess.run(command, input=stdin, env=env, cwd=cwd, capture_output=True, check=False)  # warm-up (caches, page cache)
    ours, bare = [], []
    for _ in range(runs):
        ours.append(timed(command, stdin, env, cwd))
        bare.append(timed(BARE, None, env, cwd))
    return (name, *(statistics.median(t[i] for t in sample) for sample in (ours, bare) for i in (0, 1)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--rules", type=int, default=500)
    parser.add_argument("--corpus", type=Path, default=HERE.parent / "tests" / "data" / "corpus")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="policyc-hook-bench-"))
    try:
        project = work / "project"
        (project / ".git").mkdir(parents=True)
        (project / ".interlinked").mkdir()
        ir, rules = compile_corpus(args.corpus, args.rules)
        (project / ".interlinked" / "distilled-rules.json").write_text(artifacts(ir)["distilled-rules.json"], encoding="utf-8")
        example = work / "acme-service"
        shutil.copytree(HERE.parent / "examples" / "acme-service", example)
        (example / ".git").mkdir(exist_ok=True)
        # An installed package runs from cached bytecode; a PYTHONDONTWRITEBYTECODE environment would
        # make every run compile policyc's sources again, which is not what a user's hook pays.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(CLAUDE_PROJECT_DIR=str(project), HOME=str(work / "home"), SOURCE_DATE_EPOCH="0")
        packages = [str(Path(module.__file__).parent) for module in (policyc.compiler, policyc.emitters, policyc.schemas)]
        subprocess.run([sys.executable, "-m", "compileall", "-q", *packages], env=env, capture_output=True, check=False)
        subprocess.run([*POLICYC, "compile", "--root", str(example)], env=env, cwd=example, capture_output=True, check=True)

        base = {"session_id": "bench", "cwd": str(project), "hook_event_name": "PreToolUse", "tool_use_id": "toolu_1"}
        bash = json.dumps({**base, "tool_name": "Bash", "tool_input": {"command": "git push origin main"}}).encode()
        write = json.dumps({**base, "tool_name": "Write", "tool_input": {"file_path": f"{project}/copy0003/src/app.py",
                                                                        "content": "print('hello')\n"}}).encode()
        rows = [
            compare("hook claude, Bash event", [*POLICYC, "hook", "claude"], args.runs, env, project, bash),
            compare("hook claude, Write event", [*POLICYC, "hook", "claude"], args.runs, env, project, write),
            compare("policyc --help", [*POLICYC, "--help"], args.runs, env, project),
            compare("no-change compile (acme-service)", [*POLICYC, "compile", "--root", str(example)], args.runs, env, example),
        ]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{len(rules)} rules; median of {args.runs} runs each, alternating with `python -c pass`")
    if _editable():
        print("  note: policyc is an editable install, whose import hook also slows the bare interpreter; "
              "these ratios flatter policyc (measure from `pip install .`)")
    print(f"  {'':<34} {'wall':>8} {'bare':>7} {'ratio':>6}   {'CPU':>8} {'bare':>7} {'ratio':>6}")
    for name, wall, cpu, bare_wall, bare_cpu in rows:
        print(f"  {name:<34} {wall * 1000:5.1f} ms {bare_wall * 1000:4.1f} ms {wall / bare_wall:5.2f}x   "
              f"{cpu * 1000:5.1f} ms {bare_cpu * 1000:4.1f} ms {cpu / bare_cpu:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
