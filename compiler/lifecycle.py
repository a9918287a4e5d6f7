"""The lifecycle verbs (spec §14): list, show, remove, disable, enable, modify, add, reset.

They read distilled-rules.json, policy.ir.json and the overrides file. A
writing verb changes the overrides file and renders every artifact again from
the saved IR (atomically, under the output folder's lock), so the change takes
effect at once: the harness, `list` and `show` all see it.
Unknown ids and groups are usage errors that name the closest existing ones.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass

from . import overrides as overrides_file
from .checks import schema_error
from .ir import PolicyIR, lines_label, plain
from .output import locked
from .project import Project, UsageError, load_ir
from .report import ICONS
from .resolve import Resolved, resolve


@dataclass(slots=True)
class State:
    project: Project
    doc: dict
    ir: PolicyIR | None
    overrides: overrides_file.Overrides

    @property
    def groups(self) -> list[str]:
        found = {r["source"]["group_id"] for r in self.doc["rules"]}
        if self.ir is not None:
            found |= {s.group_id for s in self.ir.sources}
        return sorted(found)

    def rule(self, rule_id: str) -> dict:
        for rule in self.doc["rules"]:
            if rule["id"] == rule_id:
                return rule
        known = [r["id"] for r in self.doc["rules"]] + ([i.id for i in self.ir.imperatives] if self.ir else [])
        raise UsageError(f"unknown rule id {rule_id!r}{_closest(rule_id, known)}")

    def group(self, group_id: str, allow_removed: bool = False) -> str:
        if group_id in self.groups or (allow_removed and group_id in self.overrides.removed_groups):
            return group_id
        raise UsageError(f"unknown group {group_id!r}{_closest(group_id, self.groups + self.overrides.removed_groups)}")

    def resolved(self) -> Resolved | None:
        """The saved IR resolved with the overrides file as it is now (compiler/resolve.py); None without an IR."""
        return resolve(self.ir, self.overrides) if self.ir is not None else None


def _closest(name: str, candidates: list[str]) -> str:
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=3, cutoff=0.5)
    return f"; closest: {', '.join(close)}" if close else ""


def load_state(project: Project) -> State:
    doc = project.load_rules()
    if error := schema_error("distilled-rules.schema.json", doc):  # a broken file is named, never a traceback
        raise UsageError(f"{project.rules()}: not a distilled-rules file ({error}); run `policyc compile` to rebuild it")
    try:
        ir = load_ir(project.ir(), validate=False) if project.ir().is_file() else None
    except ValueError:
        ir = None
    return State(project, doc, ir, overrides_file.load(project.overrides))


# --- reading verbs ---

def list_groups(state: State) -> dict:
    rows = []
    for group in state.groups:
        rules = [state.overrides.apply(r) for r in state.doc["rules"] if r["source"]["group_id"] == group]
        live = [r for r in rules if r.get("enabled", True)]
        rows.append({
            "group_id": group,
            "rules": len(rules),
            "block": sum(1 for r in live if r["action"] == "block"),
            "ask": sum(1 for r in live if r["action"] == "ask"),
            "advisory": sum(1 for r in live if r["action"] == "warn"),
            "disabled": len(rules) - len(live),
        })
    removed = [{"group_id": g, "rules_suppressed": sum(1 for r in state.doc["rules"] if r["source"]["group_id"] == g)}
               for g in state.overrides.removed_groups]
    return {"groups": rows, "removed_groups": removed}


def list_group(state: State, group_id: str) -> dict:
    state.group(group_id, allow_removed=True)
    entries = []
    resolved = state.resolved()
    for found in resolved.rules if resolved is not None else ():
        imp = found.imperative
        if imp.group_id != group_id or "pass1" not in imp.routes:
            continue
        entries.append({
            "id": imp.id,
            "action": found.action,  # as resolved: a conflict's stricter action, then the user's
            "severity": found.severity,
            "source": f"{imp.file}:{lines_label(imp.lines)}",
            "quote": imp.quote,
            "trigger": f"trigger=PreToolUse, tool_match=[{','.join(imp.rule_trigger.tool_match)}], "
                       f"patterns=[{', '.join(p.field + '~/' + p.regex + '/' for p in imp.rule_trigger.patterns)}]",
            "lexical": f"{imp.marker} → {imp.marker_class}",
            # why it is inactive, a stable code (dsh-rules style): shadowed, the overrides' code, or a dormant skill scope
            "inactive": found.status or ("dormant-scope" if "skill" in imp.scope else ""),
            "shadowed_by": found.shadowed_by,
        })
    if state.ir is None:  # no IR: what the rules file alone says
        entries = [{"id": r["id"], "action": r["action"], "severity": r["severity"],
                    "source": f"{r['source']['file']}:{lines_label(r['source']['lines'])}",
                    "quote": r["source"]["quote"], "trigger": "", "lexical": r["source"]["lexical_marker"],
                    "inactive": state.overrides.state(r["id"], group_id), "shadowed_by": ""}
                   for r in map(state.overrides.apply, state.doc["rules"]) if r["source"]["group_id"] == group_id]
    return {"group_id": group_id, "rules": entries}


def show(state: State, rule_id: str) -> dict:
    """A rule with its source lines and its admission decision; a rule admission demoted
    to Pass 2 is shown too (its IR imperative), so a user can read why it does not block."""
    imp = next((i for i in state.ir.imperatives if i.id == rule_id), None) if state.ir else None
    if imp is not None and "pass1" not in imp.routes:
        rule = effective = None
        file, (first, last) = imp.file, imp.lines
    else:
        rule = state.rule(rule_id)
        effective = state.overrides.apply(rule)
        file, (first, last) = rule["source"]["file"], rule["source"]["lines"]
    context = []
    source = next((s for s in state.ir.sources if s.file == file), None) if state.ir else None
    if source is not None:
        lines = source.text.split("\n")
        for number in range(max(1, first - 3), min(len(lines), last + 3) + 1):
            context.append({"line": number, "text": lines[number - 1], "quoted": first <= number <= last})
    admission = plain(imp.admission) if imp is not None else None
    return {"rule": rule, "effective": effective, "admission": admission, "context": context}


# --- writing verbs: each returns the message it prints ---

def _save(state: State, change, message: str) -> str:
    """Apply `change` to the overrides file as it is on disk, under the lock: parallel verbs never lose an update.

    The artifacts are then rendered again from the saved IR, in the same lock, so
    distilled-rules.json, `list`, `show` and the companions take the change at once.
    """
    from .writer import rerender

    with locked(state.project.out):
        state.overrides = overrides_file.load(state.project.overrides)
        change(state.overrides)
        overrides_file.save(state.project.overrides, state.overrides, state.project.out)
        note = rerender(state.project, state.overrides)
    return message + (f"\n{note}" if note else "")


def _add(items: list[str], value: str) -> None:
    if value not in items:
        items.append(value)


def _discard(items: list[str], value: str) -> None:
    if value in items:
        items.remove(value)


def remove_rule(state: State, rule_id: str) -> str:
    state.rule(rule_id)
    return _save(state, lambda o: _add(o.removed_rule_ids, rule_id), f"Removed {rule_id}. Run `policyc reset {rule_id}` to undo.")


def remove_group(state: State, group_id: str) -> str:
    state.group(group_id)
    count = sum(1 for r in state.doc["rules"] if r["source"]["group_id"] == group_id)
    message = f"Removed group {group_id} ({count} rules suppressed). Run `policyc add --source {group_id}` to undo."
    return _save(state, lambda o: _add(o.removed_groups, group_id), message)


def add_group(state: State, group_id: str) -> str:
    state.group(group_id, allow_removed=True)
    return _save(state, lambda o: _discard(o.removed_groups, group_id), f"Group restored. Run `policyc compile` to re-distill and pull rules from {group_id}.")


def disable(state: State, rule_id: str) -> str:
    state.rule(rule_id)
    return _save(state, lambda o: _add(o.disabled_rule_ids, rule_id), f"Disabled {rule_id}: it stays in distilled-rules.json and loads with enabled: false.")


def enable(state: State, rule_id: str) -> str:
    state.rule(rule_id)

    def change(o) -> None:
        _discard(o.disabled_rule_ids, rule_id)
        o.modifications.get(rule_id, {}).pop("enabled", None)
    return _save(state, change, f"Enabled {rule_id}.")


def modify(state: State, rule_id: str, action: str | None, severity: str | None, note: str | None) -> str:
    state.rule(rule_id)
    if not (action or severity or note):
        raise UsageError("modify needs --action, --severity or --note")
    given = {k: v for k, v in (("action", action), ("severity", severity), ("note", note)) if v}

    def change(o) -> None:
        entry = o.modifications.setdefault(rule_id, {})
        entry.update(given)
        entry.setdefault("note", "modified with policyc modify")
    _save(state, change, "")
    return f"Modified {rule_id}: " + ", ".join(f"{k}={v}" for k, v in state.overrides.modifications[rule_id].items())


def reset(state: State, rule_id: str) -> str:
    state.rule(rule_id)

    def change(o) -> None:
        for items in (o.removed_rule_ids, o.disabled_rule_ids):
            _discard(items, rule_id)
        o.modifications.pop(rule_id, None)
    return _save(state, change, f"Cleared every override of {rule_id}.")


# --- text rendering ---

def render_groups(data: dict) -> str:
    header = ("Source", "Rules", "Block", "Ask", "Advisory", "Disabled")
    rows = [(g["group_id"], g["rules"], g["block"], g["ask"], g["advisory"], g["disabled"]) for g in data["groups"]]
    total = ("Total", *[sum(r[i] for r in rows) for i in range(1, 6)])
    width = max([len(header[0]), len(total[0]), *[len(r[0]) for r in rows]])
    widths = [width, 5, 5, 4, 8, 8]
    rule = "  ".join("─" * w for w in widths)

    def line(cells) -> str:
        return "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    out = [line(header), rule, *[line(r) for r in rows], rule, line(total)]
    if data["removed_groups"]:
        removed = ", ".join(f"{g['group_id']} ({g['rules_suppressed']} rules suppressed)" for g in data["removed_groups"])
        out += ["", f"Removed groups: {removed}"]
    out += ["", "Run `policyc list <group_id>` to drill in.", "Run `policyc remove --source <group_id>` to bulk-remove from a source."]
    return "\n".join(out) + "\n"


def render_group(data: dict) -> str:
    out = [f"Source: {data['group_id']}"]
    width = max([len(r["id"]) for r in data["rules"]] or [0])
    for r in data["rules"]:
        status = f"  [{r['inactive']}" + (f" by {r['shadowed_by']}" if r["shadowed_by"] else "") + "]" if r["inactive"] else ""
        out += [
            "",
            f"  {ICONS.get(r['action'], '·')} {r['id']:<{width}}  {r['action']:<6} {r['severity']}{status}",
            f"      Source : {r['source']}",
            f"      Quote  : \"{r['quote']}\"",
        ]
        if r["trigger"]:
            out.append(f"      Rule   : {r['trigger']}")
        out.append(f"      Lexical: {r['lexical']}")
    return "\n".join(out) + "\n"


def render_show(data: dict) -> str:
    out = [json.dumps(data["effective"], indent=2, ensure_ascii=False), ""] if data["effective"] else []
    if data["admission"]:
        admission = data["admission"]
        gate = f" by the {admission['gate']} gate" if admission["gate"] else ""
        out += [f"Admission: {admission['decision']}{gate}: {admission['reason']}", ""]
    width = len(str(data["context"][-1]["line"])) if data["context"] else 1
    for row in data["context"]:
        out.append(f"{'>' if row['quoted'] else ' '} {row['line']:>{width}} | {row['text']}")
    return "\n".join(out) + "\n"
