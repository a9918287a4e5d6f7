"""`<group>.interlinked.cedar`: policies that need the Interlinked extensions.

Skill-scoped rules, sequential preconditions (commands_run) and warn rules,
which Sondera's Cedar cannot carry. Emitted only for groups that have one.
"""

from __future__ import annotations

from ..compiler.ir import PolicyIR
from .cedar import render_group
from .plan import plan


def emit(ir: PolicyIR, target: str = "sondera-v2", groups: list | None = None) -> dict[str, str]:
    return {
        g.path("interlinked.cedar"): render_group(g, target, ir.distilled_at, flavour="interlinked")
        for g in groups or plan(ir, target)
        if g.has_interlinked
    }
