"""Where artifacts go (§11) and how they are written: atomically, never over user files."""

from __future__ import annotations

import itertools
import json
import os
import stat
import sys
import time
from contextlib import contextmanager, suppress
from pathlib import Path

from . import locate

# The user's hand-curated harness rules (and any *.local.cedar, the user's Cedar
# extension layer): never written, whatever the caller asks.
PROTECTED = ("guard-rules.json", "guard-rules.local.json")

FALLBACK_MESSAGE = (
    "No .interlinked/ directory found. Distilled rules written to {path}. To enforce them, "
    "install Interlinked (npm i -g interlinked-cli && interlinked enable) — Interlinked's harness "
    "reads exactly this file from .interlinked/. Or wire the JSON into your own hook engine using "
    "the GuardRule schema. Distillation does NOT require Interlinked; enforcement does."
)


def find_root(start: Path) -> tuple[Path, bool]:
    """The nearest folder holding .git at or above `start`, else `start` (and False)."""
    root, is_git = locate.find_root(str(start))
    return Path(root), is_git


class OutputError(Exception):
    """A write that would leave the output folder (a symbolic link on the way); the message is one line."""


def _checked_parent(path: Path, base: Path | None, checked: set[Path] | None = None) -> None:
    """Create `path`'s folders under `base`, refusing any symbolic link between them (a write never follows one).

    `checked`: folders already made and checked in this batch of writes, not looked at again."""
    if base is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        return
    if not path.is_relative_to(base):
        raise OutputError(f"refusing to write {path}: it is outside the output folder {base}")
    if checked is None or path.parent not in checked:
        folder = base
        for part in path.relative_to(base).parts[:-1]:
            folder = folder / part
            if folder.is_symlink():
                raise OutputError(f"refusing to write {path}: {folder} is a symbolic link; remove it and run again")
            folder.mkdir(exist_ok=True)
        if checked is not None:
            checked.add(path.parent)
    if path.is_symlink():
        raise OutputError(f"refusing to write {path}: it is a symbolic link; remove it and run again")


def _mode() -> int:
    """0644 as the umask allows (mkstemp's 0600 is for secrets, these files are for reading)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o644 & ~mask


TMP_PREFIX = ".policyc-"
_TMP_NUMBERS = itertools.count()  # next() on it is atomic: each writing thread gets its own number


def _holds(path: Path, data: bytes, mode: int) -> bool:
    """`path` is a regular file with exactly `data` and the mode a write would give it."""
    try:
        info = path.lstat()
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode) or info.st_size != len(data) or stat.S_IMODE(info.st_mode) != mode:
        return False
    return path.read_bytes() == data


def _checked(path: Path, base: Path | None, checked: set[Path] | None = None) -> None:
    """Refuse a write policyc never makes (hand-curated rules, a symbolic link on the way); make the folders."""
    if path.name in PROTECTED or path.name.endswith(".local.cedar"):
        raise PermissionError(f"refusing to write {path}: hand-curated rules are never touched")
    _checked_parent(path, base, checked)


def _staged(path: Path, data: bytes, mode: int) -> Path | None:
    """A new temporary file beside `path` holding `data`, fsynced, with the mode a write gives; None when
    `path` already holds exactly that. The temporary name (this process's id and a number, made with
    O_EXCL so an old leftover is never reused) is unique without mkstemp's random names."""
    if _holds(path, data, mode):
        return None  # unchanged: not rewritten, so it keeps its time stamp and a re-run costs no fsync
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    while True:
        tmp = path.parent / f"{TMP_PREFIX}{path.name}.{os.getpid()}-{next(_TMP_NUMBERS)}.tmp"
        try:
            fd = os.open(tmp, flags, 0o600)
            break
        except FileExistsError:  # left by a killed process that had this id: take the next number
            continue
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _encoded(text: str | bytes) -> bytes:
    return text.encode("utf-8") if isinstance(text, str) else text


def write_atomic(path: Path, text: str | bytes, base: Path | None = None) -> None:
    """Write via a temporary file in the same folder, fsync, then rename over the target (text as UTF-8).

    With `base`, every folder from `base` down must be a real folder inside it
    (no symbolic link is followed) and the target must not be a link.
    """
    _checked(path, base)
    tmp = _staged(path, _encoded(text), _mode())
    if tmp is not None:
        try:
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise


WRITERS = 8  # files written at once: their fsyncs wait on the disk together


class Staged:
    """Files written atomically in two steps: `Staged(files, base)` checks every target (a refused one
    raises before anything is written) and starts writing each file's temporary (fsynced) in
    threads; `commit` renames them over their targets in order, `discard` removes them. Until
    `commit`, no file a reader sees has changed, so the caller can stage files while it still checks
    them; a temporary a killed run leaves is removed by the next run's `locked`."""

    def __init__(self, files: list[tuple[Path, str | bytes]], base: Path) -> None:
        from concurrent.futures import ThreadPoolExecutor  # (not for the hook, which only reads)

        folders = {path.parent for path, _ in files}
        self._made = sorted((f for f in folders | {a for f in folders for a in f.parents if a.is_relative_to(base)} if not f.exists()),
                            key=lambda f: -len(f.parts))  # deepest first
        checked: set[Path] = set()
        try:
            for path, _ in files:
                _checked(path, base, checked)
        except BaseException:
            self._rmdirs()
            raise
        mode = _mode()
        self._pool = ThreadPoolExecutor(max_workers=WRITERS)
        self._staged = {path: self._pool.submit(_staged, path, _encoded(text), mode) for path, text in files}

    def _finished(self) -> dict[Path, Path | None]:
        """Each path's temporary (None: unchanged), once every one is written; the first error, in order, raised after
        the others' temporaries are removed."""
        self._pool.shutdown(wait=True)
        temporaries, error = {}, None
        for path, future in self._staged.items():
            try:
                temporaries[path] = future.result()
            except BaseException as exc:  # raised below, once every temporary is accounted for
                error = error or exc
        if error is not None:
            self._remove(temporaries.values())
            raise error
        return temporaries

    @staticmethod
    def _remove(temporaries) -> None:
        for tmp in temporaries:
            if tmp is not None:
                tmp.unlink(missing_ok=True)

    def commit(self, paths: list[Path]) -> None:
        """Rename the temporaries of `paths` over their targets, in that order; the others' are removed."""
        temporaries = self._finished()
        try:
            for path in paths:
                if (tmp := temporaries[path]) is not None:
                    os.replace(tmp, path)
                del temporaries[path]
        finally:
            self._remove(temporaries.values())

    def discard(self) -> None:
        """Remove every temporary, and the folders staging made: nothing is written."""
        self._remove(self._finished().values())
        self._rmdirs()

    def _rmdirs(self) -> None:
        for folder in self._made:
            with suppress(OSError):  # not empty: something else wrote there meanwhile, and it stays
                folder.rmdir()


def emitted_before(rules_path: Path) -> frozenset[str]:
    """The policies/ files the last run recorded as its own (`policies_emitted` of distilled-rules.json)."""
    try:
        emitted = json.loads(rules_path.read_text(encoding="utf-8")).get("policies_emitted", [])
    except (OSError, ValueError, AttributeError):
        return frozenset()
    return frozenset(p for p in emitted if isinstance(p, str)) if isinstance(emitted, list) else frozenset()


def remove_emitted(base: Path, rel: str, emitted: frozenset[str]) -> bool:
    """Delete `base/rel` only when policyc recorded writing it, and never through a symbolic link."""
    path = base / rel
    if rel not in emitted or not path.is_relative_to(base):
        return False
    _checked_parent(path, base)
    path.unlink(missing_ok=True)
    return True


class LockError(Exception):
    """Another policyc process holds the output folder."""


def _try_lock(fd: int) -> None:
    """Take an exclusive lock on an open file without waiting; OSError when another process holds it."""
    if sys.platform == "win32":
        import msvcrt  # imported here: the package must import on every platform

        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


@contextmanager
def locked(folder: Path):
    """Hold `<folder>/.policyc.lock` while writing; a second process waits, then fails with a message.

    The wait is POLICYC_LOCK_TIMEOUT seconds (default 10). Holding the lock,
    temporary files a killed run left behind (policyc's own `.policyc-*.tmp`)
    are removed; a folder that is a symbolic link is refused.
    """
    try:
        wait_seconds = float(os.environ.get("POLICYC_LOCK_TIMEOUT", "10"))
    except ValueError:
        raise LockError(f"POLICYC_LOCK_TIMEOUT={os.environ['POLICYC_LOCK_TIMEOUT']!r} is not a number of seconds") from None
    if folder.is_symlink():
        raise OutputError(f"refusing to write into {folder}: it is a symbolic link; remove it and run again")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / ".policyc.lock", os.O_CREAT | os.O_RDWR, 0o644)
    except OSError as exc:
        raise OutputError(f"cannot write to {folder}: {exc.strerror or exc}") from None
    try:
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                _try_lock(fd)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise LockError(f"another policyc run is writing {folder}; try again when it ends") from None
                time.sleep(0.05)
        policies = folder / "policies"
        leftovers = [*folder.glob(f"{TMP_PREFIX}*.tmp")] + ([] if policies.is_symlink() else [*policies.glob(f"{TMP_PREFIX}*.tmp")])
        for leftover in leftovers:
            leftover.unlink(missing_ok=True)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
