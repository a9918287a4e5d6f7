"""The policy IR: what every emitter reads, serialised as policy.ir.json.

Versioned (IR_VERSION) and described by schemas/ir.schema.json. Every record is
a dataclass and every closed vocabulary an enum (a StrEnum: it compares and
serialises as its string); `PolicyIR.from_json` reads the versions in READS,
upgrading older ones into the current records. Serialisation is deterministic:
fixed key order, sources sorted by file, imperatives in source order, and no
timestamp except `distilled_at`.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

IR_VERSION = "1.4"
# 1.2 added Imperative.pass2_cause; 1.3 Imperative.admission; 1.4 types the records: a lexicon trigger's kind is
# "prose" with the entry in `lexicon` (was "prose:<id>"), every pattern names its flags, and a conflict always
# lists the ids it overrides with the action and severity it settles on. from_json upgrades 1.0 to 1.3.
READS = ("1.0", "1.1", "1.2", "1.3", IR_VERSION)


class Route(enum.StrEnum):
    """The passes an imperative goes to (in this order in Imperative.routes)."""

    PASS1 = "pass1"  # a deterministic GuardRule
    PASS2 = "pass2"  # the LLM policy gate (policy.md, Cedar)
    PASS3 = "pass3"  # the reviewer's prose


PASS1, PASS2, PASS3 = Route.PASS1, Route.PASS2, Route.PASS3


class Action(enum.StrEnum):
    """What an imperative's rule does (soft_block and rewrite exist only in the user's overrides)."""

    BLOCK = "block"
    ASK = "ask"
    WARN = "warn"


class Severity(enum.StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


# How much each action stops the agent: picks conflict winners and spots weakening (overrides' actions too).
STRICTNESS = {"block": 4, "ask": 3, "soft_block": 2, "warn": 1}
SEVERITY_RANK = tuple(Severity)  # low to critical


class TriggerKind(enum.StrEnum):
    """What a Pass 1 rule watches: the kind of tool call its patterns read."""

    COMMAND = "command"  # a shell command named in the sentence
    REQUIRED_FORM = "required-form"  # a command run without the flags the sentence requires
    PATH = "path"  # a file path edited or written
    CONTENT = "content"  # text written into a file
    MCP = "mcp"  # an MCP tool
    OMP_CONDITION = "omp-condition"  # an OMP rule's own condition regexes
    PROSE = "prose"  # a grammar/lexicon.yaml prose entry read from the words; Trigger.lexicon names it


class ClauseObjectKind(enum.StrEnum):
    CODE = "code"  # `inline code`
    PATH = "path"  # a path-like token
    WORD = "word"  # a program named in plain words


class Decision(enum.StrEnum):
    ADMITTED = "admitted"
    DEMOTED = "demoted"
    NO_CANDIDATE = "no-candidate"  # nothing concrete was proposed


class Gate(enum.StrEnum):
    """The admission gate that decided (compiler/admission.py GATES, in order)."""

    NONE = ""  # every gate admitted it, or nothing was proposed
    SOURCE = "source"
    POLARITY = "polarity"
    OBJECT = "object"
    KIND = "kind"
    SCOPE = "scope"
    BREADTH = "breadth"
    LOADABLE = "loadable"


E = TypeVar("E", bound=enum.StrEnum)


def _by_value(kind: type[E]) -> dict[str, E]:
    """Reading JSON: an enum's members by value (a dict lookup; calling the enum is five times slower)."""
    return {member.value: member for member in kind}


_ROUTES, _ACTIONS, _SEVERITIES = _by_value(Route), _by_value(Action), _by_value(Severity)
_TRIGGER_KINDS, _OBJECT_KINDS = _by_value(TriggerKind), _by_value(ClauseObjectKind)
_DECISIONS, _GATES = _by_value(Decision), _by_value(Gate)


def proposed_routes(concrete: bool) -> list[Route]:
    """A sentence with a concrete trigger proposes a Pass 1 rule, mirrored for the policy gate; any other is Pass 2 only."""
    return [PASS1, PASS2] if concrete else [PASS2]


def with_reviewer(routes: list[Route]) -> list[Route]:
    """A rule that also informs the Pass 3 reviewer (quality and principle rules that are not Pass 1)."""
    return [*routes, PASS3]


def demoted_routes(routes: list[Route]) -> list[Route]:
    """What admission leaves of a demoted candidate's routes: no Pass 1, always Pass 2."""
    kept = [r for r in routes if r != PASS1]
    return kept if PASS2 in kept else [*kept, PASS2]


# The reason of a sentence with too many rule words or names to read as one rule (compiler/extract.py).
RUN_ON = "a run-on sentence with more rules than one sentence can hold"

# The nested records. Frozen, their sequences tuples. A record whose empty optional fields the IR leaves out
# writes its own JSON (`to_json`); orjson writes the others itself. Those have no __slots__: orjson reads a
# dataclass's __dict__ directly, but fetches a slotted one's fields one by one, five times slower (measured:
# 1.5 against 0.3 µs for a two-field record). Nothing goes through dataclasses.asdict: its deep copy made
# writing the IR slow.


@dataclass(frozen=True, slots=True)
class Pattern:
    """One regex of a trigger on one field of the tool call; `negate`d patterns are exceptions."""

    field: str
    regex: str
    flags: str = "i"  # JavaScript flags ("" or "i")
    negate: bool = False

    def to_json(self) -> dict[str, Any]:
        if self.negate:
            return {"field": self.field, "regex": self.regex, "flags": self.flags, "negate": True}
        return {"field": self.field, "regex": self.regex, "flags": self.flags}

    @classmethod
    def from_json(cls, data: dict) -> Pattern:
        return cls(data["field"], data["regex"], data.get("flags", "i"), data.get("negate", False))  # 1.3: flags absent means "i"


def kind_label(kind: TriggerKind, lexicon: str) -> str:
    return f"{kind}:{lexicon}" if lexicon else str(kind)


@dataclass(frozen=True, slots=True)
class TriggerRecord:
    """Imperative.trigger: the observable trigger of a Pass 1 rule (triggers.Trigger.record)."""

    kind: TriggerKind
    tool_match: tuple[str, ...]
    patterns: tuple[Pattern, ...]
    # A prose trigger's grammar/lexicon.yaml entry id ("" for other kinds). Its own field rather than a
    # "prose:<id>" kind: the kinds stay a closed set a reader can match exhaustively, and the entry, which
    # grows with the lexicon, is data a reader looks up (conflicts read its `within`) without parsing a string.
    lexicon: str = ""
    values: tuple[str, ...] = ()  # the commands, globs or identifiers it was built from
    keywords: tuple[str, ...] = ()
    summary: str = ""  # words for the rule id
    suggestion: str = ""
    interpreted: bool = False  # the trigger needed interpretation (confidence 0.7)
    file_scope: str = ""

    @property
    def label(self) -> str:
        """The kind in words for reasons and explanations: "command", "prose:force-push"."""
        return kind_label(self.kind, self.lexicon)

    def patterns_json(self) -> list[dict[str, Any]]:
        """The patterns as a GuardRule holds them (and the harness's evaluator reads them)."""
        return [p.to_json() for p in self.patterns]

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"kind": self.kind}
        if self.lexicon:
            record["lexicon"] = self.lexicon
        record["tool_match"] = self.tool_match
        record["patterns"] = self.patterns_json()
        for key in ("values", "keywords", "summary", "suggestion", "interpreted", "file_scope"):
            if value := getattr(self, key):
                record[key] = value
        return record

    @classmethod
    def from_json(cls, data: dict) -> TriggerRecord:
        """Its record, from JSON that leaves out empty fields; a 1.3 "prose:<lexicon id>" kind is split in two."""
        record = dict(data)
        for key, value in data.items():
            if type(value) is list:
                record[key] = tuple(value)
        kind = data["kind"]
        if kind.startswith("prose:"):  # IR 1.3 and older
            kind, record["lexicon"] = TriggerKind.PROSE, kind.removeprefix("prose:")
        record["kind"] = _TRIGGER_KINDS[kind]
        record["patterns"] = tuple(Pattern.from_json(p) for p in data["patterns"])
        return cls(**record)


@dataclass(frozen=True)  # no slots: orjson writes it
class ClauseObject:
    """A thing a sentence names: its inline code, a path, or a program in plain words."""

    kind: ClauseObjectKind
    text: str


@dataclass(frozen=True, slots=True)
class ClauseRecord:
    """Imperative.clause: what the compiler read from the sentence (clauses.Clause.record)."""

    marker: str
    marker_class: str
    caps: bool = False
    inherited: bool = False  # the marker is a heading's or lead line's
    verb: str = ""
    objects: tuple[ClauseObject, ...] = ()
    instead_of: tuple[ClauseObject, ...] = ()
    rejected: str = ""  # the words of a positive clause's rejected side ("not to upstream")
    alternatives: tuple[ClauseObject, ...] = ()
    examples: tuple[ClauseObject, ...] = ()
    asides: tuple[ClauseObject, ...] = ()
    qualifiers: tuple[str, ...] = ()
    purpose: str = ""
    exceptions: tuple[ClauseObject, ...] = ()
    condition: str = ""
    sequence: str = ""
    file_scope: tuple[str, ...] = ()
    headed: bool = False

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"marker": self.marker, "marker_class": self.marker_class}
        record.update((key, value) for key, value in zip(_CLAUSE_OPTIONAL, _clause_optional(self)) if value)
        return record

    @classmethod
    def from_json(cls, data: dict) -> ClauseRecord:
        """Its record, from JSON that leaves out empty fields (every field but marker and marker_class may be absent)."""
        objects, words = _CLAUSE_OBJECTS.intersection(data), _CLAUSE_WORDS.intersection(data)
        if not objects and not words:
            return cls(**data)
        record = dict(data)
        for key in objects:
            record[key] = tuple(ClauseObject(_OBJECT_KINDS[o["kind"]], o["text"]) for o in data[key])
        for key in words:
            record[key] = tuple(data[key])
        return cls(**record)


_CLAUSE_OPTIONAL = ClauseRecord.__match_args__[2:]  # every field but marker and marker_class, in order
_clause_optional = operator.attrgetter(*_CLAUSE_OPTIONAL)
_CLAUSE_OBJECTS = frozenset({"objects", "instead_of", "alternatives", "examples", "asides", "exceptions"})
_CLAUSE_WORDS = frozenset({"qualifiers", "file_scope"})


@dataclass(frozen=True)  # no slots: orjson writes it
class SequenceRecord:
    """Imperative.sequence, "always X before Y": the closing event, its regex and the commands that must come first."""

    event: str
    regex: str
    requires: tuple[str, ...]

    @classmethod
    def from_json(cls, data: dict | None) -> SequenceRecord | None:
        return cls(data["event"], data["regex"], tuple(data["requires"])) if data else None


@dataclass(frozen=True)  # no slots: orjson writes it
class Conflict:
    """PolicyIR.conflicts: a rule that speaks for the rules it overrides (conflicts.resolve)."""

    id: str
    winning_source: str  # file:line
    overridden_sources: tuple[str, ...]
    overridden_ids: tuple[str, ...]  # the losers: compiler/resolve.py keeps them out of every artifact
    resolution: str
    action: Action  # the strictest of all
    severity: Severity  # the highest of all

    def to_json(self) -> dict[str, Any]:
        """As distilled-rules.json lists it (the same fields as the IR's)."""
        return {"id": self.id, "winning_source": self.winning_source, "overridden_sources": list(self.overridden_sources),
                "overridden_ids": list(self.overridden_ids), "resolution": self.resolution, "action": self.action,
                "severity": self.severity}


@dataclass(frozen=True)  # no slots: orjson writes it
class AdmissionRate:
    """Breadth: how many of the bundled ordinary tool calls a candidate fires on."""

    fired: int
    total: int
    share: float  # fired / total, rounded to 4 places


def lines_label(lines: list[int]) -> str:
    """[4, 4] -> "4"; [4, 6] -> "4-6"."""
    return str(lines[0]) if lines[0] == lines[1] else f"{lines[0]}-{lines[1]}"


@dataclass(frozen=True)  # no slots: orjson writes it
class Admission:
    """Why a candidate is, or is not, a deterministic rule."""

    decision: Decision
    gate: Gate  # the gate that decided, NONE when every gate admitted it or nothing was proposed
    reason: str  # in words a user can read
    rate: AdmissionRate | None = None  # breadth on the bundled ordinary calls

    @classmethod
    def from_json(cls, data: dict | None) -> Admission | None:
        if not data:
            return None
        rate = data.get("rate")
        return cls(_DECISIONS[data["decision"]], _GATES[data["gate"]], data["reason"], AdmissionRate(**rate) if rate else None)


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
    routes: list[Route]  # in order
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

    def to_json(self) -> dict[str, Any]:
        """Its JSON, field by field (orjson writes the sequence and admission records itself)."""
        return {
            "id": self.id, "group_id": self.group_id, "file": self.file, "lines": self.lines, "quote": self.quote,
            "marker": self.marker, "marker_class": self.marker_class, "polarity": self.polarity,
            "clause": self.clause.to_json(), "trigger": self.trigger.to_json() if self.trigger else None,
            "scope": self.scope, "routes": self.routes, "action": self.action, "severity": self.severity,
            "confidence": self.confidence, "reasons": self.reasons, "suggestion": self.suggestion, "context": self.context,
            "applies_to_roles": self.applies_to_roles, "sequence": self.sequence, "pass2_cause": self.pass2_cause,
            "admission": self.admission,
        }

    @classmethod
    def from_json(cls, data: dict) -> Imperative:
        trigger = data["trigger"]
        return cls(
            data["id"], data["group_id"], data["file"], data["lines"], data["quote"], data["marker"], data["marker_class"],
            data["polarity"], ClauseRecord.from_json(data["clause"]), TriggerRecord.from_json(trigger) if trigger else None,
            data["scope"], [_ROUTES[r] for r in data["routes"]], _ACTIONS[data["action"]], _SEVERITIES[data["severity"]],
            data["confidence"], data["reasons"], data.get("suggestion", ""), data.get("context", {}),
            data.get("applies_to_roles", []), SequenceRecord.from_json(data.get("sequence")), data.get("pass2_cause", ""),
            Admission.from_json(data.get("admission")),
        )

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

    def counts(self) -> dict[str, int]:
        """The counts that conflicts and overrides do not change (shared by stats() and resolve.Stats)."""
        return {
            "files_scanned": self.files_scanned(),
            "files_failed": len(self.errors),
            "imperatives_found": len(self.imperatives) + len(self.skipped),
            "pass2_only": sum(1 for i in self.imperatives if i.routes == [PASS2]),
            "skipped": len(self.skipped),
            "conflicts": len(self.conflicts),
            "removed": len(self.removed),
        }

    def stats(self) -> dict[str, int]:
        """The run as extracted: every Pass 1 rule by its own action, before conflicts and overrides (resolve.Stats: after)."""
        counts = self.counts()
        by_action = count_actions(i.action for i in self.imperatives if PASS1 in i.routes)
        return {
            "files_scanned": counts["files_scanned"],
            "files_failed": counts["files_failed"],
            "imperatives_found": counts["imperatives_found"],
            "distilled_block": by_action[Action.BLOCK],
            "distilled_ask": by_action[Action.ASK],
            "distilled_advisory": by_action[Action.WARN],
            "pass2_policies": sum(1 for i in self.imperatives if PASS2 in i.routes),
            "pass2_only": counts["pass2_only"],
            "pass3_prose": prose_entries(self, (i for i in self.imperatives if PASS3 in i.routes)),
            **self.skip_counts(),
            "skipped": counts["skipped"],
            "conflicts": counts["conflicts"],
            "removed": counts["removed"],
        }

    def dumps(self) -> bytes:
        """policy.ir.json as UTF-8 bytes (jsontext.encode), always in the current version's shape.

        orjson writes the dataclasses without empty optional fields itself; the imperatives, whose
        clause, trigger and patterns leave empty fields out, write their own (Imperative.to_json)."""
        from .jsontext import encode

        return encode({
            "ir_version": IR_VERSION,
            "distiller": self.distiller,
            "distilled_at": self.distilled_at,
            "sources": self.sources,
            "imperatives": [i.to_json() for i in self.imperatives],
            "skipped": self.skipped,
            "prose": self.prose,
            "conflicts": self.conflicts,
            "removed": self.removed,
            "dropped": self.dropped,
            "overrides": self.overrides,
            "errors": self.errors,
            "warnings": self.warnings,
            "stats": self.stats(),
        })

    @classmethod
    def from_json(cls, data: dict) -> PolicyIR:
        """An IR of any version this policyc reads (READS), upgraded into the current records; `ir_version` keeps
        the version read (pipeline reuses only a current IR's items)."""
        version = data["ir_version"]
        if version not in READS:
            raise ValueError(f"IR version {version} is not one this policyc reads ({', '.join(READS)})")
        imperatives = [Imperative.from_json(i) for i in data["imperatives"]]
        return cls(
            distiller=data["distiller"],
            distilled_at=data["distilled_at"],
            sources=[SourceIR(**s) for s in data["sources"]],
            imperatives=imperatives,
            skipped=[Skipped(**s) for s in data["skipped"]],
            prose=[Prose(**p) for p in data["prose"]],
            conflicts=[_conflict(c, imperatives, version) for c in data["conflicts"]],
            removed=list(data["removed"]),
            dropped=list(data["dropped"]),
            overrides=dict(data["overrides"]),
            errors=list(data["errors"]),
            warnings=list(data.get("warnings", [])),
            ir_version=version,
        )


def plain(record: Any) -> Any:
    """A record (or data holding records) as plain JSON data, for the json module (`explain`, `show`)."""
    import orjson

    return orjson.loads(orjson.dumps(record))


def count_actions(actions: Iterable[str]) -> dict[str, int]:
    """How many of `actions` are block, ask and warn (another action, an override's, counts in none)."""
    found = list(actions)
    return {a: found.count(a) for a in Action}


def prose_entries(ir: PolicyIR, principles: Iterable[object]) -> int:
    """What the Pass 3 prose.md files hold: the IR's prose blocks and the `principles`."""
    return len(ir.prose) + sum(1 for _ in principles)


def _conflict(data: dict, imperatives: list[Imperative], version: str) -> Conflict:
    """A conflict record; an IR older than 1.4 may lack the ids it overrides (1.1) or the action it settles on.

    The ids are found from the overridden sources (file:line of each loser's first line), so an upgraded
    conflict still keeps its losers out of the artifacts; the action and severity are the strictest of the
    winner's and the losers', as conflicts.resolve settles them. A 1.4 conflict must carry all of them."""
    if version == IR_VERSION or {"overridden_ids", "action", "severity"} <= data.keys():
        return Conflict(data["id"], data["winning_source"], tuple(data["overridden_sources"]), tuple(data["overridden_ids"]),
                        data["resolution"], Action(data["action"]), Severity(data["severity"]))
    ids = data.get("overridden_ids")
    if ids is None:
        sources = set(data["overridden_sources"])
        ids = [i.id for i in imperatives if f"{i.file}:{i.lines[0]}" in sources]
    members = [i for i in imperatives if i.id == data["id"] or i.id in ids]
    action = data.get("action") or max((i.action for i in members), key=STRICTNESS.__getitem__, default=Action.BLOCK)
    severity = data.get("severity") or max((i.severity for i in members), key=SEVERITY_RANK.index, default=Severity.CRITICAL)
    return Conflict(data["id"], data["winning_source"], tuple(data["overridden_sources"]), tuple(ids), data["resolution"],
                    Action(action), Severity(severity))
