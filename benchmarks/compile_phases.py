"""Where a `policyc compile` process spends its time: wall and CPU seconds per phase.

    python benchmarks/compile_phases.py compile --root DIR --out OUT [other compile arguments]

Runs the command line in this process with the named functions timed in place (a phase's time
includes the phases it calls; `n` is how often it ran here), then prints the table to stderr.
Work done in forked children (a share of extraction, admission and rendering on a large run)
and in Node.js shows only as the children's CPU total; the wall time of a phase that waits
for them includes the wait. Always pass --out: nothing is written to the working directory.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
import time

PHASES = [  # (module, attribute), in pipeline order
    ("policyc.compiler.targets", "discover"),
    ("policyc.compiler.pipeline", "load_sources"),
    ("policyc.compiler.pipeline", "compile_sources"),
    ("policyc.compiler.pipeline", "_extract"),
    ("policyc.compiler.admission", "admit_all"),
    ("policyc.compiler.regex_safety", "trial"),
    ("policyc.compiler.ids", "assign_ids"),
    ("policyc.compiler.conflicts", "resolve"),
    ("policyc.compiler.writer", "write_artifacts"),
    ("policyc.emitters", "rendered_files"),
    ("policyc.emitters", "resolve"),
    ("policyc.emitters", "plan"),
    ("policyc.emitters", "_group_files"),
    ("policyc.emitters.guardrules", "emit"),
    ("policyc.compiler.ir.PolicyIR", "dumps"),
    ("policyc.compiler.writer", "self_check_failures"),
    ("policyc.compiler.checks", "cedar_check"),
    ("policyc.compiler.output.Staged", "commit"),
]
_TOTALS: dict[str, list[float]] = {}


def _timed(name: str, function):
    @functools.wraps(function)
    def timed(*args, **kwargs):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            total = _TOTALS.setdefault(name, [0.0, 0.0, 0])
            total[0] += time.perf_counter() - wall
            total[1] += time.process_time() - cpu
            total[2] += 1

    return timed


def _install() -> None:
    for module_name, attribute in PHASES:
        owner_name, _, cls = module_name.rpartition(".") if module_name.rsplit(".", 1)[-1][:1].isupper() else (module_name, "", "")
        owner = importlib.import_module(owner_name)
        holder = getattr(owner, cls) if cls else owner
        name = f"{(cls or module_name.rsplit('.', 1)[-1])}.{attribute}"
        setattr(holder, attribute, _timed(name, getattr(holder, attribute)))
    import policyc.compiler.verbs as verbs  # imported these by name before they were wrapped
    import policyc.compiler.writer as writer

    verbs.write_artifacts = writer.write_artifacts


def main() -> int:
    started = time.perf_counter()
    _install()
    from policyc.compiler.cli import main as cli

    try:
        return cli(sys.argv[1:])
    finally:
        print(f"{'phase':<32}{'wall s':>8}{'CPU s':>8}{'n':>7}", file=sys.stderr)
        for name, (wall, cpu, count) in _TOTALS.items():
            print(f"{name:<32}{wall:>8.2f}{cpu:>8.2f}{count:>7}", file=sys.stderr)
        times = os.times()
        print(f"{'this process, after imports':<32}{time.perf_counter() - started:>8.2f}{time.process_time():>8.2f}", file=sys.stderr)
        print(f"{'children (forked, Node.js)':<32}{'':>8}{times.children_user + times.children_system:>8.2f}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
