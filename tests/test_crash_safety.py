"""No data lost: a run killed at any write step leaves every file whole (spec: atomic writes).

Kill points are chosen by progress, not by wall time: a small wrapper runs the
CLI in a child process and counts its write steps (every fsync and rename);
an unkilled run of each verb first proves the verb completes and tells how
many steps it takes, then the same verb is SIGKILLed at steps spread over
that range. The result does not depend on how fast the machine is.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import corpus_manifest, lay_out
from policyc.compiler.checks import schema_error

# Runs the CLI, counting write steps in the file named by argv[1]; SIGKILLs itself
# just before step argv[2] (-1: never). Steps are fsyncs and renames, the two
# moments an atomic write can be caught between.
_WRAPPER = r"""
import os, signal, sys
count_file, kill_at, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
steps = 0
def counted(real):
    def step(*args, **kwargs):
        global steps
        if steps == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        steps += 1
        return real(*args, **kwargs)
    return step
os.fsync, os.replace, os.rename = counted(os.fsync), counted(os.replace), counted(os.rename)
from policyc.compiler.cli import main
try:
    code = main(argv)
finally:
    with open(count_file, "w") as handle:
        handle.write(str(steps))
sys.exit(code)
"""
_KILLS_PER_VERB = 4


def _valid(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    if path.name in ("distilled-rules.json", "distilled-rules.review.json"):
        return schema_error("distilled-rules.schema.json", json.loads(text)) == ""
    if path.name.endswith(".ir.json"):
        return schema_error("ir.schema.json", json.loads(text)) == ""
    if path.suffix == ".json":
        json.loads(text)
    return text.endswith("\n")


def _files(folder: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and not p.name.endswith(".tmp") and not p.name.endswith(".lock")}


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".interlinked").mkdir()
    rows = {r["file"]: r for r in corpus_manifest()}
    for name in ("010__apache__airflow__AGENTS.md", "006__microsoft__vscode__.github__copilot-instructions.md"):
        lay_out(rows[name], root)
    (root / ".interlinked" / "guard-rules.json").write_text('{"rules": []}\n')
    return root


def _run(root: Path, argv: list[str], kill_at: int) -> tuple[int, int]:
    """(exit status, write steps taken) of one wrapped CLI run."""
    counter = root.parent / "steps"
    counter.unlink(missing_ok=True)
    done = subprocess.run([sys.executable, "-c", _WRAPPER, str(counter), str(kill_at), *argv], cwd=root,
                          capture_output=True, env={**os.environ, "SOURCE_DATE_EPOCH": "1767225600", "POLICYC_LOCK_TIMEOUT": "5"})
    return done.returncode, int(counter.read_text()) if counter.exists() else kill_at


def test_a_run_killed_at_any_write_step_leaves_every_file_whole(project):
    out = project / ".interlinked"
    assert _run(project, ["compile", "--cedar-target", "sondera-v1"], -1)[0] == 0
    rule_id = json.loads((out / "distilled-rules.json").read_text())["rules"][0]["id"]
    verbs = [["compile", "--cedar-target", "sondera-v2"], ["compile", "--review", "--cedar-target", "sondera-v2"], ["accept"], ["disable", rule_id],
             ["enable", rule_id], ["modify", rule_id, "--action", "ask"], ["reset", rule_id],
             ["compile", "--cedar-target", "sondera-v1"]]
    killed = set()
    for argv in verbs:
        before = _files(out)
        status, steps = _run(project, argv, -1)  # the unkilled run proves the verb completes
        assert status == 0, argv
        completed = _files(out)
        if not steps:  # nothing new to write (an unchanged file is not rewritten); at most a file removed
            assert all(before.get(path) == data for path, data in completed.items()), argv
        for kill_at in sorted({steps * k // _KILLS_PER_VERB for k in range(_KILLS_PER_VERB)} if steps else ()):
            killed.add(tuple(argv))
            for path, data in before.items():  # start each kill from the state before the verb
                path.write_bytes(data)
            for path in set(_files(out)) - set(before):
                path.unlink()
            status, _ = _run(project, argv, kill_at)
            assert status == -9, (argv, kill_at)
            for path, data in _files(out).items():
                assert data in (before.get(path), completed.get(path)) or _valid(path), (argv, kill_at, path)
        for path in set(_files(out)) - set(completed):  # leave the completed state for the next verb
            path.unlink()
        for path, data in completed.items():
            path.write_bytes(data)
    assert len(killed) >= len(verbs) - 1, killed  # all but the verb that finds nothing to change were killed mid-way
    assert (out / "guard-rules.json").read_text() == '{"rules": []}\n'
