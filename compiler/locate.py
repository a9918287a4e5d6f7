"""The project root and output folder (spec §11) as plain strings, without pathlib.

The hook and the no-change compile run on every tool call and every commit
hook, and importing pathlib costs them about 4 ms; `project.py` wraps these
answers in Paths for every other verb, so there is one reading of §11.
"""

from __future__ import annotations

import os

RULES_NAME = "distilled-rules.json"
OVERRIDES_NAME = "distilled-rules.overrides.json"


def find_root(start: str) -> tuple[str, bool]:
    """The nearest folder holding .git at or above `start` (resolved), else `start` (and False)."""
    start = folder = os.path.realpath(start)
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder, True
        parent = os.path.dirname(folder)
        if parent == folder:
            return start, False
        folder = parent


def output_folder(root: str, out_arg: str | None) -> tuple[str, bool]:
    """(the output folder, whether it is the working-directory fallback): --out, else <root>/.interlinked/, else the working directory."""
    if out_arg:
        return os.path.realpath(out_arg), False
    if os.path.isdir(os.path.join(root, ".interlinked")):
        return os.path.join(root, ".interlinked"), False
    return os.path.realpath(os.getcwd()), True
