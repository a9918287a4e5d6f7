"""Rule ids (§7): enforce-<group-stem>-<short-kebab-summary>, unique and stable."""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache

_STOP = frozenset((
    "a an the to of in on for with and or any your you we our this that these those be is are it its "
    "from by as at into"
).split())


@cache  # (asked once per rule: a group holds many)
def group_stem(group_id: str) -> str:
    """`local:.clinerules/style.md` -> `local-clinerules-style-md` (the scheme word is kept)."""
    return re.sub(r"[^a-z0-9]+", "-", group_id.lower()).strip("-")


def summary_slug(imperative) -> str:
    """At most six words naming what the rule is about, stable under unrelated edits."""
    trigger = imperative.trigger
    if trigger and trigger.summary:
        prefix = "no" if imperative.action in ("block", "ask") else "avoid"
        words = [prefix, *re.findall(r"[a-z0-9]+", trigger.summary.lower())]
    else:
        words = [w for w in re.findall(r"[a-z0-9]+", imperative.quote.lower()) if w not in _STOP]
    return "-".join(words[:6]) or "rule"


def _sentence(imp) -> tuple:
    return imp.group_id, " ".join(imp.quote.split())


def _trigger(imp) -> tuple | None:
    if not imp.trigger:
        return None
    return imp.group_id, json.dumps([imp.trigger.tool_match, imp.trigger.patterns_json()], sort_keys=True)


def assign_ids(imperatives, previous=()) -> None:
    """Give each imperative its id, keeping the ids of the previous run.

    A rule keeps the id it had when its sentence is unchanged, else when its
    trigger is (an edited sentence); only then does it get a new id, which
    never reuses an id of the previous run. So a new sentence can never take
    over an existing rule's id, nor the overrides the user gave that id.
    A clash gets a suffix from the quote, then an ordinal.
    """
    old = list(previous)
    taken = {imp.id for imp in imperatives if imp.id}  # items reused from the previous run keep theirs
    for key in (_sentence, _trigger):
        known: dict = {}
        for imp in old:
            if imp.id not in taken and key(imp) is not None:
                known.setdefault(key(imp), imp.id)
        for imp in imperatives if known else ():  # (a first run knows no ids: no key to compute)
            if not imp.id and (found := known.get(key(imp))) and found not in taken:
                imp.id = found
                taken.add(found)
    taken |= {imp.id for imp in old}
    for imp in imperatives:
        if imp.id:
            continue
        base = f"enforce-{group_stem(imp.group_id)}-{summary_slug(imp)}"
        candidate = base
        if candidate in taken:
            candidate = f"{base}-{hashlib.sha256(imp.quote.encode()).hexdigest()[:4]}"
        n = 2
        while candidate in taken:
            candidate = f"{base}-{n}"
            n += 1
        taken.add(candidate)
        imp.id = candidate
