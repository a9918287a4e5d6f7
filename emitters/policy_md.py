"""`<group>.policy.md`: Pass 2 entries for the Tier 2 LLM policy gate (spec §15.2)."""

from __future__ import annotations

from ..compiler.ir import PolicyIR
from ..compiler.resolve import Resolved, view
from .backend import Omitted
from .plan import Group, plan
from .render import render
from .text import md_code


def _scope(scope: dict, roles: list[str]) -> str:
    parts = []
    if "skill" in scope:
        parts.append(f"skill={md_code(scope['skill'])} (`interlinked skill enter {scope['skill']}`)")
    if "file_scope" in scope:
        parts.append(f"file path matches {md_code(scope['file_scope'])}")
    if "overlay" in scope:
        parts.append(f"runner overlay {md_code(scope['overlay'])}")
    parts += [f"agent role {md_code(role)}" for role in roles]
    return "; ".join(parts) or "always"


def _companion(group: Group, entry) -> str:
    """The first backend's file that carries the entry, else why the first backend omitted it."""
    carriers = group.carriers(entry)
    if carriers:
        return md_code(f"{group.stem}.{carriers[0].kind}#{entry.imperative.id}")
    omitted = next((o for o in entry.lowered.values() if isinstance(o, Omitted)), None)
    return f"none ({omitted.reason})" if omitted else "none"


def rationale(imp) -> str:
    """Why the entry is here: the admission gate that demoted it, its Pass 2 cause, or the mirror of a Pass 1 rule."""
    admission = imp.admission
    if admission is not None and admission.decision == "demoted":
        return f"demoted from Pass 1 by the {admission.gate} gate: {admission.reason}"
    if "pass1" in imp.routes:
        mirror = "mirror of the deterministic rule, so the gate sees it with the trajectory"
        return f"{mirror} (admitted: {admission.reason})" if admission is not None else mirror
    return imp.pass2_cause


def render_group(group: Group, generated_at: str) -> str:
    imps = [e.imperative for e in group.entries]
    return render(
        "policy.md.j2",
        group=group,
        generated_at=generated_at,
        active_when=_scope(group.scope, []),
        titles={e.imperative.id: e.title for e in group.entries},
        scopes={i.id: _scope(i.scope, i.applies_to_roles) for i in imps},
        signals={e.imperative.id: e.signal for e in group.entries},
        companions={e.imperative.id: _companion(group, e) for e in group.entries},
        remediations={i.id: md_code(i.suggestion) if i.suggestion else "follow the source: " + md_code(i.quote) for i in imps},
        rationales={i.id: rationale(i) for i in imps},
    )


def emit(ir: PolicyIR | Resolved, target: str = "sondera-v2", groups: list | None = None) -> dict[str, str]:
    resolved = view(ir)
    return {g.path("policy.md"): render_group(g, resolved.ir.distilled_at) for g in groups or plan(resolved, target) if g.entries}
