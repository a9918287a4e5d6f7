"""Golden cases: every artifact of a compile, byte for byte.

Each folder under golden/cases/ is a project; three real corpus files are
cases too (read from tests/data/corpus at their repository paths). The
expected files live in golden/snapshots/<case>/: distilled-rules.json,
policy.ir.json and policies/ (policy.md, Sondera v2 .cedar (the default target),
the v1 .cedar as *.sondera-v1.cedar, interlinked.cedar, prose.md, skipped report, index).
Update with `pytest golden --snapshot-update` and review the diff.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from policyc.compiler.checks import cedar_check, schema_error, self_check
from policyc.compiler.pipeline import compile_paths
from policyc.compiler.targets import discover
from policyc.emitters import artifacts, cedar
from policyc.emitters.cedar_lowering import TARGETS
from policyc.schemas import read as read_schema

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from conftest import corpus_manifest, lay_out  # noqa: E402

HERE = Path(__file__).parent
CASES = HERE / "cases"
CORPUS_CASES = {  # three real rulebooks: a project file, a skill, a scoped rule file
    "corpus-airflow-agents": "010__apache__airflow__AGENTS.md",
    "corpus-sentry-skill": "018__getsentry__sentry__.claude__skills__backend-tests__SKILL.md",
    "corpus-devsimpy-clinerules": "027__capocchi__DEVSimPy__.clinerules__rules.md",
}


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")  # 2026-01-01T00:00:00Z


def _compile(root: Path):
    ir = compile_paths(discover(root).paths, root)
    ir.distiller = "policyc@golden"  # keep snapshots stable across releases
    return ir


def _project(case: str, tmp_path: Path) -> Path:
    if case in CORPUS_CASES:
        row = next(r for r in corpus_manifest() if r["file"] == CORPUS_CASES[case])
        lay_out(row, tmp_path)
        return tmp_path
    return CASES / case


def _nested(files: dict[str, str]) -> dict:
    tree: dict = {}
    for path, text in files.items():
        *folders, name = path.split("/")
        node = tree
        for folder in folders:
            node = node.setdefault(folder, {})
        node[name] = text
    return tree


def _schema(name: str) -> str:
    return read_schema(name)


@pytest.mark.parametrize("case", sorted([p.name for p in CASES.iterdir()] + list(CORPUS_CASES)), ids=str)
def test_golden_case(case, snapshot, tmp_path):
    snapshot.snapshot_dir = HERE / "snapshots"
    ir = _compile(_project(case, tmp_path))
    files = artifacts(ir, "sondera-v2")
    doc = json.loads(files["distilled-rules.json"])
    assert self_check(doc, {s.file: s.text for s in ir.sources}) == []
    assert schema_error("ir.schema.json", json.loads(files["policy.ir.json"])) == ""
    v1 = {path.replace(".cedar", ".sondera-v1.cedar"): text for path, text in cedar.emit(ir, "sondera-v1").items()}
    schemas = {
        ".sondera-v1.cedar": _schema(TARGETS["sondera-v1"].schema),
        ".interlinked.cedar": _schema(TARGETS["interlinked"].schema),
        ".cedar": _schema(TARGETS["sondera-v2"].schema),
    }
    assert cedar_check({**files, **v1}, schemas) == []
    snapshot.assert_match_dir(_nested({**files, **v1}), case)

