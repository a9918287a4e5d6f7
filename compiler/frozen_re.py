"""Compiled regular expressions kept between processes, for the hook's rules cache.

`re.compile` parses and compiles in Python, about 0.1 ms a pattern; the hook
would pay that for every rule an event meets. `freeze` keeps what `re`
hands to its C engine (`_sre.compile`: flags, code, groups), marshalled, and
`thaw` builds the same Pattern from it without parsing; a cache holding it
as bytes costs nothing to load until a pattern is used. The code is CPython's and
changes between versions, so a frozen pattern is only valid under the
interpreter that froze it (`ENGINE`, part of the cache key); `_sre`
validates the code it is given, and `thaw` answers None on any failure, so
the caller compiles the pattern afresh.
"""

from __future__ import annotations

import _sre
import marshal
import re
import re._compiler as _compiler
import sys
from re import _parser

ENGINE = f"{sys.implementation.cache_tag} {sys.version} sre {_sre.MAGIC}"


def freeze(regex: str, flags: int) -> bytes:
    """The arguments `_sre.compile` takes for `regex` after the pattern itself, marshalled."""
    parsed = _parser.parse(regex, flags)
    groups = parsed.state.groupdict
    names = [None] * parsed.state.groups
    for name, index in groups.items():
        names[index] = name
    code = [int(c) for c in _compiler._code(parsed, flags)]
    return marshal.dumps((int(flags | parsed.state.flags), code, parsed.state.groups - 1, dict(groups), tuple(names)))


def thaw(regex: str, frozen) -> re.Pattern | None:
    """The Pattern `re.compile(regex, flags)` gives, from `freeze`'s value; None when it cannot be used."""
    try:
        return _sre.compile(regex, *marshal.loads(frozen))
    except Exception:  # noqa: BLE001 - a wrong or garbled value: the caller compiles instead
        return None
