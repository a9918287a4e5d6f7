"""What a lowering backend gives the registry (emitters/registry.py), and what it answers for one rule.

A lowering backend turns each Pass 2 imperative into policies of its own
language and writes one file per group, `policies/<stem>.<kind>`. The plan
asks every registered backend in order; the index, distilled-rules.json
(`companions`, `policies_emitted`, stats), policy.md's companion line and the
validation before writing read the registry, never a backend by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class Omitted:
    """A backend has no policy for the rule: why, in words, and whether an extending backend can carry it."""

    reason: str
    extension: bool = False  # a backend that `extends` this one may lower it


@dataclass(frozen=True, slots=True)
class Backend:
    name: str  # the key of its policies in a plan entry and in a rule's `companions`
    kind: str  # its group file is policies/<stem>.<kind> (stems have no dot, so the kind names the backend)
    title: str  # its column in policies/README.md
    about: str  # what its files are for, one clause of policies/README.md; {target} is the run's Cedar target
    stat: str  # its count of expressed Pass 2 rules in distilled-rules.json's stats
    lower: Callable[[Any, str], list | Omitted]  # (Pass 2 imperative, run's target) -> its policies, or why none
    render: Callable[[Any, str, str], str]  # (plan group, run's target, generated at) -> the group's file
    schema: Callable[[str], str | None] = lambda target: None  # Cedar schema in policyc.schemas its files must validate against
    # The name of an earlier backend: lower only the rules it omitted for want of an extension, and
    # write a file only for groups with such a rule. None: lower every Pass 2 rule, a file for every group.
    extends: str | None = None
