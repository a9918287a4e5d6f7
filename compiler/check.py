"""`policyc check`: hook events against the compiled rules, as the harness would decide them.

Reads PreToolUse events (one JSON object a line, the Claude Code hook shape;
`-` is stdin) or the tool calls of Claude Code session transcripts, and
evaluates them with `harness.Evaluator` on distilled-rules.json plus its
overrides. A line that is not an event is unreadable, never allowed. `gate`
stops at the first block or unreadable line and marks the rest not reached;
`audit` evaluates everything and counts attempts per rule. With `cedar`, the
same events also go through cedarpy on the emitted Sondera Cedar, and every
event where the two backends decide differently is reported.

Exit codes: 0 nothing blocked, 3 an event was blocked, 1 an unreadable line
(it wins over 3: the run's verdict is incomplete; in gate mode the run stops at
whichever comes first, so only one of them can happen), 2 usage.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..emitters import registry
from ..emitters.cedar import BACKEND as SONDERA_CEDAR
from ..emitters.cedar_lowering import DEFAULT_TARGET, TARGETS
from .harness import Evaluator
from .hook import HookError, event_problem
from .hook import load_rules as load_compiled
from .ir import lines_label
from .project import Project, UsageError
from .sondera import request

EXIT_BLOCKED = 3
EXIT_UNREADABLE = 1


@dataclass(slots=True)
class Event:
    at: str  # "<file>:<line>" the event came from
    event: dict | None  # None: the line is unreadable
    problem: str = ""


@dataclass(slots=True)
class Report:
    results: list[dict] = field(default_factory=list)  # one per event, in input order
    attempts: Counter = field(default_factory=Counter)  # rule id -> events it blocked, asked or warned on
    disagreements: list[dict] = field(default_factory=list)

    @property
    def blocked(self) -> bool:
        return any(r["decision"] == "block" for r in self.results)

    @property
    def unreadable(self) -> list[dict]:
        return [r for r in self.results if r["decision"] == "error"]

    @property
    def exit_code(self) -> int:
        return EXIT_UNREADABLE if self.unreadable else EXIT_BLOCKED if self.blocked else 0


def read_events(path: str) -> list[Event]:
    """PreToolUse events, one JSON object a line, in order (`-` is stdin); an unreadable line is an
    Event without `event`, with the problem in words."""
    events = []
    name, lines = _lines(path)
    for number, line in lines:
        value, problem = _json(line)
        problem = problem or event_problem(value)
        events.append(Event(f"{name}:{number}", None if problem else value, problem))
    return events


def read_transcripts(paths: list[str]) -> list[Event]:
    """Every tool call of Claude Code session transcripts (JSONL), as PreToolUse events.

    A call is a `tool_use` item (name, input) in the content of an `assistant`
    line's message; every other line is skipped. A line that is not JSON, or a
    call that is not a tool call's shape (no name, input not an object), is
    unreadable."""
    events = []
    for path in paths:
        name, lines = _lines(path)
        for number, line in lines:
            entry, problem = _json(line)
            if problem:
                events.append(Event(f"{name}:{number}", None, problem))
                continue
            for call in _tool_calls(entry):
                event = {"hook_event_name": "PreToolUse", "tool_name": call.get("name"), "tool_input": call.get("input"),
                         "tool_use_id": call.get("id"), "session_id": entry.get("sessionId"), "cwd": entry.get("cwd")}
                problem = event_problem(event)
                events.append(Event(f"{name}:{number}", None if problem else event, problem))
    return events


def _tool_calls(entry) -> list[dict]:
    if not isinstance(entry, dict) or entry.get("type") != "assistant" or not isinstance(entry.get("message"), dict):
        return []
    content = entry["message"].get("content")
    return [item for item in content if isinstance(item, dict) and item.get("type") == "tool_use"] if isinstance(content, list) else []


def _lines(path: str) -> tuple[str, list[tuple[int, bytes]]]:
    """(name for messages, numbered non-blank lines) of a file, or of stdin for `-`."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the events: {exc.strerror}") from None
    return ("<stdin>" if path == "-" else path), [(n, line) for n, line in enumerate(data.split(b"\n"), 1) if line.strip()]


def _json(line: bytes) -> tuple[Any, str]:
    try:
        return json.loads(line.decode("utf-8")), ""
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 (byte {exc.start})"
    except RecursionError:
        return None, "not JSON: nested too deeply"
    except ValueError as exc:
        return None, f"not JSON: {exc}"


def load_rules(project: Project) -> list[dict]:
    """The rules as the harness loads them (overrides applied), checked as the hook checks them."""
    try:
        rules = load_compiled(project.rules(), project.overrides)
    except HookError as exc:
        raise UsageError(str(exc)) from None
    if rules is None:
        raise UsageError(f"no {project.rules().name} in {project.out}; run `policyc compile` first")
    return rules


def cedar_policies(project: Project) -> tuple[str, str]:
    """Sondera's policy set for the run and its target: default-permit and every `<group>.cedar` the run wrote.

    The comparison builds the requests of the Sondera version the policies target (v1 or v2)."""
    doc = project.load_rules()
    target = doc.get("cedar_target", DEFAULT_TARGET)
    if target not in TARGETS or not target.startswith("sondera"):
        raise UsageError(f"--cedar: the policies target {target!r}, which is not a Sondera schema")
    files = [project.out / p for p in sorted(doc["policies_emitted"]) if registry.backend_of(p) is SONDERA_CEDAR]
    return '@id("default-permit")\npermit (principal, action, resource);\n' + "".join(
        p.read_text(encoding="utf-8") for p in files if p.is_file()), target  # a file that failed validation was not written


def run(events: list[Event], rules: list[dict], gate: bool = True, cedar_policies: tuple[str, str] | None = None) -> Report:
    evaluator = Evaluator(rules)
    by_id = {r["id"]: r for r in rules}
    report = Report()
    stopped = False
    for index, item in enumerate(events):
        result = {"index": index, "at": item.at, "decision": "not-reached", "rule_id": None, "warnings": []}
        report.results.append(result)
        if stopped:
            continue
        if item.event is None:
            result.update(decision="error", error=item.problem)
            stopped = gate
            continue
        decision = evaluator.evaluate(item.event)
        result.update(decision=decision.decision, rule_id=decision.rule_id, warnings=decision.warnings)
        if decision.rule_id:
            rule = by_id[decision.rule_id]
            source = rule.get("source", {})
            result.update(reason=decision.reason, quote=source.get("quote", ""), source_file=source.get("file"), source_lines=source.get("lines"))
            report.attempts[decision.rule_id] += 1
        for rule_id in decision.warnings:
            report.attempts[rule_id] += 1
        if decision.defects:
            result["harness_defects"] = decision.defects
        if cedar_policies is not None:
            _compare(report, index, item.event, decision.decision, cedar_policies)
        stopped = gate and decision.decision == "block"
    return report


def _compare(report: Report, index: int, event: dict, decision: str, cedar: tuple[str, str]) -> None:
    import cedarpy  # only --cedar needs it

    policies, target = cedar
    req = request(event, target)
    if req is None:
        return
    result = cedarpy.is_authorized(req, policies, [])
    cedar_denies = result.decision == cedarpy.Decision.Deny
    if cedar_denies != (decision == "block") or result.diagnostics.errors:
        report.disagreements.append({"index": index, "guardrules": decision, "cedar": "deny" if cedar_denies else "allow",
                                     "cedar_errors": [str(e) for e in result.diagnostics.errors]})


def render(report: Report, gate: bool) -> str:
    out = []
    for r in report.results:
        line = f"#{r['index']:<4} {r['decision']:<11}"
        if r["rule_id"]:
            line += f" {r['rule_id']}"
        if r["warnings"]:
            line += f"  warnings: {', '.join(r['warnings'])}"
        out.append(line.rstrip())
        if r["decision"] in ("block", "ask"):
            out.append(f"      source: {r['source_file']}:{lines_label(r['source_lines'])} \"{r['quote']}\"")
        if r["decision"] == "error":
            out.append(f"      {r['at']}: {r['error']}")
        for defect in r.get("harness_defects", []):
            out.append(f"      harness defect: {defect}")
    out.append("")
    stop = next((r for r in report.results if r["decision"] in ("block", "error")), None)
    if gate and stop and stop["decision"] == "block":
        out.append(f"Halted at event #{stop['index']} ({stop['at']}): {stop['rule_id']} — \"{stop['quote']}\"")
    elif gate and stop:
        out.append(f"Halted at event #{stop['index']}: {stop['at']} is unreadable")
    if not gate:
        out.append("Attempts per rule:")
        out += [f"  {count:>5}  {rule_id}" for rule_id, count in sorted(report.attempts.items(), key=lambda kv: (-kv[1], kv[0]))]
    for d in report.disagreements:
        out.append(f"Cedar disagrees at event #{d['index']}: GuardRules {d['guardrules']}, Cedar {d['cedar']}")
    counts = Counter(r["decision"] for r in report.results)
    out.append(", ".join(f"{counts[k]} {k}" for k in ("allow", "block", "ask", "not-reached", "error") if counts[k]) or "no events")
    return "\n".join(out) + "\n"

