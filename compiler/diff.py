"""`policyc diff`: what a rulebook change does to enforcement.

Compares every enforced rule of two IRs: the deterministic ones (Pass 1,
distilled-rules.json) and those only the policy gate sees (Pass 2,
policy.md). Rules are matched by id, then by quote and trigger similarity,
so an edited sentence shows as changed, not as one rule removed and another
added. A change weakens enforcement unless it provably does not: an action
that got softer, tools dropped, a trigger the new one does not cover (a
narrower command or path, a different pattern), a scope that limits where
the rule applies, or a rule that left Pass 1 (the gate is not deterministic);
a removed rule weakens too. Every entry names its file and lines.
"""

from __future__ import annotations

import difflib
import subprocess
from pathlib import Path

from .conflicts import command_prefixes, prefixes_cover
from .ir import STRICTNESS, Imperative, PolicyIR, TriggerKind
from .pipeline import compile_sources
from .project import UsageError, load_ir
from .sources import SourceError, load_conventions, skip_reason, source_from_bytes

FIELDS = ("routes", "action", "severity", "tool_match", "patterns", "scope", "quote", "file", "lines")
MARKER = "<!-- policyc-diff -->"  # first line of --format markdown: a bot finds and updates its one PR comment
_SIMILAR = 0.6


# --- the two sides ---

def load_side(spec: str) -> PolicyIR:
    """A policy.ir.json, or a folder holding one (directly or in .interlinked/)."""
    path = Path(spec)
    for candidate in (path, path / "policy.ir.json", path / ".interlinked" / "policy.ir.json"):
        if candidate.is_file():
            try:
                return load_ir(candidate)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
    raise UsageError(f"{spec}: no policy.ir.json there")


def _git(root: Path, *args: str) -> bytes:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True)
    if done.returncode != 0:
        raise UsageError(f"git {' '.join(args)}: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def compile_revision(root: Path, revision: str) -> PolicyIR:
    """The IR of the rule sources as they were at a revision, read with `git show` (the work tree is untouched)."""
    conventions = load_conventions()
    names = _git(root, "ls-tree", "-r", "--name-only", revision).decode("utf-8", "replace").splitlines()
    sources, errors = [], []
    for name in sorted(names):
        if not conventions.is_rule_file(name):
            continue
        try:
            source = source_from_bytes(name, _git(root, "show", f"{revision}:{name}"))
        except SourceError as exc:
            errors.append({"file": name, "message": str(exc)})
            continue
        if not skip_reason(source):
            sources.append(source)
    return compile_sources(sources, errors)


# --- matching and comparing ---

def _rules(ir: PolicyIR) -> list[Imperative]:
    """Every Pass 1 and Pass 2 rule, merged ones included (a merge is not a sentence going away)."""
    return [i for i in ir.imperatives if "pass1" in i.routes or "pass2" in i.routes]


def _routes(imp: Imperative) -> list[str]:
    return [r for r in imp.routes if r in ("pass1", "pass2")]


def _view(imp: Imperative) -> dict:
    tool_match, patterns = (imp.trigger.tool_match, imp.trigger.patterns_json()) if imp.trigger else ((), [])
    return {
        "routes": _routes(imp),
        "action": imp.action,
        "severity": imp.severity,
        "tool_match": sorted(tool_match),
        "patterns": patterns,
        "scope": imp.scope,
        "quote": imp.quote,
        "file": imp.file,
        "lines": imp.lines,
    }


def _similarity(a: Imperative, b: Imperative) -> float:
    score = difflib.SequenceMatcher(None, a.quote, b.quote).ratio()
    if (a.trigger and a.trigger.kind) == (b.trigger and b.trigger.kind):  # (None: no trigger)
        score += 0.1
    if a.file == b.file:
        score += 0.1
    return score


def _paths(imp: Imperative) -> list[str] | None:
    trigger = imp.trigger
    if trigger and trigger.kind == TriggerKind.PATH and not any(p.negate for p in trigger.patterns):
        return list(trigger.values) or None
    return None


def _covers(new: Imperative, old: Imperative) -> bool:
    """Every call the old trigger fired on, the new one fires on (decided only where it is sound)."""
    if _view(new)["patterns"] == _view(old)["patterns"]:
        return True
    if new.trigger is None or old.trigger is None or new.trigger.kind != old.trigger.kind:
        return False
    if new.trigger.kind == TriggerKind.COMMAND:
        mine, theirs = command_prefixes(new), command_prefixes(old)
        return mine is not None and theirs is not None and prefixes_cover(mine, theirs)
    new_paths, old_paths = _paths(new), _paths(old)
    if not new_paths or not old_paths:
        return False
    return all(any(t.startswith(m) and m.endswith("/") for m in new_paths) or t in new_paths for t in old_paths)


def _weakens(old: Imperative, new: Imperative, fields: dict) -> list[str]:
    reasons = []
    if "pass1" in old.routes and "pass1" not in new.routes:
        reasons.append("Pass 1 -> Pass 2: no longer enforced deterministically, only by the policy gate")
    if STRICTNESS.get(new.action, 0) < STRICTNESS.get(old.action, 0):
        reasons.append(f"action {old.action} -> {new.action}")
    if set(_view(old)["tool_match"]) - set(_view(new)["tool_match"]):
        reasons.append("fewer tools")
    if "patterns" in fields and not _covers(new, old):
        reasons.append("the new trigger does not cover the old one")
    if "scope" in fields and any(old.scope.get(k) != v for k, v in new.scope.items()):
        reasons.append("scope added or changed")
    return reasons


def _entry(imp: Imperative) -> dict:
    return {"id": imp.id, "file": imp.file, "lines": imp.lines, "routes": _routes(imp), "action": imp.action, "quote": imp.quote}


def diff(old: PolicyIR, new: PolicyIR) -> dict:
    old_rules, new_rules = _rules(old), _rules(new)
    # the same id and the same sentence: the same rule
    by_key = {(i.id, i.quote): i for i in new_rules}
    pairs = [(o, by_key[(o.id, o.quote)]) for o in old_rules if (o.id, o.quote) in by_key]
    paired = {id(x) for pair in pairs for x in pair}
    left = [o for o in old_rules if id(o) not in paired]
    right = [n for n in new_rules if id(n) not in paired]
    # the rest by how alike they read, then by id and by position (lines shift as the file grows)
    shifts = sorted(n.lines[0] - o.lines[0] for o, n in pairs) or [0]
    shift = shifts[len(shifts) // 2]

    def score(o: Imperative, n: Imperative) -> float:
        near = max(0.0, 1 - abs(n.lines[0] - o.lines[0] - shift) / 20) if o.file == n.file else 0.0
        return _similarity(o, n) + (0.3 if o.id == n.id else 0.0) + 0.2 * near

    candidates = sorted(((score(o, n), i, j) for i, o in enumerate(left) for j, n in enumerate(right)
                         if _similarity(o, n) >= _SIMILAR), reverse=True)
    used_left, used_right = set(), set()
    for _, i, j in candidates:
        if i not in used_left and j not in used_right:
            used_left.add(i)
            used_right.add(j)
            pairs.append((left[i], right[j]))
    result = {"added": [_entry(n) for j, n in enumerate(right) if j not in used_right],
              "removed": [{**_entry(o), "weakens": True} for i, o in enumerate(left) if i not in used_left],
              "changed": [], "moved": []}
    for o, n in sorted(pairs, key=lambda p: (p[1].file, p[1].lines)):
        before, after = _view(o), _view(n)
        fields = {f: [before[f], after[f]] for f in FIELDS if before[f] != after[f]}
        if o.id != n.id:  # overrides that name the old id stop applying
            fields = {"id": [o.id, n.id], **fields}
        if not fields:
            continue
        if set(fields) <= {"lines"} and o.id == n.id:
            result["moved"].append({"id": n.id, "file": n.file, "old_lines": o.lines, "new_lines": n.lines})
            continue
        entry: dict[str, object] = {"id": n.id, "old_id": o.id, "file": n.file, "lines": n.lines, "old_file": o.file,
                                    "old_lines": o.lines, "fields": fields}
        reasons = _weakens(o, n, fields)
        entry.update(weakens=bool(reasons), why=reasons)
        result["changed"].append(entry)
    return result


def weakens(result: dict) -> bool:
    return bool(result["removed"]) or any(c["weakens"] for c in result["changed"])


def differs(result: dict) -> bool:
    return any(result[k] for k in ("added", "removed", "changed", "moved"))


# --- rendering ---

_COLOURS = {"+": "\033[32m", "-": "\033[31m", "~": "\033[33m", ">": "\033[36m", "!": "\033[1;31m"}


def render_text(result: dict, colour: bool = False) -> str:
    def paint(mark: str, text: str) -> str:
        return f"{_COLOURS[mark]}{text}\033[0m" if colour else text

    out = []
    for r in result["added"]:
        out.append(paint("+", f"+ added    {r['id']}  {r['file']}:{r['lines'][0]}  {_how(r)}  \"{r['quote']}\""))
    for r in result["removed"]:
        out.append(paint("-", f"- removed  {r['id']}  {r['file']}:{r['lines'][0]}  {_how(r)}  \"{r['quote']}\"  (weakens)"))
    for c in result["changed"]:
        ids = c["id"] if c["id"] == c["old_id"] else f"{c['old_id']} -> {c['id']}"
        out.append(paint("!" if c["weakens"] else "~", f"~ changed  {ids}  {c['file']}:{c['lines'][0]}"
                         + ("  (weakens: " + "; ".join(c["why"]) + ")" if c["weakens"] else "")))
        for name, (before, after) in c["fields"].items():
            out.append(f"      {name}: {_short(before)} -> {_short(after)}")
    for m in result["moved"]:
        out.append(paint(">", f"> moved    {m['id']}  {m['file']} lines {m['old_lines'][0]} -> {m['new_lines'][0]}"))
    counts = {k: len(result[k]) for k in ("added", "removed", "changed", "moved")}
    out.append(", ".join(f"{v} {k}" for k, v in counts.items()) + ("; enforcement weakens" if weakens(result) else ""))
    return "\n".join(out) + "\n"


def render_markdown(result: dict) -> str:
    def cell(value) -> str:
        return "`" + _short(value).replace("|", "\\|").replace("`", "'") + "`"

    out = [MARKER, "### policyc: enforcement changes", ""]
    if weakens(result):
        out += ["> **Warning:** this change weakens enforcement.", ""]
    if not differs(result):
        return "\n".join(out + ["No rule changed."]) + "\n"
    out += ["| | Rule | Where | Details |", "|---|---|---|---|"]
    for r in result["added"]:
        out.append(f"| added | `{r['id']}` | {r['file']}:{r['lines'][0]} | {_how(r)}: {cell(r['quote'])} |")
    for r in result["removed"]:
        out.append(f"| **removed (weakens)** | `{r['id']}` | {r['file']}:{r['lines'][0]} | {_how(r)}: {cell(r['quote'])} |")
    for c in result["changed"]:
        details = "<br>".join(f"{k}: {cell(a)} → {cell(b)}" for k, (a, b) in c["fields"].items())
        label = "**changed (weakens)**" if c["weakens"] else "changed"
        out.append(f"| {label} | `{c['id']}` | {c['file']}:{c['lines'][0]} | {details} |")
    if result["moved"]:  # line shifts only: one sentence, not a row each
        out += ["", f"{len(result['moved'])} rules only moved (their lines shifted)."]
    return "\n".join(out) + "\n"


def _how(entry: dict) -> str:
    """The action, and where it is enforced when that is only the policy gate (Pass 2)."""
    return entry["action"] + (" (policy gate only)" if "pass1" not in entry["routes"] else "")


def _short(value) -> str:
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return ", ".join(f"{p['field']}~/{p['regex']}/" for p in value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ", ".join(value) or "(none)"
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= 120 else text[:117] + "..."
