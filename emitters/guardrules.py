"""GuardRule JSON (distilled-rules.json, §8) from the resolved view of the policy IR.

A pure function of the view (compiler/resolve.py), which has already decided
which imperatives are rules, what conflicts settled and what the overrides
change; this module only writes them down. Harness facts applied here
(interlinked-harness.md): every rule is PreToolUse (PostToolUse rules never
fire), reasons carry no "BLOCKED" prefix (the harness adds one), and stricter
rules come first.
"""

from __future__ import annotations

from ..compiler.ir import STRICTNESS, PolicyIR, lines_label
from ..compiler.resolve import Resolved, ResolvedRule, view
from . import registry
from .plan import companions, plan

CATEGORY = "distilled-from-md"


def rule_from(resolved: ResolvedRule, label: str, companion: dict | None = None) -> dict:
    imp = resolved.imperative
    trigger = imp.rule_trigger
    rule: dict = {
        "id": imp.id,
        "enabled": resolved.enabled,
        "trigger": "PreToolUse",
        "tool_match": list(trigger.tool_match),
        "action": resolved.action,
        "patterns": trigger.patterns_json(),
        "reason": f'{imp.file}:{lines_label(imp.lines)} — "{imp.quote}"',
    }
    if imp.suggestion:
        rule["suggestion"] = imp.suggestion
    rule["severity"] = resolved.severity
    rule["category"] = CATEGORY
    if trigger.keywords:
        rule["keywords"] = list(trigger.keywords)
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
    if resolved.escalated:
        rule["distilled_action_reason"] += f"; action {imp.action} -> {resolved.escalated}: the strictest of a conflict (§10)"
    rule["confidence"] = imp.confidence
    if resolved.note:
        rule["note"] = resolved.note
    if resolved.user_modified:
        rule["user_modified"] = True
    return rule


def emit(ir: PolicyIR | Resolved, target: str = "sondera-v2", groups: list | None = None) -> dict:
    """The distilled-rules.json document for an IR (resolved with the overrides it records) or a resolved view."""
    resolved = view(ir)
    ir = resolved.ir
    labels = {s.group_id: s.group_label for s in ir.sources}
    groups = groups or plan(resolved, target)
    sidecars = {e.imperative.id: companions(g, e) for g in groups for e in g.entries}
    rules = [rule_from(r, labels.get(r.imperative.group_id, r.imperative.group_id), sidecars.get(r.id)) for r in resolved.guardrules]
    # The harness returns on the first block or ask that matches, so stricter rules come first:
    # an ask on `git push` must never be reached before a block on `git push --force`.
    rules.sort(key=lambda r: -STRICTNESS.get(r["action"], 0))
    skipped = [
        {"file": s.file, "lines": s.lines, "quote": s.quote, "reason": s.reason, "marker_class": s.marker_class}
        for s in ir.skipped
    ]
    stats = resolved.stats
    backends = registry.BACKENDS
    return {
        "version": 1,
        "distilled_at": ir.distilled_at,
        "distiller": ir.distiller,
        "source_hashes": {s.file: s.sha256 for s in ir.sources},
        "rules": rules,
        "skipped": skipped,
        "conflicts": [c.to_json() for c in ir.conflicts],
        "removed": ir.removed,
        "cedar_target": target,
        # each group's policy.md with the backends that write for every such group, then the extending backends' files
        "policies_emitted": [g.path(kind) for g in groups if g.entries
                             for kind in ("policy.md", *(b.kind for b in backends if b.extends is None))]
        + [g.path(b.kind) for b in backends if b.extends for g in groups if g.has_file(b)],
        "prose_emitted": [g.path("prose.md") for g in groups if g.has_prose],
        "stats": {
            "files_scanned": stats.files_scanned,
            "imperatives_found": stats.imperatives_found,
            "distilled_block": stats.distilled["block"],
            "distilled_ask": stats.distilled["ask"],
            "distilled_advisory": stats.distilled["warn"],
            "policies_emitted": stats.policies,
            **{b.stat: sum(1 for g in groups for e in g.entries if e.policies(b.name)) for b in backends},
            "prose_entries": stats.prose_entries,
            **stats.skip_counts,
            "skipped": stats.skipped,
            "conflicts": stats.conflicts,
            "removed": stats.removed,
        },
    }
