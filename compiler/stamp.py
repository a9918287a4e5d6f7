"""A no-change `policyc compile`, answered from a stamp without compiling.

A compile that finds nothing to do (verbs._compile's up-to-date branch)
records in `<output folder>/.policyc-compile.stamp` what it printed and what
that answer depended on: its command line, working directory and environment,
and the identity, size and change times of every file and folder it read:

- each folder the discovery walk entered (a rule file added, removed or
  renamed changes its folder's times), the $HOME folders it looked for, and
  the folders from the working directory up to the root it found;
- each rule file, .gitmodules, .interlinked/config.json;
- the output files (the rules, the IR and its seal, the overrides, every
  policies/ file the run recorded) and policyc's own code and data files.

The next identical command replays that output (exit 0) when every one of
them is unchanged, and runs the real compile otherwise; a missing, garbled or
foreign stamp is ignored. A file changed within `MARGIN_NS` of the run that
wrote the stamp could be edited again in the same clock tick without its times
changing, so such a run writes no stamp. This module imports only os, sys and
marshal: replaying costs a few stat calls.
"""

from __future__ import annotations

import marshal
import os
import sys

from .. import __version__
from .locate import find_root, output_folder

NAME = ".policyc-compile.stamp"
_FORMAT = "policyc-compile-stamp-1"
MARGIN_NS = 2_000_000_000
_SIMPLE = ("--root", "--out", "--format", "--cedar-target")  # the options a replay reads (each with its value)
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_CODE = ("compiler", "emitters", "grammar", "schemas", "emitters/templates")


def _key(argv: list[str]) -> tuple:
    """What the output depends on besides the files."""
    env = tuple(os.environ.get(name) for name in ("HOME", "SOURCE_DATE_EPOCH", "CI"))
    return _FORMAT, __version__, tuple(argv), os.getcwd(), env, sys.stdout.isatty(), sys.stderr.isatty()


def _state(path: str):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _stamp_path(argv: list[str]) -> str | None:
    """Where a stamp for this command line would be: None unless it is `compile` with only the options above."""
    if argv[:1] != ["compile"] or len(argv) % 2 == 0:
        return None
    options = dict(zip(argv[1::2], argv[2::2]))
    if len(options) * 2 != len(argv) - 1 or not set(options) <= set(_SIMPLE) or any(v.startswith("-") for v in options.values()):
        return None
    root = os.path.realpath(options["--root"]) if "--root" in options else find_root(os.getcwd())[0]
    out, fallback = output_folder(root, options.get("--out"))
    return None if fallback else os.path.join(out, NAME)


def replay(argv: list[str]) -> bool:
    """Print what the last identical no-change compile printed, when nothing it depended on changed; False otherwise."""
    try:
        path = _stamp_path(argv)
        if path is None:
            return False
        with open(path, "rb") as file:
            key, paths, states, printed, warned = marshal.loads(file.read())
        if key != _key(argv) or [_state(p) for p in paths] != states:
            return False
    except (OSError, ValueError, EOFError, TypeError):  # no stamp, a garbled one or one of another shape
        return False
    sys.stdout.write(printed)
    sys.stdout.flush()
    sys.stderr.write(warned)
    return True


class Tee:
    """Records what is printed on stdout and stderr inside `with`, still printing it."""

    def __init__(self):
        self.out: list[str] = []
        self.err: list[str] = []

    def __enter__(self) -> Tee:
        self._streams = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = _Copy(sys.stdout, self.out), _Copy(sys.stderr, self.err)
        return self

    def __exit__(self, *exc) -> None:
        sys.stdout, sys.stderr = self._streams


class _Copy:
    def __init__(self, stream, parts: list[str]):
        self._stream, self._parts = stream, parts

    def write(self, text: str) -> int:
        self._parts.append(text)
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def dependencies(project, targets, rules: dict, root_given: bool) -> list[str]:
    """Every path a no-change compile's answer depends on (see the module docstring)."""
    from .pipeline import SEAL_NAME
    from .targets import HOME_FOLDERS

    paths = [*targets.folders, *map(str, targets.paths), *map(str, targets.home)]
    if project.home is not None:
        paths += [str(project.home), *(str(project.home / folder) for folder in HOME_FOLDERS)]
    if not root_given:  # a .git created between the working directory and the root moves the root
        folder = os.path.realpath(os.getcwd())
        while folder.startswith(str(project.root)) and folder != os.path.dirname(folder):
            paths.append(folder)
            folder = os.path.dirname(folder)
    paths += [str(project.root / ".gitmodules"), str(project.root / ".interlinked" / "config.json")]
    paths += [str(p) for p in (project.rules(), project.ir(), project.out / SEAL_NAME, project.overrides)]
    paths += [str(project.out / p) for p in rules.get("policies_emitted", [])]
    for folder in (os.path.join(_PACKAGE, name) for name in _CODE):
        paths += [folder, *(os.path.join(folder, name) for name in sorted(os.listdir(folder)) if not name.startswith("__"))]
    return paths


def write(argv: list[str], paths: list[str], tee: Tee, started_ns: int) -> None:
    """Record a no-change compile's output for `replay`, unless a path changed too recently to be told apart."""
    path = _stamp_path(argv)
    states = [_state(p) for p in paths]
    if path is None or any(s is not None and max(s[3], s[4]) >= started_ns - MARGIN_NS for s in states):
        return
    import contextlib
    from pathlib import Path

    from .output import write_atomic

    with contextlib.suppress(OSError, ValueError):  # a read-only output folder: the next run compiles again
        write_atomic(Path(path), marshal.dumps((_key(argv), paths, states, "".join(tee.out), "".join(tee.err))), Path(path).parent)
