"""Which imperative lands in which artifact, per group: the shared layout of `policies/`.

Each group (a `group_id`) gets `<stem>.policy.md` for its Pass 2 imperatives,
numbered P1, P2, ... in source order; `<stem>.cedar` for those the Sondera
target can express; `<stem>.interlinked.cedar` for those only the extended
flavour can; `<stem>.prose.md` when it has Pass 3 content. Every emitter and
the `companions` of distilled-rules.json read this one plan.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from ..compiler.ir import PolicyIR
from ..compiler.conflicts import shadowed
from ..compiler.overrides import Overrides
from .cedar_lowering import TARGETS, Omitted, Policy, lower_imperative
from .text import file_stem

POLICIES_DIR = "policies"


@dataclass(slots=True)
class Entry:
    number: int  # P<n> in the group's policy.md
    imperative: object
    cedar: list[Policy] | Omitted
    interlinked: list[Policy] | None  # None: not in the interlinked file


@dataclass(slots=True)
class Group:
    group_id: str
    stem: str
    scope: dict
    entries: list[Entry] = field(default_factory=list)
    prose: list = field(default_factory=list)  # Pass 3 blocks
    principles: list = field(default_factory=list)  # Pass 3 imperatives
    texts: dict[str, str] = field(default_factory=dict)  # file -> verbatim source, in source order
    shares_stem: str = ""  # the stem this group's id shares with another group's (its own carries a suffix)

    @property
    def files(self) -> list[str]:
        return list(self.texts)

    def path(self, kind: str) -> str:
        return f"{POLICIES_DIR}/{self.stem}.{kind}"

    @property
    def has_interlinked(self) -> bool:
        return any(e.interlinked for e in self.entries)

    @property
    def has_prose(self) -> bool:
        return bool(self.prose or self.principles)


def plan(ir: PolicyIR, cedar_target: str = "sondera-v2") -> list[Group]:
    target, extended = TARGETS[cedar_target], TARGETS["interlinked"]
    groups: dict[str, Group] = {}
    for source in ir.sources:
        group = groups.setdefault(source.group_id, Group(source.group_id, file_stem(source.group_id), source.scope))
        group.texts[source.file] = source.text
    overrides = Overrides.from_json(ir.overrides)
    losers = shadowed(ir)
    for imp in ir.imperatives:
        group = groups[imp.group_id]
        if imp.id in losers or overrides.state(imp.id, imp.group_id):
            continue  # the conflict winner speaks for it; a removed or disabled rule is not a policy
        if "pass2" in imp.routes:
            cedar = lower_imperative(imp, target)
            interlinked = None
            if isinstance(cedar, Omitted) and cedar.extension:
                lowered = lower_imperative(imp, extended)
                interlinked = lowered if isinstance(lowered, list) else None
            group.entries.append(Entry(len(group.entries) + 1, imp, cedar, interlinked))
        if "pass3" in imp.routes:
            group.principles.append(imp)
    for block in ir.prose:
        groups[block.group_id].prose.append(block)
    _unique_stems(groups.values())
    return [groups[g] for g in sorted(groups)]


def _unique_stems(groups) -> None:
    """Groups whose ids map to one stem (`db-safety.mdc`, `db_safety.mdc`) each get a suffix from their id,
    so no group's files overwrite another's; the same suffix on every run, whatever else changes."""
    by_stem: dict[str, list[Group]] = {}
    for group in groups:
        by_stem.setdefault(group.stem, []).append(group)
    for stem, sharing in by_stem.items():
        if len(sharing) > 1:
            for group in sharing:
                group.stem = f"{stem}-{hashlib.sha256(group.group_id.encode()).hexdigest()[:6]}"
                group.shares_stem = stem


def companions(group: Group, entry: Entry) -> dict:
    """The `companions` sidecar of a distilled rule (spec §15.9)."""
    out = {"policy_md": f"{group.path('policy.md')}#P{entry.number}"}
    if isinstance(entry.cedar, list):
        out["cedar"] = f"{group.path('cedar')}#{entry.imperative.id}"
    if entry.interlinked:
        out["interlinked_cedar"] = f"{group.path('interlinked.cedar')}#{entry.imperative.id}"
    if group.has_prose:
        out["prose_md"] = f"{group.path('prose.md')}"
    return out
