"""`policyc hook claude`: one Claude Code PreToolUse event, decided with the project's compiled rules.

The protocol (docs/notes/hook.md cites Claude Code's hooks reference): the
event is one JSON object on stdin; the answer is JSON on stdout with exit 0.
A block is `hookSpecificOutput.permissionDecision: "deny"` with a
`permissionDecisionReason` Claude reads, `ask` is `"ask"`, a warning is
`additionalContext` alone (the call goes on through Claude's own permission
checks), and an allowed call prints nothing. Claude Code lets a call through on
every exit code but 2, so this never exits 1 and never prints a traceback:
every failure denies with a one-line reason (fails closed), unless
`--on-error allow`, which allows and says so.

Every tool call pays this start-up, so the module imports only the evaluator
and the project's file names (no pathlib, no dataclasses). The rules (with
the overrides applied) come from a cache next to them, keyed by both files'
identity and change times, with their regexes compiled (frozen_re), in
sections an event reads only when it can meet their rules (`_pack`): the
first call after a change validates the files (JSON Schema) and writes the
cache.
"""

from __future__ import annotations

import io
import json
import marshal
import os
import sys

from .. import __version__
from . import frozen_re
from .harness import _BASH_TOOLS, Evaluator, active, preload, prepare
from .locate import OVERRIDES_NAME, RULES_NAME, find_root, output_folder

RULES_FORMAT = 1  # distilled-rules.json `version` this policyc reads
MAX_EVENT_BYTES = 32 * 1024 * 1024
CACHE_NAME = ".policyc-hook.cache"
_CACHE_FORMAT = b"policyc-hook-6"  # bump when the cached value changes shape
_TRANSCRIPT_TYPES = ("user", "assistant", "system", "summary")  # a session transcript line's `type`
NO_RULES_NOTE = ("policyc: this project has no compiled rules ({path} is missing), so no project rule was checked; "
                 "`policyc compile` in the project root compiles its AGENTS.md/CLAUDE.md rules.")


class HookError(Exception):
    """Why an event cannot be decided; one line. The hook denies with it (or allows with --on-error allow)."""


def main(args, stdin=None, stdout=None, environ=None) -> int:
    """Decide the event on stdin and print Claude Code's answer. Always exit 0 (2 only if stdout fails)."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout
    try:
        answer = decide(args, stdin.read(MAX_EVENT_BYTES + 1), os.environ if environ is None else environ)
    except HookError as exc:
        answer = _failed(str(exc), args.on_error)
    except Exception as exc:  # noqa: BLE001 - whatever went wrong, the call must not slip through
        answer = _failed(f"internal error: {type(exc).__name__}: {exc}", args.on_error)
    try:
        if answer:
            stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
            stdout.flush()
    except (OSError, ValueError) as exc:  # no way to answer in JSON: exit 2 is Claude Code's blocking error
        print(f"policyc hook: cannot write the answer ({exc}); blocking", file=sys.stderr)
        return 2
    return 0


def decide(args, data: bytes, environ) -> dict | None:
    event = parse_event(data)
    out = _output_folder(args, event, environ)
    rules = load_rules(os.path.join(out, RULES_NAME), os.path.join(out, OVERRIDES_NAME), event)
    if rules is None:
        if args.require_rules:
            raise HookError(f"no compiled rules in {out} (this hook was installed for the project); "
                            "run `policyc compile` in the project root")
        return _output(additionalContext=NO_RULES_NOTE.format(path=os.path.join(out, RULES_NAME)))
    decision = Evaluator(rules).evaluate(event)
    if decision.decision in ("block", "ask"):
        verb = "blocked this call" if decision.decision == "block" else "asks before this call"
        reason = f"policyc {verb} (rule {decision.rule_id}): {decision.reason}"
        return _output(permissionDecision="deny" if decision.decision == "block" else "ask", permissionDecisionReason=reason)
    if decision.warnings:
        by_id = {r["id"]: r for r in rules}
        return _output(additionalContext="\n\n".join(_warning(by_id[rule_id]) for rule_id in decision.warnings))
    return None


def _warning(rule: dict) -> str:
    suggestion = f"\nSuggestion: {rule['suggestion']}" if rule.get("suggestion") else ""
    return f"policyc warning (rule {rule['id']}, the call goes ahead): {rule.get('reason', '')}{suggestion}"


def parse_event(data: bytes) -> dict:
    """The PreToolUse event, or HookError naming what is wrong with it."""
    if len(data) > MAX_EVENT_BYTES:
        raise HookError(f"the event is larger than {MAX_EVENT_BYTES // (1024 * 1024)} MB")
    if not data.strip():
        raise HookError("empty stdin: expected one PreToolUse event (JSON)")
    try:
        event = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise HookError(f"the event is not UTF-8 (byte {exc.start})") from None
    except (ValueError, RecursionError) as exc:
        raise HookError(f"the event is not JSON: {exc}") from None
    problem = event_problem(event)
    if problem:
        raise HookError(f"not a PreToolUse event: {problem}")
    return event


def event_problem(event) -> str:
    """Why `event` is not a PreToolUse event ('' when it is): the checks `check` and the hook share."""
    if not isinstance(event, dict):
        return f"a JSON {_kind(event)}, not an object"
    if "tool_name" not in event and ("message" in event or event.get("type") in _TRANSCRIPT_TYPES):
        return "a session transcript line (replay transcripts with `policyc check --transcript`)"
    if event.get("hook_event_name", "PreToolUse") != "PreToolUse":
        return f"hook_event_name is {event['hook_event_name']!r}"
    if "tool_name" not in event:
        return "tool_name is missing"
    if not isinstance(event["tool_name"], str) or not event["tool_name"]:
        return f"tool_name is a {_kind(event['tool_name'])}" if not isinstance(event["tool_name"], str) else "tool_name is empty"
    if not isinstance(event.get("tool_input"), dict):
        return "tool_input is missing" if "tool_input" not in event else f"tool_input is a {_kind(event['tool_input'])}, not an object"
    return ""


def _kind(value) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(type(value), "number")


def _output_folder(args, event: dict, environ) -> str:
    """The project ($CLAUDE_PROJECT_DIR, else the git root above the event's cwd, else --root)'s output folder, as every verb finds it."""
    if environ.get("CLAUDE_PROJECT_DIR"):
        root, origin = environ["CLAUDE_PROJECT_DIR"], "$CLAUDE_PROJECT_DIR"
    elif isinstance(event.get("cwd"), str) and event["cwd"]:
        root, origin = find_root(event["cwd"])[0], "the event's cwd"
    else:
        root, origin = (args.root, "--root") if args.root else (find_root(os.getcwd())[0], "the working directory")
    if not os.path.isdir(root):
        raise HookError(f"the project root {root} (from {origin}) is not a directory")
    return output_folder(os.path.realpath(root), args.out)[0]


def load_rules(rules_path, overrides_path, event: dict | None = None) -> list[dict] | None:
    """The rules with the overrides applied (paths or strings); None when the project has no compiled rules.

    With an event, only the rules it can meet, in order, and only the fields the evaluator reads
    (`_pack`): the hook's start-up grows with what it unmarshals. HookError when either file
    cannot be read or used: the overrides may be what disables a rule, so a broken overrides
    file is never ignored. The cache's compiled regexes are handed to the evaluator (harness.preload)."""
    rules_path, overrides_path = os.fspath(rules_path), os.fspath(overrides_path)
    try:
        key = _cache_key(rules_path, overrides_path)
    except FileNotFoundError:
        return None
    cache = os.path.join(os.path.dirname(rules_path), CACHE_NAME)
    try:
        with open(cache, "rb") as file:
            if file.readline() == key + b"\n":
                return _unpack(file, event)
    except Exception:  # noqa: BLE001 - no cache, another version's or a garbled one (of any shape): rebuilt from the files
        pass
    body = _pack(_validated(rules_path, overrides_path))
    if _cache_key(rules_path, overrides_path) == key:  # unchanged while it was read
        _write_cache(cache, key + b"\n" + body)
    return _unpack(io.BytesIO(body), event)


# The fields of a rule the evaluator (and the hook's messages) read; the rest (source, companions, ...) only `check` reports.
_EVALUATED = ("id", "enabled", "trigger", "tool_match", "action", "patterns", "reason", "suggestion", "keywords",
              "applies_to_roles", "active_when")


def _pack(rules: list[dict]) -> bytes:
    """The cache's body: an index (its length on a line, then marshalled), then sections it locates.

    The hook's sections are runs, consecutive rules with the same tools and scope, each with the
    fields the evaluator reads and its patterns' regexes frozen, and the scopes with theirs: an
    event reads only the runs whose tools it names and, for a tool other than a shell, whose
    scope is active for it. The last section is every rule whole, for `check`. Each section
    starts with its name, so an index pointing elsewhere is caught."""
    sections: list[bytes] = []

    def section(name: str, items: list[dict], prepared: dict) -> tuple[int, int]:
        data = marshal.dumps((name, items, prepared))
        sections.append(data)
        return sum(map(len, sections)) - len(data), len(data)

    scopes: list[dict] = []
    tool_sets: dict[frozenset, frozenset] = {}  # one object per set of tools, which marshal writes once
    runs: list[tuple[frozenset, int | None, list[dict]]] = []
    for rule in rules:
        tools = frozenset(str(t).lower() for t in rule.get("tool_match") or ())
        tools = tool_sets.setdefault(tools, tools)
        scope = rule.get("active_when") or None
        if scope is not None and scope not in scopes:
            scopes.append(scope)
        where = None if scope is None else scopes.index(scope)
        lean = {k: rule[k] for k in _EVALUATED if k in rule}
        if runs and runs[-1][:2] == (tools, where):
            runs[-1][2].append(lean)
        else:
            runs.append((tools, where, [lean]))
    index = (section("scopes", scopes, prepare([{"active_when": s} for s in scopes])),
             [(tools, where, *section(f"run {n}", lean, prepare([{"patterns": r.get("patterns", [])} for r in lean])))
              for n, (tools, where, lean) in enumerate(runs)],
             section("rules", rules, prepare(rules)))
    head = marshal.dumps(index)
    return b"%d\n" % len(head) + head + b"".join(sections)


def _unpack(file, event: dict | None) -> list[dict]:
    """`_pack`'s rules from a file positioned at the body: every rule, or those `event` can meet.

    Which those are: the rules naming the event's tool or `*` (the evaluator's tool index), and
    for a shell tool every shell rule (its compound-command path, which ignores scopes). For any
    other tool, a rule whose `active_when` is inactive for this event never fires, so it is left
    out too (with hundreds of path-scoped rules, most are). ValueError (and the like) when the
    body is not what `_pack` writes."""
    size = int(file.readline())
    (scopes_at, runs, rules_at), base = marshal.loads(file.read(size)), file.tell()

    def section(name: str, offset: int, length: int) -> list[dict]:
        """The section's rules (or scopes), its regexes preloaded."""
        file.seek(base + offset)
        value = marshal.loads(file.read(length))
        if not (type(value) is tuple and len(value) == 3 and value[0] == name and type(value[1]) is list
                and all(type(item) is dict for item in value[1]) and type(value[2]) is dict
                and all(type(value[2].get(k)) is dict for k in ("frozen", "literals", "scope_literals"))):
            raise ValueError(f"{name}: not a section of a rules cache")
        preload(value[2])
        return value[1]

    if event is None:
        return section("rules", *rules_at)
    tool = event["tool_name"].lower()
    shell = tool in _BASH_TOOLS
    wanted = {"*", tool} | (_BASH_TOOLS if shell else set())
    scopes: list[dict] | None = None
    active_scopes: dict[int, bool] = {}
    rules: list[dict] = []
    for n, (tools, where, *at) in enumerate(runs):
        if type(tools) is not frozenset or not (where is None or (type(where) is int and where >= 0)):
            raise ValueError("not the index of a rules cache")
        if wanted.isdisjoint(tools):
            continue
        if not shell and where is not None:
            if where not in active_scopes:
                scopes = section("scopes", *scopes_at) if scopes is None else scopes
                active_scopes[where] = active({"active_when": scopes[where]}, event)
            if not active_scopes[where]:
                continue
        rules += section(f"run {n}", *at)
    return rules


def _cache_key(rules_path: str, overrides_path: str) -> bytes:
    """Which versions of the two files a cache holds: each file's identity, size and change times.

    policyc replaces files by renaming a new one over them (a new inode and
    ctime), and no tool can set a ctime back, so any change to either file
    changes the key without reading them. The interpreter is part of it, since
    the compiled regexes are its own, and so is policyc's version, whose code
    computed the literals and scopes the cache holds. FileNotFoundError: no rules."""
    parts = [_CACHE_FORMAT.decode(), __version__, frozen_re.ENGINE]
    for path in (rules_path, overrides_path):
        try:
            st = os.stat(path)
        except FileNotFoundError:
            if path == rules_path:
                raise
            parts.append("-")
            continue
        except OSError as exc:
            raise HookError(f"{path}: cannot read: {exc.strerror}") from None
        parts.append(f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}")
    return "\0".join(parts).replace("\n", " ").encode()


def _write_cache(path: str, data: bytes) -> None:
    import contextlib
    from pathlib import Path

    from .output import write_atomic

    with contextlib.suppress(OSError, ValueError):  # a read-only output folder: every call validates the files again
        write_atomic(Path(path), data)


def _validated(rules_path: str, overrides_path: str) -> list[dict]:
    """Read and check both files; the rules the harness would load."""
    from pathlib import Path

    from . import overrides as overrides_file
    from .checks import schema_error

    try:
        with open(rules_path, "rb") as file:
            doc = json.loads(file.read().decode("utf-8"))
    except OSError as exc:
        raise HookError(f"{rules_path}: cannot read the rules: {exc.strerror}") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise HookError(f"{rules_path}: not valid JSON ({exc}); recompile with `policyc compile`") from None
    version = doc.get("version") if isinstance(doc, dict) else None
    if version != RULES_FORMAT:
        if isinstance(version, int) and version > RULES_FORMAT:
            raise HookError(f"{rules_path}: rules format {version} is newer than this policyc reads ({RULES_FORMAT}); upgrade policyc")
        raise HookError(f"{rules_path}: rules format {version!r} is not the one this policyc reads ({RULES_FORMAT}); "
                        "recompile with `policyc compile`")
    if error := schema_error("distilled-rules.schema.json", doc):
        raise HookError(f"{rules_path}: invalid rules file at {error}; recompile with `policyc compile`")
    try:
        overrides = overrides_file.load(Path(overrides_path))
    except overrides_file.OverridesError as exc:
        raise HookError(f"{exc} (the overrides may be what disables a rule, so the hook does not guess)") from None
    return [overrides.apply(r) for r in doc["rules"] if r["source"]["group_id"] not in overrides.removed_groups]


def _output(**fields) -> dict:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", **fields}}


def _failed(problem: str, on_error: str) -> dict:
    """The answer when the event cannot be decided: deny, or with --on-error allow, allow and say so."""
    problem = " ".join(problem.split())  # one line
    print(f"policyc hook: error: {problem}", file=sys.stderr)
    if on_error == "allow":
        message = f"policyc hook could not check this call and allowed it (--on-error allow): {problem}"
        return {"systemMessage": message, **_output(additionalContext=message)}
    return _output(permissionDecision="deny",
                   permissionDecisionReason=f"policyc hook could not check this call, so it is denied: {problem}")
