"""Hostile and broken input, output side (issue 11, items 5, 7 to 13; issue 13 item 7's mode and lock):
every case ends in a safe outcome or one line naming the problem, never a traceback."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
import time

import cedarpy
import pytest
from cli_server import CliServer
from conftest import make_project
from policyc.compiler import extract, output, pipeline, sondera
from policyc.compiler.cli import main
from policyc.compiler.pipeline import compile_sources
from policyc.compiler.remote import RemoteError, check_url
from policyc.compiler.sources import SourceError, source_from_bytes
from policyc.emitters import cedar
from policyc.emitters.skipped_report import rewrite

RULES = "Never run `terraform destroy`.\n\nNever run `git push --force`.\n"


def _run(*argv: str, capsys) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(argv))
    return code, capsys.readouterr().err


def _one_line_error(err: str, *words: str) -> None:
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("policyc: error:")]
    assert len(lines) >= 1 and all(w in lines[0] for w in words), err


# --- item 5: Cedar reads a literal star as a star ---

def test_cedar_denies_the_literal_star_it_was_asked_to():
    ir = compile_sources([source_from_bytes("AGENTS.md", b"Never run `rm -rf *`.\n")])
    policies = cedar.emit(ir, "sondera-v1")["policies/local-agents-md.cedar"]

    def decision(command: str) -> str:
        call = sondera.request({"tool_name": "Bash", "tool_input": {"command": command}})
        return cedarpy.is_authorized(call, "permit(principal, action, resource);\n" + policies, []).decision.value

    assert decision("rm -rf *") == "Deny"
    assert decision("rm -rf build") == "Allow"


# --- item 7: frontmatter YAML loves and JSON does not ---

@pytest.mark.parametrize("field, value", [("created", "2024-01-01"), ("tags", "!!set {a, b}"), ("blob", "!!binary aGVsbG8="),
                                          ("n", "9" * 5000), ("obj", "!!python/object:os.system [ls]")])
def test_odd_frontmatter_costs_only_its_field(field, value):
    text = f"---\n{field}: {value}\nglobs: \"*.py\"\n---\nNever use `eval`.\n"
    source = source_from_bytes(".cursor/rules/x.mdc", text.encode())
    json.dumps(source.frontmatter, allow_nan=False)  # JSON data only
    assert source.scope == {"file_scope": r"\.py$"}  # the other fields still count
    if field == "created":
        assert source.frontmatter["created"] == "2024-01-01"
    else:
        assert field not in source.frontmatter and any(f"'{field}'" in w for w in source.warnings)


def test_a_billion_laughs_fails_its_file_fast(tmp_path, monkeypatch, capsys):
    levels = ["a: &a [" + ",".join(['"lol"'] * 9) + "]"]
    for previous, name in zip("abcdefghi", "bcdefghij"):
        levels.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
    bomb = "---\n" + "\n".join(levels) + "\n---\nNever run `rm -rf /`.\n"
    with pytest.raises(SourceError, match="expands to over 10000 values"):
        source_from_bytes(".cursor/rules/bomb.mdc", bomb.encode())
    root = make_project(tmp_path, {"AGENTS.md": RULES, ".cursor/rules/bomb.mdc": bomb})
    monkeypatch.chdir(root)
    code, err = _run("compile", "--root", str(root), capsys=capsys)
    assert code == 1
    _one_line_error(err, ".cursor/rules/bomb.mdc", "YAML aliases")
    assert len(json.loads((root / ".interlinked" / "distilled-rules.json").read_text())["rules"]) == 2


# --- item 8: one file cannot stall the run ---

def test_a_file_over_the_imperative_limit_fails_alone(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(pipeline, "MAX_IMPERATIVES_PER_FILE", 50)
    many = "".join(f"- Never run `tool{i}`.\n" for i in range(60))
    root = make_project(tmp_path, {"AGENTS.md": RULES, "CLAUDE.md": many})
    monkeypatch.chdir(root)
    code, err = _run("compile", "--root", str(root), capsys=capsys)
    assert code == 1
    _one_line_error(err, "CLAUDE.md", "60 imperatives", "limit of 50")
    assert len(json.loads((root / ".interlinked" / "distilled-rules.json").read_text())["rules"]) == 2


def test_a_file_over_the_time_limit_fails_alone(tmp_path, monkeypatch, capsys):
    root = make_project(tmp_path, {"AGENTS.md": RULES, "CLAUDE.md": "Never run `make deploy`.\n"})
    monkeypatch.chdir(root)
    monkeypatch.setattr(pipeline, "MAX_SECONDS_PER_FILE", 2.0)  # not machine speed: the slow file sleeps 60 s
    run = extract.Extractor.run

    def slow_for_claude(self):  # CLAUDE.md reads for a minute; the limit stops it
        if self.source.file == "CLAUDE.md":
            time.sleep(60)
        run(self)

    monkeypatch.setattr(extract.Extractor, "run", slow_for_claude)
    code, err = _run("compile", "--root", str(root), capsys=capsys)
    assert code == 1
    _one_line_error(err, "CLAUDE.md", "the limit for one file")
    assert len(json.loads((root / ".interlinked" / "distilled-rules.json").read_text())["rules"]) == 2


@pytest.mark.parametrize("line", [
    "| " + " | ".join(f"never run x{i}" for i in range(20000)) + " |\n",
    "Never run " + " and ".join(f"`x{i}`" for i in range(20000)) + ".\n",
    "Never run these commands:\n\n- " + " ".join(f"`x{i}`" for i in range(20000)) + "\n",
], ids=["20000 rule words", "20000 names", "20000 names under a lead line"])
def test_a_run_on_sentence_is_skipped_not_read(line):
    """Reading it clause by clause would take hours (quadratic); it is skipped with its reason."""
    ir = compile_sources([source_from_bytes("AGENTS.md", RULES.encode()), source_from_bytes("CLAUDE.md", line.encode())])
    [skipped] = [s for s in ir.skipped if s.file == "CLAUDE.md"]
    assert skipped.reason.startswith("a run-on sentence") and "over the limit" in skipped.reason
    assert [i.file for i in ir.imperatives] == ["AGENTS.md", "AGENTS.md"]
    assert "one sentence per rule" in rewrite(skipped)


def test_a_run_of_stars_does_not_stall_the_marker_filter():
    """Emphasis inside a marker ("do **not**") once let the pre-filter split a run of stars in
    exponentially many ways: 36 stars took over 30 s and cost the file all its rules."""
    line = "Please do " + "*" * 60 + " this.\n\nNever run `make deploy`.\n"
    ir = compile_sources([source_from_bytes("CLAUDE.md", line.encode())])
    assert not ir.errors and [i.trigger.values for i in ir.imperatives if i.trigger] == [("make deploy",)]


# --- item 9: markdown injection through a SKILL.md name ---

def test_a_skill_name_cannot_inject_markdown(tmp_path, monkeypatch):
    name = 'evil`\\n# Injected\\n<!-- hide'
    root = make_project(tmp_path, {".claude/skills/deploy/SKILL.md": f'---\nname: "{name}"\n---\nNever run `helm uninstall`.\n\n'
                                                                      "Never delete the staging namespace.\n"})
    monkeypatch.chdir(root)
    assert main(["compile", "--root", str(root)]) == 0
    policies = root / ".interlinked" / "policies"
    for path in policies.iterdir():
        text = path.read_text()
        assert "# Injected" not in text and "<!--" not in text, path
    assert (policies / "skill-deploy.policy.md").is_file()


# --- item 10: stems never collide ---

def test_colliding_stems_get_a_suffix_and_the_index_says_so(tmp_path, monkeypatch):
    root = make_project(tmp_path, {".cursor/rules/db-safety.mdc": "---\nalwaysApply: true\n---\nNever run `dropdb prod`.\n",
                                   ".cursor/rules/db_safety.mdc": "---\nalwaysApply: true\n---\nNever run `pg_dropcluster`.\n"})
    monkeypatch.chdir(root)
    assert main(["compile", "--root", str(root)]) == 0
    policies = root / ".interlinked" / "policies"
    mds = sorted(p.name for p in policies.glob("*.policy.md"))
    assert len(mds) == 2 and all(n.startswith("local-cursor-rules-db-safety-mdc-") for n in mds)
    assert "dropdb" in "".join((policies / n).read_text() for n in mds) and "pg_dropcluster" in "".join((policies / n).read_text() for n in mds)
    index = (policies / "README.md").read_text()
    assert "carries a suffix from its group id" in index and all(n.removesuffix(".policy.md") in index for n in mds)
    assert main(["compile", "--root", str(root)]) == 0  # the same names on every run
    assert sorted(p.name for p in policies.glob("*.policy.md")) == mds


# --- item 11: writes never follow a symbolic link out of the project ---

@pytest.mark.parametrize("link", [".interlinked", ".interlinked/policies"])
def test_writes_refuse_symbolic_links(tmp_path, monkeypatch, capsys, link):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.md").write_text("mine\n")
    (elsewhere / ".keep.md.1234.tmp").write_text("mine too\n")
    root = make_project(tmp_path, {"AGENTS.md": RULES, ".cursor/rules/x.mdc": "---\nalwaysApply: true\n---\nNever say `yes`.\n"},
                        interlinked=link != ".interlinked")
    os.symlink(elsewhere, root / link)
    monkeypatch.chdir(root)
    code, err = _run("compile", "--root", str(root), capsys=capsys)
    assert code == 1
    _one_line_error(err, "symbolic link")
    assert sorted(p.name for p in elsewhere.iterdir()) == [".keep.md.1234.tmp", "keep.md"]


# --- item 12 and issue 13: parallel verbs, portable lock, file mode ---

def test_twelve_parallel_disables_are_all_recorded(tmp_path):
    root = make_project(tmp_path, {"AGENTS.md": "".join(f"- Never run `tool{i}`.\n" for i in range(12))})
    # each waits its turn however slow the machine: no update may be lost
    server = CliServer(root, ["compile", "--root", str(root), "--format", "json"], {"POLICYC_LOCK_TIMEOUT": "600"})
    try:
        assert server.first == 0
        ids = [r["id"] for r in json.loads((root / ".interlinked" / "distilled-rules.json").read_text())["rules"]]
        assert len(ids) == 12
        runs = server.run(*[(["disable", i, "--root", str(root)], -1) for i in ids])  # twelve processes at once
    finally:
        server.close()
    assert [status for status, _ in runs] == [0] * 12, server.log.read_text()
    overrides = json.loads((root / ".interlinked" / "distilled-rules.overrides.json").read_text())
    assert sorted(overrides["disabled_rule_ids"]) == sorted(ids)


def test_the_package_imports_without_fcntl():
    code = "import sys; sys.modules['fcntl'] = None; import policyc.compiler.cli, policyc.compiler.output; print('ok')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr


def test_files_are_written_0644_under_the_umask(tmp_path):
    previous = os.umask(0o022)
    try:
        output.write_atomic(tmp_path / "a.json", "{}\n")
        os.umask(0o077)
        output.write_atomic(tmp_path / "b.json", "{}\n")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "b.json").stat().st_mode) == 0o600


def test_an_unchanged_file_is_not_rewritten(tmp_path):
    target = tmp_path / "a.json"
    output.write_atomic(target, "{}\n")
    os.utime(target, (1, 1))
    output.write_atomic(target, "{}\n")
    assert target.stat().st_mtime == 1  # same bytes, same mode: left alone
    target.chmod(0o600)
    output.write_atomic(target, "{}\n")
    assert target.stat().st_mtime != 1 and stat.S_IMODE(target.stat().st_mode) == output._mode()
    output.write_atomic(target, "[]\n")
    assert target.read_text() == "[]\n"


# --- item 13: one line, no traceback ---

def test_out_pointing_at_a_file(tmp_path, capsys):
    root = make_project(tmp_path, {"AGENTS.md": RULES})
    (tmp_path / "afile").write_text("x")
    code, err = _run("compile", "--root", str(root), "--out", str(tmp_path / "afile"), capsys=capsys)
    assert code == 1
    _one_line_error(err, "afile")


@pytest.mark.parametrize("problem", [errno.EROFS, errno.ENOSPC, errno.EACCES], ids=["read-only", "disk-full", "permission"])
def test_a_folder_that_cannot_be_written(tmp_path, monkeypatch, capsys, problem):
    root = make_project(tmp_path, {"AGENTS.md": RULES})

    def refuse(*args, **kwargs):
        raise OSError(problem, os.strerror(problem), str(root / ".interlinked" / "distilled-rules.json"))

    monkeypatch.setattr(output.os, "fsync", refuse)
    code, err = _run("compile", "--root", str(root), capsys=capsys)
    assert code == 1
    _one_line_error(err, "distilled-rules.json", os.strerror(problem))
    assert not list((root / ".interlinked").glob(".policyc-*.tmp"))


@pytest.mark.parametrize("url", ["https://user:pass@github.com/x", "https://evil.example@github.com/", "https://github.com:8443/x"])
def test_the_allowlist_refuses_user_info_and_ports(tmp_path, monkeypatch, capsys, url):
    with pytest.raises(RemoteError):
        check_url(url)
    root = make_project(tmp_path, {})
    monkeypatch.chdir(root)
    code, err = _run("compile", url, "--root", str(root), capsys=capsys)
    assert code == 2
    _one_line_error(err, url)


@pytest.mark.parametrize("doc", ["[]", '{"rules": "x"}', "{}", "not json"])
@pytest.mark.parametrize("verb", [["list"], ["list", "local:AGENTS.md"], ["show", "x"], ["disable", "x"], ["enable", "x"],
                                  ["remove", "x"], ["reset", "x"], ["modify", "x", "--note", "n"], ["add", "--source", "x"]],
                         ids=lambda v: v[0] + ("-group" if len(v) == 2 and v[0] == "list" else ""))
def test_a_broken_rules_file_is_one_line_for_every_verb(tmp_path, capsys, doc, verb):
    root = make_project(tmp_path, {})
    (root / ".interlinked" / "distilled-rules.json").write_text(doc)
    code, err = _run(*verb, "--root", str(root), capsys=capsys)
    assert code == 2
    _one_line_error(err, "distilled-rules.json")


def test_a_deeply_nested_event_line(tmp_path, capsys):
    root = make_project(tmp_path, {"AGENTS.md": RULES})
    assert main(["compile", "--root", str(root), "--format", "json"]) == 0
    events = tmp_path / "events.jsonl"
    events.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    code, err = _run("check", str(events), "--root", str(root), capsys=capsys)
    assert code == 1
    _one_line_error(err, "events.jsonl:1", "nested too deeply")


def test_only_files_policyc_recorded_are_deleted(tmp_path):
    out = tmp_path / "out"
    (out / "policies").mkdir(parents=True)
    (out / "policies" / "mine.cedar").write_text("// the user's\n")
    (out / "policies" / "a.cedar").write_text("// policyc's\n")
    (out / "distilled-rules.json").write_text(json.dumps({"policies_emitted": ["policies/a.cedar"]}))
    emitted = output.emitted_before(out / "distilled-rules.json")
    assert not output.remove_emitted(out, "policies/mine.cedar", emitted)
    assert output.remove_emitted(out, "policies/a.cedar", emitted)
    assert sorted(p.name for p in (out / "policies").iterdir()) == ["mine.cedar"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "a.cedar").write_text("// not policyc's\n")
    (out / "policies" / "mine.cedar").unlink()
    (out / "policies").rmdir()
    os.symlink(elsewhere, out / "policies")
    with pytest.raises(output.OutputError):
        output.remove_emitted(out, "policies/a.cedar", emitted)
    assert (elsewhere / "a.cedar").is_file()
