# policyc ordinary sample: an everyday Python text-helper module (unicodedata, re, docstrings).
# Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
# into Read, Write and Edit events at the path below code/python/ to measure rule breadth.

"""Small text helpers used by the CLI and the store."""

from __future__ import annotations

import re
import unicodedata

_NON_WORD = re.compile(r"[^a-z0-9]+")


def slugify(text: str, fallback: str = "untitled") -> str:
    """A URL-friendly form of `text`: ASCII, lower case, words joined by hyphens."""
    normalized = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = _NON_WORD.sub("-", normalized.lower()).strip("-")
    return slug or fallback


def truncate(text: str, limit: int, ellipsis: str = "…") -> str:
    """`text` cut to at most `limit` characters, on a word boundary when there is one."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    if len(text) <= limit:
        return text
    cut = text[: limit - len(ellipsis)]
    space = cut.rfind(" ")
    if space > 0:
        cut = cut[:space]
    return cut.rstrip() + ellipsis


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """'1 entry', '2 entries': the count with the right form of the noun."""
    word = singular if count == 1 else (plural_form or singular + "s")
    return f"{count} {word}"


def first_sentence(text: str, limit: int = 200) -> str:
    """The first sentence of a summary, for one-line listings."""
    flat = " ".join(text.split())
    match = re.search(r"(.+?[.!?])(\s|$)", flat)
    sentence = match.group(1) if match else flat
    return truncate(sentence, limit)
