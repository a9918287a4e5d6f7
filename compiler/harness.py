"""What the Interlinked harness decides for a PreToolUse event (interlinked-harness.md §3).

A faithful model of the rule loop: tool match, roles, active_when, keyword
quick-reject, patterns (positives OR-ed, negated exceptions, the fallback of a
missing field to the command text, strip_wrappers), the actions, and the
compound-command path, which ignores roles, active_when and keywords. The
emitted regexes are in the JavaScript subset that Python's `re` reads the
same way (compiler/regexes.py), so Python evaluates them as V8 would.
Rules are indexed by tool so an event only meets the rules that can fire.
Beyond the harness, a MultiEdit call's edits are read one by one, and a
decision that only they give names the harness's blind spot in `defects`.
"""

from __future__ import annotations

import json
import re
import re._constants as C
import re._parser as sre
from functools import cache, lru_cache

from . import frozen_re

# Regexes compiled on first use (`_pattern`): a process that decides one event compiles only those
# it uses (all five at import cost the hook about 0.5 ms).
_KEYWORD_SPLIT = r"[\s|&;<>()`='\"]+"
_WRAPPER = r"^\s*(?:(?:sudo|doas)(?:\s+-\S+)*\s+|env(?:\s+\w+=\S*)+\s+|command\s+-p\s+|\\(?=\w))"
_ENV_PREFIX = r"^(?:\w+=\S*\s+)+"
_SEPARATOR = r"[;&|\n]"
_BASH_TOOLS = frozenset({"bash", "shell", "run_command"})
# The harness roles (grammar/conventions.yaml `roles`, a test keeps them equal): a constant, so
# deciding an event never loads YAML.
ROLES = frozenset({"lead", "worker", "subagent", "unknown"})


_FROZEN: dict[tuple[str, str], bytes] = {}  # (regex, flags) -> frozen_re.freeze's value, from `preload`
_LITERALS: dict[str, str] = {}  # regex -> required_literal, from `preload`
_SCOPE_LITERALS: dict[str, str] = {}  # file_scope regex -> scope_literal, from `preload`


@cache
def _pattern(regex: str) -> re.Pattern:
    """One of the module's own regexes, compiled once (re's own cache may drop it among a project's hundreds)."""
    return re.compile(regex)


def _flag_bits(flags: str) -> int:
    value = 0
    if "i" in flags:
        value |= re.IGNORECASE
    if "m" in flags:
        value |= re.MULTILINE
    if "s" in flags:
        value |= re.DOTALL
    return value


@lru_cache(maxsize=4096)
def _compiled(regex: str, flags: str) -> re.Pattern:
    frozen = _FROZEN.get((regex, flags))
    return (frozen is not None and frozen_re.thaw(regex, frozen)) or re.compile(regex, _flag_bits(flags))


def _regexes(rule: dict):
    """(regex, flags) of every regex the evaluator may compile for a rule: its patterns and scopes."""
    for p in rule.get("patterns", []):
        yield p["regex"], p.get("flags", "i")
    scope = rule.get("active_when") or {}
    if scope.get("file_scope"):
        yield scope["file_scope"], "i"
    if scope.get("after_command"):
        yield scope["after_command"]["pattern"], "i"


def prepare(rules: list[dict]) -> dict:
    """What `preload` takes: each regex of the rules frozen, each pattern's required literal and each file
    scope's literal (the hook caches it)."""
    frozen = {key: frozen_re.freeze(key[0], _flag_bits(key[1])) for rule in rules for key in _regexes(rule)}
    scopes = {(r.get("active_when") or {}).get("file_scope") for r in rules} - {None, ""}
    return {"frozen": frozen, "literals": {regex: required_literal(regex) for regex, _ in frozen},
            "scope_literals": {regex: _required_literal(regex, True) for regex in scopes}}


def preload(prepared: dict) -> None:
    """Let the evaluator skip parsing the regexes `prepare` saw (a process that decides one event spends most of its time there)."""
    _FROZEN.update(prepared["frozen"])
    _LITERALS.update(prepared["literals"])
    _SCOPE_LITERALS.update(prepared["scope_literals"])


def shell_command(tool_input: dict) -> str:
    """The call's shell command, "" when it has none."""
    command = tool_input.get("command")
    return command if isinstance(command, str) else ""


@lru_cache(maxsize=8192)
def command_tokens(command: str) -> frozenset[str]:
    """The keyword tokens of a command (§3.5): split, lower-cased, plus /-segments. Cached:
    agents run the same commands again and again."""
    tokens = set()
    for token in _pattern(_KEYWORD_SPLIT).split(command.lower()):
        if token:
            tokens.add(token)
            if "/" in token:
                tokens.update(part for part in token.split("/") if part)
    return frozenset(tokens)


def _strip_wrappers(value: str) -> str:
    if not _pattern(_WRAPPER).match(value):
        return value.lstrip()
    for _ in range(8):
        stripped = _pattern(_WRAPPER).sub("", value, count=1)
        if stripped == value:
            break
        value = stripped
    return value.lstrip()


_SHELL_PIECES = r"""'[^']*'?|"(?:\\.|[^"\\])*"?|`[^`]*`?|\$\((?:[^()]|\([^()]*\))*\)?|&&|\|\||[;|&\n]|[^'"`$;|&\n]+|\$"""
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&", "\n"})


def subcommands(tool_name: str, command: str) -> list[str]:
    """A Bash compound command's subcommands (§3.8); [] for a single command."""
    if not command or tool_name.lower() not in _BASH_TOOLS or not _pattern(_SEPARATOR).search(command):
        return []
    parts = split_compound(command)
    return parts if len(parts) >= 2 else []


def without_env(subcommand: str) -> str:
    """A subcommand as its rules read it: `FOO=1 make  x` -> `make x`."""
    return " ".join(_pattern(_ENV_PREFIX).sub("", subcommand).split())


def split_compound(command: str) -> list[str]:
    """Top-level subcommands split on && || ; | & and newlines; quotes and $( ) stay whole (§3.8)."""
    parts: list[str] = []
    current: list[str] = []
    for piece in _pattern(_SHELL_PIECES).findall(command):
        if piece in _SEPARATORS:
            parts.append("".join(current))
            current = []
        else:
            current.append(piece)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


class Rule:
    """A GuardRule prepared for evaluation: its patterns compiled once.

    (Plain slotted classes here, not dataclasses: importing dataclasses costs the hook about 8 ms.)"""

    __slots__ = ("raw", "order", "positives", "negatives", "keywords", "literals", "fields", "roles", "skills", "scope_key", "axes")

    def __init__(self, raw: dict, order: int = 0):
        self.raw, self.order = raw, order
        self.positives: list = []  # (field, pattern, strip_wrappers)
        self.negatives: list = []
        self.keywords = frozenset(k.lower() for k in raw.get("keywords") or [])
        self.literals: tuple[str, ...] | None = None  # one lower-case literal each positive pattern needs
        self.fields: tuple[str, ...] = ()  # the fields of its positive patterns
        self.roles = frozenset(raw.get("applies_to_roles") or ())  # applies_to_roles
        scope = raw.get("active_when") or {}
        skills = scope.get("skill")
        self.skills = None if skills is None else frozenset([skills] if isinstance(skills, str) else skills)  # active_when.skill
        others = {k: v for k, v in scope.items() if k != "skill"}  # the skill is checked rule by rule
        self.scope_key = json.dumps(others, sort_keys=True) if others else ""  # rules that share these axes share the answer
        self.axes = {"active_when": others}  # what `active` reads for the key

    @classmethod
    def of(cls, raw: dict, order: int = 0) -> Rule:
        rule = cls(raw, order)
        for p in raw.get("patterns", []):
            entry = (p["field"], _compiled(p["regex"], p.get("flags", "i")), bool(p.get("strip_wrappers")))
            (rule.negatives if p.get("negate") else rule.positives).append(entry)
        literals = [required_literal(p["regex"]) for p in raw.get("patterns", []) if not p.get("negate")]
        if literals and all(literals):
            rule.literals = tuple(literals)
        rule.fields = tuple(sorted({f for f, _, _ in rule.positives}))
        return rule

    @property
    def id(self) -> str:
        return self.raw["id"]

    def fires_on_tool(self, tool_name: str) -> bool:
        if self.raw.get("enabled") is False or self.raw.get("trigger") not in ("PreToolUse", "both"):
            return False
        return "*" in self.raw["tool_match"] or tool_name.lower() in {t.lower() for t in self.raw["tool_match"]}

    def matches(self, command: str, match_input: dict, memo: dict | None = None) -> bool:
        """The pattern test (§3.4): a missing field falls back to the command text.

        `memo` shares results between rules with the same pattern on the same event.
        """
        hit = not self.positives
        for entry in self.positives:
            if _test(entry, command, match_input, memo):
                hit = True
                break
        if not hit:
            return False
        return not any(_test(entry, command, match_input, memo) for entry in self.negatives)


def required_literal(regex: str) -> str:
    """A lower-case string every match of the regex contains ('' when none is certain)."""
    found = _LITERALS.get(regex)
    return _required_literal(regex) if found is None else found


@lru_cache(maxsize=8192)
def _required_literal(regex: str, lookarounds: bool = False) -> str:
    """(required_literal, read from the parsed regex)

    The longest run of literal characters at the top level of the pattern,
    outside alternations, optional parts and look-arounds: a quick
    `in` test that skips a regex search when the text cannot match. With
    `lookarounds`, also the top level of each positive look-around (whose text
    the searched string holds too, though not next to the rest): a file scope's
    folder is in one (`^(?=.*\\.py$)(?=.*(?:^|/)src/)`).
    """
    try:
        best = _longest_literal(sre.parse(regex).data, lookarounds)
    except re.error:
        return ""
    return best.lower() if len(best) >= 2 else ""


def _longest_literal(items, lookarounds: bool) -> str:
    best, run = "", []
    for op, av in items:
        if op is C.LITERAL:
            run.append(chr(av))
            continue
        if op is C.MAX_REPEAT and av[0] >= 1 and len(av[2]) == 1 and av[2][0][0] is C.LITERAL:
            run.append(chr(av[2][0][1]))  # `a+` holds at least one `a`
        if op is C.ASSERT and lookarounds:
            best = max(best, _longest_literal(av[1].data, True), key=len)
        if op is C.AT or op is C.ASSERT_NOT or op is C.ASSERT:
            continue  # zero-width: the literals either side stay adjacent
        best = max(best, "".join(run), key=len)
        run = []
    return max(best, "".join(run), key=len)


def _in_scope(regex: str, path: str) -> bool:
    """Whether a file scope covers the path. When `preload` gave the scope's literal, a path without it is
    ruled out before the regex is compiled: exactly, if both are ASCII (there lower-casing and
    IGNORECASE agree; elsewhere `ſ` matches `s`, say), so only then."""
    literal = _SCOPE_LITERALS.get(regex)
    if literal and literal.isascii() and path.isascii() and literal not in path.lower():
        return False
    return _search(_compiled(regex, "i"), False, path)


def lowered(command: str, match_input: dict, fields: tuple[str, ...]) -> str:
    """The text a rule's literals are looked for in: its positive fields' values, lower-cased."""
    return "\n".join(str(v) for v in (_field(match_input, f) or command for f in fields) if v).lower()


_RESULTS: dict[tuple, bool] = {}  # (pattern, strip, text) -> match: a pure function, so shared by all events
_RESULTS_MAX = 1 << 16


def _search(pattern: re.Pattern, strip: bool, text: str) -> bool:
    key = (pattern, strip, text)
    found = _RESULTS.get(key)
    if found is None:
        if len(_RESULTS) >= _RESULTS_MAX:
            _RESULTS.clear()
        found = _RESULTS[key] = pattern.search(_strip_wrappers(text) if strip else text) is not None
    return found


def _test(entry: tuple, command: str, match_input: dict, memo: dict | None) -> bool:
    if memo is not None and entry in memo:
        return memo[entry]
    field_name, pattern, strip = entry
    value = _field(match_input, field_name) or command
    result = bool(value) and _search(pattern, strip, str(value))
    if memo is not None:
        memo[entry] = result
    return result


def _field(match_input: dict, path: str):
    """getField (§3.4): a dotted path walks plain objects; anything else is missing."""
    if "." not in path:
        return match_input.get(path)
    value: object = match_input
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


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
        if not path or not _in_scope(scope["file_scope"], str(path)):
            return False
    for axis in ("overlay", "agent_source"):
        if axis in scope:
            wanted = scope[axis] if isinstance(scope[axis], list) else [scope[axis]]
            if event.get("agent_source") not in wanted:
                return False
    return "predicate" not in scope and "phase" not in scope  # unknown predicates and phases keep a rule dormant


class Decision:
    __slots__ = ("decision", "rule_id", "reason", "warnings", "defects")

    def __init__(self, decision: str, rule_id: str | None = None, reason: str = "", warnings: list[str] | None = None,
                 defects: list[str] | None = None):
        self.decision = decision  # allow | block | ask
        self.rule_id = rule_id
        self.reason = reason
        self.warnings = [] if warnings is None else warnings  # rule ids that warned
        self.defects = [] if defects is None else defects  # known harness defects that shaped the decision

    def __eq__(self, other) -> bool:
        return isinstance(other, Decision) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __repr__(self) -> str:
        return f"Decision({', '.join(f'{k}={getattr(self, k)!r}' for k in self.__slots__)})"


class _ToolIndex:
    """The rules one tool meets, indexed so most events meet few of them: by
    keyword (the quick reject, §3.5), and in runs of consecutive rules that
    share a scope (an inactive scope skips the whole run)."""

    __slots__ = ("all", "unkeyed", "by_keyword", "runs", "_seen", "_by_path", "_path_only", "synthetic")

    def __init__(self):
        self.all: list[Rule] = []
        self.unkeyed: list[Rule] = []
        self.by_keyword: dict[str, list[Rule]] = {}
        self.runs: list[tuple[str, list[Rule]]] = []
        self._seen: dict = {}  # keyword hits -> candidates
        self._by_path: dict = {}  # file path -> candidates, when only file scopes vary
        self._path_only: bool | None = None
        self.synthetic = False  # a rule tests tool_name or agent_source, which the harness adds to the input

    def add(self, rule: Rule) -> None:
        self.all.append(rule)
        self.synthetic = self.synthetic or bool({f for f, _, _ in rule.positives + rule.negatives} & {"tool_name", "agent_source"})
        if not rule.keywords:
            self.unkeyed.append(rule)
        for keyword in rule.keywords:
            self.by_keyword.setdefault(keyword, []).append(rule)
        if self.runs and self.runs[-1][0] == rule.scope_key:
            self.runs[-1][1].append(rule)
        else:
            self.runs.append((rule.scope_key, [rule]))

    def scoped(self, event: dict) -> list[Rule]:
        """In rule order: the rules of every run whose scope is active for this event.

        When the runs differ only by file scope, the answer depends on the path
        alone and is kept per path (an agent edits the same files again and again)."""
        if self._path_only is None:
            self._path_only = all(not key or set(json.loads(key)) == {"file_scope"} for key, _ in self.runs)
        path_only = self._path_only
        tool_input = event.get("tool_input") or {}
        path = tool_input.get("file_path") or tool_input.get("path")
        if path_only and isinstance(path, str) and path in self._by_path:
            return self._by_path[path]
        found = [rule for key, run in self.runs if not key or active(run[0].axes, event) for rule in run]
        if path_only and isinstance(path, str):
            if len(self._by_path) > 4096:
                self._by_path.clear()
            self._by_path[path] = found
        return found

    def candidates(self, tokens: frozenset[str]) -> list[Rule]:
        """In rule order: the rules with no keywords or a keyword among the command's tokens."""
        if not self.by_keyword:
            return self.all
        hit = tokens.intersection(self.by_keyword)
        if hit not in self._seen:
            rules = {r for t in hit for r in self.by_keyword[t]}
            self._seen[hit] = sorted(rules.union(self.unkeyed), key=lambda r: r.order) if rules else self.unkeyed
        return self._seen[hit]


class Evaluator:
    """All rules of a distilled-rules.json, indexed by tool and keyword."""

    def __init__(self, rules: list[dict]):
        prepared = [Rule.of(r, n) for n, r in enumerate(rules) if r.get("enabled", True) is not False
                    and r.get("trigger") in ("PreToolUse", "both")]
        tools = {t.lower() for r in prepared for t in r.raw["tool_match"]} - {"*"}
        self._index = {tool: _ToolIndex() for tool in tools}
        self._other = _ToolIndex()  # a tool no rule names: only the "*" rules
        for rule in prepared:
            named = {t.lower() for t in rule.raw["tool_match"]}
            for tool, index in self._index.items():
                if "*" in named or tool in named:
                    index.add(rule)
            if "*" in named:
                self._other.add(rule)
        self._bash = [r for r in prepared if ({"*"} | _BASH_TOOLS) & {t.lower() for t in r.raw["tool_match"]}]

    def evaluate(self, event: dict) -> Decision:
        """The harness's decision; for MultiEdit, also policyc's reading of each edit (see multiedit_inputs)."""
        decision = self._evaluate(event)
        edits = multiedit_inputs(event.get("tool_name") or "", event.get("tool_input") or {})
        if decision.decision != "allow" or not edits:
            return decision
        warnings, defects = list(decision.warnings), list(decision.defects)
        for edit in edits:
            found = self._evaluate({**event, "tool_input": edit})
            fired = found.warnings if found.rule_id is None else [found.rule_id]  # (only a block or an ask names a rule)
            unseen = [r for r in fired if r not in warnings]
            defects += [f"{r}: {_MULTIEDIT_DEFECT}" for r in unseen]
            if found.decision != "allow":
                return Decision(found.decision, found.rule_id, found.reason, warnings, defects)
            warnings += unseen
        return Decision("allow", warnings=warnings, defects=defects)

    def _evaluate(self, event: dict) -> Decision:
        tool = event.get("tool_name") or ""
        tool_input = event.get("tool_input") or {}
        command = shell_command(tool_input)
        tokens = command_tokens(command) if command else None
        index = self._index.get(tool.lower(), self._other)
        match_input = {**tool_input, "tool_name": tool, "agent_source": event.get("agent_source")} if index.synthetic else tool_input
        warnings: list[str] = []
        memo: dict = {}
        scopes: dict[str, bool] = {}
        role = None
        skills = None
        candidates = index.candidates(tokens) if tokens is not None else index.scoped(event)
        for rule in candidates:  # the keyword quick reject is already done by the index
            raw = rule.raw
            if rule.literals:
                text = memo.get(rule.fields) or memo.setdefault(rule.fields, lowered(command, match_input, rule.fields))
                if not any(literal in text for literal in rule.literals):
                    continue
            if rule.skills is not None:
                if skills is None:
                    skills = frozenset((event.get("session") or {}).get("active_skills", ()))
                if not rule.skills & skills:
                    continue
            if rule.roles:
                role = role or infer_role(event)
                if role not in rule.roles:
                    continue
            if rule.scope_key and tokens is not None:  # (index.scoped checked the scopes already)
                if rule.scope_key not in scopes:
                    scopes[rule.scope_key] = active(rule.axes, event)
                if not scopes[rule.scope_key]:
                    continue
            if not rule.matches(command, match_input, memo):
                continue
            action = raw.get("action")
            if action in ("block", "soft_block"):  # soft_block blocks the first time in a session
                return Decision("block", rule.id, _reason(raw), warnings)
            if action == "ask":
                return Decision("ask", rule.id, _reason(raw), warnings)
            warnings.append(rule.id)  # warn, and rewrite is reported as a warning here
        if parts := subcommands(tool, command):
            return self._compound(parts, warnings)
        return Decision("allow", warnings=warnings)

    def _compound(self, parts: list[str], warnings: list[str]) -> Decision:
        """§3.8: each subcommand against every Bash rule, without roles, active_when or keywords."""
        for sub in parts:
            stripped = without_env(sub)
            text = stripped.lower()
            memo: dict = {}
            for rule in self._bash:
                if rule.raw.get("action") not in ("block", "warn", "rewrite"):
                    continue
                if rule.literals and not any(literal in text for literal in rule.literals):
                    continue  # every field falls back to the subcommand here
                if not rule.matches(stripped, {"command": stripped}, memo):
                    continue
                defects = []
                if rule.raw.get("active_when") or rule.raw.get("applies_to_roles"):
                    defects.append(f"{rule.id}: the harness's compound-command path ignores active_when and roles")
                if rule.raw["action"] == "block":
                    return Decision("block", rule.id, _reason(rule.raw) + f" (in subcommand: {sub[:80]})", warnings, defects)
                if rule.id not in warnings:
                    warnings.append(rule.id)
        return Decision("allow", warnings=warnings)


_MULTIEDIT_DEFECT = ("fires on a MultiEdit edit's new_string, which the Interlinked harness cannot read "
                     "(getField has no array support), so there the call is allowed")


def multiedit_inputs(tool_name: str, tool_input: dict) -> list[dict]:
    """A MultiEdit call as one Edit-shaped input per edit (file_path, old_string, new_string).

    The harness tests patterns on `edits` as one string ("[object Object],…"),
    so its content rules never see the new text; policyc's own checks do."""
    edits = tool_input.get("edits")
    if tool_name.lower() != "multiedit" or not isinstance(edits, list):
        return []
    base = {k: v for k, v in tool_input.items() if k != "edits"}
    return [{**base, **{k: e[k] for k in ("old_string", "new_string") if isinstance(e.get(k), str)}}
            for e in edits if isinstance(e, dict)]


def _reason(rule: dict) -> str:
    reason = rule.get("reason", "")
    return reason + (f"\n\nSuggestion: {rule['suggestion']}" if rule.get("suggestion") else "")


def rule_fires(rule: dict, tool_name: str, tool_input: dict) -> bool:
    """Whether one rule's action applies to a call (no session: roles and active_when not modelled)."""
    prepared = Rule.of(rule)
    if not prepared.fires_on_tool(tool_name):
        return False
    command = shell_command(tool_input)
    if command and prepared.keywords and not prepared.keywords & command_tokens(command):
        return False
    return any(prepared.matches(command, {**one, "tool_name": tool_name}) for one in [tool_input, *multiedit_inputs(tool_name, tool_input)])
