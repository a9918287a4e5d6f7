"""Every artifact is a projection of the IR, and the same inputs give the same bytes anywhere.

For every golden case: the IR survives a JSON round trip unchanged, `policyc render` of the saved
IR rewrites every file `policyc compile` wrote byte for byte, and two compiles in separate
processes, from different working directories and with different hash seeds, agree byte for byte
(one in this process, after whatever it compiled before; one in a fresh interpreter).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from policyc.compiler.cli import main
from policyc.compiler.ir import PolicyIR

CASES = Path(__file__).resolve().parents[1] / "golden" / "cases"
# the largest case (every convention) and two with nested lists, fences and caps
ACROSS_PROCESSES = ("conventions", "caps-and-ask", "forbidden-list-fence")


def _cli(*argv: str, cwd: Path, seed: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1767225600", "PYTHONHASHSEED": seed}
    return subprocess.run([sys.executable, "-m", "policyc.compiler.cli", *argv], cwd=cwd, env=env, capture_output=True, text=True)


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.name.startswith(".policyc")}


def _project(case: str, tmp_path: Path, name: str) -> tuple[Path, Path]:
    """A copy of the case as a git project, and where its output goes."""
    project = tmp_path / name / "project"
    shutil.copytree(CASES / case, project)
    (project / ".git").mkdir()
    return project, tmp_path / name / "out"


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir()))
def test_ir_round_trip_and_render_equal_compile(case, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    project, out, rendered = tmp_path / "project", tmp_path / "out", tmp_path / "rendered"
    shutil.copytree(CASES / case, project)
    (project / ".git").mkdir()
    assert main(["compile", "--root", str(project), "--out", str(out)]) == 0
    saved = (out / "policy.ir.json").read_bytes()
    assert PolicyIR.from_json(json.loads(saved)).dumps() == saved
    assert main(["render", str(out / "policy.ir.json"), "--out", str(rendered)]) == 0
    assert _tree(rendered) == _tree(out)


@pytest.mark.parametrize("case", ACROSS_PROCESSES)
def test_separate_processes_and_working_directories_give_identical_bytes(case, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    project, first = _project(case, tmp_path, "a")
    monkeypatch.chdir(project)
    assert main(["compile", "--root", str(project), "--out", str(first)]) == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    project, second = _project(case, tmp_path, "b")
    seed = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"  # never this process's seed
    done = _cli("compile", "--root", str(project), "--out", str(second), cwd=elsewhere, seed=seed)
    assert done.returncode == 0, done.stderr
    assert _tree(first) == _tree(second)
