"""The policy IR: what every emitter reads, serialised as policy.ir.json.

Versioned (IR_VERSION) and described by schemas/ir.schema.json. Serialisation
is deterministic: fixed key order, sources sorted by file, imperatives in
source order, and no timestamp except `distilled_at`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Literal, NotRequired, TypedDict, TypeVar, cast

IR_VERSION = "1.3"  # 1.2 added Imperative.pass2_cause; 1.3 Imperative.admission
# How much each action stops the agent: picks conflict winners and spots weakening.
STRICTNESS = {"block": 4, "ask": 3, "soft_block": 2, "warn": 1}

# Routing: the passes an imperative is proposed for, and what admission changes (written once,
# here, for extraction and admission; compiler/resolve.py applies them)
PASS1, PASS2, PASS3 = "pass1", "pass2", "pass3"


def proposed_routes(concrete: bool) -> list[str]:
    """A sentence with a concrete trigger proposes a Pass 1 rule, mirrored for the policy gate; any other is Pass 2 only."""
    return [PASS1, PASS2] if concrete else [PASS2]


def with_reviewer(routes: list[str]) -> list[str]:
    """A rule that also informs the Pass 3 reviewer (quality and principle rules that are not Pass 1)."""
    return [*routes, PASS3]


def demoted_routes(routes: list[str]) -> list[str]:
    """What admission leaves of a demoted candidate's routes: no Pass 1, always Pass 2."""
    kept = [r for r in routes if r != PASS1]
    return kept if PASS2 in kept else [*kept, PASS2]


# The reason of a sentence with too many rule words or names to read as one rule (compiler/extract.py).
RUN_ON = "a run-on sentence with more rules than one sentence can hold"

Action = Literal["block", "ask", "warn"]  # what an imperative's rule does (soft_block, rewrite: overrides only)
Severity = Literal["low", "medium", "high", "critical"]


class Pattern(TypedDict):
    """One regex of a trigger on one field of the tool call; `negate`d patterns are exceptions."""

    field: str
    regex: str
    flags: NotRequired[str]  # JavaScript flags ("" or "i"); absent means "i"
    negate: NotRequired[bool]


class TriggerRecord(TypedDict):
    """Imperative.trigger: the observable trigger of a Pass 1 rule (triggers.Trigger.to_json, empty fields left out)."""

    kind: str  # command | required-form | path | content | mcp | omp-condition | prose:<lexicon id>
    tool_match: list[str]
    patterns: list[Pattern]
    values: NotRequired[list[str]]  # the commands, globs or identifiers it was built from
    keywords: NotRequired[list[str]]
    summary: NotRequired[str]
    suggestion: NotRequired[str]
    interpreted: NotRequired[bool]
    file_scope: NotRequired[str]


class ClauseObject(TypedDict):
    kind: Literal["code", "path", "word"]
    text: str


class ClauseRecord(TypedDict):
    """Imperative.clause: what the compiler read from the sentence (clauses.Clause.to_json, empty fields left out)."""

    marker: str
    marker_class: str
    caps: NotRequired[bool]
    inherited: NotRequired[bool]  # the marker is a heading's or lead line's
    verb: NotRequired[str]
    objects: NotRequired[list[ClauseObject]]
    instead_of: NotRequired[list[ClauseObject]]
    rejected: NotRequired[str]  # the words of a positive clause's rejected side ("not to upstream")
    alternatives: NotRequired[list[ClauseObject]]
    examples: NotRequired[list[ClauseObject]]
    asides: NotRequired[list[ClauseObject]]
    qualifiers: NotRequired[list[str]]
    purpose: NotRequired[str]
    exceptions: NotRequired[list[ClauseObject]]
    condition: NotRequired[str]
    sequence: NotRequired[str]
    file_scope: NotRequired[list[str]]
    headed: NotRequired[bool]


class SequenceRecord(TypedDict):
    """Imperative.sequence, "always X before Y": the closing event, its regex and the commands that must come first."""

    event: str
    regex: str
    requires: list[str]


class Conflict(TypedDict):
    """PolicyIR.conflicts: a rule that speaks for the rules it overrides (conflicts.resolve)."""

    id: str
    winning_source: str  # file:line
    overridden_sources: list[str]
    overridden_ids: list[str]
    resolution: str
    action: NotRequired[Action]  # the strictest of all; absent from IRs written before conflicts settled one
    severity: NotRequired[Severity]


_Record = TypeVar("_Record", bound=Mapping[str, object])


def without_empty(record: _Record, keep: tuple[str, ...]) -> _Record:
    """`record` less its empty fields ("", [], None, False) other than `keep`: the IR leaves those out."""
    return cast(_Record, {k: v for k, v in record.items() if v not in ("", [], None, False) or k in keep})


def lines_label(lines: list[int]) -> str:
    """[4, 4] -> "4"; [4, 6] -> "4-6"."""
    return str(lines[0]) if lines[0] == lines[1] else f"{lines[0]}-{lines[1]}"


@dataclass(frozen=True, slots=True)
class Admission:
    """Why a candidate is, or is not, a deterministic rule."""

    decision: str  # admitted | demoted | no-candidate (nothing concrete was proposed)
    gate: str  # the gate that decided (admission.GATES), "" when nothing was proposed
    reason: str  # in words a user can read
    rate: dict | None = None  # breadth: {"fired", "total", "share"} on the bundled ordinary calls

    @classmethod
    def from_json(cls, data: dict | None) -> Admission | None:
        return cls(**data) if data else None


@dataclass(slots=True)
class SourceIR:
    group_id: str
    group_label: str
    file: str
    kind: str  # imperative | imperative-likely | scan-only | mixed
    convention: str
    sha256: str
    precedence: int  # §10: lower wins
    frontmatter: dict = field(default_factory=dict)
    scope: dict = field(default_factory=dict)  # active_when axes for every rule of this source
    role: str = ""
    subtree: str = ""  # folder a nested AGENTS.md speaks for ("" for project-wide files)
    text: str = ""  # the full verbatim source (artifacts quote it; nothing re-reads the file)


@dataclass(slots=True)
class Imperative:
    id: str
    group_id: str
    file: str
    lines: list[int]
    quote: str
    marker: str
    marker_class: str
    polarity: str
    clause: ClauseRecord
    trigger: TriggerRecord | None
    scope: dict  # active_when
    routes: list[str]  # "pass1" | "pass2" | "pass3", in order
    action: Action  # block | ask | warn (Pass 1); block | warn for Pass 2 only
    severity: Severity
    confidence: float
    reasons: list[str]
    suggestion: str = ""
    context: dict = field(default_factory=dict)  # heading and lead line the rule inherits from
    applies_to_roles: list[str] = field(default_factory=list)
    sequence: SequenceRecord | None = None
    pass2_cause: str = ""  # why the rule is not a deterministic one, in words for the policy gate
    admission: Admission | None = None  # which gate admitted or demoted it, and why (IR 1.3; None in older IRs)

    @property
    def rule_trigger(self) -> TriggerRecord:
        """The trigger of a rule that has one: every Pass 1 rule, and every candidate admission weighs."""
        if self.trigger is None:
            raise ValueError(f"{self.id or self.quote!r} has no trigger")
        return self.trigger


@dataclass(slots=True)
class Prose:
    """A Pass 3 block: verbatim text under a definitions, principles or methodology heading."""

    group_id: str
    file: str
    lines: list[int]
    section: str  # definitions | principles | methodology
    heading: str
    text: str


@dataclass(slots=True)
class Skipped:
    group_id: str
    file: str
    lines: list[int]
    quote: str
    marker: str
    marker_class: str  # the skip class: skip-hedged, skip-no-trigger, ...
    reason: str


@dataclass(slots=True)
class PolicyIR:
    distiller: str
    distilled_at: str
    sources: list[SourceIR] = field(default_factory=list)
    imperatives: list[Imperative] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    prose: list[Prose] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    removed: list[dict] = field(default_factory=list)  # {"id", "reason"}: rules whose quote left their file
    dropped: list[dict] = field(default_factory=list)  # {"file", "reason"}: sources §2d skips silently
    overrides: dict = field(default_factory=dict)  # the overrides file applied to this run (§9)
    errors: list[dict] = field(default_factory=list)  # {"file", "message"}
    warnings: list[str] = field(default_factory=list)
    ir_version: str = IR_VERSION

    def skip_counts(self) -> dict[str, int]:
        """`skipped_<class>` -> how many skipped statements have that marker class, sorted by key."""
        counts: dict[str, int] = {}
        for s in self.skipped:
            key = "skipped_" + s.marker_class.removeprefix("skip-").replace("-", "_")
            counts[key] = counts.get(key, 0) + 1
        return dict(sorted(counts.items()))

    def files_scanned(self) -> int:
        """Every file the run read or tried to read, each once: its sources, and each file that could not be read
        unless the last run's copy of it was kept (pipeline.keep_failed: it is a source too)."""
        compiled = {s.file for s in self.sources} | {s.file.removeprefix("~/") for s in self.sources}
        return len(self.sources) + sum(1 for e in self.errors if e.get("file") not in compiled)

    def stats(self) -> dict:
        by_action = {a: sum(1 for i in self.imperatives if "pass1" in i.routes and i.action == a) for a in ("block", "ask", "warn")}
        return {
            "files_scanned": self.files_scanned(),
            "files_failed": len(self.errors),
            "imperatives_found": len(self.imperatives) + len(self.skipped),
            "distilled_block": by_action["block"],
            "distilled_ask": by_action["ask"],
            "distilled_advisory": by_action["warn"],
            "pass2_policies": sum(1 for i in self.imperatives if "pass2" in i.routes),
            "pass2_only": sum(1 for i in self.imperatives if i.routes == ["pass2"]),
            "pass3_prose": sum(1 for i in self.imperatives if "pass3" in i.routes) + len(self.prose),
            **self.skip_counts(),
            "skipped": len(self.skipped),
            "conflicts": len(self.conflicts),
            "removed": len(self.removed),
        }

    def to_json(self) -> dict:
        return self._document(asdict)

    def _document(self, record) -> dict:
        return {
            "ir_version": self.ir_version,
            "distiller": self.distiller,
            "distilled_at": self.distilled_at,
            "sources": [record(s) for s in self.sources],
            "imperatives": [record(i) for i in self.imperatives],
            "skipped": [record(s) for s in self.skipped],
            "prose": [record(p) for p in self.prose],
            "conflicts": self.conflicts,
            "removed": self.removed,
            "dropped": self.dropped,
            "overrides": self.overrides,
            "errors": self.errors,
            "warnings": self.warnings,
            "stats": self.stats(),
        }

    def dumps(self) -> bytes:
        """policy.ir.json as UTF-8 bytes (jsontext.encode)."""
        from .jsontext import encode

        return encode(self._document(lambda record: record))  # orjson reads the dataclasses as asdict would

    @classmethod
    def from_json(cls, data: dict) -> PolicyIR:
        return cls(
            distiller=data["distiller"],
            distilled_at=data["distilled_at"],
            sources=[SourceIR(**s) for s in data["sources"]],
            imperatives=[Imperative(**{**i, "admission": Admission.from_json(i.get("admission"))}) for i in data["imperatives"]],
            skipped=[Skipped(**s) for s in data["skipped"]],
            prose=[Prose(**p) for p in data["prose"]],
            conflicts=list(data["conflicts"]),
            removed=list(data["removed"]),
            dropped=list(data["dropped"]),
            overrides=dict(data["overrides"]),
            errors=list(data["errors"]),
            warnings=list(data.get("warnings", [])),
            ir_version=data["ir_version"],
        )
