"""GuardRule JSON (distilled-rules.json, §8) from the policy IR.

A pure function of the IR. Harness facts applied here (interlinked-harness.md):
every rule is PreToolUse (PostToolUse rules never fire), reasons carry no
"BLOCKED" prefix (the harness adds one), and the IR's routing decides which
imperatives are Pass 1 rules.
"""

from __future__ import annotations

from ..compiler.conflicts import merged, shadowed
from ..compiler.ir import STRICTNESS, PolicyIR, lines_label
from ..compiler.overrides import Overrides
from . import registry
from .plan import companions, plan

CATEGORY = "distilled-from-md"


def rule_from(imp, label: str, companion: dict | None = None) -> dict:
    trigger = imp.trigger
    rule = {
        "id": imp.id,
        "enabled": True,
        "trigger": "PreToolUse",
        "tool_match": trigger["tool_match"],
        "action": imp.action,
        "patterns": trigger["patterns"],
        "reason": f'{imp.file}:{lines_label(imp.lines)} — "{imp.quote}"',
    }
    if imp.suggestion:
        rule["suggestion"] = imp.suggestion
    rule["severity"] = imp.severity
    rule["category"] = CATEGORY
    if trigger.get("keywords"):
        rule["keywords"] = trigger["keywords"]
    if imp.scope:
        rule["active_when"] = imp.scope
    if imp.applies_to_roles:
        rule["applies_to_roles"] = imp.applies_to_roles
    rule["source"] = {
        "group_id": imp.group_id,
        "group_label": label,
        "file": imp.file,
        "lines": imp.lines,
        "quote": imp.quote,
        "lexical_marker": imp.marker,
        "marker_class": imp.marker_class,
    }
    if companion:
        rule["companions"] = companion
    rule["distilled_action_reason"] = "; ".join(imp.reasons)
    rule["confidence"] = imp.confidence
    return rule


def emit(ir: PolicyIR, target: str = "sondera-v2", groups: list | None = None) -> dict:
    """The distilled-rules.json document for an IR."""
    labels = {s.group_id: s.group_label for s in ir.sources}
    groups = groups or plan(ir, target)
    sidecars = {e.imperative.id: companions(g, e) for g in groups for e in g.entries}
    overrides = Overrides.from_json(ir.overrides)
    losers, settled = shadowed(ir), merged(ir)
    rules = []
    for imp in ir.imperatives:
        if "pass1" in imp.routes and imp.id not in losers:
            rule = rule_from(imp, labels.get(imp.group_id, imp.group_id), sidecars.get(imp.id))
            if imp.id in settled and settled[imp.id]["action"] != rule["action"]:
                rule.update(settled[imp.id])
                rule["distilled_action_reason"] += f"; action {imp.action} -> {rule['action']}: the strictest of a conflict (§10)"
            rules.append(overrides.apply(rule))
    # The harness returns on the first block or ask that matches, so stricter rules come first:
    # an ask on `git push` must never be reached before a block on `git push --force`.
    rules.sort(key=lambda r: -STRICTNESS.get(r["action"], 0))
    skipped = [
        {"file": s.file, "lines": s.lines, "quote": s.quote, "reason": s.reason, "marker_class": s.marker_class}
        for s in ir.skipped
    ]
    counts = {a: sum(1 for r in rules if r["action"] == a) for a in ("block", "ask", "warn")}
    backends = registry.BACKENDS
    return {
        "version": 1,
        "distilled_at": ir.distilled_at,
        "distiller": ir.distiller,
        "source_hashes": {s.file: s.sha256 for s in ir.sources},
        "rules": rules,
        "skipped": skipped,
        "conflicts": ir.conflicts,
        "removed": ir.removed,
        "cedar_target": target,
        # each group's policy.md with the backends that write for every such group, then the extending backends' files
        "policies_emitted": [g.path(kind) for g in groups if g.entries
                             for kind in ("policy.md", *(b.kind for b in backends if b.extends is None))]
        + [g.path(b.kind) for b in backends if b.extends for g in groups if g.has_file(b)],
        "prose_emitted": [g.path("prose.md") for g in groups if g.has_prose],
        "stats": {
            "files_scanned": len(ir.sources),
            "imperatives_found": len(ir.imperatives) + len(ir.skipped),
            "distilled_block": counts["block"],
            "distilled_ask": counts["ask"],
            "distilled_advisory": counts["warn"],
            "policies_emitted": sum(len(g.entries) for g in groups),
            **{b.stat: sum(1 for g in groups for e in g.entries if e.policies(b.name)) for b in backends},
            "prose_entries": sum(len(g.prose) + len(g.principles) for g in groups),
            **ir.skip_counts(),
            "skipped": len(skipped),
            "conflicts": len(ir.conflicts),
            "removed": len(ir.removed),
        },
    }
