"""Conflict resolution (spec §10): rules that collide, or that a broader rule covers.

Two Pass 1 rules collide when their trigger, tools, patterns and scope are
the same: they merge into the rule of the higher-precedence source, which
takes the strictest action of the pair. A rule from a higher-precedence
source that is strictly broader suppresses a narrower one (spec Example 8).
"Broader" is decided soundly and only where it can be: between command rules
whose commands are token prefixes of each other (both regexes built by
`regexes.command_regex`), and between a command rule and a prose trigger
that the lexicon declares `within` that command. Every other pair is compared
by exact equality (interegular, the one regex-inclusion library, rejects the
anchors, word boundaries and look-aheads every emitted regex uses).
Scope-disjoint rules (different skills or file scopes) never conflict.
Losers are not dropped: every merge is listed in `conflicts` with the ids it
overrides and the action and severity it settles on; `shadowed` and `merged`
read them back. The imperatives themselves stay as extracted, so an
incremental run can reuse them and resolve afresh.
"""

from __future__ import annotations

import json

from .ir import STRICTNESS, Imperative, PolicyIR



def _key(imp: Imperative) -> tuple:
    trigger = imp.trigger
    patterns = tuple(sorted((p["field"], p["regex"], p.get("flags", "i"), bool(p.get("negate"))) for p in trigger["patterns"]))
    return ("PreToolUse", tuple(sorted(t.lower() for t in trigger["tool_match"])), patterns, json.dumps(imp.scope, sort_keys=True))


def command_prefixes(imp: Imperative) -> list[tuple[str, ...]] | None:
    """The command token prefixes a rule matches exactly; None when it is not that simple."""
    trigger = imp.trigger
    if trigger["kind"] == "command" and not any(p.get("negate") for p in trigger["patterns"]):
        values = trigger.get("values", [])
        if values and not any(c in v for v in values for c in "<>$…") and "..." not in " ".join(values):
            return [tuple(v.split()) for v in values]
    if trigger["kind"].startswith("prose:"):
        from .triggers import load_lexicon  # (the extractor's modules: not for `policyc list`)

        entry = next((e for e in load_lexicon().prose if "prose:" + e["id"] == trigger["kind"]), None)
        if entry and entry.get("within"):
            return [tuple(entry["within"].split())]
    return None


def prefixes_cover(mine: list[tuple[str, ...]], theirs: list[tuple[str, ...]]) -> bool:
    """Every command of `theirs` starts with one of `mine` (so a rule on `mine` fires on it too)."""
    return all(any(len(p) <= len(q) and q[: len(p)] == p for p in mine) for q in theirs)


def _broader(a: Imperative, b: Imperative) -> bool:
    """Every call b fires on, a fires on too (and not the other way round)."""
    if a.scope != b.scope or sorted(a.trigger["tool_match"]) != sorted(b.trigger["tool_match"]):
        return False
    if a.trigger["kind"] != "command":
        return False
    mine, theirs = command_prefixes(a), command_prefixes(b)
    if mine is None or theirs is None:
        return False
    covered = prefixes_cover(mine, theirs)
    if b.trigger["kind"] != "command":  # a prose trigger `within` a command matches less than it
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
    buckets: dict[tuple, list[Imperative]] = {}  # only rules with the same tools and scope can cover each other
    for imp in winners:
        buckets.setdefault((tuple(sorted(imp.trigger["tool_match"])), json.dumps(imp.scope, sort_keys=True)), []).append(imp)
    for bucket in buckets.values():
        for i, broad in enumerate(bucket):
            if broad.trigger["kind"] != "command" or broad.id in covered:
                continue
            narrower = [n for n in bucket[i + 1 :] if n.id not in covered and _broader(broad, n)
                        and precedence.get(broad.file, 99) < precedence.get(n.file, 99)]
            if narrower:
                covered.update(n.id for n in narrower)
                _merge(ir, broad, narrower, "strictly broader rule")


def _merge(ir: PolicyIR, winner: Imperative, losers: list[Imperative], why: str) -> None:
    earlier = next((c for c in ir.conflicts if c["id"] == winner.id), None)
    strictest = max([winner, *losers], key=lambda i: STRICTNESS.get(i.action, 0))
    if earlier is not None and STRICTNESS[earlier["action"]] >= STRICTNESS.get(strictest.action, 0):
        action, severity = earlier["action"], earlier["severity"]
    else:
        action, severity = strictest.action, strictest.severity
    entry = earlier or {"id": winner.id, "winning_source": _where(winner), "overridden_sources": [], "overridden_ids": [],
                        "resolution": ""}
    entry["overridden_sources"] += [_where(i) for i in losers]
    entry["overridden_ids"] += [i.id for i in losers]
    entry["resolution"] = "; ".join(filter(None, [entry["resolution"],
                                                  f"{winner.file} > {', '.join(sorted({i.file for i in losers}))} per precedence stack ({why})"]))
    entry.update(action=action, severity=severity)
    if earlier is None:
        ir.conflicts.append(entry)


def shadowed(ir: PolicyIR) -> dict[str, str]:
    """Rule id -> the id of the conflict winner that speaks for it."""
    return {loser: c["id"] for c in ir.conflicts for loser in c.get("overridden_ids", [])}


def merged(ir: PolicyIR) -> dict[str, dict]:
    """Winner id -> the action and severity its conflicts settled on (the strictest)."""
    return {c["id"]: {"action": c["action"], "severity": c["severity"]} for c in ir.conflicts if "action" in c}
