"""The one step between the IR and the emitters: every decision an artifact depends on, made once.

`resolve(ir, overrides)` reads the policy IR as saved and returns a `Resolved`
view: for every imperative, where it lands and how. It applies, in this order:

1. **Routing.** The passes extraction proposed and admission settled, as the
   IR records them (`Imperative.routes`). Which passes those are is written
   down once, in the routing helpers of compiler/ir.py, which extraction and admission
   call: a concrete trigger proposes Pass 1 with its Pass 2 mirror, anything
   else Pass 2 alone; a quality or principle rule also goes to the Pass 3
   reviewer; a demoted candidate loses Pass 1 and keeps Pass 2.
2. **Conflicts.** A loser of a merge or suppression (`ir.conflicts`, from
   `conflicts.resolve`) is spoken for by its winner: it is neither a GuardRule
   nor a policy. A winner takes the strictest action of its conflict, and its
   severity with it, when that action differs from its own.
3. **Overrides.** The user's overrides file, with the harness's precedence
   (removed group, then removed, then disabled, then modifications): a rule
   the overrides switch off stays a GuardRule with `enabled: false` and a
   note, and is neither a policy nor a principle; a modification sets the
   action and severity and flags the rule.

Then it counts, once, what the artifacts and the run summary report (`Stats`).

The view is frozen and holds no behaviour an emitter has to repeat: an emitter
renders `Resolved.guardrules`, `.policies` and `.principles` (and the IR's
sources, skipped items and prose) and never reads the conflicts or the
overrides itself. `compile`, `render`, `accept` and a lifecycle verb's
re-render all go through `emitters.artifacts`, which resolves the IR right
before emission, so a re-render with changed overrides gives what a fresh
compile with those overrides gives.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .ir import PASS1, PASS2, PASS3, Conflict, Decision, Gate, Imperative, PolicyIR, count_actions, prose_entries
from .overrides import Overrides

# --- the resolved view ---

@dataclass(frozen=True, slots=True)
class ResolvedRule:
    """One imperative as every emitter sees it."""

    imperative: Imperative
    shadowed_by: str = ""  # the conflict winner that speaks for it ("" when none)
    inactive: str = ""  # why the overrides switch it off: removed-group | removed | disabled ("" when they do not)
    action: str = ""  # its GuardRule's action: its own, a conflict's stricter one, then the user's
    severity: str = ""
    escalated: str = ""  # the stricter action its conflict settled on, when it differs from its own ("" otherwise)
    note: str = ""  # the user's note, else why the overrides switch it off
    user_modified: bool = False

    @property
    def id(self) -> str:
        return self.imperative.id

    @property
    def enabled(self) -> bool:
        return not self.inactive

    @property
    def guardrule(self) -> bool:
        """A rule of distilled-rules.json: Pass 1 and no conflict winner speaks for it (switched off or not)."""
        return PASS1 in self.imperative.routes and not self.shadowed_by

    @property
    def live(self) -> bool:
        """Neither spoken for by a conflict winner nor switched off by the overrides."""
        return not self.shadowed_by and not self.inactive

    @property
    def policy(self) -> bool:
        """An entry of its group's policy.md (and of every lowering backend asked for it)."""
        return PASS2 in self.imperative.routes and self.live

    @property
    def principle(self) -> bool:
        """A principle of its group's prose.md."""
        return PASS3 in self.imperative.routes and self.live

    @property
    def status(self) -> str:
        """Why a rule is not in force, as `list` names it ('' when it is): shadowed, then the overrides' code."""
        return "shadowed" if self.shadowed_by else self.inactive


@dataclass(frozen=True, slots=True)
class Stats:
    """Every count the artifacts and the run summary report, derived once from the resolved view."""

    files_scanned: int  # every file the run read or tried to read, each once (PolicyIR.files_scanned)
    files_failed: int  # files that could not be read (a kept one included)
    imperative_bearing: int  # sources of kind imperative or imperative-likely
    scan_only: int  # sources of kind scan-only or mixed
    imperatives_found: int  # imperatives and skipped statements
    distilled: dict[str, int]  # the GuardRules of distilled-rules.json by effective action (block, ask, warn), switched off ones too
    enforced: dict[str, int]  # the same, only the rules in force
    enforcing: int  # GuardRules in force, whatever their action (a user's soft_block or rewrite too)
    user_disabled: int  # GuardRules the overrides switch off
    policies: int  # Pass 2 entries (policy.md)
    pass2_only: int  # imperatives routed to Pass 2 alone
    prose_entries: int  # Pass 3 blocks and principles
    demoted: dict[str, int]  # admission gate -> candidates it sent to Pass 2, in gate order
    skip_counts: dict[str, int]  # skipped_<class> -> count, sorted by key
    skipped: int
    conflicts: int
    removed: int


@dataclass(frozen=True, slots=True)
class Resolved:
    """The IR with every routing, conflict and override decision applied: what the emitters render."""

    ir: PolicyIR
    rules: tuple[ResolvedRule, ...]  # every imperative, in IR order
    overrides: Overrides  # the overrides applied (as recorded in the IR unless the caller gave others)
    stats: Stats
    _by_id: dict[str, ResolvedRule] = field(repr=False, compare=False)

    @property
    def guardrules(self) -> list[ResolvedRule]:
        """The rules of distilled-rules.json, in IR order (switched off ones flagged)."""
        return [r for r in self.rules if r.guardrule]

    @property
    def policies(self) -> list[Imperative]:
        """Pass 2 imperatives in force, in IR order."""
        return [r.imperative for r in self.rules if r.policy]

    @property
    def principles(self) -> list[Imperative]:
        """Pass 3 imperatives in force, in IR order."""
        return [r.imperative for r in self.rules if r.principle]

    def rule(self, rule_id: str) -> ResolvedRule | None:
        return self._by_id.get(rule_id)


def resolve(ir: PolicyIR, overrides: Overrides | None = None) -> Resolved:
    """The resolved view of `ir`, with `overrides` (default: the overrides the IR records)."""
    overrides = overrides if overrides is not None else Overrides.from_json(ir.overrides)
    losers = {loser: c.id for c in ir.conflicts for loser in c.overridden_ids}
    settled = {c.id: c for c in ir.conflicts}
    rules = tuple(_resolve_one(imp, losers.get(imp.id, ""), settled.get(imp.id), overrides) for imp in ir.imperatives)
    return Resolved(ir, rules, overrides, _stats(ir, rules), {r.id: r for r in rules})


def view(source: PolicyIR | Resolved) -> Resolved:
    """`source` resolved: an emitter called with an IR resolves it with the overrides it records."""
    return source if isinstance(source, Resolved) else resolve(source)


def _resolve_one(imp: Imperative, shadowed_by: str, conflict: Conflict | None, overrides: Overrides) -> ResolvedRule:
    action, severity, escalated = imp.action, imp.severity, ""
    if conflict is not None and conflict.action != imp.action:  # a merge never weakens: its action is the strictest
        action = escalated = conflict.action
        severity = conflict.severity
    changes = overrides.effect(imp.id, imp.group_id)
    return ResolvedRule(imp, shadowed_by, overrides.state(imp.id, imp.group_id), changes.get("action", action),
                        changes.get("severity", severity), escalated, changes.get("note", ""), changes.get("user_modified", False))


def _stats(ir: PolicyIR, rules: tuple[ResolvedRule, ...]) -> Stats:
    from .report import GATE_WORDS

    guardrules = [r for r in rules if r.guardrule]
    kinds = [s.kind for s in ir.sources]
    demoted = [r.imperative.admission.gate for r in rules
               if r.imperative.admission is not None and r.imperative.admission.decision == Decision.DEMOTED]
    counts = ir.counts()  # the IR's stats() counts the same, before conflicts and overrides
    return Stats(
        files_scanned=counts["files_scanned"],
        files_failed=counts["files_failed"],
        imperative_bearing=sum(1 for k in kinds if k in ("imperative", "imperative-likely")),
        scan_only=sum(1 for k in kinds if k in ("scan-only", "mixed")),
        imperatives_found=counts["imperatives_found"],
        distilled=count_actions(r.action for r in guardrules),
        enforced=count_actions(r.action for r in guardrules if r.enabled),
        enforcing=sum(1 for r in guardrules if r.enabled),
        user_disabled=sum(1 for r in guardrules if not r.enabled),
        policies=sum(1 for r in rules if r.policy),
        pass2_only=counts["pass2_only"],
        prose_entries=prose_entries(ir, (r for r in rules if r.principle)),
        demoted={Gate(gate): demoted.count(Gate(gate)) for gate in GATE_WORDS if gate in demoted},
        skip_counts=ir.skip_counts(),
        skipped=counts["skipped"],
        conflicts=counts["conflicts"],
        removed=counts["removed"],
    )

