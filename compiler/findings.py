"""Findings of a compile or a diff, as SARIF 2.1.0 (code scanning) or GitHub workflow commands (annotations).

Each finding class has a stable rule id (`policyc/weakens`, `policyc/skipped`, ...), a level and
the source file and lines it is about. Its fingerprint hashes the class and what it is about (a
rule id, or for sentences without one the file and quote), not the line, so a finding keeps its
identity while the file around it moves.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from ..emitters.plan import plan
from .ir import PolicyIR
from .pipeline import distiller_name

# rule id -> (name, level, what it means, in words a reviewer can act on)
CLASSES = {
    "policyc/source-error": ("SourceError", "error", "A rule file could not be read; none of its rules are enforced."),
    "policyc/self-check": ("SelfCheckFailed", "error",
                           "A generated rule failed policyc's self-checks; nothing was written for the run (or that Cedar file)."),
    "policyc/pass2-demotion": ("DemotedToPass2", "warning",
                               "A rule with a concrete trigger is not enforced deterministically: it goes to the LLM policy gate only."),
    "policyc/hedged": ("HedgedImperative", "note", "A hedged sentence (may, might, could) is not enforced; say never or must to enforce it."),
    "policyc/skipped": ("SkippedImperative", "note", "A sentence that reads like a rule is not enforced."),
    "policyc/approximate-cedar": ("ApproximateCedar", "note",
                                  "The Sondera Cedar of a rule matches approximately; the GuardRule stays the precise floor."),
    "policyc/stale-artifact": ("StaleArtifact", "error",
                               "A generated artifact is not what the rule files compile to; run `policyc compile` and commit it."),
    "policyc/weakens": ("EnforcementWeakened", "warning", "A change makes a rule match less, act softer or stop being deterministic."),
    "policyc/removed": ("RuleRemoved", "warning", "A rule that was enforced is gone."),
}


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str  # a key of CLASSES
    message: str
    file: str = ""
    lines: tuple[int, ...] = (0, 0)  # first and last
    subject: str = ""  # what the finding is about (rule id, or file and quote): the fingerprint's input

    @property
    def level(self) -> str:
        return CLASSES[self.rule][1]

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256(f"{self.rule}\0{self.subject or self.message}".encode()).hexdigest()[:32]


# --- what a compile and a diff find ---

def compile_findings(ir: PolicyIR, failures: list[str], target: str) -> list[Finding]:
    by_id = {i.id: i for i in ir.imperatives}
    out = [Finding("policyc/source-error", e["message"], e.get("file", ""), subject=e.get("file", "")) for e in ir.errors]
    for failure in failures:  # "<rule id>: <problem>" or "<cedar path>#<policy id>: <problem>"
        where, _, problem = failure.partition(": ")
        imp = by_id.get(where.rsplit("#", 1)[-1].removesuffix("-shell"))
        out.append(Finding("policyc/self-check", f"{where}: {problem}", imp.file if imp else "",
                           tuple(imp.lines) if imp else (0, 0), subject=failure))
    for imp in ir.imperatives:
        if imp.trigger is not None and "pass1" not in imp.routes and "pass2" in imp.routes:
            out.append(Finding("policyc/pass2-demotion", f"{imp.id}: not enforced deterministically because {imp.pass2_cause}: "
                                                          f"\"{imp.quote}\"", imp.file, tuple(imp.lines), imp.id))
    for item in ir.skipped:
        rule = "policyc/hedged" if item.marker_class == "skip-hedged" else "policyc/skipped"
        out.append(Finding(rule, f"not enforced ({item.reason}): \"{item.quote}\"", item.file, tuple(item.lines),
                           f"{item.file}\0{item.quote}"))
    for group in plan(ir, target):
        for entry in group.entries:
            policies = entry.policies("cedar")
            notes = sorted({n for p in policies if p.approximate for n in p.notes})
            if any(p.approximate for p in policies):
                imp = entry.imperative
                out.append(Finding("policyc/approximate-cedar", f"{imp.id}: the {target} Cedar is approximate"
                                   + (f" ({'; '.join(notes)})" if notes else ""), imp.file, tuple(imp.lines), imp.id))
    return sorted(out, key=lambda f: (f.file, f.lines, f.rule, f.message))


def diff_findings(result: dict) -> list[Finding]:
    out = [Finding("policyc/removed", f"{r['id']}: the {r['action']} rule is gone: \"{r['quote']}\"", r["file"],
                   tuple(r["lines"]), r["id"]) for r in result["removed"]]
    for change in result["changed"]:
        if change["weakens"]:
            out.append(Finding("policyc/weakens", f"{change['id']}: enforcement weakens: {'; '.join(change['why'])}",
                               change["file"], tuple(change["lines"]), change["old_id"]))
    return sorted(out, key=lambda f: (f.file, f.lines, f.rule, f.message))


# --- renderings ---

def to_sarif(findings: list[Finding]) -> dict:
    """One SARIF 2.1.0 log with one run; locations are relative to the project root (%SRCROOT%)."""
    used = sorted({f.rule for f in findings})
    rules = [{"id": rule, "name": CLASSES[rule][0], "shortDescription": {"text": CLASSES[rule][2]},
              "defaultConfiguration": {"level": CLASSES[rule][1]}} for rule in used]
    results = []
    for finding in findings:
        result = {"ruleId": finding.rule, "ruleIndex": used.index(finding.rule), "level": finding.level,
                  "message": {"text": finding.message}, "fingerprints": {"policyc/v1": finding.fingerprint}}
        if finding.file:
            region = {"startLine": finding.lines[0], "endLine": finding.lines[1]} if finding.lines[0] else {}
            location = {"artifactLocation": {"uri": finding.file, "uriBaseId": "%SRCROOT%"}}
            result["locations"] = [{"physicalLocation": {**location, **({"region": region} if region else {})}}]
        results.append(result)
    driver = {"name": "policyc", "semanticVersion": distiller_name().split("@", 1)[1], "rules": rules}
    return {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
            "runs": [{"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": results}]}


def render_sarif(findings: list[Finding]) -> str:
    return json.dumps(to_sarif(findings), indent=2, ensure_ascii=False) + "\n"


_LEVEL_COMMAND = {"error": "error", "warning": "warning", "note": "notice"}


def _escape(text: str, property_value: bool = False) -> str:
    """GitHub's workflow-command escaping (data: %, CR, LF; property values also : and ,)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if property_value else text


def render_github(findings: list[Finding]) -> str:
    """One `::error|warning|notice file=…,line=…,endLine=…,title=…::message` line per finding."""
    lines = []
    for finding in findings:
        props = []
        if finding.file:
            props.append(f"file={_escape(finding.file, True)}")
            if finding.lines[0]:
                props += [f"line={finding.lines[0]}", f"endLine={finding.lines[1]}"]
        props.append(f"title={_escape(finding.rule, True)}")
        lines.append(f"::{_LEVEL_COMMAND[finding.level]} {','.join(props)}::{_escape(finding.message)}")
    return "".join(line + "\n" for line in lines)
