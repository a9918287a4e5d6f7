"""The real corpus: every file compiles, passes all self-checks, and quotes verbatim."""

from __future__ import annotations

import json

import pytest
from conftest import corpus_manifest, lay_out
from policyc.compiler.checks import normalise_ws, self_check
from policyc.compiler.cli import main
from policyc.compiler.pipeline import compile_paths
from policyc.emitters.guardrules import emit


@pytest.mark.parametrize("row", corpus_manifest(), ids=lambda r: r["file"][:40])
def test_each_corpus_file_compiles_clean(row, tmp_path):
    path = lay_out(row, tmp_path)
    ir = compile_paths([path], tmp_path)
    assert ir.errors == []
    doc = emit(ir)
    texts = {s.file: s.text for s in ir.sources}
    assert self_check(doc, texts) == []
    text = texts[row["path"]]
    lines = text.split("\n")
    for imp in ir.imperatives + ir.skipped:
        span = normalise_ws("\n".join(lines[imp.lines[0] - 1 : imp.lines[1]]))
        assert normalise_ws(imp.quote) in span, (imp.lines, imp.quote)


def test_corpus_as_one_project_via_cli(corpus_rows, tmp_path, capsys, monkeypatch):
    """`policyc compile` with no arguments in a real layout finds every rule file."""
    for row in corpus_rows:
        lay_out(row, tmp_path / row["repo"].replace("/", "__"))
    (tmp_path / ".git").mkdir()
    (tmp_path / ".interlinked").mkdir()
    monkeypatch.chdir(tmp_path / corpus_rows[0]["repo"].replace("/", "__"))  # the walk starts below the root
    monkeypatch.setenv("HOME", str(tmp_path / "no-home"))
    assert main(["compile"]) == 0
    doc = json.loads((tmp_path / ".interlinked" / "distilled-rules.json").read_text())
    assert len(doc["source_hashes"]) == len(corpus_rows)
    assert doc["stats"]["distilled_block"] > 20
    out = capsys.readouterr().out
    assert "Distilled-rules report" in out
