"""Command-line targets (spec §1) and project discovery (spec §2).

A target is a file, a folder (walked for .md, .mdc and .prompt files), a glob,
a GitHub shorthand `owner/repo[/path]` or an https URL. Local targets must
resolve, links followed, inside the project root. With no targets the project
is discovered: every §2a convention under the root, and the §2b globals under
$HOME.
"""

from __future__ import annotations

import glob as globbing
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .sources import load_conventions

WALKED_SUFFIXES = (".md", ".mdc", ".prompt")
# §2b: folders under $HOME that hold global rules
HOME_FOLDERS = (".codex", ".Codex", ".claude", ".gemini", ".config/copilot", ".continue", ".windsurf")


@dataclass(slots=True)
class Targets:
    paths: list[Path] = field(default_factory=list)  # local files under the root
    home: list[Path] = field(default_factory=list)  # global files under $HOME
    remotes: list = field(default_factory=list)  # remote.Remote, fetched
    errors: list[str] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)  # every folder a walk entered (stamp.py watches them)


def _walk(folder: Path, keep, entered: list[str] | None = None) -> list[Path]:
    """Files under a folder (sorted, symlink loops cut), that `keep(relative posix path)` accepts; `entered` gets each folder."""
    conventions = load_conventions()
    found, seen = [], set()
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=True):
        st = os.stat(dirpath)
        if (st.st_dev, st.st_ino) in seen:
            dirnames[:] = []
            continue
        seen.add((st.st_dev, st.st_ino))
        if entered is not None:
            entered.append(dirpath)
        dirnames[:] = sorted(d for d in dirnames if d not in conventions.ignore_dirs)
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if name not in conventions.skip and keep(path.relative_to(folder).as_posix()):
                found.append(path)
    return found


def discover(root: Path, home: Path | None = None) -> Targets:
    """Every rule file of a known convention under root, and the globals under home."""
    conventions = load_conventions()
    entered: list[str] = []
    found = _walk(root, conventions.is_rule_file, entered)
    real = [(p, p.resolve()) for p in found]  # (resolving costs a stat per folder level: once a path)
    targets = Targets(paths=_once([(p, r) for p, r in real if r.is_relative_to(root)]), folders=entered)
    if home and home.is_dir() and not root.is_relative_to(home / ".codex"):
        for folder in HOME_FOLDERS:
            if (home / folder).is_dir():
                targets.home += _walk(home / folder, lambda rel, f=folder: conventions.is_rule_file(f"{f}/{rel}"), entered)
    _progress(len(targets.paths) + len(targets.home))
    return targets


def _once(paths: list[tuple[Path, Path]]) -> list[Path]:
    """One path per file, from (path, its real path): a symlinked rule file is read once, at its real path when that is listed."""
    chosen: dict[Path, Path] = {}
    for path, real in paths:
        if real not in chosen or (chosen[real].is_symlink() and not path.is_symlink()):
            chosen[real] = path
    return sorted(chosen.values())


def _progress(count: int) -> None:
    """A line on stderr for long walks, only when a person is watching."""
    if count >= 200 and sys.stderr.isatty() and not os.environ.get("CI"):
        print(f"policyc: found {count} rule files", file=sys.stderr)


def expand(targets: list[str], root: Path, fetcher=None, removed_groups=()) -> Targets:
    """Resolve command-line targets in order; each problem becomes one error line.

    A remote target of a group the user removed is never fetched (§9). `fetcher`
    (url -> bytes) defaults to remote.fetch_https.
    """
    from .remote import RemoteError, fetch_https, group_of, is_remote, looks_like_shorthand, resolve  # (urllib, ssl: only here)

    fetcher = fetcher or fetch_https
    out = Targets()
    for target in targets:
        local = Path(target) if Path(target).is_absolute() else Path.cwd() / target
        if is_remote(target) or (not local.exists() and not _has_glob(target) and looks_like_shorthand(target)):
            try:
                if group_of(target) in removed_groups:
                    out.errors.append(f"{target}: group {group_of(target)} was removed (overrides file); not fetched")
                    continue
                out.remotes.append(resolve(target, fetcher))
            except RemoteError as exc:
                out.errors.append(str(exc))
            continue
        matches = [Path(p) for p in sorted(globbing.glob(str(local), recursive=True))] if _has_glob(target) else [local]
        if not matches or not matches[0].exists():
            out.errors.append(f"{target}: no such file or directory")
            continue
        for path in matches:
            resolved = path.resolve()
            if not resolved.is_relative_to(root):
                out.errors.append(f"{target} is outside the current project ({root}). cd into that project and re-run policyc.")
            elif resolved.is_dir():
                out.paths += _walk(resolved, lambda rel: rel.endswith(WALKED_SUFFIXES))
            elif resolved.is_file():
                out.paths.append(resolved)
    escaped = [p for p in out.paths if not p.resolve().is_relative_to(root)]
    out.errors += [f"{p} links outside the current project ({root}); not read" for p in escaped]
    out.paths = [p.resolve() if p.is_symlink() else p for p in out.paths if p not in escaped]
    out.paths = sorted(set(out.paths), key=lambda p: p.relative_to(root).as_posix())
    return out


def _has_glob(target: str) -> bool:
    return any(c in target for c in "*?[")
