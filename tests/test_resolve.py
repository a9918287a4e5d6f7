"""The resolve step (compiler/resolve.py): every routing, conflict and override decision made once,
right before emission, so an emitter only renders the view and a re-render equals a compile."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest
from conftest import make_project
from policyc.compiler.cli import main
from policyc.compiler.pipeline import compile_paths
from policyc.compiler.resolve import Resolved, resolve
from policyc.emitters import guardrules

ROOT = Path(__file__).resolve().parents[1]
RULES = {
    "AGENTS.override.md": "Avoid `git stash drop`.\n",  # merges with the stricter block below, which raises it
    "AGENTS.md": "- Never run `git stash drop`.\n- Never run `rm -rf /`.\n- Never run `terraform destroy`.\n"
                 "- Prefer small functions.\n",
    ".claude/skills/a/SKILL.md": "---\nname: alpha\n---\nNever run `make deploy`.\n",
}


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")


def _ir(tmp_path):
    root = make_project(tmp_path, RULES)
    return compile_paths(sorted(p for p in root.rglob("*.md")), root)


def _id(ir, words: str) -> str:
    return next(i.id for i in ir.imperatives if words in i.quote and "AGENTS.override" not in i.file)


# --- a toy emitter needs only the view ---

def toy_emit(view: Resolved) -> str:
    """A one-line-per-rule listing: what a new backend would write, from the resolved view alone."""
    lines = [f"rule {r.id} {r.action}/{r.severity}" + ("" if r.enabled else f" off ({r.note})") for r in view.guardrules]
    lines += [f"policy {i.id}" for i in view.policies]
    lines += [f"principle {i.id}" for i in view.principles]
    lines.append(f"stats block={view.stats.distilled['block']} enforcing={view.stats.enforcing} policies={view.stats.policies}")
    return "\n".join(lines) + "\n"


def test_a_toy_emitter_is_written_against_the_view_alone(tmp_path):
    ir = _ir(tmp_path)
    stash, rm, terraform = _id(ir, "stash"), _id(ir, "rm -rf"), _id(ir, "terraform")
    winner = next(c.id for c in ir.conflicts)
    assert (stash, "AGENTS.md") == (next(c.overridden_ids[0] for c in ir.conflicts), "AGENTS.md")
    ir.overrides = {"disabled_rule_ids": [rm], "modifications": {terraform: {"action": "ask", "note": "CI only"}}}  # as the IR records them
    text = toy_emit(resolve(ir))
    assert f"rule {winner} block/critical\n" in text  # the conflict raised the winner's ask to the loser's block
    assert stash not in text  # the loser is spoken for: neither a rule nor a policy
    assert f"rule {rm} block/critical off (disabled by the user (overrides file))\n" in text
    assert f"policy {rm}" not in text  # a disabled rule is not a policy
    assert f"rule {terraform} ask/critical\n" in text and f"policy {terraform}\n" in text
    assert "principle " in text  # the advisory quality rule informs the reviewer
    # the view says what distilled-rules.json says, so the toy and the real emitter agree
    doc = guardrules.emit(ir)
    assert sorted((r["id"], r["action"], r["enabled"]) for r in doc["rules"]) == \
        sorted((r.id, r.action, r.enabled) for r in resolve(ir).guardrules)
    assert doc["stats"]["distilled_block"] == resolve(ir).stats.distilled["block"]
    ir.overrides = {}
    assert resolve(ir).rule(rm).enabled and resolve(ir).rule(terraform).action == "block"


def test_no_emitter_and_not_the_toy_reads_conflicts_or_overrides():
    """Conflict losers, merges and the overrides are applied once, in resolve: neither module is imported by an
    emitter, nor by this file, whose toy emitter and its checks get by on the view."""
    for path in [*sorted((ROOT / "emitters").glob("*.py")), Path(__file__)]:
        imported = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                imported |= {node.module or ""} | {f"{node.module}.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                imported |= {a.name for a in node.names}
        assert not {m for m in imported if m.endswith(("compiler.conflicts", "compiler.overrides"))}, path


# --- a re-render after an override change equals a fresh compile with that override ---

def _artifacts(out: Path) -> dict[str, str]:
    """Every artifact in an output folder (not policyc's hidden bookkeeping: seal, lock, stamp, hook cache)."""
    return {p.relative_to(out).as_posix(): p.read_text(encoding="utf-8") for p in sorted(out.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}


def _compile_then(tmp_path, monkeypatch, verb: list[str]) -> tuple[Path, Path, dict[str, str]]:
    """Compile into `live`, run a lifecycle verb there (which re-renders), then compile afresh into `fresh` with the
    overrides file the verb left: (live, fresh, live's artifacts before the verb)."""
    root = make_project(tmp_path, RULES, interlinked=False)
    live, fresh = tmp_path / "live", tmp_path / "fresh"
    monkeypatch.chdir(root)
    assert main(["compile", "--root", str(root), "--out", str(live)]) == 0
    doc = json.loads((live / "distilled-rules.json").read_text())
    ids = {"rm": next(r["id"] for r in doc["rules"] if "rm -rf" in r["source"]["quote"]),
           "terraform": next(r["id"] for r in doc["rules"] if "terraform" in r["source"]["quote"]),
           "winner": doc["conflicts"][0]["id"]}
    before = _artifacts(live)
    assert main([*(a.format(**ids) for a in verb), "--root", str(root), "--out", str(live)]) == 0
    fresh.mkdir()
    shutil.copy(live / "distilled-rules.overrides.json", fresh / "distilled-rules.overrides.json")
    assert main(["compile", "--root", str(root), "--out", str(fresh)]) == 0
    return live, fresh, before


@pytest.mark.parametrize("verb", [
    ["disable", "{rm}"],
    ["modify", "{terraform}", "--action", "warn", "--severity", "low", "--note", "staging only"],
    ["modify", "{winner}", "--action", "soft_block"],
    ["remove", "{winner}"],
], ids=["disable", "modify", "modify-winner", "remove-winner"])
def test_a_rerender_after_an_override_change_equals_a_fresh_compile(tmp_path, monkeypatch, capsys, verb):
    live, fresh, before = _compile_then(tmp_path, monkeypatch, verb)
    rerendered = _artifacts(live)
    assert rerendered != before  # the verb took effect at once, through the re-render
    compiled = _artifacts(fresh)
    # every file the compile writes, the re-render wrote with the same bytes; what else is in `live` is a file of a
    # group left with no policy, which policyc does not delete and no longer lists as emitted
    assert {p: rerendered.get(p) for p in compiled} == compiled
    emitted = json.loads(compiled["distilled-rules.json"])["policies_emitted"]
    assert not set(rerendered) - set(compiled) & set(emitted)
    # `policyc render` of the re-rendered IR (it records the new overrides) writes the same files again
    rendered = tmp_path / "rendered"
    assert main(["render", str(live / "policy.ir.json"), "--out", str(rendered)]) == 0
    capsys.readouterr()
    assert _artifacts(rendered) == {p: t for p, t in compiled.items() if p != "distilled-rules.overrides.json"}


def test_a_removed_group_is_flagged_at_once_and_dropped_by_the_next_compile(tmp_path, monkeypatch):
    """The one override a re-render cannot make equal to a compile: a compile never reads a removed group's
    sources, while the re-render has only the saved IR, which still holds them, so until the next compile the
    group's rules stay in distilled-rules.json switched off (and `add --source` can restore them at once)."""
    live, fresh, _ = _compile_then(tmp_path, monkeypatch, ["remove", "--source", "skill:alpha"])
    rerendered = json.loads((live / "distilled-rules.json").read_text())["rules"]
    compiled = json.loads((fresh / "distilled-rules.json").read_text())["rules"]
    flagged = [r for r in rerendered if r["source"]["group_id"] == "skill:alpha"]
    assert [(r["enabled"], r["note"]) for r in flagged] == [(False, "its source group was removed by the user (overrides file)")]
    assert [r for r in rerendered if r not in flagged] == compiled


def test_files_scanned_means_one_thing_everywhere(tmp_path, monkeypatch, capsys):
    """Every file the run read or tried to read, each once: in distilled-rules.json, policy.ir.json and the summary.
    (distilled-rules.json used to leave out the files that failed, the IR to count a kept one twice.)"""
    root = make_project(tmp_path, {"AGENTS.md": "Never run `terraform destroy`.\n", "CLAUDE.md": "Never run `rm -rf /`.\n"})
    monkeypatch.chdir(root)
    out = root / ".interlinked"

    def counts() -> tuple[int, int, int]:
        assert main(["compile", "--root", str(root), "--format", "json"]) == 1
        summary = json.loads(capsys.readouterr().out)
        rules = json.loads((out / "distilled-rules.json").read_text())
        ir = json.loads((out / "policy.ir.json").read_text())
        return rules["stats"]["files_scanned"], ir["stats"]["files_scanned"], summary["sources_scanned"]

    (root / "GEMINI.md").write_bytes(b"Never\x00 run it.\n")  # never readable: scanned, failed, nothing kept
    assert counts() == (3, 3, 3)
    (root / "AGENTS.md").write_bytes(b"Never run \xe9 `rm`.\n")  # unreadable now: the last run's copy is kept, counted once
    assert counts() == (3, 3, 3)
