"""`policyc export sondera`: Sondera's layout, valid under its v2 schema, and a drift check."""

from __future__ import annotations

import json

import cedarpy
from conftest import CORPUS, make_project
from policyc.compiler.cli import main
from policyc.emitters.cedar_lowering import TARGETS
from policyc.schemas import read as read_schema

RULES = """# Rules

Never run `rm -rf /`.
Never run `git push --force origin main`.
Avoid `git stash drop`.
MUST NOT edit files under db/migrations/ directly.
Prefer `pnpm` over `npm`.
Always run `make lint` before `git commit`.
"""


def _project(tmp_path, monkeypatch):
    airflow = (CORPUS / "files" / "010__apache__airflow__AGENTS.md").read_text(encoding="utf-8")
    root = make_project(tmp_path, {"AGENTS.md": RULES, "services/api/AGENTS.md": airflow})
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    return root


def test_one_valid_formatted_policy_per_file_named_by_its_id(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path, monkeypatch)
    folder = root / ".sondera" / "policies" / "cedar" / "policyc"
    assert main(["export", "sondera", str(folder)]) == 0
    files = sorted(folder.glob("*.cedar"))
    assert len(files) >= 4  # one file per admitted rule the target can express
    schema = read_schema(TARGETS["sondera-v2"].schema)
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert cedarpy.validate_policies(text, schema).errors == [], path.name
        policies = list(json.loads(cedarpy.policies_to_json_str(text))["staticPolicies"].values())
        assert len(policies) == 1, path.name
        annotations = policies[0]["annotations"]
        assert annotations["id"] + ".cedar" == path.name and annotations["description"]
        assert cedarpy.format_policies(text) == text
        assert "Interlinked::" not in text  # never the interlinked flavour
    emitted = (root / ".interlinked" / "policies" / "local-agents-md.cedar").read_text(encoding="utf-8")
    assert {p.stem for p in files} >= {"enforce-local-agents-md-no-rm-rf", "enforce-local-agents-md-no-git-stash-drop"}
    assert "enforce-local-agents-md-no-rm-rf" in emitted
    assert not any("make-lint" in p.name or "pnpm" in p.name for p in files)  # sequence and warn rules: interlinked only


def test_check_reports_drift_and_export_removes_only_its_own_stale_files(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path, monkeypatch)
    folder = root / "sondera"
    assert main(["export", "sondera", str(folder), "--check"]) == 1  # nothing exported yet
    assert main(["export", "sondera", str(folder)]) == 0
    mine = folder / "base.cedar"
    mine.write_text('@id("default-permit")\n@description("allow")\npermit (principal, action, resource);\n')
    capsys.readouterr()
    assert main(["export", "sondera", str(folder), "--check"]) == 0
    assert " 0 write, 0 remove" in capsys.readouterr().out
    (root / "AGENTS.md").write_text(RULES.replace("Never run `rm -rf /`.", "Be kind.").replace("origin main", "origin release"))
    assert main(["compile"]) == 0
    capsys.readouterr()
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert main(["export", "sondera", str(folder), "--check", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["removed"] == ["enforce-local-agents-md-no-git-push-force-origin-main.cedar", "enforce-local-agents-md-no-rm-rf.cedar"]
    assert report["changed"] == ["enforce-local-agents-md-no-git-push-force-origin-release.cedar"]
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # --check writes nothing
    assert main(["export", "sondera", str(folder)]) == 0
    assert not (folder / "enforce-local-agents-md-no-rm-rf.cedar").exists() and mine.is_file()
    assert main(["export", "sondera", str(folder), "--check"]) == 0


def test_export_needs_a_compiled_project(tmp_path, monkeypatch, capsys):
    root = make_project(tmp_path, {"AGENTS.md": RULES})
    monkeypatch.chdir(root)
    assert main(["export", "sondera", str(root / "out")]) == 2
    assert "run `policyc compile` first" in capsys.readouterr().err
