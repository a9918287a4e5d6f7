"""Lowering imperatives to Cedar policies, per target (spec §15.3).

A pure function of one IR imperative and a target. The result is either a
list of `Policy` (usually one; a delete rule also gets its ShellCommand
twin) or an `Omitted` with the reason, marked when only the Interlinked
extensions can carry the rule. Both Cedar backends (cedar.py,
interlinked_cedar.py) lower through it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from ..compiler.ir import Pattern, TriggerKind, TriggerRecord
from ..compiler.regexes import ALIASES, OPTION_ALIASES, without_run
from ..compiler.sondera import TOOL_ACTIONS, cedar_string
from .backend import Omitted
from .like import Unsupported, lower
from .text import cedar_like

ACTION_ORDER = ["ShellCommand", "FileRead", "FileWrite", "FileEdit", "FileDelete", "WebFetch", "PreToolUse"]
_FIELD_ATTRS = {"command": "command", "file_path": "path", "notebook_path": "path", "url": "url"}
_ACTION_FIELDS = {"ShellCommand": {"command"}, "WebFetch": {"url"}}
_DELETE_VERBS = frozenset({"delete", "remove", "rm"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """A Cedar dialect: its names, its schema and what it can express (every capability off unless named)."""

    name: str
    namespace: str  # prefix of entity and action names
    schema: str  # file in policyc.schemas
    parse_fields: bool = False  # v2: context.parse.* for shell commands
    normalized_paths: bool = False  # v2: context.path_normalized
    escalate: bool = False  # v2: @escalate turns a forbid into "ask the user"
    tool_calls: bool = False  # v2: PreToolUse on Tool::"<name>" (MCP tools)
    extensions: bool = False  # interlinked: skill scope, commands_run, warn


TARGETS = {
    "sondera-v1": Target(name="sondera-v1", namespace="", schema="sondera-v1.cedarschema"),
    "sondera-v2": Target(name="sondera-v2", namespace="Sondera::", schema="sondera-v2.cedarschema",
                         parse_fields=True, normalized_paths=True, escalate=True, tool_calls=True),
    # namespaced so that no vanilla Sondera schema declares its types: loaded by mistake, it fails validation
    "interlinked": Target(name="interlinked", namespace="Interlinked::", schema="interlinked.cedarschema", extensions=True),
}
DEFAULT_TARGET = "sondera-v2"  # what a current Sondera loads (namespaced)


@dataclass(slots=True)
class Policy:
    id: str
    actions: list[str]
    condition: str
    approximate: bool = False
    notes: list[str] = field(default_factory=list)
    escalate: str = ""  # v2 @escalate reason
    action_on_violation: str = ""  # interlinked
    extensions: list[str] = field(default_factory=list)  # interlinked @requires_extension


@lru_cache(maxsize=4096)
def _like_condition(attr: str, regex: str, flags: str, lowercase: bool) -> tuple[str, bool, tuple[str, ...]]:
    """`context.<attr> like ...` alternatives for one regex: (expression, exact, notes).

    Cached: rulebooks repeat the same patterns (lexicon entries, shared files).
    """
    form = lower(regex, flags)
    parts = []
    for alt in form.alternatives:
        glob = alt.glob().lower() if lowercase else alt.glob()
        terms = [f"context.{attr} like {cedar_like(glob)}"]
        terms += [f"context.{attr} like {cedar_like(g.lower() if lowercase else g)}" for g in alt.requires]
        terms += [f"!(context.{attr} like {cedar_like(g.lower() if lowercase else g)})" for g in alt.excludes]
        parts.append(" && ".join(terms) if len(terms) == 1 else "(" + " && ".join(terms) + ")")
    notes = list(form.notes)
    exact = form.exact
    if lowercase and regex != regex.lower():
        exact = False
        notes.append("path_normalized is lower-case")
    return " || ".join(parts), exact, tuple(notes)


def _parse_condition(command: str) -> tuple[str, bool]:
    """v2: a command as facts of context.parse (survives paths, sudo, flag order, pipelines)."""
    tokens = without_run(command.strip().removeprefix("$ ").split())  # (the script's name is the fact both share)
    program = tokens[0].rsplit("/", 1)[-1].lower()  # parse.programs holds lower-case basenames
    terms = [f"context.parse.programs.contains({cedar_string(program)})"]
    exact = True
    for n, token in enumerate(tokens[1:]):
        if token.startswith("<") or token in ("...", "…") or token.startswith("$"):
            exact = False
            continue
        if token.startswith("--"):  # (with its short spelling: `git push -f` is `git push --force`)
            spellings = (token, *OPTION_ALIASES.get((program, tokens[1], token), ())) if n == 1 else (token,)
            either = " || ".join(f"context.parse.program_flags.contains({cedar_string(f'{program}:{s}')})" for s in spellings)
            terms.append(f"({either})" if len(spellings) > 1 else either)
        elif token.startswith("-") and len(token) > 2 and token[1:].isalpha():  # a bundle: -rf is -r and -f
            terms += [f"context.parse.program_flags.contains({cedar_string(f'{program}:-{c}')})" for c in token[1:]]
        elif token.startswith("-"):
            terms.append(f"context.parse.program_flags.contains({cedar_string(f'{program}:{token}')})")
        else:
            spellings = (token, *ALIASES.get((program, token), ())) if n == 0 else (token,)  # npm i = npm install
            either = " || ".join(f"context.parse.program_args.contains({cedar_string(f'{program}:{s}')})" for s in spellings)
            terms.append(f"({either})" if len(spellings) > 1 else either)
            exact = False  # argument order is not kept
    return (terms[0] if len(terms) == 1 else "(" + " && ".join(terms) + ")"), exact


def _whole_program(command: str, patterns: tuple[Pattern, ...]) -> bool:
    """The rule's regex ends the program name where the command's first word ends (`pip(?![\\w-])`, not `pip[0-9.]*`)."""
    program = re.escape(command.strip().removeprefix("$ ").split()[0])
    return any(re.search(program + r"(?:\\s|\(\?!\[\\w-\]\)|\\b|\$|\)|\||$)", p.regex) for p in patterns
               if p.field == "command" and not p.negate)


def _unparsed_condition(trigger: TriggerRecord) -> str:
    """v2, fail closed: when Sondera could not parse the command (`parse.ok` false), match its raw text.

    The like form of the rule's command patterns, or else every literal word of
    each command in order (wider than the rule: an unparsable command is suspect).
    """
    parts = []
    for pattern in trigger.patterns:
        if pattern.field == "command" and not pattern.negate:
            try:
                parts.append(_like_condition("command", pattern.regex, pattern.flags, False)[0])
            except Unsupported:
                parts = []
                break
    if not parts:
        for value in trigger.values:
            words = [w for w in value.strip().removeprefix("$ ").split()
                     if not (w.startswith(("<", "$")) or w in ("...", "…") or "*" in w or "\\" in w)]
            parts.append(f"context.command like {cedar_like('*' + '*'.join(words) + '*')}")
    return f"!context.parse.ok && ({' || '.join(parts)})"


def _actions(trigger: TriggerRecord) -> list[str]:
    found = {TOOL_ACTIONS[t] for t in trigger.tool_match if t in TOOL_ACTIONS}
    return [a for a in ACTION_ORDER if a in found]


def _pattern_condition(imp, action: str, target: Target) -> tuple[str, bool, list[str]] | Omitted:
    """The `when` condition of the rule's patterns for one action family."""
    fields = _ACTION_FIELDS.get(action, {"file_path", "notebook_path"})
    trigger = imp.trigger
    positives: list[str] = []
    negatives: list[str] = []
    notes: list[str] = []
    exact = True
    seen: set[str | tuple[str, str, bool]] = set()  # fields and (attribute, regex, negated) already lowered
    if action == "ShellCommand" and target.parse_fields and trigger.kind == TriggerKind.COMMAND and trigger.values:
        for value in trigger.values:
            term, value_exact = _parse_condition(value)
            positives.append(term)
            exact = exact and value_exact
        if not exact:
            notes.append("argument order and placeholders are not kept by context.parse")
        if not all(_whole_program(value, trigger.patterns) for value in trigger.values):
            exact = False
            notes.append("the rule also matches longer program names (pip3 for pip); context.parse.programs holds exact names")
        positives.append(_unparsed_condition(trigger))
        seen.add("command")
        positive_fields = {"command"}
    else:
        positive_fields = set()
    for pattern in trigger.patterns:
        if pattern.field not in fields:
            continue
        attr = _FIELD_ATTRS[pattern.field]
        if attr == "path" and target.normalized_paths:
            attr = "path_normalized"
        key = (attr, pattern.regex, pattern.negate)
        if key in seen or (not pattern.negate and pattern.field in positive_fields):
            continue
        seen.add(key)
        try:
            lowercase = attr == "path_normalized"
            expression, like_exact, like_notes = _like_condition(attr, pattern.regex, pattern.flags, lowercase)
        except Unsupported as exc:
            return Omitted(f"its {pattern.field} pattern has no like form: {exc}")  # the regex is in the rule
        exact = exact and like_exact
        notes += [n for n in like_notes if n not in notes]
        (negatives if pattern.negate else positives).append(expression)
    if not positives:
        skipped = sorted({p.field for p in trigger.patterns} - set(_FIELD_ATTRS))
        why = f"the {', '.join(skipped)} field is not in Sondera's context" if skipped else "no pattern applies"
        return Omitted(why)
    condition = positives[0] if len(positives) == 1 else " || ".join(f"({p})" for p in positives)
    if negatives:
        condition = f"({condition})" if len(positives) > 1 or " || " in condition else condition
        condition = " && ".join([condition, *[f"!({n})" for n in negatives]])
    return condition, exact, notes


def _scope_condition(imp, target: Target) -> tuple[list[str], list[str]] | Omitted:
    """Conditions and extensions for the rule's active_when scope."""
    terms, extensions = [], []
    scope = imp.scope
    if "skill" in scope:
        if not target.extensions:
            return Omitted(f"skill scope ({scope['skill']}) needs the Interlinked extension context.skill_active", extension=True)
        terms.append(f'context has skill_active && context.skill_active == {cedar_string(scope["skill"])}')
        extensions.append("skill_scope")
    if "overlay" in scope or "agent_source" in scope or imp.applies_to_roles:
        return Omitted("runner and role scopes have no Cedar attribute")
    return terms, extensions


def lower_imperative(imp, target: Target) -> list[Policy] | Omitted:
    """The Cedar policies of one Pass 2 imperative for a target."""
    if imp.trigger is None:
        if imp.sequence and target.extensions:
            return _sequence_policy(imp)
        if imp.sequence:
            return Omitted("a sequential precondition needs trajectory state (commands_run)", extension=True)
        return Omitted("no concrete trigger: the Tier 2 gate judges it from policy.md")
    if imp.admission is not None and imp.admission.decision == "demoted":
        # the admission gates keep a doubtful rule out of every deterministic form, Cedar's too
        return Omitted(f"not a deterministic rule: {imp.admission.reason}")
    action_on_violation, escalate = "block", ""
    if imp.action == "ask":
        if target.escalate:
            escalate = "the source asks for confirmation: " + imp.quote
        elif target.extensions:
            action_on_violation = "warn"
        else:
            return Omitted("ask has no Cedar form in Sondera v1 (Allow/Deny only)", extension=True)
    elif imp.action == "warn":
        if not target.extensions:
            return Omitted("Cedar has no warn; the Interlinked flavour carries it as @action_on_violation(\"warn\")", extension=True)
        action_on_violation = "warn"
    scope = _scope_condition(imp, target)
    if isinstance(scope, Omitted):
        return scope
    scope_terms, extensions = scope
    if imp.trigger.kind == TriggerKind.MCP:
        if not target.tool_calls:
            return Omitted("Sondera v1 has no action for MCP and other tools (v2 has PreToolUse)")
        condition, exact = " || ".join(f"context.tool == {cedar_string(t)}" for t in imp.trigger.tool_match), True
        tool_notes: tuple[str, ...] = ()
        if imp.trigger.patterns:  # tool_match "*" and a tool_name regex: the server is unknown
            pattern = imp.trigger.patterns[0]
            try:
                condition, exact, tool_notes = _like_condition("tool", pattern.regex, pattern.flags, False)
            except Unsupported as exc:
                return Omitted(f"its tool name pattern has no like form: {exc}")
        return [Policy(imp.id, ["PreToolUse"], " && ".join([*scope_terms, f"({condition})" if " || " in condition else condition]),
                       not exact, list(tool_notes), escalate, action_on_violation if target.extensions else "", extensions)]
    actions = _actions(imp.trigger)
    if not actions:
        return Omitted(f"no Sondera action for tools {', '.join(imp.trigger.tool_match)}")
    families = {"ShellCommand": ["ShellCommand"], "WebFetch": ["WebFetch"]}
    file_actions = [a for a in actions if a.startswith("File")]
    groups = [families[a] for a in actions if a in families] + ([file_actions] if file_actions else [])
    policies = []
    for group in groups:
        lowered = _pattern_condition(imp, group[0], target)
        if isinstance(lowered, Omitted):
            return lowered
        condition, exact, notes = lowered
        if group[0].startswith("File") and imp.scope.get("file_scope"):
            attr = "path_normalized" if target.normalized_paths else "path"
            try:
                extra, _, scope_notes = _like_condition(attr, imp.scope["file_scope"], "i", attr == "path_normalized")
            except Unsupported as exc:
                return Omitted(f"file scope has no like form: {exc}")
            condition = f"({condition}) && ({extra})"
            exact = False  # the harness tests file_scope case-insensitively, like is case-sensitive
            notes = [*notes, "file scope matched case-sensitively", *scope_notes]
        full = " && ".join([*scope_terms, f"({condition})" if scope_terms else condition])
        policies.append(Policy(imp.id, group, full, not exact, notes, escalate,
                               action_on_violation if target.extensions else "", extensions))
    if file_actions and imp.clause.verb in _DELETE_VERBS:
        policies += _delete_twin(imp, policies[-1], target)
    return policies


def _delete_twin(imp, file_policy: Policy, target: Target) -> list[Policy]:
    """Deletes arrive as `rm` shell commands: the path rule's ShellCommand twin."""
    globs = []
    for pattern in imp.trigger.patterns:
        if pattern.field == "file_path" and not pattern.negate:
            try:
                globs += [alt.glob().lstrip("*") for alt in lower(pattern.regex, pattern.flags).alternatives]
            except Unsupported:
                return []
    if not globs:
        return []
    condition = " || ".join(f"context.command like {cedar_like('*rm *' + g.rstrip('*') + '*')}" for g in sorted(set(globs)))
    return [Policy(imp.id + "-shell", ["ShellCommand"], condition, True, ["deletes are matched as `rm` commands"],
                   file_policy.escalate, file_policy.action_on_violation, file_policy.extensions)]


def _sequence_policy(imp) -> list[Policy] | Omitted:
    """Interlinked: "always X before Y" as Y without X in the trajectory's commands_run."""
    sequence = imp.sequence
    try:
        event, _, _ = _like_condition("command", sequence.regex, "", False)
    except Unsupported as exc:
        return Omitted(f"the closing event has no like form: {exc}")
    required = " || ".join(f"resource.commands_run.contains({cedar_string(c)})" for c in sequence.requires)
    condition = f"({event}) && !(resource has commands_run && ({required}))"
    return [Policy(imp.id, ["ShellCommand"], condition, True, ["commands_run holds whole commands, compared exactly"],
                   action_on_violation="warn", extensions=["commands_run"])]
