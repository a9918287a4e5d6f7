"""Backends: each a pure function of the policy IR (plus the Cedar target).

`artifacts(ir, target)` returns every file of a run, by path under the output
folder; nothing here reads a source file or writes to disk.
"""

from __future__ import annotations

import json

from ..compiler.ir import PolicyIR
from . import cedar, guardrules, index, interlinked_cedar, policy_md, prose_md, skipped_report
from .plan import plan

POLICY_BACKENDS = (policy_md, cedar, interlinked_cedar, prose_md, skipped_report, index)


def artifacts(ir: PolicyIR, target: str = "sondera-v2") -> dict[str, str]:
    files: dict[str, str] = {}
    groups = plan(ir, target)  # one placement for every backend
    for backend in POLICY_BACKENDS:
        files.update(backend.emit(ir, target, groups))
    files["distilled-rules.json"] = json.dumps(guardrules.emit(ir, target, groups), indent=2, ensure_ascii=False) + "\n"
    files["policy.ir.json"] = ir.dumps()
    return files
