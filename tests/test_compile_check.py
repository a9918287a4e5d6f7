"""`policyc compile --check` (drift check for CI), a bad SOURCE_DATE_EPOCH, the fallback output folder."""

from __future__ import annotations

import json

from conftest import make_project
from policyc.compiler.cli import main

RULES = "# Rules\n\nNever run `rm -rf /`.\nAvoid `git stash drop`.\nPrefer `pnpm` over `npm`.\n"


def _snapshot(folder) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _check(capsys) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["compile", "--check", "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_current_artifacts_pass(tmp_path, monkeypatch, capsys):
    root = make_project(tmp_path, {"AGENTS.md": RULES})
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    code, report = _check(capsys)
    assert code == 0 and report["stale"] == [] and report["missing"] == [] and report["current"] >= 5


def test_stale_artifacts_are_listed_and_nothing_is_written(tmp_path, monkeypatch, capsys):
    root = make_project(tmp_path, {"AGENTS.md": RULES})
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    (root / "AGENTS.md").write_text(RULES + "Never run `terraform destroy`.\n")
    before = _snapshot(root / ".interlinked")
    code, report = _check(capsys)
    assert code == 1
    assert {"distilled-rules.json", "policy.ir.json", "policies/local-agents-md.cedar"} <= set(report["stale"])
    assert "policies/local-agents-md.interlinked.cedar" not in report["stale"]  # the warn rule did not change
    assert _snapshot(root / ".interlinked") == before
    assert main(["compile"]) == 0
    assert _check(capsys)[0] == 0


def test_a_hand_edited_or_missing_artifact_fails(tmp_path, monkeypatch, capsys):
    root = make_project(tmp_path, {"AGENTS.md": RULES})
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    out = root / ".interlinked"
    (out / "policies" / "local-agents-md.policy.md").write_text("edited by hand\n")
    (out / "policies" / "local-agents-md.cedar").unlink()
    code, report = _check(capsys)
    assert code == 1
    assert report["stale"] == ["policies/local-agents-md.policy.md"]
    assert report["missing"] == ["policies/local-agents-md.cedar"]
    capsys.readouterr()
    assert main(["compile", "--check"]) == 1
    text = capsys.readouterr().out
    assert "missing: policies/local-agents-md.cedar" in text and "stale: policies/local-agents-md.policy.md" in text


def test_a_bad_source_date_epoch_is_one_line(tmp_path, monkeypatch, capsys):
    root = make_project(tmp_path, {"AGENTS.md": RULES})
    monkeypatch.chdir(root)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    assert main(["compile"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "SOURCE_DATE_EPOCH='yesterday' is not a Unix time" in err
    assert not (root / ".interlinked" / "distilled-rules.json").exists()


def test_the_fallback_output_folder_is_named(tmp_path, monkeypatch, capsys):
    root = make_project(tmp_path, {"AGENTS.md": RULES}, interlinked=False)
    work = root / "sub"
    work.mkdir()
    monkeypatch.chdir(work)
    assert main(["compile", "--format", "json"]) == 0
    assert f"the output folder is the working directory {work}" in capsys.readouterr().err
    assert (work / "distilled-rules.json").is_file()


def test_check_annotates_stale_artifacts_for_github(tmp_path, monkeypatch, capsys):
    root = make_project(tmp_path, {"AGENTS.md": RULES})
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    (root / ".interlinked" / "policies" / "local-agents-md.cedar").unlink()
    capsys.readouterr()
    assert main(["compile", "--check", "--format", "github"]) == 1
    out = capsys.readouterr().out
    assert ("::error file=.interlinked/policies/local-agents-md.cedar,title=policyc/stale-artifact::"
            "policies/local-agents-md.cedar is missing; run `policyc compile`\n") in out
