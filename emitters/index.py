"""`policies/README.md`: one line per group with its files and counts, no rule text."""

from __future__ import annotations

from ..compiler.ir import PolicyIR
from .plan import POLICIES_DIR, plan
from .render import render
from .text import md_code


def emit(ir: PolicyIR, target: str = "sondera-v2", groups: list | None = None) -> dict[str, str]:
    rows = []
    groups = groups or plan(ir, target)
    for g in groups:
        kinds = [k for k, present in (("policy.md", g.entries), ("cedar", g.entries), ("interlinked.cedar", g.has_interlinked),
                                     ("prose.md", g.has_prose)) if present]
        if not kinds:
            continue
        rows.append({
            "group_id": g.group_id, "stem": g.stem, "kinds": kinds, "entries": g.entries,
            "cedar_count": sum(len(e.cedar) for e in g.entries if isinstance(e.cedar, list)),
            "interlinked_count": sum(len(e.interlinked) for e in g.entries if e.interlinked),
            "prose_count": len(g.prose) + len(g.principles),
        })
    text = render("index.md.j2", groups=rows, target=target, skipped=len(ir.skipped))
    shared = [g for g in groups if g.shares_stem]
    if shared:
        text += ("\nThese groups' names map to the same file name, so each file name carries a suffix from its group id: "
                 + ", ".join(f"{md_code(g.group_id)} → {md_code(g.stem)}" for g in shared) + ".\n")
    return {f"{POLICIES_DIR}/README.md": text}
