"""Sondera's side of an event: the Cedar request its Claude Code adapter builds (peers.md §4.2-§4.3).

Only what the v1 schema declares: Bash → ShellCommand on the trajectory;
Write/Edit/NotebookEdit/Read/Glob/Grep → File* on the file; WebFetch →
WebFetch. Other tools have no v1 action and get no request.
"""

from __future__ import annotations

_FILE_ACTIONS = {"Write": "Write", "Edit": "Edit", "MultiEdit": "Edit", "NotebookEdit": "Edit", "Read": "Read", "Glob": "Read", "Grep": "Read"}


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
    trajectory = f'Trajectory::"{event.get("session_id") or "session"}"'
    if tool in ("Bash", "Shell"):
        return {"principal": principal, "action": 'Action::"ShellCommand"', "resource": trajectory,
                "context": {**shared, "command": str(tool_input.get("command") or ""), "working_dir": cwd}}
    if tool in _FILE_ACTIONS:
        path = str(tool_input.get("file_path") or tool_input.get("path") or tool_input.get("notebook_path") or cwd)
        operation = _FILE_ACTIONS[tool]
        return {"principal": principal, "action": f'Action::"File{operation}"', "resource": f"File::{_quoted(path)}",
                "context": {**shared, "path": path, "operation": operation}}
    if tool == "WebFetch":
        return {"principal": principal, "action": 'Action::"WebFetch"', "resource": trajectory,
                "context": {**shared, "url": str(tool_input.get("url") or ""), "prompt": str(tool_input.get("prompt") or "")}}
    return None


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
