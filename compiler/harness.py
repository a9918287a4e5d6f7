"""What the Interlinked harness does with one GuardRule on one PreToolUse call.

A faithful model of interlinked-harness.md §3.3-§3.5 for a single rule (tool
match, keyword quick-reject, pattern OR with negated exceptions, the
missing-field fallback to the command text, strip_wrappers). The emitted
regexes are in the JavaScript subset that Python's `re` reads the same way
(compiler/regexes.py), so Python evaluates them as V8 would.
"""

from __future__ import annotations

import re
from functools import lru_cache

_KEYWORD_SPLIT = re.compile(r"[\s|&;<>()`='\"]+")
_WRAPPER = re.compile(r"^\s*(?:(?:sudo|doas)(?:\s+-\S+)*\s+|env(?:\s+\w+=\S*)+\s+|command\s+-p\s+|\\(?=\w))")


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


def rule_fires(rule: dict, tool_name: str, tool_input: dict) -> bool:
    """True when the rule's action would apply to this call (roles and active_when not modelled)."""
    if rule.get("enabled") is False or rule.get("trigger") not in ("PreToolUse", "both"):
        return False
    if "*" not in rule["tool_match"] and tool_name.lower() not in {t.lower() for t in rule["tool_match"]}:
        return False
    command = tool_input.get("command") if isinstance(tool_input.get("command"), str) else ""
    keywords = rule.get("keywords") or []
    if command and keywords and not {k.lower() for k in keywords} & command_tokens(command):
        return False
    match_input = {**tool_input, "tool_name": tool_name}
    positives = negated = False
    has_positive = False
    for pattern in rule.get("patterns", []):
        value = match_input.get(pattern["field"]) or command
        if not pattern.get("negate"):
            has_positive = True
        if not value:
            continue
        value = str(value)
        if pattern.get("strip_wrappers"):
            value = _strip_wrappers(value)
        hit = bool(_compiled(pattern["regex"], pattern.get("flags", "i")).search(value))
        if pattern.get("negate"):
            negated = negated or hit
        else:
            positives = positives or hit
    return (positives or not has_positive) and not negated
