"""`skipped.report.md`: every skipped item of the run, with a rewrite that would enforce it (spec §15.5),
and every proposed rule admission demoted to Pass 2, with the gate and its reason."""

from __future__ import annotations

import re
from collections import Counter

from ..compiler.ir import RUN_ON, PolicyIR
from ..compiler.report import GATE_WORDS
from ..compiler.resolve import Resolved, view
from .plan import POLICIES_DIR
from .render import render
from .text import md_code

_QUESTION = re.compile(r"^(?:should|can|may|could|would|do|does|must)\s+(?:you|we|i|the agent)\s+(?:ever\s+)?", re.IGNORECASE)
# The two skip classes the compiler produces (everything else goes to Pass 2 with its cause).
_REWRITES = {
    "skip-hedged": "the hedge ({marker}) goes and the sentence names what to check",
    "skip-no-imperative": "it is written as an instruction, not a question or a description",
}


def rewrite(item) -> str:
    """A concrete rewrite of the skipped sentence that the compiler would enforce."""
    quote = item.quote.strip()
    if item.marker_class == "skip-hedged" and item.marker:
        rest = re.sub(re.escape(item.marker) + r"\s+(?:try\s+to\s+|to\s+)?", "", quote, count=1, flags=re.IGNORECASE).strip()
        if rest and rest != quote:
            strong = rest.split()[0].lower().strip("*") in ("never", "always", "must", "do", "don't")
            sentence = rest[0].upper() + rest[1:] if strong else "Always " + rest[0].lower() + rest[1:]
            return md_code(sentence) + ", naming the command, path or tool to check in backticks"
    if item.reason.startswith(RUN_ON):
        return "one sentence per rule, each naming its command, path or tool in backticks"
    if item.marker_class == "skip-no-imperative" and _QUESTION.match(quote):
        rest = _QUESTION.sub("", quote).rstrip("?").strip()
        strength = "Never" if re.search(r"\bever\b", quote, re.IGNORECASE) else "Always"
        return md_code(f"{strength} {rest}.")
    return _REWRITES[item.marker_class].format(marker=md_code(item.marker))


def emit(ir: PolicyIR | Resolved, target: str = "sondera-v2", groups: list | None = None) -> dict[str, str]:
    ir = view(ir).ir
    by_group: dict[str, list] = {}
    for item in ir.skipped:
        by_group.setdefault(item.group_id, []).append(item)
    groups = [
        (group_id, [(item, rewrite(item)) for item in items])
        for group_id, items in sorted(by_group.items())
    ]
    counts = sorted(Counter(s.marker_class for s in ir.skipped).items())
    demoted: dict[str, list] = {}
    for imp in ir.imperatives:
        if imp.admission is not None and imp.admission.decision == "demoted":
            demoted.setdefault(imp.group_id, []).append(imp)
    text = render("skipped.report.md.j2", generated_at=ir.distilled_at, groups=groups, counts=counts, total=len(ir.skipped),
                  demoted=sorted(demoted.items()), gate_words=GATE_WORDS)
    return {f"{POLICIES_DIR}/skipped.report.md": text}
