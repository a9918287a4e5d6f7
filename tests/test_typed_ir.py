"""The typed IR (1.4): its records survive a JSON round trip, and IRs of older versions upgrade into them.

tests/data/ir-1.3/policy.ir.json is what policyc wrote, as IR 1.3, for tests/data/ir-1.3/project (every
trigger kind, two conflicts, sequences, admission decisions with rates); it is never regenerated.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest
from conftest import DATA
from policyc.compiler.checks import schema_error
from policyc.compiler.cli import main
from policyc.compiler.ir import (
    IR_VERSION,
    Action,
    AdmissionRate,
    ClauseObject,
    Conflict,
    Decision,
    PolicyIR,
    Route,
    Severity,
    TriggerKind,
)
from policyc.compiler.pipeline import compile_paths
from policyc.compiler.project import load_ir
from policyc.compiler.resolve import resolve
from policyc.compiler.targets import discover
from policyc.emitters import artifacts

SNAPSHOTS = Path(__file__).resolve().parents[1] / "golden" / "snapshots"
OLD = DATA / "ir-1.3"


def _old() -> dict:
    return json.loads((OLD / "policy.ir.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", sorted(p.name for p in SNAPSHOTS.iterdir()))
def test_every_golden_ir_round_trips_byte_for_byte(case):
    """The golden IR is `ir.dumps()` of its case: read back into the records, it dumps to the same bytes."""
    written = (SNAPSHOTS / case / "policy.ir.json").read_bytes()
    assert PolicyIR.from_json(json.loads(written)).dumps() == written


def test_a_1_3_ir_reads_into_the_typed_records():
    data = _old()
    assert data["ir_version"] == "1.3" and schema_error("ir.schema.json", data) == ""
    ir = PolicyIR.from_json(data)
    assert ir.ir_version == "1.3"  # what was read: pipeline reuses only a current IR's items
    triggers = [i.trigger for i in ir.imperatives if i.trigger]
    assert {t.kind for t in triggers} == set(TriggerKind)
    assert all(type(t.kind) is TriggerKind and all(p.flags in ("", "i") for p in t.patterns) for t in triggers)
    prose = [t for t in triggers if t.kind == TriggerKind.PROSE]
    assert {t.lexicon for t in prose} == {"commit-secret-files", "push-protected-branch"}
    assert all(t.label == "prose:" + t.lexicon for t in prose) and not any(t.lexicon for t in triggers if t not in prose)
    imp = ir.imperatives[0]
    assert type(imp.action) is Action and type(imp.severity) is Severity and all(type(r) is Route for r in imp.routes)
    assert all(type(o) is ClauseObject for i in ir.imperatives for o in i.clause.objects)
    assert [s.requires for i in ir.imperatives if (s := i.sequence)] == [("npm run lint",), ("npm test",)]
    rates = [i.admission.rate for i in ir.imperatives if i.admission and i.admission.rate]
    assert rates and all(type(r) is AdmissionRate for r in rates)
    assert {i.admission.decision for i in ir.imperatives if i.admission} == set(Decision)
    assert all(type(c) is Conflict for c in ir.conflicts) and [c.action for c in ir.conflicts] == ["block", "block"]


def test_a_1_3_ir_upgrades_to_what_a_fresh_compile_writes():
    """The upgraded 1.3 IR dumps to the 1.4 IR that compiling the same sources writes today."""
    root = OLD / "project"
    new = compile_paths(discover(root).paths, root)
    old = PolicyIR.from_json(_old())
    new.distiller, new.distilled_at = old.distiller, old.distilled_at
    upgraded = old.dumps()
    assert json.loads(upgraded)["ir_version"] == IR_VERSION == "1.4"
    assert schema_error("ir.schema.json", json.loads(upgraded)) == ""
    assert upgraded == new.dumps()


def test_diff_between_the_1_3_and_the_1_4_ir_of_the_same_sources_reports_no_change(tmp_path, capsys):
    root = tmp_path / "project"
    shutil.copytree(OLD / "project", root)
    (root / ".git").mkdir()
    out = tmp_path / "out"
    assert main(["compile", "--root", str(root), "--out", str(out)]) == 0
    assert json.loads((out / "policy.ir.json").read_text())["ir_version"] == "1.4"
    capsys.readouterr()
    code = main(["diff", str(OLD / "policy.ir.json"), str(out / "policy.ir.json"), "--format", "json", "--exit-code"])
    result = json.loads(capsys.readouterr().out)
    assert (code, result) == (0, {"added": [], "removed": [], "changed": [], "moved": []})


def test_a_1_4_conflict_must_name_the_ids_it_overrides(tmp_path):
    data = json.loads((SNAPSHOTS / "ex8-override" / "policy.ir.json").read_text())
    assert data["ir_version"] == "1.4" and data["conflicts"]
    del data["conflicts"][0]["overridden_ids"]
    assert "'overridden_ids' is a required property" in schema_error("ir.schema.json", data)
    (tmp_path / "policy.ir.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="overridden_ids"):
        load_ir(tmp_path / "policy.ir.json", validate=False)  # the type requires it too


def test_an_older_conflict_without_ids_still_keeps_its_losers_out():
    """A schema-valid 1.3 IR whose conflicts lack `overridden_ids` (1.1 wrote none): the losers are found from the
    overridden sources, so no artifact re-emits them."""
    complete = PolicyIR.from_json(_old())
    losers = {i for c in complete.conflicts for i in c.overridden_ids}
    data = _old()
    for conflict in data["conflicts"]:
        del conflict["overridden_ids"], conflict["action"], conflict["severity"]
    assert schema_error("ir.schema.json", data) == ""
    ir = PolicyIR.from_json(data)
    assert ir.conflicts == complete.conflicts  # ids, action and severity as conflicts.resolve settled them
    assert losers and all(resolve(ir).rule(i).shadowed_by for i in losers)
    rules = {r["id"] for r in json.loads(artifacts(ir, "sondera-v2")["distilled-rules.json"])["rules"]}
    assert rules and not rules & losers


def test_an_ir_of_a_later_version_is_refused(tmp_path):
    data = copy.deepcopy(_old())
    data["ir_version"] = "1.5"
    with pytest.raises(ValueError, match="IR version 1.5 is not one this policyc reads"):
        PolicyIR.from_json(data)


def test_the_ir_and_the_resolved_view_count_alike_when_nothing_overrides():
    """stats() counts before conflicts and overrides, resolve.Stats after; with neither, they agree."""
    for case in ("admission", "conventions", "corpus-devsimpy-clinerules"):
        ir = PolicyIR.from_json(json.loads((SNAPSHOTS / case / "policy.ir.json").read_text()))
        assert not ir.conflicts and not ir.overrides.get("disabled")
        stats, resolved = ir.stats(), resolve(ir).stats
        assert (stats["distilled_block"], stats["distilled_ask"], stats["distilled_advisory"]) == tuple(resolved.distilled.values())
        assert (stats["pass2_policies"], stats["pass3_prose"], stats["imperatives_found"]) == (
            resolved.policies, resolved.prose_entries, resolved.imperatives_found)


def test_conflicts_count_before_and_after():
    ir = PolicyIR.from_json(_old())
    stats, resolved = ir.stats(), resolve(ir).stats
    assert stats["distilled_block"] - resolved.distilled["block"] == sum(len(c.overridden_ids) for c in ir.conflicts) == 2
