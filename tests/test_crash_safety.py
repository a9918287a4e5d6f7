"""No data lost: a run killed at any write step leaves every file whole (spec: atomic writes).

Kill points are chosen by progress, not by wall time. A small server process
imports the CLI and runs the first compile itself (so every later run starts
warm), then forks one child per run; the child counts its write steps (every
fsync and rename) and SIGKILLs itself just before a chosen step. An unkilled
run of each verb first proves the verb completes and records its steps, then
the same verb is killed just before each of its steps except the fsync of a
temporary file: that step neither changes what a reader of the output folder
sees nor is followed by anything but the chmod and rename of that file (an
atomic write), so the kill before the rename leaves the same output. Every
other state a crash can leave is reached, once each. The result does not
depend on how fast the machine is.
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

# argv[1:] is the first run, done in the server itself. Then each stdin line is a
# JSON request [steps_file, kill_at, argv]; a forked child runs the CLI on argv,
# writing one letter per write step to steps_file (t: fsync of one of policyc's
# temporary files, f: any other fsync, r: rename) and SIGKILLing itself just
# before step kill_at (-1: never); the server answers each request with the
# child's exit status (-9: killed) on a line of its own.
_SERVER = r"""
import contextlib, json, os, signal, sys, traceback
from policyc.compiler.cli import main
from policyc.compiler.output import TMP_PREFIX

with contextlib.redirect_stdout(sys.stderr):
    print(main(sys.argv[1:]), file=sys.__stdout__, flush=True)
for line in sys.stdin:
    steps_file, kill_at, argv = json.loads(line)
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.dup2(2, 1)  # the CLI's own output goes to the log, not into the answers
        steps = []
        def fsynced(fd):
            try:  # Linux names an open file's path; elsewhere every fsync counts as output
                return "t" if os.path.basename(os.readlink(f"/proc/self/fd/{fd}")).startswith(TMP_PREFIX) else "f"
            except OSError:
                return "f"
        def counted(real, letter):
            def step(*args, **kwargs):
                if len(steps) == kill_at:
                    os.kill(os.getpid(), signal.SIGKILL)
                steps.append(letter(*args))
                return real(*args, **kwargs)
            return step
        os.fsync = counted(os.fsync, fsynced)
        os.replace, os.rename = counted(os.replace, lambda *_: "r"), counted(os.rename, lambda *_: "r")
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            traceback.print_exc()
            code = 1
        with open(steps_file, "w") as handle:
            handle.write("".join(steps))
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
"""


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


class _Server:
    """The forking server above, started in `root` with its first run `argv`."""

    def __init__(self, root: Path, argv: list[str]):
        self.steps_file = root.parent / "steps"
        self.log = root.parent / "server.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen([sys.executable, "-c", _SERVER, *argv], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=log, text=True,
                                            env={**os.environ, "SOURCE_DATE_EPOCH": "1767225600", "POLICYC_LOCK_TIMEOUT": "5"})
        self.first = self._answer()

    def _answer(self) -> int:
        line = self.process.stdout.readline()
        assert line, self.log.read_text(errors="replace")[-2000:]  # the server died: its traceback
        return int(line)

    def run(self, argv: list[str], kill_at: int) -> tuple[int, str]:
        """(exit status, the write steps taken, one letter each as the server describes) of one forked CLI run."""
        self.steps_file.unlink(missing_ok=True)
        self.process.stdin.write(json.dumps([str(self.steps_file), kill_at, argv]) + "\n")
        self.process.stdin.flush()
        status = self._answer()
        return status, self.steps_file.read_text() if self.steps_file.exists() else ""

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)


@pytest.fixture
def server(project):
    started = _Server(project, ["compile", "--cedar-target", "sondera-v1"])
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
        status, steps = server.run(argv, -1)  # the unkilled run proves the verb completes
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
            status, _ = server.run(argv, kill_at)
            assert status == -9, (argv, kill_at)
            for path, data in _files(out).items():
                assert data in (before.get(path), completed.get(path)) or _valid(path), (argv, kill_at, path)
        for path in set(_files(out)) - set(completed):  # leave the completed state for the next verb
            path.unlink()
        for path, data in completed.items():
            path.write_bytes(data)
    assert len(killed) >= len(verbs) - 1, killed  # all but the verb that finds nothing to change were killed mid-way
    assert (out / "guard-rules.json").read_text() == '{"rules": []}\n'
