"""`policies/README.md`: one line per group with its files and counts, no rule text."""

from __future__ import annotations

from ..compiler.ir import PolicyIR
from ..compiler.resolve import Resolved, view
from . import registry
from .plan import POLICIES_DIR, plan
from .render import render
from .text import md_code


def emit(ir: PolicyIR | Resolved, target: str = "sondera-v2", groups: list | None = None) -> dict[str, str]:
    resolved = view(ir)
    rows = []
    groups = groups or plan(resolved, target)
    backends = registry.BACKENDS
    for g in groups:
        kinds = ["policy.md"] * bool(g.entries) + [b.kind for b in backends if g.has_file(b)] + ["prose.md"] * g.has_prose
        if not kinds:
            continue
        rows.append({
            "group_id": g.group_id, "stem": g.stem, "kinds": kinds, "entries": g.entries,
            "counts": [sum(len(e.policies(b.name)) for e in g.entries) for b in backends],
            "prose_count": len(g.prose) + len(g.principles),
        })
    text = render("index.md.j2", groups=rows, backends=backends, target=target, skipped=resolved.stats.skipped)
    shared = [g for g in groups if g.shares_stem]
    if shared:
        text += ("\nThese groups' names map to the same file name, so each file name carries a suffix from its group id: "
                 + ", ".join(f"{md_code(g.group_id)} → {md_code(g.stem)}" for g in shared) + ".\n")
    return {f"{POLICIES_DIR}/README.md": text}
