"""`policyc hook install claude` / `uninstall`: the PreToolUse entry in Claude Code's settings files.

The settings shape (docs/notes/hook.md cites Claude Code's hooks reference):
`{"hooks": {"PreToolUse": [{"matcher": "Bash|Write", "hooks": [{"type":
"command", "command": "..."}]}]}}`; the matcher is a tool name or a regex of
tool names. Installing merges one entry into that list (or updates the one it
wrote before), keeping every other setting and hook as it was; uninstalling
removes only what it wrote. A settings file that is not what Claude Code
reads is reported and never overwritten.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from .output import write_atomic

_OURS = re.compile(r"^(?:'[^']*/policyc'|(?:\S*/)?policyc) hook claude(?: |$)")  # what command_for writes
SCOPES = {"project": ".claude/settings.json", "local": ".claude/settings.local.json", "user": ".claude/settings.json"}


class SettingsError(Exception):
    """A settings file that cannot be changed safely; the message names the file and the problem."""


@dataclass(frozen=True, slots=True)
class Change:
    path: Path
    text: str  # the settings file after the change
    changed: bool
    message: str


def settings_path(scope: str, root: Path, home: Path | None) -> Path:
    if scope == "user":
        if home is None:
            raise SettingsError("HOME is not set: cannot find ~/.claude/settings.json")
        return home / SCOPES["user"]
    return root / SCOPES[scope]


def command_for(scope: str, executable: str = "policyc") -> str:
    """The hook's command line. A project's own hook expects its compiled rules (--require-rules); a
    user-wide one allows, with a note, in projects that have none. `executable` is an absolute path for
    this machine's files (Claude Code's hook shell may not have the PATH policyc was installed on);
    the shared project file names `policyc`."""
    program = "policyc" if scope == "project" else shlex.quote(executable)
    return f"{program} hook claude" + (" --require-rules" if scope in ("project", "local") else "")


def matcher_for(rules: list[dict]) -> str:
    """A matcher naming exactly the tools the enabled PreToolUse rules act on (`*` when one names every tool)."""
    tools = {str(t) for r in rules if r.get("enabled", True) is not False and r.get("trigger") in ("PreToolUse", "both")
             for t in r.get("tool_match") or ()}
    if "*" in tools:
        return "*"
    return "|".join(re.escape(t) for t in sorted(tools))


def install(path: Path, matcher: str, command: str) -> Change:
    settings = _read(path)
    entries = _pre_tool_use(settings, path, create=True)
    wanted = {"matcher": matcher, "hooks": [{"type": "command", "command": command}]}
    ours = [i for i, e in enumerate(entries) if _is_ours(e)]
    if ours and entries[ours[0]] == wanted and len(ours) == 1:
        return Change(path, _dump(settings), False, f"{path}: the policyc hook is already installed (matcher {matcher})")
    if ours:
        entries[ours[0]] = wanted
        for index in reversed(ours[1:]):
            del entries[index]
    else:
        entries.append(wanted)
    return Change(path, _dump(settings), True, f"{path}: policyc hook installed for PreToolUse (matcher {matcher})")


def uninstall(path: Path) -> Change:
    if not path.exists():
        return Change(path, "", False, f"{path}: no settings file; nothing to uninstall")
    settings = _read(path)
    entries = _pre_tool_use(settings, path, create=False)
    if not any(_is_ours(e) for e in entries):
        return Change(path, _dump(settings), False, f"{path}: the policyc hook is not installed; nothing changed")
    entries[:] = [e for e in entries if not _is_ours(e)]
    if not entries:
        del settings["hooks"]["PreToolUse"]
        if not settings["hooks"]:
            del settings["hooks"]
    return Change(path, _dump(settings), True, f"{path}: policyc hook removed")


def write(change: Change) -> None:
    """Write the changed settings atomically; SettingsError (one line) when the folder is not writable."""
    try:
        mode = change.path.stat().st_mode & 0o777 if change.path.exists() else 0o644
        write_atomic(change.path, change.text)
        change.path.chmod(mode)  # the temporary file was private; the settings keep their mode
    except OSError as exc:
        raise SettingsError(f"{change.path}: cannot write the settings: {exc.strerror or exc}; nothing changed") from None


def _is_ours(entry: dict) -> bool:
    """An entry this command wrote: its only hook runs `policyc hook claude`."""
    hooks = entry.get("hooks")
    return (isinstance(hooks, list) and len(hooks) == 1 and isinstance(hooks[0], dict)
            and _OURS.match(str(hooks[0].get("command", ""))) is not None)


def _read(path: Path) -> dict:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read the settings: {exc}; nothing changed") from None
    try:
        settings = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise SettingsError(f"{path}: not valid JSON ({exc}); fix it by hand, it is never overwritten") from None
    if not isinstance(settings, dict):
        raise SettingsError(f"{path}: not a JSON object; fix it by hand, it is never overwritten")
    return settings


def _pre_tool_use(settings: dict, path: Path, create: bool) -> list:
    """The settings' hooks.PreToolUse list (created when asked); SettingsError when another shape is there."""
    hooks = settings.setdefault("hooks", {}) if create else settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError(f"{path}: `hooks` is not an object; fix it by hand, it is never overwritten")
    entries = hooks.setdefault("PreToolUse", []) if create else hooks.get("PreToolUse", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise SettingsError(f"{path}: `hooks.PreToolUse` is not a list of objects; fix it by hand, it is never overwritten")
    return entries


def _dump(settings: dict) -> str:
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
