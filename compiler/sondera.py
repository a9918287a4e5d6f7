"""Sondera's side of an event: the Cedar request its Claude Code adapter builds (peers.md §4.2-§4.3).

Sondera v1 (flat names): Bash → ShellCommand on the trajectory;
Write/Edit/NotebookEdit/Read/Glob/Grep → File* on the file; WebFetch →
WebFetch; other tools get no request. Sondera v2 (namespace `Sondera::`)
adds the parser-derived context (`parse` for shell commands, `url_parse`,
`path_normalized`) and PreToolUse on `Tool::"<name>"` for every other tool.
`shell_parse` models Sondera's tree-sitter-bash view of a command closely
enough for `check --cedar` and the differential tests.
"""

from __future__ import annotations

import json
import shlex
from urllib.parse import urlsplit

# Claude tool name -> Sondera action (peers.md §4.2). apply_patch and other
# runners' tools have no Sondera action; deletes arrive as shell commands.
TOOL_ACTIONS = {
    "Bash": "ShellCommand",
    "Shell": "ShellCommand",
    "Write": "FileWrite",
    "Edit": "FileEdit",
    "MultiEdit": "FileEdit",
    "NotebookEdit": "FileEdit",
    "Read": "FileRead",
    "Glob": "FileRead",
    "Grep": "FileRead",
    "WebFetch": "WebFetch",
}

# Wrappers Sondera's parser peels: the word after them (and their options) is a command too.
_WRAPPERS = frozenset({"sudo", "doas", "env", "timeout", "xargs", "nohup", "nice", "time", "command", "exec", "stdbuf", "ionice"})
_DEFAULT_PORTS = {"http": 80, "https": 443, "ftp": 21, "ws": 80, "wss": 443}


def _tokens(command: str) -> tuple[list[str], bool]:
    """Shell words and operators; False when the command does not parse (unbalanced quotes or brackets)."""
    lexer = shlex.shlex(command.replace("$(", " $( ").replace("`", " ` "), posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        tokens = list(lexer)
    except ValueError:
        return command.split(), False
    depth = 0
    for token in tokens:
        depth += token in ("(", "$(") or 0
        depth -= token == ")"
        if depth < 0:
            return tokens, False
    return tokens, depth == 0 and command.count("`") % 2 == 0


def _flag_facts(program: str, token: str) -> list[str]:
    """`program:flag` facts of one option word (bundled short flags split, raw cluster kept)."""
    if token.startswith("--"):
        return [f"{program}:{token.split('=', 1)[0]}"]
    body = token[1:]
    facts = [f"{program}:{token}"]
    if len(body) > 1 and body.isalpha():
        facts += [f"{program}:-{c}" for c in body]
    return facts


def _fold(text: str) -> str:
    return text.lower().replace("\\", "/")


def shell_parse(command: str) -> dict:
    """Sondera v2's `context.parse` record for a command (ShellParseContext in base.cedarschema)."""
    tokens, ok = _tokens(command)
    programs: set[str] = set()
    flags: set[str] = set()
    args: set[str] = set()
    components: set[str] = set()
    has_dynamic = has_redirection = False
    program, at_command, wrapped, options_done = "", True, False, False
    nesting: list[tuple[str, bool, str]] = []  # (outer program, outer at_command, opener) per open bracket
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token in ("(", "$(", "`") and not (token == "`" and nesting and nesting[-1][2] == "`"):
            nesting.append((program, at_command, token))
            program, at_command, wrapped = "", True, False
            continue
        if token in (")", "`") and nesting:
            outer, outer_at_command, opener = nesting.pop()
            has_dynamic = has_dynamic or (opener != "(" and outer_at_command)
            program, at_command, wrapped = ("" if outer_at_command else outer), False, False
            continue
        if set(token) <= set(";&|()"):
            program, at_command, wrapped = "", True, False
            continue
        if set(token) <= set("<>&") or (token.isdigit() and index < len(tokens) and set(tokens[index]) <= set("<>&")):
            has_redirection = has_redirection or not token.isdigit()
            index += not token.isdigit()  # the redirection's target is not an argument
            continue
        if at_command:
            if "=" in token and not token.startswith(("=", "-")) and not wrapped:
                continue  # VAR=value before the command
            if wrapped and token.startswith("-"):
                flags.update(_flag_facts(program, token))  # the wrapper's own options
                continue
            if wrapped and ("=" in token or (program == "timeout" and token[:1].isdigit())):
                continue  # env VAR=value, timeout 10
            if token.startswith("$"):
                has_dynamic, program, at_command = True, "", False
                continue
            program = token.rsplit("/", 1)[-1].lower()
            programs.add(program)
            wrapped = program in _WRAPPERS
            at_command, options_done = wrapped, False
            continue
        if not program or token.startswith("$"):
            continue  # no program scope, or a dynamic argument
        if token == "--" and not options_done:
            options_done = True
        elif token.startswith("-") and len(token) > 1 and not options_done:
            flags.update(_flag_facts(program, token))
        else:
            args.add(f"{program}:{token}")
            components.update(f"{program}:{c}" for c in _fold(token).split("/") if c not in ("", "."))
    return {
        "ok": ok,
        "programs": sorted(programs),
        "program_flags": sorted(flags),
        "program_flags_normalized": sorted({_fold(f) for f in flags}),
        "program_args": sorted(args),
        "program_args_normalized": sorted({_fold(a) for a in args}),
        "program_arg_path_components_normalized": sorted(components),
        "has_dynamic_command": has_dynamic,
        "has_command_substitution": "$(" in command or "`" in command or "<(" in command,
        "has_pipeline": "|" in tokens or "|&" in tokens,
        "has_redirection": has_redirection,
    }


def normalized_path(path: str) -> str:
    """Sondera v2's `path_normalized`: no verbatim prefix, `/` separators, no repeated `/`, lower-case."""
    text = path.replace("\\", "/")
    for prefix in ("//?/", "//./"):
        text = text.removeprefix(prefix)
    while "//" in text:
        text = text.replace("//", "/")
    return text.lower()


def url_parse(url: str) -> dict:
    """Sondera v2's `url_parse` record (host, scheme, port of an absolute URL)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return {"ok": False, "scheme": "", "host": "", "port": 0}
    if not parts.scheme or not url.lower().startswith(parts.scheme + ":"):
        return {"ok": False, "scheme": "", "host": "", "port": 0}
    scheme = parts.scheme.lower()
    return {"ok": True, "scheme": scheme, "host": (parts.hostname or "").lower(), "port": port or _DEFAULT_PORTS.get(scheme, 0)}


def request(event: dict, target: str = "sondera-v1") -> dict | None:
    """The Cedar request Sondera builds for a PreToolUse event, for the v1 or the v2 schema."""
    v2 = target == "sondera-v2"
    ns = "Sondera::" if v2 else ""
    tool = event.get("tool_name") or ""
    tool_input = event.get("tool_input") or {}
    cwd = event.get("cwd") or ""
    signature = {"categories": [], "matches": 0, "severity": 0}
    shared = {
        "workspace": {"cwd": cwd} if v2 else {"cwd": cwd, "permission_mode": event.get("permission_mode") or "",
                                               "transcript_path": event.get("transcript_path") or ""},
        "signature": signature,
        "policy": {"compliant": True, "violations": []},
        "label": {"__entity": {"type": f"{ns}Label", "id": "Public"}},
    }
    principal = f'{ns}Agent::"claude-user"'
    trajectory = f'{ns}Trajectory::{cedar_string(event.get("session_id") or "session")}'
    action = TOOL_ACTIONS.get(tool, "")

    def built(name: str, resource: str, context: dict) -> dict:
        return {"principal": principal, "action": f'{ns}Action::"{name}"', "resource": resource, "context": {**shared, **context}}

    if action == "ShellCommand":
        command = str(tool_input.get("command") or "")
        extra: dict[str, object] = {"file_signature": signature, "parse": shell_parse(command)} if v2 else {}
        return built(action, trajectory, {"command": command, "working_dir": cwd, **extra})
    if action.startswith("File"):
        path = str(tool_input.get("file_path") or tool_input.get("path") or tool_input.get("notebook_path") or cwd)
        extra = {"path_normalized": normalized_path(path)} if v2 else {}
        return built(action, f"{ns}File::{cedar_string(path)}", {"path": path, "operation": action.removeprefix("File"), **extra})
    if action == "WebFetch":
        url = str(tool_input.get("url") or "")
        extra = {"url_parse": url_parse(url)} if v2 else {}
        return built(action, trajectory, {"url": url, "prompt": str(tool_input.get("prompt") or ""), **extra})
    if v2 and tool:
        arguments = json.dumps(tool_input, sort_keys=True, ensure_ascii=False)
        return built("PreToolUse", f"{ns}Tool::{cedar_string(tool)}", {"tool": tool, "arguments": arguments})
    return None


def cedar_string(text: str) -> str:
    """A Cedar string literal: quotes, backslashes and control characters escaped."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\r":
            out.append("\\r")
        elif char == "\t":
            out.append("\\t")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{{{ord(char):x}}}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'
