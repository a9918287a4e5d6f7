"""No data lost: a run killed at any write step leaves every file whole (spec: atomic writes).

Kill points are chosen by progress, not by wall time. Every run is a real
process forked from a warm server (tests/cli_server.py), which counts the run's
write steps (every fsync and rename) and can SIGKILL it just before any of them.
An unkilled run of each verb first proves the verb completes and records its
steps, then the same verb is killed just before each of its steps except the
fsync of a temporary file: that step neither changes what a reader of the
output folder sees nor is followed by anything but the chmod and rename of that
file (an atomic write), so the kill before the rename leaves the same output.
Every other state a crash can leave is reached, once each. The result does not
depend on how fast the machine is.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_server import CliServer
from conftest import corpus_manifest, lay_out
from policyc.compiler.checks import schema_error


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


@pytest.fixture
def server(project):
    started = CliServer(project, ["compile", "--cedar-target", "sondera-v1"], {"SOURCE_DATE_EPOCH": "1767225600", "POLICYC_LOCK_TIMEOUT": "5"})
    yield started
    started.close()


def test_a_run_killed_at_any_write_step_leaves_every_file_whole(project, server):
    out = project / ".interlinked"
    assert server.first == 0
    rule_id = json.loads((out / "distilled-rules.json").read_text())["rules"][0]["id"]
    verbs = [["compile", "--cedar-target", "sondera-v2"], ["compile", "--review", "--cedar-target", "sondera-v2"], ["accept"], ["disable", rule_id],
             ["enable", rule_id], ["modify", rule_id, "--action", "ask"], ["reset", rule_id],
             ["compile", "--cedar-target", "sondera-v1"]]
    killed = set()
    for argv in verbs:
        before = _files(out)
        [(status, steps)] = server.run((argv, -1))  # the unkilled run proves the verb completes
        assert status == 0, argv
        completed = _files(out)
        if not steps:  # nothing new to write (an unchanged file is not rewritten); at most a file removed
            assert all(before.get(path) == data for path, data in completed.items()), argv
        for kill_at in [i for i, step in enumerate(steps) if step != "t"]:
            killed.add(tuple(argv))
            for path, data in before.items():  # start each kill from the state before the verb
                path.write_bytes(data)
            for path in set(_files(out)) - set(before):
                path.unlink()
            [(status, _)] = server.run((argv, kill_at))
            assert status == -9, (argv, kill_at)
            for path, data in _files(out).items():
                assert data in (before.get(path), completed.get(path)) or _valid(path), (argv, kill_at, path)
        for path in set(_files(out)) - set(completed):  # leave the completed state for the next verb
            path.unlink()
        for path, data in completed.items():
            path.write_bytes(data)
    assert len(killed) >= len(verbs) - 1, killed  # all but the verb that finds nothing to change were killed mid-way
    assert (out / "guard-rules.json").read_text() == '{"rules": []}\n'
