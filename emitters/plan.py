"""Which imperative lands in which artifact, per group: the shared layout of `policies/`.

Each group (a `group_id`) gets `<stem>.policy.md` for its Pass 2 imperatives,
numbered P1, P2, ... in source order; `<stem>.<kind>` of every lowering backend
in the registry that writes for it (`.cedar` for every such group, with what
the Sondera target can express; `.interlinked.cedar` for what only the
extended flavour can); `<stem>.prose.md` when it has Pass 3 content. Every
emitter and the `companions` of distilled-rules.json read this one plan.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from ..compiler.ir import Imperative, PolicyIR
from ..compiler.resolve import Resolved, view
from . import registry
from .backend import Backend, Omitted
from .text import file_stem, title, trigger_signal

POLICIES_DIR = "policies"


@dataclass(slots=True)
class Entry:
    number: int  # P<n> in the group's policy.md
    imperative: Imperative
    lowered: dict[str, list | Omitted] = field(default_factory=dict)  # backend name -> its policies or why none; absent: not asked
    title: str = field(init=False)  # the imperative's short title (text.title), as policy.md and every Cedar file show it
    signal: str = field(init=False)  # what the Tier 2 gate looks for (text.trigger_signal), made once for every file

    def __post_init__(self) -> None:
        self.title, self.signal = title(self.imperative), trigger_signal(self.imperative)

    def policies(self, backend: str) -> list:
        """The policies `backend` lowered this rule to; [] when it omitted it or was not asked."""
        lowered = self.lowered.get(backend)
        return lowered if isinstance(lowered, list) else []


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
    backends: tuple[Backend, ...] = ()  # the lowering backends of the run, in registry order

    @property
    def files(self) -> list[str]:
        return list(self.texts)

    def path(self, kind: str) -> str:
        return f"{POLICIES_DIR}/{self.stem}.{kind}"

    def has_file(self, backend: Backend) -> bool:
        """Whether `backend` writes a file for this group: every group with Pass 2 rules, or for a backend
        that extends another, a group where it lowered one."""
        if backend.extends is None:
            return bool(self.entries)
        return any(e.policies(backend.name) for e in self.entries)

    def carriers(self, entry: Entry) -> list[Backend]:
        """The backends that lowered `entry`, in registry order."""
        return [b for b in self.backends if entry.policies(b.name)]

    @property
    def has_prose(self) -> bool:
        return bool(self.prose or self.principles)


def plan(ir: PolicyIR | Resolved, cedar_target: str = "sondera-v2") -> list[Group]:
    """The groups of a run: its policies and principles as resolved (no conflict loser, nothing the overrides switch off)."""
    resolved = view(ir)
    backends = registry.BACKENDS
    groups: dict[str, Group] = {}
    for source in resolved.ir.sources:
        group = groups.setdefault(source.group_id, Group(source.group_id, file_stem(source.group_id), source.scope,
                                                         backends=backends))
        group.texts[source.file] = source.text
    for imp in resolved.policies:
        group = groups[imp.group_id]
        group.entries.append(Entry(len(group.entries) + 1, imp, lower(imp, cedar_target, backends)))
    for imp in resolved.principles:
        groups[imp.group_id].principles.append(imp)
    for block in resolved.ir.prose:
        groups[block.group_id].prose.append(block)
    _unique_stems(groups.values())
    return [groups[g] for g in sorted(groups)]


def lower(imp, target: str, backends: tuple[Backend, ...]) -> dict[str, list | Omitted]:
    """One Pass 2 imperative through every backend, in order; a backend that extends another is asked
    only when that one omitted the rule for want of an extension."""
    lowered: dict[str, list | Omitted] = {}
    for backend in backends:
        if backend.extends:
            earlier = lowered.get(backend.extends)
            if not (isinstance(earlier, Omitted) and earlier.extension):
                continue
        lowered[backend.name] = backend.lower(imp, target)
    return lowered


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
    out |= {b.name: f"{group.path(b.kind)}#{entry.imperative.id}" for b in group.carriers(entry)}
    if group.has_prose:
        out["prose_md"] = f"{group.path('prose.md')}"
    return out
