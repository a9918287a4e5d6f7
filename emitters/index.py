"""`policies/README.md`: one line per group with its files and counts, no rule text."""

from __future__ import annotations

from ..compiler.ir import PolicyIR
from .plan import POLICIES_DIR, plan
from .render import render


def emit(ir: PolicyIR, target: str = "sondera-v2", groups: list | None = None) -> dict[str, str]:
    rows = []
    for g in groups or plan(ir, target):
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
    return {f"{POLICIES_DIR}/README.md": text}
