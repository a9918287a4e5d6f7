"""`<group>.prose.md`: Pass 3 definitions, principles and methodology for the reviewer (spec §15.4)."""

from __future__ import annotations

from ..compiler.ir import PolicyIR
from ..compiler.resolve import Resolved
from .plan import Group, plan
from .render import render
from .text import md_code, one_line, title


def _principles(group: Group) -> list[dict]:
    out = [
        {"name": block.heading, "text": block.text, "file": block.file, "lines": block.lines,
         "evaluation": f"For each new or significantly changed module in the staged commits, check it against this "
                       f"{block.heading!r} principle and flag the places that contradict it."}
        for block in group.prose
        if block.section == "principles"
    ]
    out += [
        {"name": title(imp), "text": imp.quote, "file": imp.file, "lines": imp.lines,
         "evaluation": f"Check the staged changes for what this rule asks ({imp.marker_class}, marker {md_code(imp.marker)}); "
                       f"flag each place that does not follow it."}
        for imp in group.principles
        if not any(b.lines[0] <= imp.lines[0] <= b.lines[1] for b in group.prose)  # quoted above already
    ]
    return out


def render_group(group: Group) -> str:
    return render(
        "prose.md.j2",
        group=group,
        definitions=[b for b in group.prose if b.section == "definitions"],
        principles=_principles(group),
        checkpoints=[{"text": one_line(b.text).lstrip("-*+0123456789.) "), "file": b.file, "lines": b.lines}
                     for b in group.prose if b.section == "methodology"],
    )


def emit(ir: PolicyIR | Resolved, target: str = "sondera-v2", groups: list | None = None) -> dict[str, str]:
    return {g.path("prose.md"): render_group(g) for g in groups or plan(ir, target) if g.has_prose}
