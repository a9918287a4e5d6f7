"""The command line's constants match the modules it loads lazily."""

from __future__ import annotations

from policyc.compiler import cli
from policyc.emitters import cedar_lowering


def test_cedar_target_names_and_default_match_the_emitters():
    assert set(cli.CEDAR_TARGETS) == {name for name in cedar_lowering.TARGETS if name.startswith("sondera")}
    assert cli.DEFAULT_CEDAR_TARGET == cedar_lowering.DEFAULT_TARGET
