"""Hostile projects, generated (issue 11, Acceptance): whatever other rule files a project holds (roles,
overrides, vendored paths, globs, conditions, odd frontmatter), the root AGENTS.md keeps every rule at
its full reach, every regex the harness would run is proven safe in Node.js, every artifact parses and
validates, and nothing is written outside the output folder."""

from __future__ import annotations

import hashlib
import json
import tempfile
from functools import cache
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from policyc.compiler import regex_safety
from policyc.compiler.checks import cedar_check, schema_error, self_check
from policyc.compiler.cli import main
from policyc.compiler.ir import STRICTNESS
from policyc.compiler.regex_safety import rule_regexes
from policyc.emitters.cedar_lowering import TARGETS
from policyc.schemas import read as read_schema

ROOT_RULES = "Never run `rm -rf /`.\n\nNever run `git push --force`.\n\nNever edit `.env`.\n\nDo not use `eval()`.\n"
PATHS = ["AGENTS.override.md", "CLAUDE.md", "sub/AGENTS.md", "vendor/github.com/x/dep/AGENTS.override.md",
         "node_modules/pkg/AGENTS.md", "third_party/lib/CLAUDE.md", "libs/mod/AGENTS.md", ".cursor/rules/a.mdc",
         ".cursor/rules/b.mdc", ".claude/skills/deploy/SKILL.md", ".omp/rules/r.md", ".github/instructions/x.instructions.md"]
OPENINGS = ["", "You are the subagent.\n\n", "You are the worker agent.\n\n", "You are the lead.\n\n", "You are the reviewer.\n\n"]
GLOBS = ["**/*e**e**e**e**e*.zz", "src/**/**/**/**/x.ts", "**/a*a*a*a*a*a*.py", "*.py", "src/**/*.ts", "**", "[", "*.{ts,tsx}"]
FIELDS = [
    'globs: "{glob}"', "alwaysApply: true", "alwaysApply: false", 'applyTo: "{glob}"', 'name: "deploy"',
    'name: "evil`\\n# x <!--"', 'condition: "(?:.|.)*!$"', 'condition: "\\\\N{{DIGIT ONE}}"', 'condition: "rm\\\\s+-rf"',
    'scope: "tool:bash"', "created: 2024-01-01", "tags: !!set {{a, b}}", "blob: !!binary aGVsbG8=", "n: " + "9" * 50,
    'a: &a ["x","x","x"]\nb: [*a,*a,*a]', "x: !!python/object:os.system [ls]",
]
BODY = ["Never run `rm -rf /`.", "Never run `git push --force`.", "Never edit `.env`.", "Do not use `eval()`.",
        "Never run `rm -rf *`.", "Never edit `{glob}`.", "You may run `rm -rf /` when asked.", "Avoid `git push`.",
        "Never run `git`.", "Always run `make check` before `git commit`.", "Never run `rm`.", "> never push to main",
        "- MUST NOT edit `db/migrations/`", "CRITICAL: never run `kubectl delete ns`."]

glob = st.sampled_from(GLOBS)
frontmatter = st.lists(st.tuples(st.sampled_from(FIELDS), glob), max_size=4).map(
    lambda fs: ("---\n" + "\n".join(f.format(glob=g) for f, g in fs) + "\n---\n") if fs else "")
body = st.lists(st.tuples(st.sampled_from(BODY), glob), min_size=1, max_size=6).map(
    lambda ls: "\n\n".join(line.format(glob=g) for line, g in ls) + "\n")
rule_file = st.tuples(frontmatter, st.sampled_from(OPENINGS), body).map("".join)
project = st.dictionaries(st.sampled_from(PATHS), rule_file, min_size=1, max_size=4)


def _compile(root: Path) -> dict:
    main(["compile", "--root", str(root), "--format", "json"])
    return json.loads((root / ".interlinked" / "distilled-rules.json").read_text())


def _live(doc: dict) -> list[dict]:
    losers = {i for c in doc["conflicts"] for i in c["overridden_ids"]}
    return [r for r in doc["rules"] if r["id"] not in losers and r.get("enabled", True)]


def _reach(rule: dict) -> tuple:
    return (json.dumps(rule["patterns"], sort_keys=True), sorted(rule["tool_match"]), rule.get("applies_to_roles"),
            json.dumps(rule.get("active_when"), sort_keys=True))


def _tree(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and ".interlinked" not in p.relative_to(folder).parts}


def _lay_out_root(root: Path) -> None:
    (root / ".git").mkdir(parents=True)
    (root / ".interlinked").mkdir()
    (root / "AGENTS.md").write_text(ROOT_RULES)
    (root / ".gitmodules").write_text('[submodule "mod"]\n\tpath = libs/mod\n\turl = https://example.org/mod\n')


@cache
def _baseline() -> tuple[list[dict], dict[str, bytes]]:
    """The root AGENTS.md compiled alone, once: its live rules and its output folder's files."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        _lay_out_root(root)
        live = _live(_compile(root))
        out = root / ".interlinked"
        return live, {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(project)
def test_other_rule_files_never_weaken_the_root_agents_md(files):
    baseline, output = _baseline()
    assert len(baseline) == 4
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        root = base / "proj"
        _lay_out_root(root)
        for rel, data in output.items():  # the root's own run came first, as in a project that adds rule files later
            (root / ".interlinked" / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / ".interlinked" / rel).write_bytes(data)
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        (base / "beside.txt").write_text("not policyc's\n")
        before = _tree(base)
        doc = _compile(root)
        # no write outside the output folder
        assert _tree(base) == before
        # every root rule is still enforced, for every agent, everywhere, at least as strictly
        live = _live(doc)
        winners = {loser: c["id"] for c in doc["conflicts"] for loser in c["overridden_ids"]}
        by_id = {r["id"]: r for r in live}
        for rule in baseline:
            if rule["id"] in winners:  # spoken for by the winner of a conflict: the same reach, or a command prefix of it
                winner = by_id[winners[rule["id"]]]
                assert _reach(winner)[1:] == _reach(rule)[1:], rule["id"]
                assert STRICTNESS[winner["action"]] >= STRICTNESS[rule["action"]], rule["id"]
            else:
                assert any(_reach(r) == _reach(rule) and STRICTNESS[r["action"]] >= STRICTNESS[rule["action"]] for r in live), rule["id"]
        # every regex the harness runs is proven safe (static analysis and the Node.js trial)
        pairs = [(regex, flags) for r in doc["rules"] for _, regex, flags in rule_regexes(r["patterns"], r.get("active_when") or {})]
        assert regex_safety.problems(pairs) == [""] * len(pairs)
        # every artifact parses and validates
        out = root / ".interlinked"
        ir = json.loads((out / "policy.ir.json").read_text())
        assert schema_error("ir.schema.json", ir) == ""
        sources = {s["file"]: s["text"] for s in ir["sources"]}
        assert self_check(doc, sources, use_node=False) == []
        cedar_files = {p.relative_to(out).as_posix(): p.read_text() for p in (out / "policies").glob("*.cedar")}
        schemas = {".interlinked.cedar": read_schema(TARGETS["interlinked"].schema), ".cedar": read_schema(TARGETS[doc["cedar_target"]].schema)}
        assert cedar_check(cedar_files, schemas) == []
        for path in doc["policies_emitted"]:
            assert (out / path).is_file()
