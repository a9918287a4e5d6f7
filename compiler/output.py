"""Where artifacts go (§11) and how they are written: atomically, never over user files."""

from __future__ import annotations

import fcntl
import os
import time
from contextlib import contextmanager
from pathlib import Path

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
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder, True
    return start, False


def write_atomic(path: Path, text: str | bytes) -> None:
    """Write via a temporary file in the same folder, fsync, then rename over the target (text as UTF-8)."""
    if path.name in PROTECTED or path.name.endswith(".local.cedar"):
        raise PermissionError(f"refusing to write {path}: hand-curated rules are never touched")
    import tempfile  # (random, shutil: not for the hook, which only reads)

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8") if isinstance(text, str) else text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class LockError(Exception):
    """Another policyc process holds the output folder."""


@contextmanager
def locked(folder: Path):
    """Hold `<folder>/.policyc.lock` while writing; a second process waits, then fails with a message.

    The wait is POLICYC_LOCK_TIMEOUT seconds (default 10). Holding the lock,
    temporary files a killed run left behind are removed.
    """
    wait_seconds = float(os.environ.get("POLICYC_LOCK_TIMEOUT", "10"))
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / ".policyc.lock", os.O_CREAT | os.O_RDWR, 0o644)
    try:
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LockError(f"another policyc run is writing {folder}; try again when it ends") from None
                time.sleep(0.05)
        for leftover in [*folder.glob(".*.tmp"), *folder.glob("policies/.*.tmp")]:
            leftover.unlink(missing_ok=True)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
