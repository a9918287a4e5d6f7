"""Backends: each a pure function of the resolved view of the policy IR (plus the Cedar target).

`artifacts(ir, target)` resolves the IR once (compiler/resolve.py: routing,
conflicts, overrides, stats) and returns every file of a run, by path under
the output folder; nothing here reads a source file or writes to disk. The
lowering backends (Cedar and its Interlinked flavour) come from the registry.
"""

from __future__ import annotations

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


def artifacts(ir: PolicyIR, target: str = "sondera-v2") -> dict[str, str | bytes]:
    """Path -> text; the IR, by far the largest, as UTF-8 bytes. The IR is resolved here, right before
    emission, with the overrides it records."""
    resolved = resolve(ir)
    groups = plan(resolved, target)  # one placement for every backend
    files: dict[str, str | bytes] = {**policy_md.emit(resolved, target, groups)}
    for backend in registry.BACKENDS:
        files.update(lowered_files(backend, resolved, target, groups))
    for emitter in (prose_md, skipped_report, index):
        files.update(emitter.emit(resolved, target, groups))
    files["distilled-rules.json"] = dumps(guardrules.emit(resolved, target, groups))
    files["policy.ir.json"] = ir.dumps()
    return files
