"""Conflict resolution (spec §10): rules that collide, or that a broader rule covers.

Two Pass 1 rules collide when their trigger, tools, patterns and scope are
the same: they merge into the rule of the higher-precedence source, which
takes the strictest action of the pair. A rule from a higher-precedence
source that is strictly broader, and at least as strict, suppresses a
narrower one (spec Example 8).
"Broader" is decided soundly and only where it can be: between command rules
whose commands are token prefixes of each other (both regexes built by
`regexes.command_regex`), and between a command rule and a prose trigger
that the lexicon declares `within` that command. Every other pair is compared
by exact equality (interegular, the one regex-inclusion library, rejects the
anchors, word boundaries and look-aheads every emitted regex uses).
Only rules that apply to exactly the same calls, agents and moments can
merge or suppress: the key holds the scope (skill, file scope, overlay), the
agent roles and the command sequence, so a merge never narrows who or what a
rule applies to (a subagent-only rule never speaks for a rule of every agent).
The merged rule takes the strictest action and the highest severity of all.
Losers are not dropped: every merge is listed in `conflicts` with the ids it
overrides and the action and severity it settles on; compiler/resolve.py reads
them back before emission. The imperatives themselves stay as extracted, so an
incremental run can reuse them and resolve afresh.
"""

from __future__ import annotations

import json

from .ir import SEVERITY_RANK, STRICTNESS, Conflict, Imperative, PolicyIR, TriggerKind


def _reach(imp: Imperative) -> str:
    """Who and when a rule applies to: its scope, agent roles and command sequence."""
    sequence = imp.sequence and {"event": imp.sequence.event, "regex": imp.sequence.regex, "requires": list(imp.sequence.requires)}
    return json.dumps([imp.scope, sorted(imp.applies_to_roles), sequence], sort_keys=True)


def _key(imp: Imperative) -> tuple:
    trigger = imp.rule_trigger
    patterns = tuple(sorted((p.field, p.regex, p.flags, p.negate) for p in trigger.patterns))
    return ("PreToolUse", tuple(sorted(t.lower() for t in trigger.tool_match)), patterns, _reach(imp))


def command_prefixes(imp: Imperative) -> list[tuple[str, ...]] | None:
    """The command token prefixes a rule matches exactly; None when it is not that simple."""
    trigger = imp.rule_trigger
    if trigger.kind == TriggerKind.COMMAND and not any(p.negate for p in trigger.patterns):
        values = trigger.values
        if values and not any(c in v for v in values for c in "<>$…") and "..." not in " ".join(values):
            return [tuple(v.split()) for v in values]
    if trigger.kind == TriggerKind.PROSE:
        from .triggers import load_lexicon  # (the extractor's modules: not for `policyc list`)

        entry = next((e for e in load_lexicon().prose if e["id"] == trigger.lexicon), None)
        if entry and entry.get("within"):
            return [tuple(entry["within"].split())]
    return None


def prefixes_cover(mine: list[tuple[str, ...]], theirs: list[tuple[str, ...]]) -> bool:
    """Every command of `theirs` starts with one of `mine` (so a rule on `mine` fires on it too)."""
    return all(any(len(p) <= len(q) and q[: len(p)] == p for p in mine) for q in theirs)


def _broader(a: Imperative, b: Imperative, mine: list[tuple[str, ...]] | None, theirs: list[tuple[str, ...]] | None) -> bool:
    """Every call b fires on, a fires on too (and not the other way round); `mine`, `theirs` their command prefixes.

    Only called for rules of one bucket: the same tools, scope, roles and sequence.
    """
    if a.rule_trigger.kind != TriggerKind.COMMAND or mine is None or theirs is None:
        return False
    covered = prefixes_cover(mine, theirs)
    if b.rule_trigger.kind != TriggerKind.COMMAND:  # a prose trigger `within` a command matches less than it
        return covered
    return covered and not prefixes_cover(theirs, mine)


def _where(imp: Imperative) -> str:
    return f"{imp.file}:{imp.lines[0]}"


def resolve(ir: PolicyIR) -> None:
    """Merge colliding Pass 1 rules and suppress covered ones; fills `ir.conflicts`."""
    precedence = {s.file: s.precedence for s in ir.sources}
    rules = sorted((i for i in ir.imperatives if "pass1" in i.routes and i.trigger),
                   key=lambda i: (precedence.get(i.file, 99), i.file, i.lines[0]))
    groups: dict[tuple, list[Imperative]] = {}
    for imp in rules:
        groups.setdefault(_key(imp), []).append(imp)
    winners = []
    covered: set[str] = set()
    for members in groups.values():
        winner, losers = members[0], members[1:]
        winners.append(winner)
        if losers:
            _merge(ir, winner, losers, "same trigger")
    buckets: dict[tuple, list[Imperative]] = {}  # only rules with the same tools and reach can cover each other
    for imp in winners:
        buckets.setdefault((tuple(sorted(imp.rule_trigger.tool_match)), _reach(imp)), []).append(imp)
    for bucket in buckets.values():
        _suppress_covered(ir, bucket, precedence, covered)


def _suppress_covered(ir: PolicyIR, bucket: list[Imperative], precedence: dict, covered: set[str]) -> None:
    """Broader command rules of higher precedence suppress the narrower ones of their bucket.

    Candidates are looked up by the first word of their commands (a prefix can
    only cover a command with the same first word), so the work grows with the
    rules that share a program, not with the square of the bucket.
    """
    prefixes = [command_prefixes(imp) for imp in bucket]
    by_head: dict[str, list[int]] = {}
    for position, found in enumerate(prefixes):
        for head in sorted({p[0] for p in found or [] if p}):
            by_head.setdefault(head, []).append(position)
    settled = {c.id: c.action for c in ir.conflicts}
    for i, (broad, mine) in enumerate(zip(bucket, prefixes)):
        if broad.rule_trigger.kind != TriggerKind.COMMAND or broad.id in covered or not mine:
            continue
        strictness = STRICTNESS.get(settled.get(broad.id, broad.action), 0)
        candidates = sorted({j for p in mine if p for j in by_head.get(p[0], []) if j > i})
        # a broader rule speaks for a narrower one only when it is at least as strict: suppressing a
        # stricter one would either weaken it or, by raising the broad rule, block everything it covers
        narrower = [bucket[j] for j in candidates if bucket[j].id not in covered and _broader(broad, bucket[j], mine, prefixes[j])
                    and precedence.get(broad.file, 99) < precedence.get(bucket[j].file, 99)
                    and strictness >= STRICTNESS.get(settled.get(bucket[j].id, bucket[j].action), 0)]
        if narrower:
            covered.update(n.id for n in narrower)
            _merge(ir, broad, narrower, "strictly broader rule")


def _merge(ir: PolicyIR, winner: Imperative, losers: list[Imperative], why: str) -> None:
    """Record that `winner` speaks for `losers`, in the winner's conflict (a new one, or its earlier one extended)."""
    at = next((n for n, c in enumerate(ir.conflicts) if c.id == winner.id), len(ir.conflicts))
    earlier = ir.conflicts[at] if at < len(ir.conflicts) else None
    members = [winner, *losers]
    action = max([i.action for i in members] + ([earlier.action] if earlier else []), key=lambda a: STRICTNESS.get(a, 0))
    severity = max([i.severity for i in members] + ([earlier.severity] if earlier else []), key=SEVERITY_RANK.index)
    resolution = f"{winner.file} > {', '.join(sorted({i.file for i in losers}))} per precedence stack ({why})"
    entry = Conflict(
        winner.id,
        earlier.winning_source if earlier else _where(winner),
        (*(earlier.overridden_sources if earlier else ()), *(_where(i) for i in losers)),
        (*(earlier.overridden_ids if earlier else ()), *(i.id for i in losers)),
        f"{earlier.resolution}; {resolution}" if earlier and earlier.resolution else resolution,
        action,
        severity,
    )
    ir.conflicts[at:at + 1] = [entry]
