"""Admission: every example of issue 9 ("every deterministic rule is one a user would keep").

Each test compiles a sentence as a user would write it and checks what reaches
distilled-rules.json (evaluated with the harness's semantics), and, where the
candidate is demoted, which gate demoted it and that it still reaches Pass 2.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import DATA, make_project
from policyc.compiler.admission import GATES, Admission
from policyc.compiler.checks import schema_error
from policyc.compiler.cli import main
from policyc.compiler.harness import active, rule_fires
from policyc.compiler.ir import IR_VERSION, AdmissionRate, Decision, Gate, PolicyIR
from policyc.compiler.pipeline import compile_paths
from policyc.compiler.report import summary_data, summary_text
from policyc.compiler.triggers import load_lexicon
from policyc.emitters import artifacts
from policyc.emitters.guardrules import emit


def compile_text(tmp_path: Path, text: str, name: str = "AGENTS.md") -> tuple[PolicyIR, dict]:
    root = make_project(tmp_path, {name: text}, interlinked=False)
    ir = compile_paths([root / name], root)
    return ir, emit(ir)


def fires(doc: dict, tool: str, tool_input: dict) -> list[str]:
    """Ids of the Pass 1 rules that act on one call."""
    return [r["id"] for r in doc["rules"] if rule_fires(r, tool, tool_input)]


def bash(command: str) -> tuple[str, dict]:
    return "Bash", {"command": command}


def write(path: str, content: str) -> tuple[str, dict]:
    return "Write", {"file_path": path, "content": content}


def edit(path: str) -> tuple[str, dict]:
    return "Edit", {"file_path": path, "old_string": "a", "new_string": "b"}


def only(ir: PolicyIR):
    """The one imperative of a one-sentence file."""
    assert len(ir.imperatives) == 1, [i.quote for i in ir.imperatives]
    return ir.imperatives[0]


def assert_demoted(imp, gate: str) -> None:
    assert imp.admission is not None and imp.admission.decision == "demoted", imp.admission
    assert imp.admission.gate == gate, imp.admission
    assert imp.routes[0] == "pass2" and "pass1" not in imp.routes  # never silently away
    assert imp.pass2_cause == imp.admission.reason


# --- polarity: the trigger is what the sentence forbids, never what it asks for ---

@pytest.mark.parametrize("text, call", [
    ("CRITICAL: Use `pnpm`.\n", bash("pnpm install")),
    ("**CRITICAL:** Run `make check`.\n", bash("make check")),
    ("BLOCKING: run `npm run lint` before each commit.\n", bash("npm run lint")),
    ("You SHOULD use `pnpm`.\n", bash("pnpm install")),
    ("You SHOULD use `ruff` and not `black`.\n", bash("ruff check .")),
    ("you SHOULD:\n\n- Use `Foo.ThrowIfNull` where applicable.\n", write("src/a.cs", "Foo.ThrowIfNull(x);")),
    ("you SHOULD:\n\n- read the `README.md` files of each package\n", edit("packages/a/README.md")),
    ("- AVOID abbreviations in names, e.g. use `count` instead of `cnt`\n", write("src/a.rs", "let count = items.len();")),
    ("The PR body must start with a `## Summary` heading.\n", write("docs/pr.md", "## Summary\nText")),
])
def test_no_rule_blocks_what_the_sentence_asks_for(tmp_path, text, call):
    _, doc = compile_text(tmp_path, text)
    assert fires(doc, *call) == []


def test_a_header_label_keeps_the_sentence_polarity(tmp_path):
    ir, doc = compile_text(tmp_path, "CRITICAL: Use `pnpm`.\n")
    assert only(ir).marker_class == "block-positive" and only(ir).severity in ("high", "critical")
    assert fires(doc, *bash("npm install")) and not fires(doc, *bash("pnpm install"))


def test_should_in_capitals_stays_a_preference(tmp_path):
    ir, doc = compile_text(tmp_path, "You SHOULD use `ruff` and not `black`.\n")
    assert only(ir).marker_class == "advisory"
    assert [r["action"] for r in doc["rules"]] == ["warn"] and fires(doc, *bash("black src"))


def test_an_item_recommending_an_alternative_is_not_forbidden_by_its_heading(tmp_path):
    ir, doc = compile_text(tmp_path, "## Never\n\n- Use `count` instead of `cnt`\n")
    assert fires(doc, *write("src/a.rs", "let count = 1;")) == []
    assert_demoted(only(ir), "polarity")


SLUG = "." * 3 + "/N8N-1234/fix-ssrf-vulnerability"  # the example, an elided Linear URL


# --- object: not an example, a placeholder, an alternative or a token of a subordinate clause ---

@pytest.mark.parametrize("text, call", [
    ("Never use deprecated helpers such as `oldHelper`.\n", write("src/a.ts", "oldHelper()")),
    ("Avoid global state (e.g. `window.appState`).\n", write("src/a.ts", "window.appState = 1")),
    ("Never use string matching (regex, `.includes()`, substring checks) to evaluate agent output.\n",
     write("src/a.ts", "if (out.includes('ok')) {}")),
    (f"Never include the URL slug (e.g. `{SLUG}`).\n", write("src/a.md", SLUG)),
])
def test_examples_are_not_the_trigger(tmp_path, text, call):
    ir, doc = compile_text(tmp_path, text)
    assert fires(doc, *call) == []
    assert_demoted(only(ir), "object")


@pytest.mark.parametrize("text, value", [
    ("Never name a rule file `<rule-name>`.\n", "<rule-name>"),
    ("Never leave `TODO(name)` comments.\n", "TODO(name)"),
    ("Never reference `#NNN` in commit titles.\n", "#NNN"),
    ("Never write `AC-NN` ids in code.\n", "AC-NN"),
    ("In the test suite, you MUST use the `NewClass` instead of the `OldClass`.\n", "OldClass"),
])
def test_placeholders_are_not_names(tmp_path, text, value):
    _, doc = compile_text(tmp_path, text)
    assert fires(doc, *write("tests/test_a.py", value)) == []


def test_tokens_of_subordinate_clauses_and_parentheses_are_not_objects(tmp_path):
    _, doc = compile_text(tmp_path, "Never call `legacy_read` because `fast_read` is quicker.\n")
    assert fires(doc, *write("src/a.py", "legacy_read()")) and not fires(doc, *write("src/a.py", "fast_read()"))
    ir, doc = compile_text(tmp_path / "2", "Avoid `read_file` when `read_summary` would suffice.\n")
    assert fires(doc, *write("src/a.py", "read_summary()")) == [] and fires(doc, *write("src/a.py", "read_file()")) == []
    assert_demoted(only(ir), "scope")
    _, doc = compile_text(tmp_path / "3", "Do not use `#[ts(optional = nullable)]` outside client->server request payloads (`*Params`).\n")
    assert fires(doc, *write("src/a.rs", "struct FooParams {}")) == []


def test_the_recommended_alternative_is_not_forbidden(tmp_path):
    text = "Forbidden:\n\n- MySQL-only functions (e.g., `GROUP_CONCAT` without PostgreSQL `STRING_AGG` equivalent)\n"
    _, doc = compile_text(tmp_path, text)
    assert fires(doc, *write("db/q.sql", "SELECT STRING_AGG(name, ',') FROM t")) == []


# --- kind: a path trigger is a path, a content trigger is file content ---

@pytest.mark.parametrize("text", [
    "Never modify `object/class` mappings by hand.\n",
    "Never edit `security@example.org` in the docs.\n",
    "Never change `https://example.com/api` links.\n",
    "Never remove `console.log` calls from the CLI.\n",
    "Never modify `theme.colors` directly.\n",
    "Never edit I/O handlers by hand.\n",
])
def test_non_paths_are_not_path_rules(tmp_path, text):
    ir, doc = compile_text(tmp_path, text)
    assert not [r for r in doc["rules"] if {p["field"] for p in r["patterns"]} & {"file_path", "notebook_path"}]


@pytest.mark.parametrize("text, content", [
    ("Avoid `--all-features` for routine local runs.\n", "cargo test --all-features"),
    ("Never set `ELECTRON_RUN_AS_NODE` when you run the app.\n", "ELECTRON_RUN_AS_NODE=1"),
])
def test_shell_tokens_are_not_file_content(tmp_path, text, content):
    _, doc = compile_text(tmp_path, text)
    assert fires(doc, *write("scripts/run.sh", content)) == []


def test_a_shell_token_in_a_sentence_about_editing_files_is_not_demoted_by_kind(tmp_path):
    ir, doc = compile_text(tmp_path, "Never add or modify any code related to `CODEX_SANDBOX_ENV_VAR`.\n")
    assert fires(doc, *write("src/a.rs", "std::env::var(CODEX_SANDBOX_ENV_VAR)"))


# --- breadth: common words, measured on the bundled ordinary sample ---

@pytest.mark.parametrize("word", ["Exception", "then", "null", "false", "unknown", "div", "Style", "interface"])
def test_common_words_are_not_content_rules(tmp_path, word):
    ir, doc = compile_text(tmp_path, f"Never use `{word}`.\n")
    assert doc["rules"] == []
    imp = only(ir)
    if imp.admission.decision == "demoted":
        assert imp.admission.gate == "breadth"


def test_a_breadth_demotion_records_the_measured_rate(tmp_path):
    # the bare words, not their calls ("`then` calls" is the call `then(`, which ordinary code seldom writes)
    ir, _ = compile_text(tmp_path, "Prefer `async` and `await` over `Promise` and `then`.\n")
    imp = only(ir)
    assert_demoted(imp, "breadth")
    rate = imp.admission.rate
    assert rate.fired > 0 and rate.total >= rate.fired and rate.share == round(rate.fired / rate.total, 4)
    assert "of ordinary edits" in imp.admission.reason


def test_an_admitted_rule_records_its_rate(tmp_path):
    ir, _ = compile_text(tmp_path, "Never run `terraform destroy`.\n")
    admission = only(ir).admission
    assert admission.decision == "admitted" and admission.rate.fired == 0 and "0 of" in admission.reason


# --- scope: qualifiers become file scope, or the rule goes to Pass 2 ---

@pytest.mark.parametrize("text", [
    "In `airflow-core`, functions with a `session` parameter must not call `session.commit()`.\n",
    "Never use `#[serde(skip_serializing_if = \"Option::is_none\")]` for v2 API payload fields.\n",
    "Do NOT directly import or call `encoding/json` in business code.\n",
    "Never use `print()` in request handlers.\n",
    "Never use `print()` in business logic.\n",
    "Do not use `#[serde(default)]` to model optional collections.\n",
])
def test_an_unresolved_qualifier_demotes(tmp_path, text):
    ir, doc = compile_text(tmp_path, text)
    assert doc["rules"] == []
    assert_demoted(ir.imperatives[0], "scope")


def in_scope(rule: dict, path: str) -> bool:
    return active({"active_when": {"file_scope": rule["active_when"]["file_scope"]}}, {"tool_input": {"file_path": path}})


def test_in_tests_becomes_a_file_scope(tmp_path):
    _, doc = compile_text(tmp_path, "Do not use `caplog` in tests.\n")
    (rule,) = doc["rules"]
    assert fires(doc, *write("tests/test_a.py", "def test(caplog): pass"))
    assert in_scope(rule, "tests/test_a.py") and in_scope(rule, "src/a.test.ts") and not in_scope(rule, "src/app.py")


def test_a_folder_qualifier_becomes_a_file_scope(tmp_path):
    _, doc = compile_text(tmp_path, "Never use `eval()` in `src/legacy/`.\n")
    (rule,) = doc["rules"]
    assert in_scope(rule, "src/legacy/a.py") and not in_scope(rule, "src/a.py")


def test_in_production_code_means_anything_but_tests(tmp_path):
    _, doc = compile_text(tmp_path, "Never import `@total-typescript/shoehorn` in production code.\n")
    (rule,) = doc["rules"]
    assert in_scope(rule, "src/app.ts") and not in_scope(rule, "src/app.test.ts") and not in_scope(rule, "tests/a.ts")


def test_a_common_folder_name_is_a_folder(tmp_path):
    _, doc = compile_text(tmp_path, "Never import `lodash` in src.\n")
    (rule,) = doc["rules"]
    assert in_scope(rule, "packages/a/src/index.ts") and not in_scope(rule, "scripts/build.ts")


@pytest.mark.parametrize("text, inside, outside", [
    ("Never use raw Ink `<Text>` or `<Box>` in screens.\n", "src/screens/Home.tsx", "src/components/Box.tsx"),
    ("Never import `node:fs` in CLI and nodes.\n", "packages/nodes/a.ts", "packages/core/a.ts"),
])
def test_a_plural_noun_qualifier_is_a_folder(tmp_path, text, inside, outside):
    # narrowing to a folder can only make a rule fire less: a wrong guess never blocks anything
    _, doc = compile_text(tmp_path, text)
    (rule,) = doc["rules"]
    assert in_scope(rule, inside) and not in_scope(rule, outside)


def test_a_language_heading_scopes_the_file_rules_under_it(tmp_path):
    _, doc = compile_text(tmp_path, "## Python style\n\n- Never use `datetime.now()`.\n- Never run `pip install`.\n")
    rules = {r["tool_match"][0]: r for r in doc["rules"]}
    assert in_scope(rules["Write"], "app/a.py") and not in_scope(rules["Write"], "app/a.ts")
    assert "active_when" not in rules["Bash"]  # a shell call has no file path to scope


def test_push_to_main_is_only_main(tmp_path):
    _, doc = compile_text(tmp_path, "**Releases go through a PR, never a push to main.**\n")
    assert fires(doc, *bash("git push origin main"))
    assert fires(doc, *bash("git push origin production")) == [] and fires(doc, *bash("git push upstream feature")) == []


def test_rm_rf_root_is_not_rm_rf_anything(tmp_path):
    _, doc = compile_text(tmp_path, "Never run `rm -rf /`.\n")
    assert fires(doc, *bash("rm -rf /")) and fires(doc, *bash("sudo rm -rf / && ls"))
    assert fires(doc, *bash("rm -rf /tmp/x")) == []


def test_word_lists_hold_strings_not_yaml_booleans(tmp_path):
    lexicon = load_lexicon()
    assert {"false", "null", "yes", "no", "true"} <= lexicon.not_identifiers
    for words in lexicon.clause_words.values():
        assert all(isinstance(w, str) for w in words), words
    _, doc = compile_text(tmp_path, "Never write `false` here.\n")
    assert doc["rules"] == []


# --- source: OMP guidance, scan-only sources, skill steps, examples of bad files ---

OMP = "---\ncondition: \"git push --force\"\nscope: \"tool:bash\"\n---\n\nAsk before rewriting shared history.\n"


def test_an_omp_rule_is_a_warn_that_carries_its_body(tmp_path):
    ir, doc = compile_text(tmp_path, OMP, ".omp/rules/history.md")
    (rule,) = doc["rules"]
    assert rule["action"] == "warn" and rule["suggestion"] == "Ask before rewriting shared history."
    assert rule["source"]["lexical_marker"] in (OMP + rule["source"]["quote"])  # a marker the text has
    assert fires(doc, *bash("git push --force origin x"))


def test_an_omp_rule_never_blocks_even_with_never_in_its_body(tmp_path):
    _, doc = compile_text(tmp_path, OMP.replace("Ask before", "Never go on"), ".omp/rules/history.md")
    assert [r["action"] for r in doc["rules"]] == ["warn"]


@pytest.mark.parametrize("name", ["CONTRIBUTING.md", "SECURITY.md", "STYLEGUIDE.md", "PLANS.md"])
def test_scan_only_sources_give_only_hard_rules(tmp_path, name):
    text = "- Avoid `git push --force`.\n- You should run `npm ci`.\n- Never run `npm publish`.\n"
    ir, doc = compile_text(tmp_path, text, name)
    assert [r["source"]["quote"] for r in doc["rules"]] == ["Never run `npm publish`."]
    assert_demoted(ir.imperatives[0], "source")


def test_a_skill_workflow_step_is_not_an_always_on_block(tmp_path):
    text = ("---\nname: rebase\ndescription: rebase a branch\n---\n# Rebase\n\n1. Fetch the branch.\n"
            "2. If the rebase stops on a conflict, do NOT run `git rebase --skip`.\n")
    ir, doc = compile_text(tmp_path, text, ".claude/skills/rebase/SKILL.md")
    assert doc["rules"] == []
    assert ir.imperatives[0].admission.decision == "demoted"


def test_an_indented_example_of_a_bad_file_is_not_compiled(tmp_path):
    text = ("Example of a bad AGENTS.md:\n\n    # Rules\n    - Never use `rm -rf /`\n    - NEVER run `git push --force`\n\n"
            "- Example of a bad rule:\n\n      Never run `npm publish`.\n")
    ir, doc = compile_text(tmp_path, text)
    assert ir.imperatives == [] and doc["rules"] == []


# --- the IR, the artifacts and the summary say why ---

def test_every_imperative_records_its_admission(tmp_path):
    text = "Never run `terraform destroy`.\nNever use raw `<Text>` in business code.\nAlways write clear code.\n"
    ir, _ = compile_text(tmp_path, text)
    decisions = [i.admission.decision for i in ir.imperatives]
    assert decisions == ["admitted", "demoted", "no-candidate"]
    assert all(i.admission.gate in ("", *GATES) for i in ir.imperatives)
    data = json.loads(ir.dumps())
    assert data["ir_version"] == IR_VERSION == "1.4" and schema_error("ir.schema.json", data) == ""
    assert data["imperatives"][1]["admission"]["gate"] == "scope"
    assert PolicyIR.from_json(data).imperatives[1].admission == ir.imperatives[1].admission


def test_the_summary_counts_demotions_by_gate(tmp_path):
    text = "Never use raw `<Text>` in business code.\nNever use `<Box>` for v2 payloads.\nNever use `then`.\nNever run `make deploy`.\n"
    ir, doc = compile_text(tmp_path, text)
    data = summary_data(ir, doc, "out")
    assert data["demoted"] == {"scope": 2, "breadth": 1}
    assert "demoted              3 (2 unresolved qualifier, 1 too broad)" in summary_text(data)


def test_policy_md_and_the_skipped_report_name_the_gate(tmp_path):
    ir, _ = compile_text(tmp_path, "Never use raw `<Text>` in business code.\n")
    files = artifacts(ir, "sondera-v1")
    policy = next(text for path, text in files.items() if path.endswith(".policy.md"))
    assert "demoted from Pass 1 by the scope gate: 'in business code' narrows the rule" in policy
    report = files["policies/skipped.report.md"]
    assert "## Demoted to Pass 2" in report and "scope gate (unresolved qualifier)" in report


def test_show_explains_an_admitted_and_a_demoted_rule(tmp_path, capsys, monkeypatch):
    root = make_project(tmp_path, {"AGENTS.md": "Never run `terraform destroy`.\nNever use raw `<Text>` in business code.\n"})
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    ir = PolicyIR.from_json(json.loads((root / ".interlinked" / "policy.ir.json").read_text()))
    admitted, demoted = ir.imperatives
    capsys.readouterr()
    assert main(["show", admitted.id]) == 0
    assert "Admission: admitted: every gate admits it; it fires on 0.0% of ordinary commands" in capsys.readouterr().out
    assert main(["show", demoted.id]) == 0
    out = capsys.readouterr().out
    assert "Admission: demoted by the scope gate: 'in business code' narrows the rule" in out and "> 2 | Never use raw" in out


def test_an_ir_1_2_still_reads_and_diffs_against_the_current_version(tmp_path, capsys):
    old = json.loads((DATA / "ir-1.2.json").read_text(encoding="utf-8"))
    assert old["ir_version"] == "1.2" and all("admission" not in i for i in old["imperatives"])
    assert all(i.admission is None for i in PolicyIR.from_json(old).imperatives)
    root = make_project(tmp_path, {"AGENTS.md": old["sources"][0]["text"]}, interlinked=False)
    new = compile_paths([root / "AGENTS.md"], root)
    (tmp_path / "new.ir.json").write_bytes(new.dumps())
    shutil.copyfile(DATA / "ir-1.2.json", tmp_path / "old.ir.json")
    capsys.readouterr()
    code = main(["diff", str(tmp_path / "old.ir.json"), str(tmp_path / "new.ir.json"), "--format", "json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and set(result) >= {"added", "removed", "changed", "moved"}


def test_admission_serialises_every_field():
    admission = Admission(Decision.DEMOTED, Gate.BREADTH, "it fires", AdmissionRate(1, 2, 0.5))
    assert Admission.from_json({"decision": "demoted", "gate": "breadth", "reason": "it fires",
                                "rate": {"fired": 1, "total": 2, "share": 0.5}}) == admission
    assert Admission.from_json(None) is None


def test_installing_the_recommended_tool_is_not_using_the_banned_one(tmp_path):
    _, doc = compile_text(tmp_path, "Never use `pip` directly - always use `pipenv install` or `pipenv run`.\n")
    assert fires(doc, *bash("pip install requests"))
    assert fires(doc, *bash("pip install pipenv")) == [] and fires(doc, *bash("pipenv run pip list")) == []



def test_every_phrase_shape_quotes_the_name_in_each_alternative():
    """admission._said skips a sentence without the name in backticks before building the shape's regex."""
    from re import _parser  # type: ignore[attr-defined]

    from policyc.compiler.admission import load_admission

    quoted = [(_parser.LITERAL, ord(c)) for c in "`zq`"]

    def always_quotes(items) -> bool:  # every match of this sequence holds `zq`
        items = list(items)
        return any(items[i : i + 4] == quoted for i in range(len(items))) or any(
            op is _parser.BRANCH and all(map(always_quotes, arg[1])) or op is _parser.SUBPATTERN and always_quotes(arg[-1])
            for op, arg in items)

    for name, shape in load_admission().phrases.items():
        assert always_quotes(_parser.parse(shape.format(value="zq"))), name
    assert not always_quotes(_parser.parse("`zq`|zq"))
