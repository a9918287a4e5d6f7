"""Golden cases: each folder under golden/cases/ is a project; its expected
distilled-rules.json and policy.ir.json live in golden/snapshots/<case>/.

Update with `pytest golden --snapshot-update` and review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from policyc.compiler.checks import load_schema, self_check
from policyc.compiler.pipeline import compile_paths
from policyc.compiler.sources import discover
from policyc.emitters import guardrules

CASES = Path(__file__).parent / "cases"


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")  # 2026-01-01T00:00:00Z


def _compile(case: Path):
    ir, texts = compile_paths(discover(case), case)
    ir.distiller = "policyc@golden"  # keep snapshots stable across releases
    return ir, texts


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir()), ids=str)
def test_golden_case(case, snapshot):
    snapshot.snapshot_dir = Path(__file__).parent / "snapshots" / case
    ir, texts = _compile(CASES / case)
    doc = guardrules.emit(ir)
    assert self_check(doc, texts) == []
    jsonschema.validate(json.loads(ir.dumps()), load_schema("ir.schema.json"))
    snapshot.assert_match(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", "distilled-rules.json")
    snapshot.assert_match(ir.dumps(), "policy.ir.json")


def test_output_is_byte_identical_across_runs():
    case = CASES / "forbidden-list-fence"
    first, _ = _compile(case)
    second, _ = _compile(case)
    assert first.dumps() == second.dumps()
