"""`policyc check`: hook events against the compiled rules, as the harness would decide them.

Reads PreToolUse events (one JSON object a line, the Claude Code hook shape)
and evaluates them with `harness.Evaluator` on distilled-rules.json plus its
overrides. `gate` stops at the first block and marks the rest not reached;
`audit` evaluates everything and counts attempts per rule. With `cedar`, the
same events also go through cedarpy on the emitted Sondera Cedar, and every
event where the two backends decide differently is reported.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from . import overrides as overrides_file
from .harness import Evaluator
from .project import Project, UsageError
from .sondera import request

EXIT_BLOCKED = 3


@dataclass(slots=True)
class Report:
    results: list[dict] = field(default_factory=list)  # one per event, in input order
    attempts: Counter = field(default_factory=Counter)  # rule id -> events it blocked, asked or warned on
    disagreements: list[dict] = field(default_factory=list)

    @property
    def blocked(self) -> bool:
        return any(r["decision"] == "block" for r in self.results)


def read_events(path: Path) -> tuple[list[dict | None], list[str]]:
    """Events in order; a line that is not a JSON object is None, with a one-line error."""
    events, errors = [], []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the events: {exc}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
            if not isinstance(event, dict):
                raise ValueError("not a JSON object")
            events.append(event)
        except (ValueError, RecursionError) as exc:
            events.append(None)
            errors.append(f"{path}:{number}: not an event: {exc if isinstance(exc, ValueError) else 'nested too deeply'}")
    return events, errors


def load_rules(project: Project) -> tuple[list[dict], dict]:
    """The rules as the harness loads them (overrides applied), and the distilled-rules document."""
    doc = project.load_rules()
    overrides = overrides_file.load(project.overrides)
    rules = [overrides.apply(r) for r in doc["rules"] if r["source"]["group_id"] not in overrides.removed_groups]
    return rules, doc


def cedar_policies(project: Project, doc: dict) -> str:
    """Sondera's policy set for the run: default-permit and every `<group>.cedar` the run wrote.

    The comparison builds Sondera v1 requests (peers.md §4.3), so it needs v1 policies."""
    target = doc.get("cedar_target", "sondera-v1")
    if target != "sondera-v1":
        raise UsageError(f"--cedar compares against Sondera v1 requests, but the policies target {target}; "
                         "compile with --cedar-target sondera-v1 first")
    files = [project.out / p for p in sorted(doc["policies_emitted"]) if p.endswith(".cedar") and not p.endswith(".interlinked.cedar")]
    return '@id("default-permit")\npermit (principal, action, resource);\n' + "".join(
        p.read_text(encoding="utf-8") for p in files if p.is_file())  # a file that failed validation was not written


def run(events: list[dict | None], rules: list[dict], gate: bool = True, cedar_policies: str | None = None) -> Report:
    evaluator = Evaluator(rules)
    quotes = {r["id"]: r["source"]["quote"] for r in rules}
    report = Report()
    stopped = False
    for index, event in enumerate(events):
        if event is None:
            report.results.append({"index": index, "decision": "error", "rule_id": None, "warnings": []})
            continue
        if stopped:
            report.results.append({"index": index, "decision": "not-reached", "rule_id": None, "warnings": []})
            continue
        decision = evaluator.evaluate(event)
        result = {"index": index, "decision": decision.decision, "rule_id": decision.rule_id, "warnings": decision.warnings}
        if decision.rule_id:
            result["quote"] = quotes.get(decision.rule_id, "")
            report.attempts[decision.rule_id] += 1
        for rule_id in decision.warnings:
            report.attempts[rule_id] += 1
        if decision.defects:
            result["harness_defects"] = decision.defects
        if cedar_policies is not None:
            _compare(report, index, event, decision.decision, cedar_policies)
        report.results.append(result)
        stopped = gate and decision.decision == "block"
    return report


def _compare(report: Report, index: int, event: dict, decision: str, policies: str) -> None:
    import cedarpy  # only --cedar needs it

    req = request(event)
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
            out.append(f"      source: \"{r['quote']}\"")
        for defect in r.get("harness_defects", []):
            out.append(f"      harness defect: {defect}")
    blocks = [r for r in report.results if r["decision"] == "block"]
    out.append("")
    if gate and blocks:
        first = blocks[0]
        out.append(f"Halted at event #{first['index']}: {first['rule_id']} — \"{first['quote']}\"")
    if not gate:
        out.append("Attempts per rule:")
        out += [f"  {count:>5}  {rule_id}" for rule_id, count in sorted(report.attempts.items(), key=lambda kv: (-kv[1], kv[0]))]
    for d in report.disagreements:
        out.append(f"Cedar disagrees at event #{d['index']}: GuardRules {d['guardrules']}, Cedar {d['cedar']}")
    counts = Counter(r["decision"] for r in report.results)
    out.append(", ".join(f"{counts[k]} {k}" for k in ("allow", "block", "ask", "not-reached", "error") if counts[k]))
    return "\n".join(out) + "\n"
