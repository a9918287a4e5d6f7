"""Real `policyc` processes without an interpreter start each: a warm server that forks them.

Shared by tests/test_crash_safety.py (a run SIGKILLed at a chosen write step) and
tests/test_hostile_output.py (twelve verbs racing for the output folder's lock).
The server imports the CLI and runs a first command itself, so every later run
starts warm (grammar, lexicon, templates and schemas loaded). Each run is then a
forked child: its own process, open files and locks, its own exit status or
signal. Its output goes to the server's log (`log`), not to the test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# argv[1:] is the first command, run in the server itself; its exit status is the
# first answer. Then each stdin line is a JSON list of runs [steps_file, kill_at,
# argv]: the server forks one child per run, all at once, waits for them all and
# answers with their exit statuses (-9: killed) as a JSON list on one line. A child
# runs the CLI on argv, writes one letter per write step to steps_file (t: fsync of
# one of policyc's temporary files, f: any other fsync, r: rename) and SIGKILLs
# itself just before step kill_at (-1: never).
_SERVER = r"""
import contextlib, json, os, signal, sys, traceback
from policyc.compiler.cli import main
from policyc.compiler.output import TMP_PREFIX

def child(steps_file, kill_at, argv):
    code = 1
    try:
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
        with open(steps_file, "w") as handle:
            handle.write("".join(steps))
    except BaseException:
        traceback.print_exc()
    finally:  # a child never returns into the server's loop
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)

with contextlib.redirect_stdout(sys.stderr):
    print(main(sys.argv[1:]), file=sys.__stdout__, flush=True)
for line in sys.stdin:
    sys.stderr.flush()
    pids = []
    for run in json.loads(line):
        pid = os.fork()
        if pid == 0:
            child(*run)
        pids.append(pid)
    print(json.dumps([os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in pids]), flush=True)
"""


class CliServer:
    """The server above, started in `root` with the first command `argv` and `env` added to the environment."""

    def __init__(self, root: Path, argv: list[str], env: dict[str, str]):
        self.folder = root.parent
        self.log = self.folder / "cli-server.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen([sys.executable, "-c", _SERVER, *argv], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=log, text=True, env={**os.environ, **env})
        self.first = self._answer()

    def _answer(self):
        line = self.process.stdout.readline()
        assert line, self.log.read_text(errors="replace")[-2000:]  # the server died: its traceback
        return json.loads(line)

    def run(self, *runs: tuple[list[str], int]) -> list[tuple[int, str]]:
        """Run each (argv, kill_at) in its own process, all at once: (exit status, write steps taken) of each."""
        files = [self.folder / f"steps-{i}" for i in range(len(runs))]
        for path in files:
            path.unlink(missing_ok=True)
        self.process.stdin.write(json.dumps([[str(path), kill_at, argv] for path, (argv, kill_at) in zip(files, runs)]) + "\n")
        self.process.stdin.flush()
        statuses = self._answer()
        return [(status, path.read_text() if path.exists() else "") for status, path in zip(statuses, files)]

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)
