"""The code is clean under ruff and mypy with the project's configuration (pyproject.toml [tool.ruff], [tool.mypy])."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from mypy import build
from mypy.config_parser import parse_config_file
from mypy.errors import CompileError
from mypy.modulefinder import BuildSource
from mypy.options import Options

REPO = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", str(REPO)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def policyc_modules(excludes: list[str]) -> list[BuildSource]:
    """Every module of the `policyc` namespace, named as pyproject.toml's package-dir table maps the folders.

    mypy cannot find them by itself: an editable install's import hook is invisible to it, and it
    silences the errors of an installed copy."""
    folders = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    modules = []
    for package, folder in folders.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            relative = path.relative_to(REPO).as_posix()
            if any(re.search(pattern, relative) for pattern in excludes):  # as mypy matches `exclude`
                continue
            parts = [package, *path.relative_to(REPO / folder).with_suffix("").parts]
            modules.append(BuildSource(str(path), ".".join(parts).removesuffix(".__init__")))
    return modules


def test_mypy_finds_nothing():
    options = Options()
    parse_config_file(options, lambda: None, str(REPO / "pyproject.toml"), sys.stdout, sys.stderr)
    options.cache_dir = str(REPO / ".mypy_cache")  # mypy's default folder (git ignores it): a rerun takes a few seconds
    modules = policyc_modules(options.exclude)
    assert {m.module for m in modules} >= {"policyc", "policyc.compiler.ir", "policyc.emitters.plan", "policyc.grammar", "policyc.schemas"}
    try:
        errors = build.build(modules, options).errors
    except CompileError as exc:  # a blocking error: a syntax error, a module found twice
        errors = exc.messages
    assert errors == []
