"""The lowering backends, in order: a new one is a module with a `BACKEND` plus one line here.

Order matters: the plan asks them in this order (a backend that `extends`
another comes after it), their files and columns are listed in this order, and
policy.md names the first one that carries a rule. Read `BACKENDS` at call
time (`registry.BACKENDS`), so a test can register a backend for its run.
"""

from __future__ import annotations

from . import cedar, interlinked_cedar
from .backend import Backend

BACKENDS: tuple[Backend, ...] = (
    cedar.BACKEND,
    interlinked_cedar.BACKEND,
)


def backend_of(path: str) -> Backend | None:
    """The backend whose group file `path` is (`policies/<stem>.<kind>`; stems have no dot), or None."""
    kind = path.rpartition("/")[2].partition(".")[2]
    return next((b for b in BACKENDS if b.kind == kind), None)
