"""`policyc hook claude` as Claude Code runs it (a subprocess, one event on stdin), and `hook install`.

Every answer is compared whole with Claude Code's PreToolUse protocol: JSON on
stdout and exit 0; `permissionDecision` "deny"/"ask" with a reason, a warning
as `additionalContext` alone, nothing at all for an allowed call.
"""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import copy_project, load_yaml, make_project
from policyc.compiler import harness, hook, hook_install
from policyc.compiler.cli import CEDAR_TARGETS, _hook_claude_arguments, _hook_claude_fast, main
from policyc.emitters.cedar_lowering import TARGETS

AGENTS = """Never run `terraform destroy`.
Avoid `git stash drop`.
Prefer `pnpm` over `npm`.
MUST NOT edit files under db/migrations/ directly.
"""
FORBIDDEN = ("lark", "jinja2", "jsonschema", "yaml", "cedarpy", "policyc.emitters")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Path:
    """The project compiled once, with a HOME that holds no rules."""
    base = tmp_path_factory.mktemp("hook")
    root = make_project(base, {"AGENTS.md": AGENTS})
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(base / "home"))
        assert main(["compile", "--root", str(root)]) == 0
    return root


@pytest.fixture
def project(compiled, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return copy_project(compiled, tmp_path)


def recorded(root: Path, tool: str, tool_input, **extra) -> dict:
    """A PreToolUse event as Claude Code sends it (the hooks reference's common and PreToolUse fields)."""
    return {"session_id": "0c4a7f6e-3b1d-4c55-9a0e-5d2f8e1b7a90", "transcript_path": f"/home/u/.claude/projects/-proj/{'0c4a'}.jsonl",
            "cwd": str(root), "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": tool_input, "tool_use_id": "toolu_01ABCDEF", **extra}


def run_hook(stdin: bytes | dict, *args: str, project_dir: Path | None = None, home: Path | None = None) -> tuple[dict | None, int, str]:
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    if project_dir is not None:
        env["CLAUDE_PROJECT_DIR"] = str(project_dir)
    if home is not None:
        env["HOME"] = str(home)
    data = json.dumps(stdin).encode() if isinstance(stdin, dict) else stdin
    done = subprocess.run([sys.executable, "-m", "policyc.compiler.cli", "hook", "claude", *args], input=data,
                          capture_output=True, env=env, check=False)
    assert "Traceback" not in done.stderr.decode()
    return (json.loads(done.stdout) if done.stdout.strip() else None), done.returncode, done.stderr.decode()


def deny(reason: str) -> dict:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}}


def failed(problem: str) -> dict:
    return deny(f"policyc hook could not check this call, so it is denied: {problem}")


def context(text: str) -> dict:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": text}}


def test_block_ask_warn_and_allow(project):
    out, code, _ = run_hook(recorded(project, "Bash", {"command": "terraform destroy", "description": "Tear down"}), project_dir=project)
    assert (out, code) == (deny('policyc blocked this call (rule enforce-local-agents-md-no-terraform-destroy): '
                                'AGENTS.md:1 — "Never run `terraform destroy`."'), 0)
    out, code, _ = run_hook(recorded(project, "Bash", {"command": "git stash drop"}), project_dir=project)
    assert (out, code) == ({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason":
                            'policyc asks before this call (rule enforce-local-agents-md-no-git-stash-drop): AGENTS.md:2 — "Avoid `git stash drop`."'}}, 0)
    out, code, _ = run_hook(recorded(project, "Bash", {"command": "npm test"}), project_dir=project)
    assert (out, code) == (context('policyc warning (rule enforce-local-agents-md-avoid-npm, the call goes ahead): '
                                   'AGENTS.md:3 — "Prefer `pnpm` over `npm`."\nSuggestion: Use `pnpm` instead.'), 0)
    out, code, _ = run_hook(recorded(project, "Bash", {"command": "ls -la"}), project_dir=project)
    assert (out, code) == (None, 0)
    out, code, _ = run_hook(recorded(project, "Write", {"file_path": f"{project}/db/migrations/001.sql", "content": "x"}), project_dir=project)
    assert (out, code) == (deny('policyc blocked this call (rule enforce-local-agents-md-no-db-migrations): '
                                'AGENTS.md:4 — "MUST NOT edit files under db/migrations/ directly."'), 0)


def test_the_suggestion_travels_with_a_block(tmp_path, monkeypatch):
    root = make_project(tmp_path, {"AGENTS.md": "Never use `npm`; use `pnpm` instead.\n"})
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert main(["compile", "--root", str(root)]) == 0
    out, code, _ = run_hook(recorded(root, "Bash", {"command": "npm install"}), project_dir=root)
    reason = out["hookSpecificOutput"]["permissionDecisionReason"]
    assert code == 0 and out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert 'AGENTS.md:1 — "Never use `npm`; use `pnpm` instead."' in reason and reason.endswith("Suggestion: Use `pnpm` instead.")


def test_overrides_apply(project):
    assert main(["disable", "enforce-local-agents-md-no-terraform-destroy", "--root", str(project)]) == 0
    assert run_hook(recorded(project, "Bash", {"command": "terraform destroy"}), project_dir=project)[:2] == (None, 0)


@pytest.mark.parametrize("stdin, problem", [
    (b"", "empty stdin: expected one PreToolUse event (JSON)"),
    (b"  \n", "empty stdin: expected one PreToolUse event (JSON)"),
    (b'{"tool_name": "Bash", "tool_input": {"command": "\xff"}}', "the event is not UTF-8 (byte 49)"),
    (b"[1, 2]", "not a PreToolUse event: a JSON array, not an object"),
    (b'{"tool_name": "Bash"', "the event is not JSON: Expecting ',' delimiter: line 1 column 21 (char 20)"),
    (b'{"tool_name": "Bash", "tool_input": "rm -rf /"}', "not a PreToolUse event: tool_input is a string, not an object"),
    (b'{"tool_name": "Bash", "tool_input": 7}', "not a PreToolUse event: tool_input is a number, not an object"),
    (b'{"tool_name": "Bash", "tool_input": null}', "not a PreToolUse event: tool_input is a null, not an object"),
    (b'{"tool_input": {"command": "ls"}}', "not a PreToolUse event: tool_name is missing"),
    (b'{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {}}', "not a PreToolUse event: hook_event_name is 'PostToolUse'"),
    (b'{"type": "assistant", "message": {"content": []}, "sessionId": "s"}',
     "not a PreToolUse event: a session transcript line (replay transcripts with `policyc check --transcript`)"),
])
def test_bad_events_are_denied(project, stdin, problem):
    out, code, err = run_hook(stdin, project_dir=project)
    assert (out, code) == (failed(problem), 0)
    assert err == f"policyc hook: error: {problem}\n"


def test_ten_megabytes(project):
    big = recorded(project, "Write", {"file_path": f"{project}/src/big.txt", "content": "a" * 10_000_000})
    assert run_hook(big, project_dir=project)[:2] == (None, 0)  # a large legitimate write is decided, not refused
    out, code, _ = run_hook(b"x" * 10_000_000, project_dir=project)
    assert code == 0 and out == failed("the event is not JSON: Expecting value: line 1 column 1 (char 0)")
    out, code, _ = run_hook(b" " * (hook.MAX_EVENT_BYTES + 1), project_dir=project)
    assert (out, code) == (failed("the event is larger than 32 MB"), 0)


def test_unknown_tools_are_allowed(project):
    assert run_hook(recorded(project, "mcp__acme__deploy", {"env": "prod"}), project_dir=project)[:2] == (None, 0)


def test_an_event_for_another_project(project, tmp_path):
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    event = recorded(other, "Bash", {"command": "terraform destroy"})
    out, code, _ = run_hook(event, project_dir=project)  # the session's project decides, wherever the call runs
    assert code == 0 and out["hookSpecificOutput"]["permissionDecision"] == "deny"
    out, code, _ = run_hook(event)  # no $CLAUDE_PROJECT_DIR: the event's cwd, which has no rules
    assert (out, code) == (context(hook.NO_RULES_NOTE.format(path=Path.cwd() / "distilled-rules.json")), 0)
    out, code, _ = run_hook(event, "--require-rules")
    assert (out, code) == (failed(f"no compiled rules in {Path.cwd()} (this hook was installed for the project); "
                                  "run `policyc compile` in the project root"), 0)


def test_the_cwd_finds_the_git_root(project):
    event = recorded(project / "src" / "deep", "Bash", {"command": "terraform destroy"})
    assert run_hook(event)[0]["hookSpecificOutput"]["permissionDecision"] == "deny"


def _rules_doc(root: Path) -> Path:
    return root / ".interlinked" / "distilled-rules.json"


@pytest.mark.parametrize("version, problem", [
    (2, "rules format 2 is newer than this policyc reads (1); upgrade policyc"),
    (0, "rules format 0 is not the one this policyc reads (1); recompile with `policyc compile`"),
])
def test_rules_from_another_format(project, version, problem):
    doc = json.loads(_rules_doc(project).read_text())
    _rules_doc(project).write_text(json.dumps({**doc, "version": version}))
    out, code, _ = run_hook(recorded(project, "Bash", {"command": "ls"}), project_dir=project)
    assert (out, code) == (failed(f"{_rules_doc(project)}: {problem}"), 0)


def test_corrupt_rules_and_overrides_deny(project):
    event = recorded(project, "Bash", {"command": "ls"})
    overrides = project / ".interlinked" / "distilled-rules.overrides.json"
    overrides.write_text("{not json")
    out, code, _ = run_hook(event, project_dir=project)
    assert code == 0 and out == failed(
        f"{overrides}: cannot read the overrides file: Expecting property name enclosed in double quotes: line 1 column 2 (char 1); "
        "fix it by hand, it is never overwritten (the overrides may be what disables a rule, so the hook does not guess)")
    overrides.write_text('{"version": 1, "disabled_rule_ids": "all"}')
    out, code, _ = run_hook(event, project_dir=project)
    assert code == 0 and "invalid overrides file" in out["hookSpecificOutput"]["permissionDecisionReason"]
    overrides.unlink()
    _rules_doc(project).write_text('{"version": 1, "rules": [')
    out, code, _ = run_hook(event, project_dir=project)
    assert code == 0 and out["hookSpecificOutput"]["permissionDecisionReason"].startswith(
        f"policyc hook could not check this call, so it is denied: {_rules_doc(project)}: not valid JSON")
    _rules_doc(project).write_text('{"version": 1, "rules": [{"id": 3}]}')
    out, code, _ = run_hook(event, project_dir=project)
    assert code == 0 and "invalid rules file" in out["hookSpecificOutput"]["permissionDecisionReason"]


def test_the_cache_follows_the_files(project):
    """The rules cache is keyed by both files' bytes: a change is seen on the next call, a garbled cache is rebuilt."""
    event = recorded(project, "Bash", {"command": "terraform destroy"})
    assert run_hook(event, project_dir=project)[0]["hookSpecificOutput"]["permissionDecision"] == "deny"
    cache = project / ".interlinked" / hook.CACHE_NAME
    assert cache.is_file()
    assert main(["modify", "enforce-local-agents-md-no-terraform-destroy", "--action", "ask", "--root", str(project)]) == 0
    assert run_hook(event, project_dir=project)[0]["hookSpecificOutput"]["permissionDecision"] == "ask"
    cache.write_bytes(cache.read_bytes()[:40])
    assert run_hook(event, project_dir=project)[0]["hookSpecificOutput"]["permissionDecision"] == "ask"


def test_on_error_allow_says_so(project):
    out, code, _ = run_hook(b"[]", "--on-error", "allow", project_dir=project)
    message = "policyc hook could not check this call and allowed it (--on-error allow): not a PreToolUse event: a JSON array, not an object"
    assert (out, code) == ({"systemMessage": message, **context(message)}, 0)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_an_answer_that_cannot_be_written_blocks(project):
    """The hook process ends without the interpreter's teardown; an answer it cannot write still exits 2
    (Claude Code's blocking error), and an allowed call, which writes nothing, exits 0."""
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project)}
    for command, code in (("terraform destroy", 2), ("ls", 0)):
        with open("/dev/full", "wb") as full:
            done = subprocess.run([sys.executable, "-m", "policyc.compiler.cli", "hook", "claude"], stdout=full, stderr=subprocess.PIPE,
                                  input=json.dumps(recorded(project, "Bash", {"command": command})).encode(), env=env, check=False)
        assert done.returncode == code, done.stderr
        assert ("cannot write the answer" in done.stderr.decode()) == (code == 2) and b"Traceback" not in done.stderr


def test_an_internal_error_denies(project, monkeypatch):
    def broken(rules):
        raise KeyError("patterns")

    monkeypatch.setattr(hook, "Evaluator", broken)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    args = type("Args", (), {"on_error": "deny", "require_rules": False, "root": None, "out": None})()
    stdout = io.StringIO()
    event = json.dumps(recorded(project, "Bash", {"command": "ls"})).encode()
    assert hook.main(args, stdin=io.BytesIO(event), stdout=stdout) == 0
    assert json.loads(stdout.getvalue()) == failed("internal error: KeyError: 'patterns'")


def test_the_hook_imports_only_what_deciding_needs(project):
    """No Lark, Jinja2, jsonschema, YAML, cedarpy, emitter or argparse on the hook path (after the first call wrote the cache)."""
    probe = ("import json, sys; from policyc.compiler.cli import main; main(['hook', 'claude']); "
             "sys.stderr.write(json.dumps(sorted(sys.modules)))")
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project)}
    event = json.dumps(recorded(project, "Bash", {"command": "terraform destroy"})).encode()
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", probe], input=event, capture_output=True, env=env, check=True)
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    loaded = json.loads(done.stderr)
    assert [m for m in loaded if m.split(".")[0] in FORBIDDEN or m.startswith(FORBIDDEN)] == []
    assert "argparse" not in loaded  # the installed command line is read without it
    assert "dataclasses" not in loaded  # (pathlib neither, but an editable install's import hook loads it first)


@pytest.mark.parametrize("argv", [["--help"], ["list"], ["--version"]])
def test_light_verbs_import_little(project, argv):
    probe = (f"import json, sys; from policyc.compiler.cli import main\ntry: main({argv!r})\nexcept SystemExit: pass\n"
             "sys.stderr.write(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, cwd=project, check=True, text=True)
    loaded = json.loads(done.stderr)
    heavy = ("lark", "jinja2", "cedarpy", "policyc.emitters") + (("jsonschema", "yaml") if argv != ["list"] else ())
    assert [m for m in loaded if m.split(".")[0] in heavy or m.startswith(heavy)] == []


def test_version_is_the_package_metadata(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out == f"policyc {version('policyc')}\n"


def test_constants_match_their_sources():
    conventions = load_yaml(Path(harness.__file__).parents[1].joinpath("grammar", "conventions.yaml").read_text())
    assert frozenset(conventions["roles"]) == harness.ROLES
    assert tuple(name for name in TARGETS if name.startswith("sondera")) == CEDAR_TARGETS


# --- install / uninstall ---------------------------------------------------------------------

OTHER_HOOKS = {
    "model": "opus",
    "permissions": {"deny": ["Read(./.env)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/audit.sh", "timeout": 5}]}],
        "PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "prettier --write"}]}],
    },
}


def _settings(root: Path, name: str = "settings.json") -> Path:
    return root / ".claude" / name


def test_install_merges_and_uninstall_restores(project, capsys):
    path = _settings(project)
    path.parent.mkdir()
    path.write_text(json.dumps(OTHER_HOOKS, indent=2))
    path.chmod(0o664)
    assert main(["hook", "install", "claude", "--root", str(project)]) == 0
    assert path.stat().st_mode & 0o777 == 0o664
    installed = json.loads(path.read_text())
    ours = {"matcher": "Bash|Edit|MultiEdit|NotebookEdit|Write|apply_patch",
            "hooks": [{"type": "command", "command": "policyc hook claude --require-rules"}]}
    assert installed == {**OTHER_HOOKS, "hooks": {**OTHER_HOOKS["hooks"], "PreToolUse": [*OTHER_HOOKS["hooks"]["PreToolUse"], ours]}}
    assert "policyc hook installed for PreToolUse" in capsys.readouterr().out
    before = path.read_bytes()
    assert main(["hook", "install", "claude", "--project", "--root", str(project)]) == 0  # idempotent
    assert path.read_bytes() == before and "already installed" in capsys.readouterr().out
    assert main(["hook", "uninstall", "claude", "--root", str(project)]) == 0
    assert json.loads(path.read_text()) == OTHER_HOOKS
    assert main(["hook", "uninstall", "claude", "--root", str(project)]) == 0
    assert "not installed" in capsys.readouterr().out


def test_install_updates_its_matcher_and_removes_empty_lists(project):
    path = _settings(project, "settings.local.json")
    assert main(["hook", "install", "claude", "--local", "--root", str(project)]) == 0
    (project / "AGENTS.md").write_text("Never run `terraform destroy`.\n")
    assert main(["compile", "--root", str(project)]) == 0
    assert main(["hook", "install", "claude", "--local", "--root", str(project)]) == 0
    entries = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert len(entries) == 1 and entries[0]["matcher"] == "Bash"
    assert entries[0]["hooks"][0]["command"].endswith("policyc hook claude --require-rules")
    assert main(["hook", "uninstall", "claude", "--local", "--root", str(project)]) == 0
    assert json.loads(path.read_text()) == {}


def test_user_install_and_dry_run(project, tmp_path, capsys):
    home = tmp_path / "home"
    assert main(["hook", "install", "claude", "--user", "--dry-run", "--root", str(project)]) == 0
    printed = json.loads(capsys.readouterr().out)
    entry = printed["hooks"]["PreToolUse"][0]
    assert entry["matcher"] == "*"  # every project's rules: every tool
    assert entry["hooks"][0]["command"].endswith("hook claude")  # user-wide: no --require-rules
    assert not (home / ".claude").exists()
    assert main(["hook", "install", "claude", "--user", "--root", str(project)]) == 0
    assert json.loads((home / ".claude" / "settings.json").read_text()) == printed


@pytest.mark.parametrize("text, problem", [
    ("{not json", "not valid JSON"),
    ("[]", "not a JSON object"),
    ('{"hooks": []}', "`hooks` is not an object"),
    ('{"hooks": {"PreToolUse": {"matcher": "Bash"}}}', "`hooks.PreToolUse` is not a list of objects"),
])
@pytest.mark.parametrize("verb", ["install", "uninstall"])
def test_malformed_settings_are_never_overwritten(project, capsys, text, problem, verb):
    path = _settings(project)
    path.parent.mkdir()
    path.write_text(text)
    assert main(["hook", verb, "claude", "--root", str(project)]) == 1
    err = capsys.readouterr().err
    assert problem in err and str(path) in err and len(err.strip().splitlines()) == 1
    assert path.read_text() == text


def test_read_only_home(project, tmp_path, capsys, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o555)

    def refused(path, text):  # what a read-only folder answers (root ignores the mode bits)
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(hook_install, "write_atomic", refused)
    assert main(["hook", "install", "claude", "--user", "--root", str(project)]) == 1
    err = capsys.readouterr().err
    assert err == f"policyc: error: {home}/.claude/settings.json: cannot write the settings: Permission denied; nothing changed\n"
    assert not (home / ".claude").exists()


def test_install_needs_compiled_rules(tmp_path, capsys):
    root = make_project(tmp_path, {})
    assert main(["hook", "install", "claude", "--root", str(root)]) == 2
    assert "run `policyc compile` first" in capsys.readouterr().err


def test_a_missing_project_root_denies(tmp_path):
    out, code, _ = run_hook(recorded(tmp_path, "Bash", {"command": "ls"}), project_dir=tmp_path / "gone")
    assert (out, code) == (failed(f"the project root {tmp_path / 'gone'} (from $CLAUDE_PROJECT_DIR) is not a directory"), 0)
    out, code, _ = run_hook(b'{"tool_name": "", "tool_input": {}}', project_dir=tmp_path)
    assert (out, code) == (failed("not a PreToolUse event: tool_name is empty"), 0)


def test_the_hook_prepares_every_rule_that_can_decide(tmp_path, corpus_rows, monkeypatch):
    """The hook builds its evaluator on the rules an event can meet; on the whole corpus, for every
    labelled input (as a shell command, a written path and written content, at the root and in
    nested folders), it decides exactly as the evaluator on all rules does."""
    from conftest import lay_out
    from policyc.compiler.harness import Evaluator

    root = make_project(tmp_path, {})
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for row in corpus_rows:  # each repository in its own folder, as in test_corpus
        lay_out(row, root / row["repo"].replace("/", "__"))
    assert main(["compile", "--root", str(root)]) in (0, 1)
    overrides = root / ".interlinked" / "distilled-rules.overrides.json"
    everything = Evaluator(hook.load_rules(_rules_doc(root), overrides))
    values = sorted({v for e in load_yaml((Path(__file__).parent / "data" / "labelled_sample.yaml").read_text())
                     for v in e.get("must_match", []) + e.get("must_not_match", [])})
    folders = sorted({row["repo"].replace("/", "__") + "/" + (row["path"].rsplit("/", 1)[0] + "/" if "/" in row["path"] else "")
                      for row in corpus_rows}) + [""]
    events = [recorded(root, "Bash", {"command": v}) for v in values]
    events += [recorded(root, tool, {"file_path": f"{root}/{folder}{v.lstrip('/')}", "content": v, "new_string": v})
               for tool in ("Write", "Edit") for folder in folders for v in values if " " not in v]
    decided = 0
    for event in events:
        mine, theirs = Evaluator(hook.load_rules(_rules_doc(root), overrides, event)).evaluate(event), everything.evaluate(event)
        assert mine == theirs, event["tool_input"]  # the message too: the cache keeps the fields it is made of
        decided += mine.decision != "allow" or bool(mine.warnings)
    assert decided >= 10  # the admission gates and folder scoping leave few rules on this layout; each must agree


@pytest.mark.parametrize("argv", [[], ["--require-rules"], ["--on-error", "allow"], ["--root", "/p", "--out", "/p/o", "--require-rules"],
                                  ["--on-error", "deny", "--on-error", "allow"]])
def test_the_fast_options_are_argparse_s(argv):
    """The hook's argparse-free reading of its options gives what argparse gives; anything else goes to argparse."""
    import argparse

    parsed = _hook_claude_arguments(argparse.ArgumentParser()).parse_args(argv)
    assert vars(_hook_claude_fast(argv)) == vars(parsed)


@pytest.mark.parametrize("argv", [["-h"], ["--on-error=allow"], ["--on-error", "maybe"], ["--root"], ["--bogus"], ["--root", "-x"]])
def test_other_options_go_to_argparse(argv):
    assert _hook_claude_fast(argv) is None


def test_the_cache_belongs_to_one_policyc_version(tmp_path, monkeypatch):
    """The cache holds what policyc's code computed (literals, scopes, the lean rules): another version rebuilds it."""
    rules = tmp_path / "distilled-rules.json"
    rules.write_text('{"rules": []}\n')
    key = hook._cache_key(str(rules), str(tmp_path / "none.json"))
    monkeypatch.setattr(hook, "__version__", "0.0.0-other")
    assert hook._cache_key(str(rules), str(tmp_path / "none.json")) != key
