"""Bad input: one clear line per bad file, the run goes on, nothing is half written."""

from __future__ import annotations

import hashlib
import json
import os

from policyc.compiler.cli import main


def _project(tmp_path):
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".interlinked").mkdir()
    (root / "AGENTS.md").write_text("Never run `terraform destroy`.\n")
    (root / "CLAUDE.md").write_bytes(b"Never run \xff\xfe `rm -rf /`.\n")  # invalid UTF-8
    (root / "GEMINI.md").write_bytes(b"\x00\x01binary")
    (root / "WARP.md").write_text("")
    (root / "CONVENTIONS.md").write_text("x" * (2 * 1024 * 1024 + 1))
    (root / ".cursor" / "rules").mkdir(parents=True)
    (root / ".cursor" / "rules" / "bad.mdc").write_text('---\nglobs: *.py\nx: "\\s+"\n---\nNever use `eval`.\n')
    (root / "loop").mkdir()
    os.symlink(root / "loop", root / "loop" / "again")
    return root


def test_bad_files_each_get_one_line_and_the_run_goes_on(tmp_path, capsys):
    root = _project(tmp_path)
    guard = root / ".interlinked" / "guard-rules.json"
    guard.write_text('{"rules": []}')
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in root.rglob("*") if p.is_file() and ".interlinked" not in p.parts}
    guard_hash = hashlib.sha256(guard.read_bytes()).hexdigest()

    code = main(["compile", "--root", str(root)])

    err = capsys.readouterr().err
    assert code == 1  # a source could not be read
    assert "Traceback" not in err
    for name, problem in [("CLAUDE.md", "invalid UTF-8"), ("GEMINI.md", "binary"), ("WARP.md", "empty"), ("CONVENTIONS.md", "2 MB")]:
        lines = [line for line in err.splitlines() if line.startswith(f"policyc: error: {name}:")]
        assert len(lines) == 1 and problem in lines[0], err
    assert "bad.mdc:2: frontmatter is not valid YAML" in err
    doc = json.loads((root / ".interlinked" / "distilled-rules.json").read_text())
    files = {r["source"]["file"] for r in doc["rules"]}
    assert files == {"AGENTS.md", ".cursor/rules/bad.mdc"}
    # sources and hand-curated rules untouched, no temporary files left behind
    assert before == {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in before}
    assert hashlib.sha256(guard.read_bytes()).hexdigest() == guard_hash
    assert not list((root / ".interlinked").glob(".*.tmp"))


def test_target_outside_root_is_refused(tmp_path, capsys):
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    outside = tmp_path / "other.md"
    outside.write_text("Never run `ls`.\n")
    assert main(["compile", str(outside), "--root", str(root), "--out", str(root / "out")]) == 2
    assert "is outside the current project" in capsys.readouterr().err
