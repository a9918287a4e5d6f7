"""Work shared out among forked processes, for the stages of a large run that split by file or group.

`shared(work, shares)` returns `[work(share) for share in shares]`: the first share is worked in
this process while a forked child works each other one and sends its result back pickled. A
child inherits everything already loaded (grammars, caches, the sources), so nothing is sent to
it. A child that cannot deliver (killed, or a result that does not pickle) has its share worked
here again, so the result never depends on the split; an exception in `work` surfaces here, as
in one process.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_Work = Callable[[list], Any]


def cores() -> int:
    """Processes worth running at once: the cores this process may use, on Linux (fork elsewhere is
    unsafe with system frameworks, or not there) in a process running no other thread (a child
    gets only the forking thread, and a lock another thread held would stay locked in it); else 1."""
    if not sys.platform.startswith("linux") or threading.active_count() > 1:
        return 1
    return len(os.sched_getaffinity(0))


_working = 1  # processes working shares at once, while shared() runs (a child inherits it)


def helpers() -> int:
    """Helper processes (Node.js) worth starting at once from here: the cores this process may use, divided
    among the processes working shares at once, so two shares on two cores start one each, not two."""
    count = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, count // _working)


def shared(work: _Work, shares: list[list]) -> list:
    """[work(share) for share in shares], the shares after the first each in a forked child."""
    if len(shares) < 2 or not hasattr(os, "fork"):
        return [work(share) for share in shares]
    global _working
    _working = len(shares)
    try:
        return _shared(work, shares)
    finally:
        _working = 1


def _shared(work: _Work, shares: list[list]) -> list:
    children = _fork(work, shares[1:])
    try:
        results = [work(shares[0])]
        for share in shares[1:]:
            result = _collect(*children.pop(0))
            results.append(work(share) if result is _LOST else result)
    finally:
        for pid, read_end in children:  # left by an exception here: they cannot deliver
            os.kill(pid, signal.SIGKILL)
            os.close(read_end)
            os.waitpid(pid, 0)
    return results


class Background:
    """`work()` in a forked child while this process goes on (`fork`), else here when asked; `result()`
    returns it, worked here again if the child could not deliver, and `close()` stops a child whose
    result is no longer wanted. Fork only from a process running no other thread (`cores() > 1`)."""

    def __init__(self, work: Callable[[], Any], fork: bool) -> None:
        self._work = work
        self._child = _fork(lambda _: work(), [[]])[0] if fork and hasattr(os, "fork") else None

    @property
    def forked(self) -> bool:
        """A child is working it (until `result` or `close`)."""
        return self._child is not None

    def result(self) -> Any:
        if self._child is None:
            return self._work()
        child, self._child = self._child, None
        found = _collect(*child)
        return self._work() if found is _LOST else found

    def close(self) -> None:
        if self._child is not None:
            pid, read_end = self._child
            self._child = None
            os.kill(pid, signal.SIGKILL)
            os.close(read_end)
            os.waitpid(pid, 0)


def balanced(items: list, weight: Callable[[Any], int], count: int) -> list[list]:
    """`count` shares of about equal weight, heaviest item first to the lightest share; each share keeps the items' order."""
    shares: list[list[int]] = [[] for _ in range(count)]
    loads = [0] * count
    for i in sorted(range(len(items)), key=lambda i: -weight(items[i])):
        lightest = loads.index(min(loads))
        shares[lightest].append(i)
        loads[lightest] += weight(items[i])
    return [[items[i] for i in sorted(share)] for share in shares]


def contiguous(items: list, weight: Callable[[Any], int], count: int, extra: int = 0) -> list[list]:
    """Up to `count` runs of consecutive items of about equal weight (concatenated, they are `items`);
    `extra`: weight of other work the first run will do, so it takes that much less of the items."""
    total = (sum(map(weight, items)) + extra) or 1
    shares: list[list] = [[]]
    done = extra
    for item in items:
        if done >= total * len(shares) / count and len(shares) < count:
            shares.append([])
        shares[-1].append(item)
        done += weight(item)
    return [share for share in shares if share]


@contextmanager
def few_collections() -> Iterator[None]:
    """Run the cyclic garbage collector rarely inside the block: a large run allocates millions of
    objects that live to its end and form almost no cycles, and each full collection walks them all
    (about a tenth of the time of extraction and rendering on a 12 MB tree). The old thresholds come back after."""
    before = gc.get_threshold()
    gc.set_threshold(50_000, 20, 100)
    try:
        yield
    finally:
        gc.set_threshold(*before)


_LOST = object()


def _fork(work: _Work, shares: list[list]) -> list[tuple[int, int]]:
    """(pid, read end of its pipe) of a forked child per share; each sends work(share) pickled, then exits."""
    gc.freeze()  # the children's collector leaves the inherited objects alone: their pages stay shared
    children: list[tuple[int, int]] = []
    try:
        for share in shares:
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: never returns into the caller, never runs the parent's exit handlers
                code = 1
                try:
                    for fd in [read_end, *(r for _, r in children)]:
                        os.close(fd)
                    result = work(share)
                    with open(write_end, "wb") as pipe:
                        pickle.dump(result, pipe, protocol=pickle.HIGHEST_PROTOCOL)
                    code = 0
                finally:
                    os._exit(code)
            os.close(write_end)
            children.append((pid, read_end))
    except BaseException:  # a fork or pipe that failed part-way (EAGAIN): no child is left running or unreaped
        for pid, read_end in children:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(read_end)
        raise
    finally:
        gc.unfreeze()
    return children


def _collect(pid: int, read_end: int) -> Any:
    """What a child sent, or _LOST when it sent nothing whole; the child is reaped either way."""
    try:
        with open(read_end, "rb") as pipe:
            return pickle.load(pipe)
    except (EOFError, pickle.UnpicklingError, OSError):
        return _LOST
    finally:
        os.waitpid(pid, 0)
