"""A source that breaks keeps what it had; the previous IR is a cache, not an authority (issue 11, items 4 and 6)."""

from __future__ import annotations

import json

import pytest
from conftest import make_project
from policyc.compiler.cli import main
from policyc.compiler.pipeline import SEAL_NAME, compiler_fingerprint, distiller_name

RULES = "Never run `terraform destroy`.\n\nNever run `git push --force`.\n"


def _rules(root) -> list[dict]:
    return json.loads((root / ".interlinked" / "distilled-rules.json").read_text())["rules"]


@pytest.mark.parametrize("broken", [b"Never run \xe9 `rm`.\n", b"Never\x00 run it.\n", b"", b"x" * (2 * 1024 * 1024 + 1)],
                         ids=["latin-1", "nul", "empty", "over-2MB"])
def test_a_source_that_becomes_unreadable_keeps_its_rules(tmp_path, monkeypatch, capsys, broken):
    root = make_project(tmp_path, {"AGENTS.md": RULES, "CLAUDE.md": "Never run `kubectl delete ns prod`.\n"})
    monkeypatch.chdir(root)
    assert main(["compile", "--root", str(root)]) == 0
    before = sorted(r["id"] for r in _rules(root))
    (root / "AGENTS.md").write_bytes(broken)
    capsys.readouterr()
    assert main(["compile", "--root", str(root)]) == 1  # the error is still an error
    err = capsys.readouterr().err
    assert "policyc: error: AGENTS.md:" in err
    assert "AGENTS.md: could not be read; its 2 rules of the last run are kept as they were" in err
    assert sorted(r["id"] for r in _rules(root)) == before
    assert json.loads((root / ".interlinked" / "distilled-rules.json").read_text())["removed"] == []


def test_a_hand_edited_ir_is_not_reused(tmp_path, monkeypatch, capsys):
    root = make_project(tmp_path, {"AGENTS.md": RULES, "CLAUDE.md": "Never run `kubectl delete ns prod`.\n"})
    monkeypatch.chdir(root)
    assert main(["compile", "--root", str(root)]) == 0
    rules = _rules(root)
    path = root / ".interlinked" / "policy.ir.json"
    ir = json.loads(path.read_text())
    ir["imperatives"] = [i for i in ir["imperatives"] if "git push" not in i["quote"]]  # drop one rule
    for imp in ir["imperatives"]:
        if "terraform" in imp["quote"]:  # and turn a block into a warn that never fires
            imp["action"], imp["trigger"]["patterns"][0]["regex"] = "warn", "^never-matches$"
    path.write_text(json.dumps(ir, indent=2))
    (root / "CLAUDE.md").write_text("Never run `kubectl delete ns prod`.\n\nNever run `helm uninstall`.\n")  # touch another file
    capsys.readouterr()
    assert main(["compile", "--root", str(root)]) == 0
    assert "policy.ir.json is not the file policyc last wrote" in capsys.readouterr().err
    again = {r["id"]: r for r in _rules(root)}
    for rule in rules:
        assert again[rule["id"]]["action"] == rule["action"] and again[rule["id"]]["patterns"] == rule["patterns"]
    # once rewritten by policyc, the IR is a cache again and an unchanged project is up to date
    assert main(["compile", "--root", str(root)]) == 0
    assert "up to date" in capsys.readouterr().err
    assert (root / ".interlinked" / SEAL_NAME).is_file()


def test_the_compiler_fingerprint_names_the_data_files():
    assert distiller_name() == f"policyc@{compiler_fingerprint()}"
    assert "+" in compiler_fingerprint() and len(compiler_fingerprint().rsplit("+", 1)[1]) == 12


@pytest.mark.parametrize("edit", [
    lambda ir: ir["imperatives"].append({**ir["imperatives"][0], "file": "GHOST.md"}),  # an orphan imperative
    lambda ir: ir.update(imperatives="x"),  # wrong types
    lambda ir: ir["sources"][0].update(precedence="high"),
], ids=["orphan", "wrong-type", "wrong-field-type"])
def test_a_broken_ir_never_sticks(tmp_path, monkeypatch, capsys, edit):
    root = make_project(tmp_path, {"AGENTS.md": RULES})
    monkeypatch.chdir(root)
    assert main(["compile", "--root", str(root)]) == 0
    path = root / ".interlinked" / "policy.ir.json"
    ir = json.loads(path.read_text())
    edit(ir)
    path.write_text(json.dumps(ir))
    capsys.readouterr()
    assert main(["compile", "--root", str(root)]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(_rules(root)) == 2
    assert main(["compile", "--root", str(root)]) == 0  # and the next run is an ordinary one


def test_an_unreadable_source_with_an_edited_ir_writes_nothing(tmp_path, monkeypatch, capsys):
    root = make_project(tmp_path, {"AGENTS.md": RULES})
    monkeypatch.chdir(root)
    assert main(["compile", "--root", str(root)]) == 0
    out = root / ".interlinked"
    before = (out / "distilled-rules.json").read_text()
    ir = json.loads((out / "policy.ir.json").read_text())
    ir["sources"][0]["text"] = "Never run `ls`.\n"  # a forged 'last version' of the file
    (out / "policy.ir.json").write_text(json.dumps(ir))
    (root / "AGENTS.md").write_bytes(b"\xff\n")
    capsys.readouterr()
    assert main(["compile", "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert "nothing written" in err and "Traceback" not in err
    assert (out / "distilled-rules.json").read_text() == before
