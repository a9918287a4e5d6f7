"""Reading every clause (issue 10, part A): each example as a test, through the harness's semantics.

Every rule these sentences give must also pass admission (tests/test_admission.py checks the gates).
"""

from __future__ import annotations

import pytest
from test_admission import bash, compile_text, fires, only, write


def test_a_weaker_clause_gives_the_trigger_when_the_strongest_names_nothing(tmp_path):
    text = "**You should not run pytest, python, or airflow commands directly on the host** — always use `breeze`.\n"
    ir, doc = compile_text(tmp_path, text)
    (rule,) = doc["rules"]
    assert rule["action"] == "block"  # the strongest marker ("always") still decides the action
    assert only(ir).clause.marker == "should not"  # the clause that named the commands
    assert fires(doc, *bash("pytest tests/")) and fires(doc, *bash("python -m airflow db migrate"))
    assert fires(doc, *bash("breeze testing tests")) == [] and fires(doc, *bash("breeze run pytest")) == []


def test_a_hedge_voids_only_its_own_clause(tmp_path):
    ir, doc = compile_text(tmp_path, "Never run `rm -rf /`; maybe ask first.\n")
    assert fires(doc, *bash("rm -rf /"))
    ir, doc = compile_text(tmp_path / "2", "We usually try to never run `rm -rf /`.\n")
    assert doc["rules"] == [] and [s.marker_class for s in ir.skipped] == ["skip-hedged"]


def test_the_rejected_side_of_x_not_y(tmp_path):
    _, doc = compile_text(tmp_path, "Always use `pnpm`, not `npm`.\n")
    assert fires(doc, *bash("npm install")) and fires(doc, *bash("pnpm install")) == []


def test_without_a_marker_there_is_no_rule(tmp_path):
    # "Use `pnpm`, not `npm`" has no marker: the compiler never invents a rule from unmarked prose
    ir, doc = compile_text(tmp_path, "Use `pnpm`, not `npm`.\n")
    assert ir.imperatives == [] and doc["rules"] == []


def test_make_sure_to_never_is_an_instruction(tmp_path):
    _, doc = compile_text(tmp_path, "Make sure to never push to main.\n")
    assert fires(doc, *bash("git push origin main")) and fires(doc, *bash("git push origin feature")) == []


@pytest.mark.parametrize("text, hit, miss", [
    ("Never build in release mode.\n", "cargo build --release", "cargo build"),
    ("Never bump every dependency at once.\n", "npm update", "npm update lodash"),
    ("Never commit and push in a single command.\n", "git commit -m wip && git push", "git commit -m wip"),
    ("Never squash commits when merging.\n", "gh pr merge 12 --squash", "gh pr merge 12 --merge"),
])
def test_prose_commands(tmp_path, text, hit, miss):
    _, doc = compile_text(tmp_path, text)
    assert fires(doc, *bash(hit)) and fires(doc, *bash(miss)) == []


@pytest.mark.parametrize("text, hit, miss, action", [
    ("Never use `@ts-ignore`.\n", "// @ts-ignore\nconst x: number = y;", "const x: number = y;", "block"),
    ("Never catch a bare exception.\n", "try:\n    run()\nexcept:\n    pass", "try:\n    run()\nexcept ValueError:\n    pass", "block"),
    ("Do not disable lint rules inline.\n", "// eslint-disable-next-line no-console\nconsole.log(x)", "console.log(x)", "ask"),
])
def test_prose_identifiers(tmp_path, text, hit, miss, action):
    _, doc = compile_text(tmp_path, text)
    assert [r["action"] for r in doc["rules"]] == [action]
    assert fires(doc, *write("src/a.ts", hit)) and fires(doc, *write("src/a.ts", miss)) == []


def test_amending_a_pushed_commit_is_not_every_amend(tmp_path):
    # whether a commit was pushed is not in the command: the policy gate judges it
    ir, doc = compile_text(tmp_path, "Never amend a pushed commit.\n")
    assert doc["rules"] == [] and only(ir).routes == ["pass2"]
    _, doc = compile_text(tmp_path / "2", "Never amend commits.\n")
    assert fires(doc, *bash("git commit --amend --no-edit"))


def test_a_later_prohibition_forbids_its_objects_too(tmp_path):
    _, doc = compile_text(tmp_path, "Never run `terraform destroy`; avoid `terraform taint`.\n")
    assert fires(doc, *bash("terraform destroy")) and fires(doc, *bash("terraform taint aws_instance.a"))
    assert fires(doc, *bash("terraform plan")) == []


@pytest.mark.parametrize("text", ["do **not** create a GitHub release or tag manually.\n",
                                  "Do *not* create a GitHub release or tag manually.\n"])
def test_emphasis_inside_a_marker_is_still_the_marker(tmp_path, text):
    # the inline grammar reads `**` as its own token between the words; the pre-filter must not drop the line
    _, doc = compile_text(tmp_path, text)
    assert [r["action"] for r in doc["rules"]] == ["ask"]
    assert fires(doc, *bash("gh release create v1.2.0")) and fires(doc, *bash("git tag -l 'v1*'")) == []


def test_a_placeholder_right_after_the_subcommand_is_an_argument(tmp_path):
    # `<user files>` is what `git restore` is given; `git restore --staged x` only unstages
    _, doc = compile_text(tmp_path, "Do not run `git restore <user files>`.\n")
    assert fires(doc, *bash("git restore src/a.py")) and fires(doc, *bash("git restore ."))
    assert fires(doc, *bash("git restore --staged src/a.py")) == [] and fires(doc, *bash("git status")) == []
    # later in the command a placeholder may be left out: a forced push to origin is still one
    _, doc = compile_text(tmp_path / "2", "Never run `git push --force origin <branch>`.\n")
    assert fires(doc, *bash("git push --force origin")) and fires(doc, *bash("git push --force origin main"))
