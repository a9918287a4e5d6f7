"""`<group>.interlinked.cedar`: policies that need the Interlinked extensions.

Skill-scoped rules, sequential preconditions (commands_run) and warn rules,
which Sondera's Cedar cannot carry: this backend extends `cedar`, lowering only
what it omitted for want of an extension. Emitted only for groups that have one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..compiler.ir import PolicyIR
from ..compiler.resolve import Resolved
from .backend import Backend
from .cedar import render_cedar
from .cedar_lowering import TARGETS, lower_imperative

if TYPE_CHECKING:
    from .plan import Group

NAME = "interlinked_cedar"
TARGET = TARGETS["interlinked"]  # whatever the run's Sondera target


def render_group(group: Group, target_name: str, generated_at: str) -> str:
    return render_cedar("interlinked.j2", group, TARGET, generated_at)


BACKEND = Backend(
    name=NAME,
    kind="interlinked.cedar",
    title="Interlinked Cedar",
    about="`*.interlinked.cedar` files need the Interlinked extensions and must not go there",
    stat="interlinked_policies",
    lower=lambda imp, target: lower_imperative(imp, TARGET),
    render=render_group,
    schema=lambda target: TARGET.schema,
    extends="cedar",
)


def emit(ir: PolicyIR | Resolved, target: str = "sondera-v2", groups: list | None = None) -> dict[str, str]:
    from . import lowered_files  # the package imports this module

    return lowered_files(BACKEND, ir, target, groups)
