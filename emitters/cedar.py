"""`<group>.cedar`: Sondera-compatible Cedar (targets sondera-v1 and sondera-v2)."""

from __future__ import annotations

import cedarpy

from ..compiler.ir import PolicyIR
from .cedar_lowering import TARGETS
from .plan import Group, plan
from .render import render
from .text import title, trigger_signal


def render_group(group: Group, target_name: str, generated_at: str, flavour: str = "cedar") -> str:
    """One group's Cedar file in the canonical form of Cedar's formatter (`cedar format --check` passes).

    `flavour` is "cedar" or "interlinked" (which entries, which template).
    """
    imps = [e.imperative for e in group.entries]
    return cedarpy.format_policies(render(
        f"{flavour}.j2",
        group=group,
        target=TARGETS[target_name if flavour == "cedar" else "interlinked"],
        generated_at=generated_at,
        expressed=sum(1 for e in group.entries if isinstance(e.cedar, list)),
        titles={i.id: title(i) for i in imps},
        descriptions={i.id: trigger_signal(i) for i in imps},
    ))


def render_policy(group: Group, entry, policy) -> str:
    """One policy as a file of Sondera's layout: no timestamp, so an unchanged rule gives the same bytes."""
    imp = entry.imperative
    return cedarpy.format_policies(render("sondera.j2", group=group, imp=imp, policy=policy, description=trigger_signal(imp)))


def emit(ir: PolicyIR, target: str = "sondera-v2", groups: list | None = None) -> dict[str, str]:
    """{path under the output folder: Cedar text} for every group with Pass 2 policies."""
    return {g.path("cedar"): render_group(g, target, ir.distilled_at) for g in groups or plan(ir, target) if g.entries}
