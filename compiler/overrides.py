"""The overrides file (spec §9): removals, disables and modifications that survive every run.

Read before extraction; a malformed file stops the run and is never
overwritten (the harness would silently treat it as empty). Applied with the
harness's own precedence (interlinked-harness.md §4.4): removal beats
everything, then disabled, then modifications.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .output import write_atomic

ACTIONS = ("block", "warn", "ask", "soft_block", "rewrite")
SEVERITIES = ("critical", "high", "medium", "low")


_OFF_NOTES = {"removed": "removed by the user (overrides file)", "disabled": "disabled by the user (overrides file)",
              "removed-group": "its source group was removed by the user (overrides file)"}


class OverridesError(Exception):
    """The overrides file cannot be read; the message names the file and the problem."""


@dataclass(slots=True)
class Overrides:
    removed_groups: list[str] = field(default_factory=list)
    removed_rule_ids: list[str] = field(default_factory=list)
    disabled_rule_ids: list[str] = field(default_factory=list)
    modifications: dict[str, dict] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: dict) -> Overrides:
        return cls(
            removed_groups=list(data.get("removed_groups", [])),
            removed_rule_ids=list(data.get("removed_rule_ids", [])),
            disabled_rule_ids=list(data.get("disabled_rule_ids", [])),
            modifications={k: dict(v) for k, v in data.get("modifications", {}).items() if v},  # {} changes nothing
        )

    def to_json(self) -> dict:
        return {
            "version": 1,
            "removed_groups": self.removed_groups,
            "removed_rule_ids": self.removed_rule_ids,
            "disabled_rule_ids": self.disabled_rule_ids,
            "modifications": {k: v for k, v in sorted(self.modifications.items()) if v},
        }

    def state(self, rule_id: str, group_id: str) -> str:
        """Why a rule is inactive ('' when active): removed-group, removed or disabled."""
        if group_id in self.removed_groups:
            return "removed-group"
        if rule_id in self.removed_rule_ids:
            return "removed"
        if rule_id in self.disabled_rule_ids or self.modifications.get(rule_id, {}).get("enabled") is False:
            return "disabled"
        return ""

    def effect(self, rule_id: str, group_id: str) -> dict:
        """What the overrides change in a rule (§9), as the fields of its GuardRule to set, in this order: `enabled`
        and a `note` when switched off; the user's `action`, `severity`, `note` and `user_modified` when modified.

        The one reading of the overrides: compiler/resolve.py applies it before emission, `apply` to a rules file."""
        changes: dict = {}
        state = self.state(rule_id, group_id)
        if state:
            changes["enabled"] = False
            changes["note"] = _OFF_NOTES[state]
        modification = self.modifications.get(rule_id)
        if modification is not None:
            changes.update({k: v for k, v in modification.items() if k in ("action", "severity")})
            if modification.get("note"):
                changes["note"] = modification["note"]
            changes["user_modified"] = True
        return changes

    def apply(self, rule: dict) -> dict:
        """A distilled rule as the harness will see it (§9): disabled or modified, flagged (the hook, `list`, `show`)."""
        return {**rule, **self.effect(rule["id"], rule["source"]["group_id"])}


def load(path: Path) -> Overrides:
    """The overrides at path (empty when the file does not exist)."""
    if not path.exists():
        return Overrides()
    from .checks import schema_error  # jsonschema: only when there is a file to validate

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise OverridesError(f"{path}: cannot read the overrides file: {exc}; fix it by hand, it is never overwritten") from None
    if error := schema_error("overrides.schema.json", data):
        raise OverridesError(f"{path}: invalid overrides file at {error}; fix it by hand, it is never overwritten")
    return Overrides.from_json(data)


def save(path: Path, overrides: Overrides, base: Path | None = None) -> None:
    """Write the overrides file; the caller holds the output folder's lock (and read the file under it)."""
    write_atomic(path, json.dumps(overrides.to_json(), indent=2, ensure_ascii=False) + "\n", base)
