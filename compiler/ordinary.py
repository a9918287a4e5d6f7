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
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from .harness import _BASH_TOOLS, Rule, active, command_tokens, lowered, multiedit_inputs, required_literal, shell_command, subcommands, without_env

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
    """Consecutive line ranges of 10 to 30 lines, sizes from a CRC of the path; the last two are
    evened out when the tail would be shorter than 10."""
    spans, start = [], 0
    while start < len(lines):
        remaining = len(lines) - start
        size = _HUNK_MIN + zlib.crc32(f"{seed}:{start}".encode()) % _HUNK_SPREAD
        if remaining - size < _HUNK_MIN:
            size = remaining if remaining <= _HUNK_MIN + _HUNK_SPREAD - 1 else remaining // 2
        spans.append((start, start + size))
        start += size
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
    """Every sample file under `folder`; hidden entries (a tool's .ruff_cache, an editor's files) are not samples."""
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.startswith(".") or entry.name == "__pycache__":
            continue
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
    index: int  # its place in the sample
    tool: str
    command: str
    tokens: frozenset[str] | None
    match_input: dict
    subcommands: tuple[str, ...]  # a Bash compound command's parts, env prefixes dropped (harness._compound)


def _prepare(index: int, event: dict) -> _Event:
    tool_input = event["tool_input"]
    command = shell_command(tool_input)
    return _Event(event, index, event["tool_name"].lower(), command, command_tokens(command) if command else None,
                  {**tool_input, "tool_name": event["tool_name"]},
                  tuple(map(without_env, subcommands(event["tool_name"], command))))


@dataclass(slots=True, eq=False)
class _Pool:
    """The events one set of tools meets, indexed for the questions every rule asks."""

    events: tuple[_Event, ...]
    compound: tuple[_Event, ...]  # the Bash compound commands among them
    texts: dict = field(default_factory=dict)  # fields -> (the events' lower-cased texts joined by NUL, starts)
    scopes: dict = field(default_factory=dict)  # active_when (JSON) -> indexes of the events it is active for

    def containing(self, fields: tuple[str, ...], literals: frozenset[str]) -> list[_Event]:
        """In sample order, the events whose text for these fields holds one of the literals."""
        if fields not in self.texts:
            texts = [lowered(e.command, e.match_input, fields) for e in self.events]
            starts = [0]
            for text in texts[:-1]:
                starts.append(starts[-1] + len(text) + 1)
            self.texts[fields] = ("\0".join(texts), starts)
        joined, starts = self.texts[fields]
        found: set[int] = set()
        for literal in literals:
            at = joined.find(literal)
            while at >= 0:
                n = bisect_right(starts, at) - 1
                found.add(n)
                at = joined.find(literal, starts[n + 1]) if n + 1 < len(starts) else -1
        return [self.events[n] for n in sorted(found)]

    def active(self, scope: dict) -> frozenset[int]:
        key = json.dumps(scope, sort_keys=True)
        if key not in self.scopes:
            rule = {"active_when": scope}
            self.scopes[key] = frozenset(e.index for e in self.events if active(rule, e.raw))
        return self.scopes[key]


@lru_cache(maxsize=1)
def _prepared() -> tuple[_Event, ...]:
    return tuple(_prepare(n, e) for n, e in enumerate(sample()))


@lru_cache(maxsize=256)
def _pool(tools: frozenset[str]) -> _Pool:
    events = tuple(e for e in _prepared() if "*" in tools or e.tool in tools)
    return _Pool(events, tuple(e for e in events if e.subcommands))


def _key(rule: dict) -> str:
    return json.dumps([rule.get(k) for k in ("tool_match", "patterns", "keywords", "active_when", "action",
                                             "enabled", "trigger")], sort_keys=True)


def _structure(regex: str):
    """(index, character, depth before it) of the characters outside escapes and classes."""
    depth, n, in_class = 0, 0, False
    while n < len(regex):
        char = regex[n]
        if char == "\\":
            n += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        else:
            yield n, char, depth
            depth += (char == "(") - (char == ")")
        n += 1


def _split_alternatives(regex: str) -> list[str]:
    """The regex cut at its top-level `|`: one part when it is not an alternation."""
    cuts = [n for n, char, depth in _structure(regex) if char == "|" and depth == 0]
    return [regex[a + 1:b] for a, b in zip([-1, *cuts], [*cuts, len(regex)])]


def _mandatory_groups(regex: str) -> list[str]:
    """The bodies of the top-level non-capturing groups of a concatenation that carry no quantifier:
    every match holds a match of each."""
    groups, opened = [], None
    for n, char, depth in _structure(regex):
        if char == "(" and depth == 0:
            opened = n if regex.startswith("(?:", n) else None
        elif char == ")" and depth == 1 and opened is not None and regex[n + 1:n + 2] not in ("?", "*", "+", "{"):
            groups.append(regex[opened + 3:n])
    return groups


@lru_cache(maxsize=8192)
def required_literals(regex: str, depth: int = 0) -> frozenset[str] | None:
    """Lower-case strings one of which every match of the regex contains; None when none is certain.

    The harness's required literal; or, for an alternation such as `(?:\\bnull\\b|\\bundefined\\b)`,
    one for each alternative; or those of a group every match holds. A quick `in` test
    then stands in for most regex searches."""
    literal = required_literal(regex)
    if literal:
        return frozenset([literal])
    if depth > 4:
        return None
    parts = _split_alternatives(regex)
    if len(parts) > 1:
        alternatives = [literals for part in parts if (literals := required_literals(part, depth + 1))]
        return frozenset().union(*alternatives) if len(alternatives) == len(parts) else None  # (each needs literals)
    for group in _mandatory_groups(regex):
        found = required_literals(group, depth + 1)
        if found:
            return found
    return None


def _rule_literals(rule: Rule) -> frozenset[str] | None:
    """What the rule's text must contain for any positive pattern to match (None: no quick test)."""
    found = set(rule.literals or ())  # one per pattern, when the harness found them all
    for _, pattern, _ in rule.positives if not found else ():
        literals = required_literals(pattern.pattern)
        if not literals:
            return None
        found |= literals
    return frozenset(found) if found and not any("\0" in literal for literal in found) else None  # NUL joins texts


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
    tools = frozenset(t.lower() for t in rule.get("tool_match") or ())
    pool = _pool(tools)
    action = rule.get("action")
    scope = {k: v for k, v in (rule.get("active_when") or {}).items() if k in _EVENT_SCOPE}
    applies = pool.active(scope) if scope else None  # None: every event of the pool
    total = len(pool.events) if applies is None else len(applies)
    hits: set[int] = set()
    if action is None or action in _ACTING:
        for event in pool.containing(prepared.fields, literals) if literals else pool.events:
            if applies is not None and event.index not in applies:
                continue
            if event.tokens is not None and prepared.keywords and not prepared.keywords & event.tokens:
                continue  # the keyword quick reject
            if prepared.matches(event.command, event.match_input):
                hits.add(event.index)
        for event in pool.events:  # policyc's evaluator (the hook, `check`) also reads each edit of a MultiEdit
            if event.tool == "multiedit" and event.index not in hits and (applies is None or event.index in applies) \
                    and any(prepared.matches("", {**edit, "tool_name": event.raw["tool_name"]})
                            for edit in multiedit_inputs(event.raw["tool_name"], event.raw["tool_input"])):
                hits.add(event.index)
    if (action is None or action in _COMPOUND_ACTING) and tools & (_BASH_TOOLS | {"*"}):
        for event in pool.compound:  # the compound path ignores keywords and active_when
            if event.index not in hits and _compound_hit(prepared, literals, event):
                hits.add(event.index)
                if applies is not None and event.index not in applies:
                    total += 1  # applied by the compound path where its scope is inactive
    fired = sorted(hits)
    events = _prepared()
    return Rate(len(fired), total, tuple(events[n].raw["origin"] for n in fired[:3]))
