"""How often a rule would act on ordinary work: the breadth measure of admission.

The package ships a sample of ordinary coding-agent tool calls (grammar/ordinary/,
written for this project; see its README.md): everyday source files in the common
languages, each read, written and edited in hunks, and a few hundred everyday shell
commands. `fire_rate(rule)` replays a GuardRule against the sample with the
evaluator's semantics (compiler/harness.py: tool match, the file scope, the keyword
quick reject, patterns with the fallback of a missing field to the command text,
and the compound-command path), so the rate is what the harness would do.

Two choices make the measure conservative: ordinary work happens in any role and
inside any session, so `applies_to_roles` and the session axes of `active_when`
(skill, after_command, overlay, agent_source) count as satisfied; the file scope
narrows the events a rule applies to, and a predicate or phase keeps a rule dormant,
as in the harness.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from .harness import (_BASH_TOOLS, _ENV_PREFIX, _SEPARATOR, Rule, active, command_tokens, lowered, required_literal,
                      split_compound)

_HEADER_MARK = "policyc ordinary sample"
_ACTING = frozenset({"block", "soft_block", "ask", "warn", "rewrite"})
_COMPOUND_ACTING = frozenset({"block", "warn", "rewrite"})  # the harness's compound path skips ask
_EVENT_SCOPE = ("file_scope", "predicate", "phase")  # the active_when axes an ordinary event decides
_HUNK_MIN, _HUNK_SPREAD = 10, 21  # an edit hunk holds 10 to 30 lines


@dataclass(frozen=True, slots=True)
class Rate:
    fired: int  # ordinary events the rule would act on (block, ask or warn)
    total: int  # ordinary events the rule applies to (tool matches and active_when scope is active)
    examples: tuple[str, ...]  # origins of up to 3 fired events

    @property
    def share(self) -> float:
        return self.fired / self.total if self.total else 0.0


# --- the sample -------------------------------------------------------------


def _data():
    return resources.files("policyc.grammar").joinpath("ordinary")


def _strip_header(text: str) -> tuple[str, str | None]:
    """The file's text without its provenance header, and the event path the header names, if any.

    The header is the run of comment lines from the one naming "policyc ordinary sample" (the
    first or second line) to the first blank line."""
    lines = text.split("\n")
    start = next((n for n, line in enumerate(lines[:2]) if _HEADER_MARK in line), None)
    if start is None:
        return text, None
    end = lines.index("", start)  # a shebang or `<?php` before the header stays in the file
    path = None
    for line in lines[start:end]:
        marker = line.find("event path:")
        if marker >= 0:
            path = line[marker + len("event path:"):].strip().removesuffix("-->").strip()
    return "\n".join(lines[:start] + [""] * bool(start) + lines[end + 1:]), path


def _hunks(lines: list[str], seed: str) -> list[tuple[int, int]]:
    """Consecutive line ranges of 10 to 30 lines (a short tail joins the last hunk); sizes from a CRC of the path."""
    spans, start = [], 0
    while start < len(lines):
        size = _HUNK_MIN + zlib.crc32(f"{seed}:{start}".encode()) % _HUNK_SPREAD
        end = min(start + size, len(lines))
        if spans and end - start < _HUNK_MIN:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
        start = end
    return spans


def _edit(lines: list[str], span: tuple[int, int], seed: str) -> dict:
    """The edit that wrote this hunk: new_string is the hunk; old_string lacks 1 to 3 of its lines (the ones added)."""
    start, end = span
    hunk = lines[start:end]
    inner = [n for n in range(1, len(hunk) - 1) if hunk[n].strip()] or [0]
    first = inner[zlib.crc32(f"{seed}:{start}:at".encode()) % len(inner)]
    count = 1 + zlib.crc32(f"{seed}:{start}:n".encode()) % 3
    old = hunk[:first] + hunk[first + count:]
    return {"old_string": "\n".join(old), "new_string": "\n".join(hunk)}


def _file_events(name: str, text: str) -> list[dict]:
    """Read, Write, an Edit per hunk, and for one file in three a MultiEdit of its first three hunks."""
    body, named = _strip_header(text)
    path = named or name.split("/", 2)[2]  # code/<language>/<path in the project>
    lines = body.rstrip("\n").split("\n")
    events = [{"tool_name": "Read", "tool_input": {"file_path": path}, "origin": f"{name} read"},
              {"tool_name": "Write", "tool_input": {"file_path": path, "content": body}, "origin": f"{name} write"}]
    edits = [_edit(lines, span, name) for span in _hunks(lines, name)]
    for n, edit in enumerate(edits, 1):
        events.append({"tool_name": "Edit", "tool_input": {"file_path": path, **edit}, "origin": f"{name} edit {n}"})
    if len(edits) >= 3 and zlib.crc32(name.encode()) % 3 == 0:
        events.append({"tool_name": "MultiEdit", "tool_input": {"file_path": path, "edits": edits[:3]},
                       "origin": f"{name} multiedit 1"})
    return events


def _command_events(text: str) -> list[dict]:
    return [{"tool_name": "Bash", "tool_input": {"command": line}, "origin": f"commands.txt:{n}"}
            for n, line in enumerate(text.split("\n"), 1) if line.strip() and not line.startswith("#")]


def _files(folder, prefix: str):
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        name = f"{prefix}/{entry.name}"
        if entry.is_dir():
            yield from _files(entry, name)
        else:
            yield name, entry.read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def sample() -> tuple[dict, ...]:
    """The ordinary tool calls, Claude Code PreToolUse-shaped: {"tool_name", "tool_input", "origin"}.

    Deterministic: files in name order, hunks cut by a CRC of the file's name."""
    data = _data()
    events = [e for name, text in _files(data.joinpath("code"), "code") for e in _file_events(name, text)]
    events += _command_events(data.joinpath("commands.txt").read_text(encoding="utf-8"))
    return tuple(events)


# --- the measure --------------------------------------------------------------


@dataclass(slots=True, eq=False)
class _Event:
    """One sample event, prepared once: what the evaluator derives from it."""

    raw: dict
    tool: str
    command: str
    tokens: frozenset[str] | None
    match_input: dict
    subcommands: tuple[str, ...]  # a Bash compound command's parts, env prefixes dropped (harness._compound)
    texts: dict  # fields -> lower-cased text (the literal quick test)


def _prepare(event: dict) -> _Event:
    tool_input = event["tool_input"]
    command = tool_input.get("command") if isinstance(tool_input.get("command"), str) else ""
    subcommands: tuple[str, ...] = ()
    if command and event["tool_name"].lower() in _BASH_TOOLS and _SEPARATOR.search(command):
        parts = split_compound(command)
        if len(parts) >= 2:
            subcommands = tuple(" ".join(_ENV_PREFIX.sub("", p).split()) for p in parts)
    return _Event(event, event["tool_name"].lower(), command, command_tokens(command) if command else None,
                  {**tool_input, "tool_name": event["tool_name"]}, subcommands, {})


@lru_cache(maxsize=1)
def _prepared() -> tuple[_Event, ...]:
    return tuple(_prepare(e) for e in sample())


def _key(rule: dict) -> str:
    return json.dumps([rule.get(k) for k in ("tool_match", "patterns", "keywords", "active_when", "action",
                                             "enabled", "trigger")], sort_keys=True)


def _split_alternatives(body: str) -> list[str] | None:
    """`body` cut at its top-level `|` (outside groups, classes and escapes); None when unbalanced."""
    parts, depth, start, n, in_class = [], 0, 0, 0, False
    while n < len(body):
        char = body[n]
        if char == "\\":
            n += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return None
        elif char == "|" and depth == 0:
            parts.append(body[start:n])
            start = n + 1
        n += 1
    parts.append(body[start:])
    return parts if depth == 0 and not in_class else None


@lru_cache(maxsize=8192)
def _literals(regex: str, depth: int = 0) -> frozenset[str] | None:
    """Lower-case strings one of which every match of the regex contains; None when none is certain.

    The harness's required literal, or, for an alternation such as `(?:\\bnull\\b|\\bundefined\\b)`,
    the required literal of each alternative: a quick `in` test instead of a regex search."""
    literal = required_literal(regex)
    if literal:
        return frozenset([literal])
    inner = _split_alternatives(regex[3:-1]) if regex.startswith("(?:") and regex.endswith(")") else None
    parts = inner if inner and len(inner) > 1 else _split_alternatives(regex)
    if depth > 3 or not parts or len(parts) < 2:
        return None
    found: set[str] = set()
    for part in parts:
        literals = _literals(part, depth + 1)
        if not literals:
            return None
        found |= literals
    return frozenset(found)


def _rule_literals(rule: Rule) -> frozenset[str] | None:
    """What the rule's text must contain for any positive pattern to match (None: no quick test)."""
    found: set[str] = set()
    for _, pattern, _ in rule.positives:
        literals = _literals(pattern.pattern)
        if not literals:
            return None
        found |= literals
    return frozenset(found) or None


def _main_hit(rule: Rule, literals: frozenset[str] | None, event: _Event) -> bool:
    if event.tokens is not None and rule.keywords and not rule.keywords & event.tokens:
        return False
    if literals:
        text = event.texts.get(rule.fields)
        if text is None:
            text = event.texts[rule.fields] = lowered(event.command, event.match_input, rule.fields)
        if not any(literal in text for literal in literals):
            return False
    return rule.matches(event.command, event.match_input)


def _compound_hit(rule: Rule, literals: frozenset[str] | None, event: _Event) -> bool:
    for sub in event.subcommands:
        if literals and not any(literal in sub.lower() for literal in literals):
            continue
        if rule.matches(sub, {"command": sub}):
            return True
    return False


_RATES: dict[str, Rate] = {}


def fire_rate(rule: dict) -> Rate:
    """How many ordinary events this GuardRule applies to and how many it would act on.

    Cached by what decides the answer (tools, patterns, keywords, scope, action), so
    candidates that share a trigger are measured once."""
    key = _key(rule)
    found = _RATES.get(key)
    if found is None:
        found = _RATES[key] = _measure(rule)
    return found


def _measure(rule: dict) -> Rate:
    if rule.get("enabled") is False or rule.get("trigger", "PreToolUse") not in ("PreToolUse", "both"):
        return Rate(0, 0, ())
    prepared = Rule.of(rule)
    literals = _rule_literals(prepared)
    tools = {t.lower() for t in rule.get("tool_match") or ()}
    events = _prepared()
    chosen = events if "*" in tools else [e for e in events if e.tool in tools]
    action = rule.get("action")
    acts = action is None or action in _ACTING
    compound = (action is None or action in _COMPOUND_ACTING) and bool(tools & (_BASH_TOOLS | {"*"}))
    scope = {k: v for k, v in (rule.get("active_when") or {}).items() if k in _EVENT_SCOPE}
    scoped = {"active_when": scope}
    fired = total = 0
    examples: list[str] = []
    for event in chosen:
        applies = not scope or active(scoped, event.raw)
        hit = applies and acts and _main_hit(prepared, literals, event)
        if not hit and compound and event.subcommands and _compound_hit(prepared, literals, event):
            hit = applies = True  # the compound path ignores active_when
        total += applies
        if hit:
            fired += 1
            if len(examples) < 3:
                examples.append(event.raw["origin"])
    return Rate(fired, total, tuple(examples))
