"""Sondera's side of an event: the Cedar request its Claude Code adapter builds (peers.md §4.2-§4.3).

Only what the v1 schema declares: Bash → ShellCommand on the trajectory;
Write/Edit/NotebookEdit/Read/Glob/Grep → File* on the file; WebFetch →
WebFetch. Other tools have no v1 action and get no request.
"""

from __future__ import annotations

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


def request(event: dict) -> dict | None:
    tool = event.get("tool_name") or ""
    tool_input = event.get("tool_input") or {}
    cwd = event.get("cwd") or ""
    shared = {
        "workspace": {"cwd": cwd, "permission_mode": event.get("permission_mode") or "", "transcript_path": event.get("transcript_path") or ""},
        "signature": {"categories": [], "matches": 0, "severity": 0},
        "policy": {"compliant": True, "violations": []},
        "label": {"__entity": {"type": "Label", "id": "Public"}},
    }
    principal = 'Agent::"claude-user"'
    trajectory = f'Trajectory::{cedar_string(event.get("session_id") or "session")}'
    action = TOOL_ACTIONS.get(tool, "")
    if action == "ShellCommand":
        return {"principal": principal, "action": 'Action::"ShellCommand"', "resource": trajectory,
                "context": {**shared, "command": str(tool_input.get("command") or ""), "working_dir": cwd}}
    if action.startswith("File"):
        path = str(tool_input.get("file_path") or tool_input.get("path") or tool_input.get("notebook_path") or cwd)
        return {"principal": principal, "action": f'Action::"{action}"', "resource": f"File::{cedar_string(path)}",
                "context": {**shared, "path": path, "operation": action.removeprefix("File")}}
    if action == "WebFetch":
        return {"principal": principal, "action": 'Action::"WebFetch"', "resource": trajectory,
                "context": {**shared, "url": str(tool_input.get("url") or ""), "prompt": str(tool_input.get("prompt") or "")}}
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
