"""Start-up paths: the hook's compiled regexes, the verbs' lazy parsers and the no-change compile's stamp.

Each fast path must give exactly what the slow one gives, and fall back to it
whenever anything it depends on changed or its cache cannot be read.
"""

from __future__ import annotations

import json
import marshal
import re
import time

import pytest
from conftest import copy_project, make_project
from policyc.compiler import cli, frozen_re, harness, hook, pipeline, stamp

AGENTS = "# Rules\n\n- Never run `terraform destroy`.\n- Never push to `main`.\n"


# --- compiled regexes (frozen_re) ---

def test_a_thawed_pattern_is_the_compiled_one(corpus_rows, tmp_path):
    """Every regex the corpus compiles to, and a few with groups and flags, come back equal to re.compile's."""
    from conftest import lay_out
    from policyc.emitters import artifacts

    root = make_project(tmp_path, {})
    for row in corpus_rows[:60]:
        lay_out(row, root / row["repo"].replace("/", "__"))
    ir = pipeline.compile_paths(sorted(p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts), root)
    rules = json.loads(artifacts(ir)["distilled-rules.json"])["rules"]
    regexes = {key for rule in rules for key in harness._regexes(rule)}
    regexes |= {(r"(?P<name>a+)(b)?\1", "i"), (r"^x.*$", "ms"), ("é[à-ü]+", "")}
    assert len(regexes) > 20
    for regex, flags in regexes:
        bits = harness._flag_bits(flags)
        assert frozen_re.thaw(regex, frozen_re.freeze(regex, bits)) == re.compile(regex, bits), regex


def test_a_garbled_frozen_pattern_is_compiled_afresh():
    assert frozen_re.thaw("ab+", marshal.dumps((0, [1, 2, 3], 0, {}, ()))) is None
    assert frozen_re.thaw("ab+", b"garbage") is None
    assert frozen_re.thaw("ab+", marshal.dumps("garbage")) is None
    harness._compiled.cache_clear()
    harness.preload({"frozen": {("zz+q", "i"): marshal.dumps((0, [99999], 0, {}, ()))}, "literals": {}, "scope_literals": {}})
    try:
        assert harness._compiled("zz+q", "i") == re.compile("zz+q", re.IGNORECASE)
    finally:
        harness._FROZEN.clear()
        harness._compiled.cache_clear()


def test_a_file_scope_s_literal_rules_out_only_paths_it_does_not_cover(corpus_rows, tmp_path):
    """A scope's literal (positive look-arounds included) is in every path it covers, so the quick
    test rules out exactly the paths the regex does, non-ASCII ones (where `ſ` matches `s`) left to the regex."""
    from conftest import lay_out
    from policyc.emitters import artifacts

    assert harness._required_literal(r"^(?=.*\.py$)(?=.*(?:^|/)src/lib/)", True) == "src/lib/"
    assert harness._required_literal(r"^(?=.*\.py$)(?=.*(?:^|/)src/lib/)") == ""  # (a pattern's literal is unchanged)
    root = tmp_path / "corpus"
    for row in corpus_rows:
        lay_out(row, root / row["repo"].replace("/", "__"))
    ir = pipeline.compile_paths(sorted(p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts), root)
    rules = json.loads(artifacts(ir)["distilled-rules.json"])["rules"]
    scopes = {(r.get("active_when") or {}).get("file_scope") for r in rules} - {None}
    scopes |= {r"^(?=.*\.py$)(?=.*(?:^|/)src/)", r"(?:^|/)docs/", r"(?:^|/)Tests/"}
    paths = ["src/app.py", "docs/x.md", "a/tests/test_x.py", "TESTS/x.ts", "ſrc/app.py", "dočs/x.md", "lib/x.rs", ""]
    paths += [p.replace("\\", "").replace("(?:^|/)", "") for p in scopes]  # near a covered path
    harness.preload(harness.prepare([{"active_when": {"file_scope": s}} for s in scopes]))
    try:
        assert sum(bool(harness._SCOPE_LITERALS[s]) for s in scopes) > 5
        for scope in scopes:
            for path in paths:
                assert harness._in_scope(scope, path) == bool(re.search(scope, path, re.IGNORECASE)), (scope, path)
    finally:
        harness._SCOPE_LITERALS.clear()
        harness._FROZEN.clear()
        harness._compiled.cache_clear()


def _deny(project) -> str:
    event = {"tool_name": "Bash", "tool_input": {"command": "terraform destroy"}, "cwd": str(project)}
    out = hook.decide(type("Args", (), {"require_rules": False, "root": None, "out": None})(), json.dumps(event).encode(), {})
    return out["hookSpecificOutput"]["permissionDecision"]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """The project compiled once; its hook cache is not written yet."""
    project = make_project(tmp_path_factory.mktemp("startup"), {"AGENTS.md": AGENTS})
    assert cli.main(["compile", "--root", str(project)]) == 0
    return project


@pytest.fixture
def cached(compiled, tmp_path):
    """A copy of the compiled project whose hook cache is written: (the project, the cache, its key line, its body)."""
    project = copy_project(compiled, tmp_path)
    assert _deny(project) == "deny"
    cache = project / ".interlinked" / hook.CACHE_NAME
    key, _, body = cache.read_bytes().partition(b"\n")
    return project, cache, key, body


def _sections(body: bytes) -> tuple[tuple, int]:
    """The cache body's index (scopes, runs, every rule: where each section is) and where the sections start."""
    size, _, rest = body.partition(b"\n")
    return marshal.loads(rest[:int(size)]), len(size) + 1 + int(size)


def _garbled(body: bytes, how: str) -> bytes:
    (scopes, runs, every), start = _sections(body)
    if how == "index":  # a set of tools as a string, whose letters would name no tool
        index = marshal.dumps((scopes, [(",".join(tools), *rest) for tools, *rest in runs], every))
        return b"%d\n" % len(index) + index + body[start:]
    if how == "truncated":
        return body[:start + 10]
    if how == "shape":  # every run pointing at the scopes' section
        index = marshal.dumps((scopes, [(tools, where, *scopes) for tools, where, *_ in runs], every))
        return b"%d\n" % len(index) + index + body[start:]
    data = bytearray(body)
    for _, _, offset, length in runs:  # "runs": every run's bytes garbled
        data[start + offset:start + offset + length] = b"\xff" * length
    return bytes(data)


@pytest.mark.parametrize("body", [marshal.dumps([1, 2]), marshal.dumps(([], {"frozen": [], "literals": {}})), b"\xff\x00garbage",
                                  b"12\n" + marshal.dumps([1, 2]), "index", "truncated", "shape", "runs"])
def test_a_cache_of_another_shape_is_rebuilt(cached, body):
    """A cache with the right key but a body of another shape, garbled or cut short (in its index or in
    the sections an event reads) is ignored and rebuilt, and decides as the files do."""
    project, cache, key, good = cached
    cache.write_bytes(key + b"\n" + (_garbled(good, body) if isinstance(body, str) else body))
    assert _deny(project) == "deny"
    assert cache.read_bytes() == key + b"\n" + good


def test_check_reads_every_rule_whole_from_the_cache(cached):
    """`check` (no event) gets every rule with all its fields; a garbled cache gives the same rules, rebuilt."""
    project, cache, key, good = cached
    paths = project / ".interlinked" / "distilled-rules.json", project / ".interlinked" / "distilled-rules.overrides.json"
    whole = json.loads(paths[0].read_text())["rules"]
    assert hook.load_rules(*paths) == whole and "source" in whole[0]
    cache.write_bytes(key + b"\n" + _garbled(good, "truncated"))
    assert hook.load_rules(*paths) == whole
    assert cache.read_bytes() == key + b"\n" + good


def test_an_event_reads_only_the_runs_it_can_meet(tmp_path):
    """The hook's rules for an event: its tool's (or a shell's), in order, with the fields the evaluator reads;
    a path-scoped rule only when its scope is active."""
    project = make_project(tmp_path, {"AGENTS.md": AGENTS, "db/AGENTS.md": "- Never edit `schema.sql`.\n"})
    assert cli.main(["compile", "--root", str(project)]) == 0
    paths = project / ".interlinked" / "distilled-rules.json", project / ".interlinked" / "distilled-rules.overrides.json"
    whole = hook.load_rules(*paths)

    def ids(tool, **tool_input):
        return [r["id"] for r in hook.load_rules(*paths, {"tool_name": tool, "tool_input": tool_input})]

    shell = [r["id"] for r in whole if "Bash" in r["tool_match"]]
    assert ids("Bash", command="ls") == ids("shell") == shell and len(shell) == 2
    edits = [r for r in whole if "Write" in r["tool_match"]]
    assert edits and all(r["active_when"] for r in edits)
    assert ids("Write", file_path=f"{project}/db/schema.sql") == [r["id"] for r in edits]
    assert ids("Write", file_path=f"{project}/schema.sql") == ids("Read", file_path="x") == []
    lean = hook.load_rules(*paths, {"tool_name": "Bash", "tool_input": {}})
    assert [{k: v for k, v in r.items() if k in hook._EVALUATED} for r in whole if r["id"] in shell] == lean


# --- the parser builds the called verb only ---

def test_every_verb_is_listed_and_parsed_as_before():
    """`policyc --help` lists every verb with its help line, and each verb's own parser is the full one."""
    assert cli._parser("").format_help() == cli._parser().format_help()
    full = cli._parser()._subparsers._group_actions[0].choices
    for verb, *_ in cli.VERBS:
        alone = cli._parser(verb)._subparsers._group_actions[0].choices
        assert alone[verb].format_help() == full[verb].format_help(), verb


@pytest.mark.parametrize("argv, verb", [(["--help"], ""), (["compile", "x"], "compile"), (["-h", "hook", "claude"], "hook")])
def test_the_verb_is_the_first_word(argv, verb):
    assert cli._verb(argv) == verb


# --- the no-change compile's stamp ---

@pytest.fixture
def stamped(tmp_path, monkeypatch):
    """A compiled project whose next no-change compile writes a stamp (no margin: the test controls the clock)."""
    monkeypatch.setattr(stamp, "MARGIN_NS", 0)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    project = make_project(tmp_path, {"AGENTS.md": AGENTS, "docs/CLAUDE.md": "- Never run `rm -rf /`.\n"})
    monkeypatch.chdir(project)
    assert cli.main(["compile"]) == 0
    time.sleep(0.05)  # past the file system's clock tick
    return project


def _compile(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main(["compile", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _replayed(capsys, monkeypatch, *argv) -> bool:
    """Whether the no-change compile answered from the stamp (it would fail had it read any source)."""
    with monkeypatch.context() as m:
        m.setattr(pipeline, "load_sources", lambda *a, **k: pytest.fail("not replayed"))
        try:
            return _compile(capsys, *argv)[0] == 0
        except pytest.fail.Exception:
            capsys.readouterr()
            return False


def test_a_no_change_compile_replays_its_answer(stamped, capsys, monkeypatch):
    capsys.readouterr()
    first = _compile(capsys)
    assert (stamped / ".interlinked" / stamp.NAME).is_file()
    assert "up to date" in first[2]
    assert _replayed(capsys, monkeypatch)
    assert _compile(capsys) == first  # the same exit code, stdout and stderr
    assert _compile(capsys, "--format", "json")[0] == 0 and _replayed(capsys, monkeypatch, "--format", "json")
    assert not _replayed(capsys, monkeypatch, "--format", "text")  # another command line: its own stamp


def _stamp_now(capsys, monkeypatch) -> None:
    time.sleep(0.05)
    _compile(capsys)
    assert _replayed(capsys, monkeypatch)
    time.sleep(0.05)


@pytest.mark.parametrize("change", ["edit", "add", "add-folder", "remove", "overrides", "policies", "version", "home", "config"])
def test_any_change_forces_a_real_compile(stamped, capsys, monkeypatch, change):
    _stamp_now(capsys, monkeypatch)
    if change == "edit":
        (stamped / "AGENTS.md").write_text(AGENTS + "- Never run `make nuke`.\n")
    elif change == "add":
        (stamped / "docs" / "AGENTS.md").write_text("- Never run `make nuke`.\n")
    elif change == "add-folder":
        (stamped / "docs" / "deep").mkdir()
        (stamped / "docs" / "deep" / "AGENTS.md").write_text("- Never run `make nuke`.\n")
    elif change == "remove":
        (stamped / "docs" / "CLAUDE.md").unlink()
    elif change == "overrides":
        assert cli.main(["disable", "enforce-local-agents-md-no-terraform-destroy"]) == 0
    elif change == "policies":
        doc = json.loads((stamped / ".interlinked" / "distilled-rules.json").read_text())
        (stamped / ".interlinked" / doc["policies_emitted"][0]).unlink()
    elif change == "version":
        monkeypatch.setattr(stamp, "__version__", "0.0.0-other")
    elif change == "home":
        (stamped.parent / "home" / ".claude").mkdir(parents=True)
        (stamped.parent / "home" / ".claude" / "CLAUDE.md").write_text("- Never run `make nuke`.\n")
    elif change == "config":
        (stamped / ".interlinked" / "config.json").write_text('{"version": 1}')
    capsys.readouterr()
    assert not _replayed(capsys, monkeypatch)


def test_a_corrupt_or_foreign_stamp_is_ignored(stamped, capsys, monkeypatch):
    _stamp_now(capsys, monkeypatch)
    path = stamped / ".interlinked" / stamp.NAME
    for body in (path.read_bytes()[:50], b"\x00junk", marshal.dumps([1, 2, 3]), marshal.dumps((1, 2, 3, 4, 5))):
        path.write_bytes(body)
        assert not _replayed(capsys, monkeypatch)
        assert _compile(capsys)[0] == 0


def test_a_fresh_change_writes_no_stamp(tmp_path, monkeypatch, capsys):
    """A file changed moments before the run could change again unseen in the same clock tick: no stamp."""
    project = make_project(tmp_path, {"AGENTS.md": AGENTS})
    monkeypatch.chdir(project)
    assert cli.main(["compile"]) == 0
    assert cli.main(["compile"]) == 0
    assert not (project / ".interlinked" / stamp.NAME).exists()


@pytest.mark.parametrize("argv", [["compile", "AGENTS.md"], ["compile", "--review"], ["compile", "--check"], ["compile", "--root"],
                                  ["compile", "--format=json"], ["compile", "--root", "-x"], ["list"]])
def test_other_command_lines_never_replay(argv):
    assert stamp._stamp_path(argv) is None
