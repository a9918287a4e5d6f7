"""Backends: each a pure function of the resolved view of the policy IR (plus the Cedar target).

`artifacts(ir, target)` resolves the IR once (compiler/resolve.py: routing,
conflicts, overrides, stats) and returns every file of a run, by path under
the output folder; nothing here reads a source file or writes to disk. The
lowering backends (Cedar and its Interlinked flavour) come from the registry.
"""

from __future__ import annotations

from ..compiler import forked
from ..compiler.ir import PolicyIR
from ..compiler.jsontext import dumps
from ..compiler.resolve import Resolved, resolve
from . import guardrules, index, policy_md, prose_md, registry, skipped_report
from .backend import Backend
from .plan import Group, plan


def lowered_files(backend: Backend, ir: PolicyIR | Resolved, target: str = "sondera-v2",
                  groups: list[Group] | None = None) -> dict[str, str]:
    """{path under the output folder: text} of one lowering backend: a file for every group it writes for."""
    distilled_at = ir.ir.distilled_at if isinstance(ir, Resolved) else ir.distilled_at
    return {g.path(backend.kind): backend.render(g, target, distilled_at) for g in groups or plan(ir, target) if g.has_file(backend)}


PARALLEL_MIN_ENTRIES = 2000  # fewer rules than this render faster in one process than a fork costs


def artifacts(ir: PolicyIR, target: str = "sondera-v2", workers: int | None = None) -> dict[str, str | bytes]:
    """Path -> text; the IR, by far the largest, as UTF-8 bytes. The IR is resolved here, right before
    emission, with the overrides it records.

    Each group's files depend on that group alone: with PARALLEL_MIN_ENTRIES rules or more, runs of
    groups render in one process per core (compiler/forked.py; `workers` overrides the count), and
    the files come back in the order one process gives them."""
    files = rendered_files(ir, target, workers)
    files["policy.ir.json"] = ir_json(ir)
    return files


def rendered_files(ir: PolicyIR, target: str = "sondera-v2", workers: int | None = None) -> dict[str, str | bytes]:
    """Every file of `artifacts` but the IR, in the same order."""
    with forked.few_collections():
        return _artifacts(ir, target, workers)


def ir_json(ir: PolicyIR) -> bytes:
    """policy.ir.json, the largest file: made once no forked renderer holds memory."""
    with forked.few_collections():
        return ir.dumps()


WHOLE_RUN_SHARE = 0.12  # the skipped report, the index and distilled-rules.json cost about this much of the groups' rendering


def _artifacts(ir: PolicyIR, target: str, workers: int | None) -> dict[str, str | bytes]:
    resolved = resolve(ir)
    groups = plan(resolved, target)  # one placement for every backend
    weight = sum(map(_weight, groups))
    count = workers or (forked.cores() if weight >= PARALLEL_MIN_ENTRIES else 1)
    # the first run, worked in this process, also makes the files of the whole run, so it takes fewer groups
    runs = forked.contiguous(groups, _weight, count, extra=round(weight * WHOLE_RUN_SHARE)) or [[]]
    first = runs[0]
    by_run = forked.shared(lambda run: _group_files(resolved, target, run) + ([_whole_files(resolved, target, groups)] if run is first else []),
                           runs)
    files: dict[str, str | bytes] = {}
    for kind in range(2 + len(registry.BACKENDS)):  # policy.md, each backend's, prose.md: each kind in group order
        for found in by_run:
            files.update(found[kind])
    files.update(by_run[0][-1])
    return files


def _whole_files(resolved: Resolved, target: str, groups: list[Group]) -> dict[str, str | bytes]:
    """The files of the whole run but the IR: the skipped report, the index, distilled-rules.json."""
    files: dict[str, str | bytes] = {}
    for emitter in (skipped_report, index):
        files.update(emitter.emit(resolved, target, groups))
    files["distilled-rules.json"] = dumps(guardrules.emit(resolved, target, groups))
    return files


def _weight(group: Group) -> int:
    return len(group.entries) + len(group.prose) + len(group.principles) + 1


def _group_files(resolved: Resolved, target: str, groups: list[Group]) -> list[dict[str, str]]:
    """The files of some groups, by kind: policy.md, each lowering backend's, prose.md."""
    return [policy_md.emit(resolved, target, groups), *(lowered_files(b, resolved, target, groups) for b in registry.BACKENDS),
            prose_md.emit(resolved, target, groups)]
