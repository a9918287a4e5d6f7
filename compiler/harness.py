"""What the Interlinked harness decides for a PreToolUse event (interlinked-harness.md §3).

A faithful model of the rule loop: tool match, roles, active_when, keyword
quick-reject, patterns (positives OR-ed, negated exceptions, the fallback of a
missing field to the command text, strip_wrappers), the actions, and the
compound-command path, which ignores roles, active_when and keywords. The
emitted regexes are in the JavaScript subset that Python's `re` reads the
same way (compiler/regexes.py), so Python evaluates them as V8 would.
Rules are indexed by tool so an event only meets the rules that can fire.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

_KEYWORD_SPLIT = re.compile(r"[\s|&;<>()`='\"]+")
_WRAPPER = re.compile(r"^\s*(?:(?:sudo|doas)(?:\s+-\S+)*\s+|env(?:\s+\w+=\S*)+\s+|command\s+-p\s+|\\(?=\w))")
_ENV_PREFIX = re.compile(r"^(?:\w+=\S*\s+)+")
_BASH_TOOLS = frozenset({"bash", "shell", "run_command"})
ROLES = ("lead", "worker", "subagent", "unknown")


@lru_cache(maxsize=4096)
def _compiled(regex: str, flags: str) -> re.Pattern:
    value = 0
    if "i" in flags:
        value |= re.IGNORECASE
    if "m" in flags:
        value |= re.MULTILINE
    if "s" in flags:
        value |= re.DOTALL
    return re.compile(regex, value)


def command_tokens(command: str) -> set[str]:
    """The keyword tokens of a command (§3.5): split, lower-cased, plus /-segments."""
    tokens = set()
    for token in _KEYWORD_SPLIT.split(command.lower()):
        if token:
            tokens.add(token)
            if "/" in token:
                tokens.update(part for part in token.split("/") if part)
    return tokens


def _strip_wrappers(value: str) -> str:
    for _ in range(8):
        stripped = _WRAPPER.sub("", value, count=1)
        if stripped == value:
            break
        value = stripped
    return value.lstrip()


def split_compound(command: str) -> list[str]:
    """Top-level subcommands split on && || ; | & and newlines; quotes and $( ) stay whole (§3.8)."""
    parts, current, depth, quote, i = [], [], 0, "", 0
    while i < len(command):
        c = command[i]
        if quote:
            current.append(c)
            if c == quote and command[i - 1] != "\\":
                quote = ""
        elif c in "'\"`":
            quote = c
            current.append(c)
        elif c == "(" and command[i - 1 : i] == "$":
            depth += 1
            current.append(c)
        elif c == ")" and depth:
            depth -= 1
            current.append(c)
        elif not depth and (c in ";|&\n"):
            parts.append("".join(current))
            current = []
            if command[i : i + 2] in ("&&", "||"):
                i += 1
        else:
            current.append(c)
        i += 1
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


@dataclass(slots=True, eq=False)
class Rule:
    """A GuardRule prepared for evaluation: its patterns compiled once."""

    raw: dict
    order: int
    positives: list = field(default_factory=list)  # (field, pattern, strip_wrappers)
    negatives: list = field(default_factory=list)
    keywords: frozenset[str] = frozenset()

    @classmethod
    def of(cls, raw: dict, order: int = 0) -> Rule:
        rule = cls(raw, order, keywords=frozenset(k.lower() for k in raw.get("keywords") or []))
        for p in raw.get("patterns", []):
            entry = (p["field"], _compiled(p["regex"], p.get("flags", "i")), bool(p.get("strip_wrappers")))
            (rule.negatives if p.get("negate") else rule.positives).append(entry)
        return rule

    @property
    def id(self) -> str:
        return self.raw["id"]

    def fires_on_tool(self, tool_name: str) -> bool:
        if self.raw.get("enabled") is False or self.raw.get("trigger") not in ("PreToolUse", "both"):
            return False
        return "*" in self.raw["tool_match"] or tool_name.lower() in {t.lower() for t in self.raw["tool_match"]}

    def matches(self, command: str, match_input: dict) -> bool:
        """The pattern test (§3.4): a missing field falls back to the command text."""
        hit = not self.positives
        for field_name, pattern, strip in self.positives:
            value = match_input.get(field_name) or command
            if value and pattern.search(_strip_wrappers(str(value)) if strip else str(value)):
                hit = True
                break
        if not hit:
            return False
        for field_name, pattern, strip in self.negatives:
            value = match_input.get(field_name) or command
            if value and pattern.search(_strip_wrappers(str(value)) if strip else str(value)):
                return False
        return True


def infer_role(event: dict) -> str:
    """The agent role (§3.3): explicit, parent agent, subagent events, then agent type and name."""
    if event.get("agent_role") in ROLES:
        return event["agent_role"]
    if event.get("parent_agent") or event.get("hook_event_name", "").startswith("Subagent"):
        return "subagent"
    for key in ("agent_type", "agent_name"):
        value = str(event.get(key, "")).lower()
        if key == "agent_type" and ("explore" in value or "plan" in value):
            return "subagent"
        if "worker" in value:
            return "worker"
        if "lead" in value or "coordinator" in value:
            return "lead"
    return "unknown"


def active(rule: dict, event: dict) -> bool:
    """The active_when axes (§3.6). The event's `session` object stands in for the harness session:
    `active_skills` (names) and `commands_run` (commands, oldest first)."""
    scope = rule.get("active_when")
    if not scope:
        return True
    session = event.get("session") or {}
    tool_input = event.get("tool_input") or {}
    if "skill" in scope:
        wanted = scope["skill"] if isinstance(scope["skill"], list) else [scope["skill"]]
        if not set(wanted) & set(session.get("active_skills", [])):
            return False
    if scope.get("after_command"):
        spec = scope["after_command"]
        window = spec.get("window_steps", 10)
        recent = session.get("commands_run", [])[-window:] if window > 0 else session.get("commands_run", [])
        if not any(_compiled(spec["pattern"], "i").search(c) for c in recent):
            return False
    if scope.get("file_scope"):
        path = tool_input.get("file_path") or tool_input.get("path")
        if not path or not _compiled(scope["file_scope"], "i").search(str(path)):
            return False
    for axis in ("overlay", "agent_source"):
        if axis in scope:
            wanted = scope[axis] if isinstance(scope[axis], list) else [scope[axis]]
            if event.get("agent_source") not in wanted:
                return False
    if "predicate" in scope or "phase" in scope:
        return False  # unknown predicates and phases keep a rule dormant
    return True


@dataclass(slots=True)
class Decision:
    decision: str  # allow | block | ask
    rule_id: str | None = None
    reason: str = ""
    warnings: list[str] = field(default_factory=list)  # rule ids that warned
    defects: list[str] = field(default_factory=list)  # known harness defects that shaped the decision


class Evaluator:
    """All rules of a distilled-rules.json, indexed by tool."""

    def __init__(self, rules: list[dict]):
        prepared = [Rule.of(r, n) for n, r in enumerate(rules) if r.get("enabled", True) is not False]
        self._any = [r for r in prepared if "*" in r.raw["tool_match"]]
        self._by_tool: dict[str, list[Rule]] = {}
        for rule in prepared:
            for tool in {t.lower() for t in rule.raw["tool_match"]} - {"*"}:
                self._by_tool.setdefault(tool, []).append(rule)
        self._bash = [r for r in prepared if r.raw.get("trigger") in ("PreToolUse", "both")
                      and ({"*"} | _BASH_TOOLS) & {t.lower() for t in r.raw["tool_match"]}]

    def _candidates(self, tool: str) -> list[Rule]:
        own = self._by_tool.get(tool.lower(), [])
        if not self._any:
            return own
        return sorted(set(own) | set(self._any), key=lambda r: r.order) if own else self._any

    def evaluate(self, event: dict) -> Decision:
        tool = event.get("tool_name") or ""
        tool_input = event.get("tool_input") or {}
        command = tool_input.get("command") if isinstance(tool_input.get("command"), str) else ""
        tokens = command_tokens(command) if command else None
        role = infer_role(event)
        match_input = {**tool_input, "tool_name": tool, "agent_source": event.get("agent_source")}
        warnings: list[str] = []
        for rule in self._candidates(tool):
            raw = rule.raw
            if raw.get("trigger") not in ("PreToolUse", "both"):
                continue
            if raw.get("applies_to_roles") and role not in raw["applies_to_roles"]:
                continue
            if not active(raw, event):
                continue
            if tokens is not None and rule.keywords and not rule.keywords & tokens:
                continue
            if not rule.matches(command, match_input):
                continue
            action = raw.get("action")
            if action in ("block", "soft_block"):  # soft_block blocks the first time in a session
                return Decision("block", rule.id, _reason(raw), warnings)
            if action == "ask":
                return Decision("ask", rule.id, _reason(raw), warnings)
            warnings.append(rule.id)  # warn, and rewrite is reported as a warning here
        if tool.lower() in _BASH_TOOLS and command and any(c in command for c in ";&|\n"):
            return self._compound(command, warnings)
        return Decision("allow", warnings=warnings)

    def _compound(self, command: str, warnings: list[str]) -> Decision:
        """§3.8: each subcommand against every Bash rule, without roles, active_when or keywords."""
        subcommands = split_compound(command)
        if len(subcommands) < 2:
            return Decision("allow", warnings=warnings)
        for sub in subcommands:
            stripped = " ".join(_ENV_PREFIX.sub("", sub).split())
            for rule in self._bash:
                if rule.raw.get("action") not in ("block", "warn", "rewrite") or not rule.matches(stripped, {"command": stripped}):
                    continue
                defects = []
                if rule.raw.get("active_when") or rule.raw.get("applies_to_roles"):
                    defects.append(f"{rule.id}: the harness's compound-command path ignores active_when and roles")
                if rule.raw["action"] == "block":
                    return Decision("block", rule.id, _reason(rule.raw) + f" (in subcommand: {sub[:80]})", warnings, defects)
                if rule.id not in warnings:
                    warnings.append(rule.id)
        return Decision("allow", warnings=warnings)


def _reason(rule: dict) -> str:
    reason = rule.get("reason", "")
    return reason + (f"\n\nSuggestion: {rule['suggestion']}" if rule.get("suggestion") else "")


def rule_fires(rule: dict, tool_name: str, tool_input: dict) -> bool:
    """Whether one rule's action applies to a call (no session: roles and active_when not modelled)."""
    prepared = Rule.of(rule)
    if not prepared.fires_on_tool(tool_name):
        return False
    command = tool_input.get("command") if isinstance(tool_input.get("command"), str) else ""
    if command and prepared.keywords and not prepared.keywords & command_tokens(command):
        return False
    return prepared.matches(command, {**tool_input, "tool_name": tool_name})
