"""Rule ids (§7): enforce-<group-stem>-<short-kebab-summary>, unique and stable."""

from __future__ import annotations

import hashlib
import re

_STOP = frozenset("a an the to of in on for with and or any your you we our this that these those be is are it its from by as at into".split())


def group_stem(group_id: str) -> str:
    """`local:.clinerules/style.md` -> `local-clinerules-style-md` (the scheme word is kept)."""
    return re.sub(r"[^a-z0-9]+", "-", group_id.lower()).strip("-")


def summary_slug(imperative) -> str:
    """At most six words naming what the rule is about, stable under unrelated edits."""
    trigger = imperative.trigger
    if trigger and trigger.get("summary"):
        prefix = "no" if imperative.action in ("block", "ask") else "avoid"
        words = [prefix, *re.findall(r"[a-z0-9]+", trigger["summary"].lower())]
    else:
        words = [w for w in re.findall(r"[a-z0-9]+", imperative.quote.lower()) if w not in _STOP]
    return "-".join(words[:6]) or "rule"


def assign_ids(imperatives) -> None:
    """Give each imperative its id; a clash gets a suffix from its quote, then an ordinal."""
    taken: set[str] = set()
    for imp in imperatives:
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
