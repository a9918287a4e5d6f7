"""`<group>.cedar`: Sondera-compatible Cedar (targets sondera-v1 and sondera-v2), the first lowering backend."""

from __future__ import annotations

from typing import TYPE_CHECKING

import cedarpy

from ..compiler.ir import PolicyIR
from ..compiler.resolve import Resolved
from .backend import Backend
from .cedar_lowering import TARGETS, Target, lower_imperative
from .render import render

if TYPE_CHECKING:
    from .plan import Entry, Group

NAME = "cedar"


def render_cedar(template: str, group: Group, target: Target, generated_at: str, **values) -> str:
    """A group's file of a Cedar backend in the canonical form of Cedar's formatter (`cedar format --check` passes)."""
    return cedarpy.format_policies(
        render(
            template,
            group=group,
            target=target,
            generated_at=generated_at,
            titles={e.imperative.id: e.title for e in group.entries},
            descriptions={e.imperative.id: e.signal for e in group.entries},
            **values,
        )
    )


def _see(group: Group, entry: Entry) -> str:
    """Where a rule this file omits is carried instead: its policy.md entry, other backends' files, its GuardRule."""
    imp = entry.imperative
    places = [f"{group.stem}.policy.md#P{entry.number}"]
    places += [f"{group.stem}.{b.kind}#{imp.id}" for b in group.carriers(entry) if b.name != NAME]
    places += [f"distilled-rules.json#{imp.id}"] if "pass1" in imp.routes else []
    return " and ".join(places)


def render_group(group: Group, target_name: str, generated_at: str) -> str:
    return render_cedar(
        "cedar.j2",
        group,
        TARGETS[target_name],
        generated_at,
        expressed=sum(1 for e in group.entries if e.policies(NAME)),
        see={e.imperative.id: _see(group, e) for e in group.entries if not e.policies(NAME)},
    )


def render_policy(group: Group, entry: Entry, policy) -> str:
    """One policy as a file of Sondera's layout: no timestamp, so an unchanged rule gives the same bytes."""
    imp = entry.imperative
    return cedarpy.format_policies(render("sondera.j2", group=group, imp=imp, policy=policy, description=entry.signal))


BACKEND = Backend(
    name=NAME,
    kind="cedar",
    title="Cedar",
    about="`<group>.cedar` files drop into a Sondera policy folder ({target})",
    stat="cedar_policies",
    lower=lambda imp, target: lower_imperative(imp, TARGETS[target]),
    render=render_group,
    schema=lambda target: TARGETS[target].schema,
)


def emit(ir: PolicyIR | Resolved, target: str = "sondera-v2", groups: list | None = None) -> dict[str, str]:
    """{path under the output folder: Cedar text} for every group with Pass 2 policies."""
    from . import lowered_files  # the package imports this module

    return lowered_files(BACKEND, ir, target, groups)
