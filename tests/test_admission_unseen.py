"""Admission on lines from rule files no one tuned on (astral-sh/uv, astral-sh/ruff and the audited repositories): an exception only a person can
judge makes an ask, a trigger that also stands in the recommended form is demoted, and a language's tokens scope
the rule to that language's files."""

from __future__ import annotations

import json

import pytest
from policyc.compiler.harness import Evaluator
from policyc.compiler.pipeline import compile_sources
from policyc.compiler.sources import source_from_bytes
from policyc.emitters import guardrules


def _compiled(line: str):
    ir = compile_sources([source_from_bytes("AGENTS.md", (line + "\n").encode())])
    (imp,) = ir.imperatives
    return imp, Evaluator(guardrules.emit(ir)["rules"])


def _decide(evaluator: Evaluator, tool: str, tool_input: dict) -> str:
    return evaluator.evaluate({"tool_name": tool, "tool_input": tool_input}).decision


def test_an_exception_only_a_person_can_judge_asks_instead_of_blocking():
    imp, evaluator = _compiled("- NEVER perform builds with the release profile, unless asked or reproducing performance issues")
    assert imp.action == "ask" and "leaves the exception to a person" in imp.admission.reason
    assert _decide(evaluator, "Bash", {"command": "cargo build --release"}) == "ask"
    assert _decide(evaluator, "Bash", {"command": "cargo build"}) == "allow"


def test_a_trigger_that_also_stands_in_the_recommended_form_is_demoted():
    imp, evaluator = _compiled("- PREFER let chains (`if let` combined with `&&`) over nested `if let` statements")
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "polarity")
    assert _decide(evaluator, "Write", {"file_path": "src/lib.rs", "content": "if let Some(x) = y && z {}"}) == "allow"


def test_language_tokens_scope_the_rule_to_that_languages_files():
    imp, evaluator = _compiled("- AVOID using `panic!`, `unreachable!`, `.unwrap()`, unsafe code, and clippy rule ignores")
    assert imp.scope["file_scope"] == r"\.rs$"
    assert _decide(evaluator, "Write", {"file_path": "crates/uv/src/lib.rs", "content": "let v = x.unwrap();"}) == "block"
    assert _decide(evaluator, "Write", {"file_path": "scripts/build.js", "content": "const v = x.unwrap();"}) == "allow"


def test_typescript_and_python_annotations_scope_the_rule_to_their_files():
    # google-gemini/gemini-cli GEMINI.md: `any` is read as TypeScript's annotation, so prose ("Note: any user") is not it
    imp, evaluator = _compiled("- **Preferring `unknown` over `any`**: When you absolutely cannot determine the type of a value at "
                               "compile time, and you're tempted to reach for any, consider using unknown instead.")
    assert imp.scope["file_scope"] == r"(?:\.ts$|\.tsx$|\.mts$|\.cts$)"
    def warned(path: str, content: str) -> bool:
        return bool(evaluator.evaluate({"tool_name": "Write", "tool_input": {"file_path": path, "content": content}}).warnings)

    assert warned("src/a.ts", "let x: any = 1;") and not warned("docs/a.md", "Note: any user may sign in.")
    imp, evaluator = _compiled("- Never use `Optional` in new code.")
    assert _decide(evaluator, "Write", {"file_path": "app/models.py", "content": "x: Optional[int] = None"}) == "block"
    assert _decide(evaluator, "Write", {"file_path": "docs/types.md", "content": "Use Optional[int] there."}) == "allow"


def test_a_script_of_a_tool_is_not_the_tool_over_its_family():
    # google-gemini/gemini-cli GEMINI.md recommends `npm run preflight`: that says nothing against pnpm
    imp, _ = _compiled("- It is highly recommended to use `npm run preflight`.")
    assert imp.trigger is None
    _, evaluator = _compiled("- Always use `npm run lint`.")
    assert _decide(evaluator, "Bash", {"command": "pnpm install"}) == "allow"
    _, evaluator = _compiled("- Always use `pnpm`.")
    assert _decide(evaluator, "Bash", {"command": "npm install"}) == "block"
    assert _decide(evaluator, "Bash", {"command": "pnpm install"}) == "allow"


def test_a_sentence_about_what_a_reviewer_flags_forbids_no_tool_call():
    # denoland/deno .github/copilot-instructions.md
    imp, _ = _compiled("- Verify handle cleanup (`CloseHandle`) but do not flag the `unsafe` usage itself.")
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "kind")


def test_something_forbidden_in_commands_is_not_a_file_content_rule():
    # vercel/next.js AGENTS.md
    imp, evaluator = _compiled("- Mirror CI env **names and modes** exactly, but do not inline literal secret values in commands.")
    assert "pass1" not in imp.routes  # secrets in commands are no file content: the policy gate reads the sentence
    assert _decide(evaluator, "Write", {"file_path": "app.py", "content": "key = 'AKIAABCDEFGHIJKLMNOP'"}) == "allow"


def test_logging_or_exposing_a_secret_is_behaviour_not_a_literal():
    # thunderbird-android, sentry-javascript (held-out sets 5 and 3): no secret scanner for what code does at run time
    for line in ("- NEVER log credentials, passwords, or authentication tokens",
                 "- Never introduce code that exposes secrets or keys"):
        assert _compiled(line)[0].trigger is None, line


def test_a_star_inside_a_name_stands_for_any_name_characters():
    # microsoft/TypeScript .github/copilot-instructions.md
    imp, evaluator = _compiled("- **Prefer validation over baselines** - Use `verify.currentLineContentIs()` instead of `verify.baseline*()`")
    fired = evaluator.evaluate({"tool_name": "Edit", "tool_input": {"file_path": "tests/a.ts", "new_string": "verify.baselineQuickInfo();"}})
    kept = evaluator.evaluate({"tool_name": "Edit", "tool_input": {"file_path": "tests/a.ts", "new_string": "verify.currentLineContentIs('x');"}})
    assert fired.warnings == [imp.id] and kept.warnings == []


# Lines from two audits of unseen rulebooks (docs: README, Measurements): each was a wrong rule.
AUDITED = [
    # oven-sh/bun CLAUDE.md: `bun <file>` became "bun and anything", blocking the `bun run ...` the file prescribes
    ("Never use `bun test` or `bun <file>` directly - always use `bun bd test` or `bun bd <command>`.", "object"),
    # getsentry/sentry-javascript CLAUDE.md: a write containing `master` was blocked, `git merge` allowed (now read
    # as a place the merge goes into, so nothing is proposed: no-candidate)
    ("- Never merge directly into `master`.", ""),
    # home-assistant/core AGENTS.md: the literal words `conditions/branching` as a code pattern
    ("- Avoid using conditions/branching in tests.", "kind"),
    # JetBrains/kotlin .ai/guidelines.md: a tool name as file content, while calling the tool stayed allowed
    ("**NEVER use `execute_terminal_command` tool.**", "kind"),
]


def test_audited_wrong_rules_are_demoted_with_their_gate():
    for line, gate in AUDITED:
        imp, _ = _compiled(line)
        assert (imp.admission.decision, imp.admission.gate) == ("demoted" if gate else "no-candidate", gate), (line, imp.admission)


def test_invoking_a_binary_is_running_it_not_writing_its_path():
    # oven-sh/bun CLAUDE.md: the audit found a block on writing the binary's path while running it was allowed.
    # A run verb now makes its path the program: running it directly blocks, writing the path does not. (The audit
    # also read "— you never invoke X directly" as a description of `bun bd`; as a rule it forbids the direct run.)
    imp, evaluator = _compiled("- you never invoke `./build/debug/bun-debug` directly")
    assert imp.trigger.kind == "command"
    assert _decide(evaluator, "Bash", {"command": "./build/debug/bun-debug foo.js"}) == "block"
    assert _decide(evaluator, "Bash", {"command": "bun bd foo.js"}) == "allow"
    assert _decide(evaluator, "Write", {"file_path": "build/debug/bun-debug", "content": "x"}) == "allow"


def test_a_placeholder_is_not_a_secret_but_a_secret_is():
    # getsentry/sentry-javascript CLAUDE.md: obvious placeholders in tests were blocked as secrets (the scanner of
    # written content, which hard-coding a secret gives; committing one is staging its file)
    _, evaluator = _compiled("Never hardcode secrets.")
    for placeholder in ('{ token: "test-token-123" }', 'api_key = "YOUR_API_KEY_HERE"'):
        assert _decide(evaluator, "Write", {"file_path": "tests/a.test.ts", "content": placeholder}) == "allow"
    assert _decide(evaluator, "Write", {"file_path": "src/config.py", "content": 'password = "hunter2hunter2"'}) == "block"


def test_the_start_of_a_name_is_not_a_whole_word_trigger():
    # astral-sh/ruff AGENTS.md: `\btest_\b` would never fire on `fn test_parse()`, so it enforces nothing
    imp, _ = _compiled("- Don't prefix tests with `test_`.")
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "object")
    assert "start of a name" in imp.admission.reason


def test_a_keyword_that_structures_ordinary_code_is_not_a_trigger():
    # astral-sh/ruff AGENTS.md: the sentence forbids an arrangement; `\bimpl\b` would ask on every Rust edit
    imp, evaluator = _compiled("- Don't separate struct definitions from their `impl` blocks unless the `impl` is deliberately "
                               "placed in a separate file, as for large structs.")
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "kind")  # 'separate' writes no `impl`
    assert _decide(evaluator, "Write", {"file_path": "src/lib.rs", "content": "impl Parser {}"}) == "allow"
    imp, _ = _compiled("- Don't write `impl` blocks.")  # a writing verb: the breadth gate still judges the word
    assert (imp.admission.gate, "`impl` is a common word in code" in imp.admission.reason) == ("breadth", True)


def test_a_rule_never_stops_a_command_its_own_file_prescribes():
    # oven-sh/bun CLAUDE.md: the ban on `bun test` would block the step the same file calls CRITICAL
    ir = compile_sources([source_from_bytes("CLAUDE.md", (
        b"- Never use `bun test` directly.\n"
        b"- **CRITICAL**: Verify your test fails with `USE_SYSTEM_BUN=1 bun test <file>`.\n"
        b"- Never run `terraform destroy`.\n"
        b"- Run `terraform plan -out plan.bin` before each change.\n"
        b"- We removed `npm publish --tag next` from CI. Never run `npm publish`.\n"))])
    bun, terraform, publish = (i for i in ir.imperatives if i.marker.lower() == "never")
    assert (bun.admission.decision, bun.admission.gate) == ("demoted", "polarity")
    assert bun.admission.reason == ("line 2 of the same file tells the agent to run `USE_SYSTEM_BUN=1 bun test <file>`, "
                                    "which this rule would stop")
    assert terraform.admission.decision == "admitted"  # the file prescribes `terraform plan`, which the rule lets through
    assert publish.admission.decision == "admitted"  # a command named on the line of a prohibition is not prescribed


def test_a_trailer_naming_an_agent_is_narrower_than_every_trailer():
    # microsoft/playwright CLAUDE.md: a human co-author trailer is not what the line forbids
    ir = compile_sources([source_from_bytes("AGENTS.md", b"Never emit either of the following:\n\n"
                                                         b"- A `Co-Authored-By:` trailer naming an agent, model, or tool.\n")])
    [imp] = [i for i in ir.imperatives if "Co-Authored-By" in i.quote]
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "scope")


def test_an_exception_left_to_the_user_later_in_the_paragraph_asks():
    # microsoft/playwright CLAUDE.md
    ir = compile_sources([source_from_bytes("AGENTS.md", b"**Never amend commits.** Always create a new commit for follow-up "
                                                         b"changes. Only amend if the user explicitly says so.\n")])
    [imp] = [i for i in ir.imperatives if "amend commits" in i.quote]
    assert imp.action == "ask" and "leaves the exception to a person" in imp.admission.reason
    evaluator = Evaluator(guardrules.emit(ir)["rules"])
    assert _decide(evaluator, "Bash", {"command": "git commit --amend --no-edit"}) == "ask"


def test_a_modal_inside_a_definition_is_not_a_rule():
    # vercel/next.js AGENTS.md (held-out): "code that should only run …, not during …" defines a variable; the
    # relative clause's "should" is not addressed to the agent, so `next build` gets no rule
    text = ("Use `process.env.__NEXT_DEV_SERVER` to distinguish between them:\n\n"
            "- `process.env.__NEXT_DEV_SERVER` — code that should only run with the dev server (`next dev`), "
            "not during `next build --debug-prerender` or `next start`.\n")
    ir = compile_sources([source_from_bytes("AGENTS.md", text.encode())])
    assert guardrules.emit(ir)["rules"] == []
    assert ir.imperatives == []  # "Use" is no rule word, and the "should" is the definition's


# Findings of the blind held-out set 2 (tests/data/heldout, files 009-016), each a rule that fired where its sentence
# does not forbid, or a rule that could never fire.

def test_names_in_parentheses_are_examples_of_a_class_not_the_ban():
    # langfuse AGENTS.md: the ids are examples of "internal ticket ids", never literal triggers
    text = "- Never put internal ticket ids (`LFE-1234`, `LFINT-1234`, `CLI-Q226-12`) into commits.\n"
    assert guardrules.emit(compile_sources([source_from_bytes("AGENTS.md", text.encode())]))["rules"] == []


def test_what_is_said_or_swapped_is_not_file_content():
    # langfuse: "post `@claude review`" is a message; browser-use: "don't replace `gpt-4o` with `gpt-4`" is a swap
    for line in ("- Do not post `@claude review` again unless a human asks for another pass.",
                 "- **Use real model names** - don't replace `gpt-4o` with `gpt-4` (they are distinct models)"):
        imp, evaluator = _compiled(line)
        assert imp.trigger is None and "pass1" not in imp.routes
        assert _decide(evaluator, "Write", {"file_path": "tests/test_llm.py", "content": 'model = "gpt-4o"  # @claude review'}) == "allow"


def test_a_bare_except_is_the_clause_with_no_exception_named():
    # fastmcp AGENTS.md: "bare `except`" is `except:`; `except Exception:` names a type, and a comment is not code
    imp, evaluator = _compiled("- Never use bare `except` - be specific with exception types")
    assert imp.trigger.label == "prose:bare-except-clause"
    assert _decide(evaluator, "Write", {"file_path": "src/a.py", "content": "try:\n    f()\nexcept:\n    pass\n"}) == "block"
    for content in ("    except Exception:\n", "    except ValueError as e:\n", "# never use a bare except here\n"):
        assert _decide(evaluator, "Write", {"file_path": "src/a.py", "content": content}) == "allow"


def test_a_folder_star_in_prose_is_the_whole_folder():
    # langfuse: "Do not hand-edit generated or build artifacts:" over `generated/*`, `web/.next/*`
    text = "Do not hand-edit generated or build artifacts:\n\n- `generated/*`\n- `web/.next/*`\n"
    evaluator = Evaluator(guardrules.emit(compile_sources([source_from_bytes("AGENTS.md", text.encode())]))["rules"])
    for path in ("generated/python/langfuse/api/client.py", "web/.next/server/pages/index.js"):
        assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": "b"}) == "ask"
    assert _decide(evaluator, "Edit", {"file_path": "web/src/generated.ts", "old_string": "a", "new_string": "b"}) == "allow"


def test_a_prohibition_that_names_its_means_recommends_the_code_under_it():
    # zod AGENTS.md: "Avoid by being explicit on the first push:" introduces the command to use
    text = "Avoid by being explicit on the first push:\n\n```bash\ngit push -u origin <branch>:refs/heads/<branch>\n```\n"
    assert guardrules.emit(compile_sources([source_from_bytes("AGENTS.md", text.encode())]))["rules"] == []


def test_a_placeholder_inside_an_argument_matches_any_value():
    # the same command as a prohibition: `<branch>` inside a refspec must not stay a literal that never fires
    imp, evaluator = _compiled("- Never run `git push -u origin <branch>:refs/heads/<branch>`.")
    assert _decide(evaluator, "Bash", {"command": "git push -u origin feat:refs/heads/feat"}) == "block"
    assert _decide(evaluator, "Bash", {"command": "git push -u origin feat"}) == "allow"


# Findings of the blind held-out set 3 (files 017-024).

def test_a_code_construct_plural_is_not_a_folder():
    # temporalio/temporal: "in subtests" is a place in code; it neither scopes to a `subtests/` folder nor makes
    # "create … used in subtests" a rule on that folder
    imp, _ = _compiled("- Never use `s.T()` in subtests - use the subtest's `t` parameter")
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "scope")
    imp, _ = _compiled("- Don't create testsuite-level helpers that can't be safely used in subtests")
    assert imp.trigger is None


def test_almost_always_is_a_habit_not_a_mandate():
    # temporal: "Prefer X over Y almost always" warns; "always" after "almost" does not make it a block
    imp, _ = _compiled("- Prefer `sync.Mutex` over `sync.RWMutex` almost always")
    assert imp.action == "warn" and imp.marker == "Prefer"


def test_a_claim_is_said_not_written():
    # openai/openai-agents-python
    imp, _ = _compiled("- Do not claim a grant applies to `LocalDir`, `LocalFile`, or archive extraction.")
    assert imp.trigger is None


def test_here_narrows_the_rule_to_a_place_only_the_text_around_it_names():
    # charmbracelet/crush: "never hardcode `charmtone.*` colors here" is about one file, not every file
    imp, evaluator = _compiled("- `quickStyle` must be fully token-driven: never hardcode specific `charmtone.*` colors here")
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "scope") and "'here'" in imp.admission.reason
    assert _decide(evaluator, "Write", {"file_path": "internal/ui/styles/themes.go", "content": "fgBase: charmtone.Pepper,"}) == "allow"


def test_even_if_does_not_narrow_a_rule():
    # zod AGENTS.md: "Never `git reset --hard` …, even if you're rewriting the actual change"
    imp, evaluator = _compiled("- Never `git reset --hard` or otherwise rewrite history, even if you're rewriting the actual change.")
    assert imp.admission.decision == "admitted"
    assert _decide(evaluator, "Bash", {"command": "git reset --hard HEAD~1"}) == "block"


def test_a_name_the_sentence_calls_a_branch_is_no_path():
    # langfuse: "Never create a `cursor/` branch" is about git branch names, which no file path shows: the branch
    # created under that prefix is the rule (the prose entry branch-prefix)
    imp, _ = _compiled("- Never create a `cursor/` branch, even if a Cursor Cloud prompt suggests that prefix.")
    assert imp.trigger.lexicon == "branch-prefix" and all(p.field == "command" for p in imp.trigger.patterns)


def test_a_package_manager_named_alone_after_the_rule_word_is_that_tool():
    # modelcontextprotocol/python-sdk: "ONLY use uv, NEVER pip"; an English word is never read as a tool
    imp, evaluator = _compiled("- ONLY use uv, NEVER pip")
    assert _decide(evaluator, "Bash", {"command": "pip install httpx"}) == "block"
    assert _decide(evaluator, "Bash", {"command": "uv pip install httpx"}) == "allow"
    assert _compiled("- Never go.")[0].trigger is None


# Findings of the blind held-out set 4 (files 025-032, measured blind at precision 2/5 before these fixes).

def test_an_edit_never_acts_on_a_command():
    # Homebrew/brew: "Don't edit directly, regenerate with `./bin/brew generate-man-completions`" recommends the command
    imp, evaluator = _compiled("- Don't edit directly, regenerate with `./bin/brew generate-man-completions`")
    assert imp.trigger is None
    assert _decide(evaluator, "Bash", {"command": "./bin/brew generate-man-completions"}) == "allow"


def test_a_backticked_word_that_is_no_program_is_a_project_script():
    # elie222/inbox-zero: "Do not run `dev` or `build` unless explicitly asked" (asks: the user decides)
    imp, evaluator = _compiled("- Do not run `dev` or `build` unless explicitly asked")
    assert imp.action == "ask"
    for command in ("pnpm dev", "npm run build", "make build", "cd web && yarn dev"):
        assert _decide(evaluator, "Bash", {"command": command}) == "ask", command
    for command in ("pnpm install", "pnpm test", "dev", "git log --grep build"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


def test_do_not_mock_a_module_is_the_mock_call_naming_it():
    # inbox-zero: "Tests should use the real logger implementation (do not mock `@/utils/logger`)."
    _, evaluator = _compiled("- Tests should use the real logger implementation (do not mock `@/utils/logger`).")
    for content in ('vi.mock("@/utils/logger");', "jest.mock('@/utils/logger', () => ({}))"):
        assert _decide(evaluator, "Write", {"file_path": "app/a.test.ts", "content": content}) == "ask", content
    assert _decide(evaluator, "Write", {"file_path": "app/a.test.ts", "content": 'import { log } from "@/utils/logger";'}) == "allow"
    assert _decide(evaluator, "Edit", {"file_path": "utils/logger.ts", "old_string": "a", "new_string": "b"}) == "allow"


def test_a_name_with_a_folder_noun_is_that_folder():
    # oxc-project/oxc: "Avoid editing `generated` subdirectories."; a noun phrase that goes on is no folder
    _, evaluator = _compiled("- Avoid editing `generated` subdirectories.")
    assert _decide(evaluator, "Edit", {"file_path": "crates/oxc_ast/src/generated/visit.rs", "old_string": "a", "new_string": "b"}) == "ask"
    assert _decide(evaluator, "Edit", {"file_path": "crates/oxc_ast/src/generate.rs", "old_string": "a", "new_string": "b"}) == "allow"
    imp, _ = _compiled("- Never use the `config` directory helper.")
    assert imp.trigger is None or imp.trigger.kind != "path"


def test_never_mock_anything_is_every_mock_call():
    # triggerdotdev/trigger.dev: "**Never mock anything** - use testcontainers instead."
    _, evaluator = _compiled("- **Never mock anything** - use testcontainers instead.")
    assert _decide(evaluator, "Write", {"file_path": "a.test.ts", "content": 'vi.mock("./db");'}) == "block"
    assert _decide(evaluator, "Write", {"file_path": "a.test.ts", "content": "const db = await startContainer();"}) == "allow"


def test_pushing_the_commit_is_a_push():
    # ghostty-org/ghostty SKILL.md: "Don't push the commit; leave that to the user."
    _, evaluator = _compiled("- Don't push the commit; leave that to the user.")
    assert _decide(evaluator, "Bash", {"command": "git push origin HEAD"}) == "ask"
    assert _decide(evaluator, "Bash", {"command": "git commit -m x"}) == "allow"


# Findings of the blind held-out set 6 (files 041-050, measured blind at precision 6/15 before these fixes).

def test_a_labelled_value_under_a_prohibition_is_not_forbidden():
    # getsentry/sentry-python: "Regenerate all: `scripts/generate-test-files.sh`" under "Do NOT edit these directly —"
    text = ("Do NOT edit these directly — modify source scripts instead:\n"
            "- `tox.ini` — generated by `scripts/populate_tox/populate_tox.py`\n"
            "- Regenerate all: `scripts/generate-test-files.sh`\n")
    evaluator = Evaluator(guardrules.emit(compile_sources([source_from_bytes("AGENTS.md", text.encode())]))["rules"])
    assert _decide(evaluator, "Edit", {"file_path": "tox.ini", "old_string": "a", "new_string": "b"}) == "block"
    assert _decide(evaluator, "Edit", {"file_path": "scripts/generate-test-files.sh", "old_string": "a", "new_string": "b"}) == "allow"


def test_a_rule_word_inside_a_lead_lines_parenthesis_hands_nothing_to_its_list():
    # openai/openai-agents-js SKILL.md: "(use `origin/main`; never use a feature branch's upstream as the PR base):"
    text = ("- Pull request base reference (use `origin/main`; never use a feature branch's upstream as the PR base):\n"
            "  - `BASE_COMMIT=$(git merge-base \"$BASE_REF\" HEAD)`.\n")
    ir = compile_sources([source_from_bytes("AGENTS.md", text.encode())])
    assert guardrules.emit(ir)["rules"] == []


def test_a_role_phrase_narrows_the_rule():
    # PrefectHQ/prefect integration-tests: `asyncio.sleep()` is forbidden only "as a substitute for `_wait_for()`"
    imp, _ = _compiled("- Don't use fixed `asyncio.sleep()` delays as a substitute for `_wait_for()` — they either wait too long or flake.")
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "scope")


# Findings of the blind held-out set 7 (files 051-060, measured blind at precision 6/12 before these fixes).

def test_as_with_a_subject_is_still_an_explanation():
    _, evaluator = _compiled("- Never run `rm -rf /` as it wipes the machine.")
    assert _decide(evaluator, "Bash", {"command": "rm -rf /"}) == "block"


def test_a_name_among_plain_nouns_stands_for_a_kind_of_thing():
    # openai/openai-agents-python: `finalize` is one of four things not to add, the others plain nouns
    imp, _ = _compiled("- Do not add a repository lock, host-wide mutex, sentinel file, or user-triggered `finalize`.")
    assert imp.trigger is None
    _, evaluator = _compiled("- Never use `eval`, `exec`, or dynamic imports.")  # names outnumber the plain nouns
    assert _decide(evaluator, "Write", {"file_path": "a.py", "content": "eval(x)"}) == "block"


# Findings of the blind held-out set 8 (files 061-070, measured blind at precision 1/3 before these fixes).

def test_import_a_name_from_a_module_is_that_import_only():
    # cloudflare/workers-sdk wrangler AGENTS.md: `expect` from the test context, or from another module, stays allowed
    _, evaluator = _compiled("- Never import `expect` from vitest — use test context `({ expect }) => {}`")
    for content in ('import { describe, expect, it } from "vitest";', "from vitest import expect"):
        assert _decide(evaluator, "Write", {"file_path": "src/a.test.ts", "content": content}) == "block", content
    for content in ('it("lists", async ({ expect }) => {', 'import { expect } from "@playwright/test";',
                    'import { expectTypeOf } from "vitest";'):
        assert _decide(evaluator, "Write", {"file_path": "src/a.test.ts", "content": content}) == "allow", content


def test_a_secret_word_elsewhere_in_the_clause_is_no_secret_rule():
    # openai/openai-python AGENTS.md: "must not approve budget increases (including through a human's credentials)"
    imp, _ = _compiled("Agents may investigate and draft proposals, but must not approve budget increases "
                       "(including through a human's credentials) or bypass the gate.")
    assert imp.trigger is None


def test_committing_a_file_is_staging_or_committing_that_path():
    # cal.com, openai-python, langfuse (held-out sets 2, 7, 8): "Never commit `.env` files" was a content rule on the
    # text ".env", which blocked writing `process.env`
    _, evaluator = _compiled("- Never commit `.env` files.")
    for command in ("git add .env", "git add -f apps/web/.env", 'git commit .env -m "config"'):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    for command in ("git add .env.example", "git add src/env.ts", 'git commit -m "stop tracking .env"'):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command
    assert _decide(evaluator, "Write", {"file_path": "src/a.js", "content": "const key = process.env.KEY;"}) == "allow"


@pytest.mark.parametrize("line, calls", [
    # review findings: a code name with a dot is no file a commit carries
    ("- Never commit `console.log` statements.", [("Bash", {"command": "git add src/console.log"})]),
    # React Native's StyleSheet is no inline style
    ("- Never use inline styles.", [("Write", {"file_path": "App.tsx", "content": "<View style={styles.container}>"})]),
    # a Markdown page that mentions a skip marker is no skipped test
    ("- Never skip tests.", [("Write", {"file_path": "docs/testing.md", "content": "Avoid `it.skip(` in new tests."})]),
])
def test_review_findings_do_not_fire_on_ordinary_work(line, calls):
    _, evaluator = _compiled(line)
    for tool, tool_input in calls:
        assert _decide(evaluator, tool, tool_input) == "allow", (line, tool_input)


def test_import_from_needs_a_module_in_its_own_spelling():
    imp, evaluator = _compiled("- Never import `Button` from `@MyOrg/UI`.")
    assert _decide(evaluator, "Write", {"file_path": "a.tsx", "content": 'import { Button } from "@MyOrg/UI";'}) == "block"
    assert _decide(evaluator, "Write", {"file_path": "a.tsx", "content": 'import { Card } from "@MyOrg/UI";'}) == "allow"
    assert _compiled("- Never import `Button` from a barrel file.")[0].trigger is None  # not every `Button`


def test_import_from_any_of_several_modules():
    # desktop/desktop copilot-instructions (held-out set 19): "from `electron` or `electron/renderer`" names two modules; the
    # second was read as a second name and the rule was lost
    _, evaluator = _compiled("- **Never import `ipcRenderer` directly** from `electron` or `electron/renderer`.")
    for content in ('import { ipcRenderer } from "electron";', "import { ipcRenderer, shell } from 'electron/renderer';"):
        assert _decide(evaluator, "Write", {"file_path": "src/app.ts", "content": content}) == "block", content
    for content in ('import { shell } from "electron";', 'import { ipcRenderer } from "./ipc";'):
        assert _decide(evaluator, "Write", {"file_path": "src/app.ts", "content": content}) == "allow", content
    # the file it recommends instead is the wrapper that must import it
    _, evaluator = _compiled("- **Never import `ipcRenderer` directly** from `electron` - use `import * as ipcRenderer from "
                             "'ipc-renderer'` (app/src/lib/ipc-renderer.ts) for typed IPC methods")
    wrapper = {"content": 'import { ipcRenderer } from "electron";'}
    assert _decide(evaluator, "Write", {"file_path": "app/src/ui/app.tsx", **wrapper}) == "block"
    assert _decide(evaluator, "Write", {"file_path": "app/src/lib/ipc-renderer.ts", **wrapper}) == "allow"


def test_every_program_of_a_list_is_banned():
    # mattermost (held-out set 19): `docker-compose` was read as a name in code, so only `docker` was banned
    _, evaluator = _compiled("- Never use `docker`, `docker-compose`, or `make start-docker`.")
    for command in ("docker-compose up -d", "docker ps", "make start-docker"):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    assert _decide(evaluator, "Bash", {"command": "make test"}) == "allow"
    assert _decide(evaluator, "Write", {"file_path": "README.txt", "content": "run docker-compose up"}) == "allow"


def test_a_label_that_names_the_thing_stays_a_member_of_a_forbidding_list():
    text = "NEVER run these commands:\n- Force push: `git push --force`\n- Regenerate all: `scripts/gen.sh`\n"
    evaluator = Evaluator(guardrules.emit(compile_sources([source_from_bytes("AGENTS.md", text.encode())]))["rules"])
    assert _decide(evaluator, "Bash", {"command": "git push --force"}) == "block"
    assert _decide(evaluator, "Bash", {"command": "scripts/gen.sh"}) == "allow"


# Findings of the blind held-out set 9 (files 071-080, measured blind on the final compiler: precision 7/10).

def test_a_tests_scope_comes_from_a_heading_about_tests_alone():
    # langgenius/dify: "## Testing & Quality Practices" speaks of the source too; the `Any` rule is not test-only
    text = "# AGENTS.md\n\n## Testing & Quality Practices\n\n- Enforce strong typing; avoid `Any` and prefer explicit type annotations.\n"
    (imp,) = compile_sources([source_from_bytes("AGENTS.md", text.encode())]).imperatives
    assert "test" not in imp.trigger.file_scope  # (only the prose files are left out, as for every rule on code)
    titled = "# Backend Tests\n\n## Use factories\n\nNEVER directly call `Model.objects.create`.\n"  # the document's title
    (imp,) = compile_sources([source_from_bytes("AGENTS.md", titled.encode())]).imperatives
    assert imp.trigger.file_scope


# Findings of the blind held-out set 10 (files 081-090, measured blind: precision 3/7, three of the four wrong
# rules right but for their action).

@pytest.mark.parametrize("line", [
    "3. Do not delete or rename files under `docs/images/` as frozen snapshots may reference them.",  # crewAI
    "- Never remove `docs/images/`.",
])
def test_deleting_or_renaming_a_path_is_the_command_that_does_it_not_an_edit_there(line):
    imp, evaluator = _compiled(line)
    assert imp.admission.decision == "admitted" and imp.trigger.kind == "command"
    for command in ("rm docs/images/crew-diagram.png", "git rm docs/images/old-logo.svg", "rm -rf ./docs/images",
                    "git mv docs/images/flows.png docs/images/flows-v2.png", "mv docs/images/a.png /tmp/"):
        assert _decide(evaluator, "Bash", {"command": command}) != "allow", command
    for command in ("cp ~/Downloads/new.png docs/images/new.png", "mv ~/x.png docs/images/x.png", "ls docs/images",
                    "rm docs/edge/en/tmp.mdx", "rm mydocs/images/x", "git commit -m 'rm docs/images/x'"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command
    # adding or editing an image there is ordinary work
    assert _decide(evaluator, "Write", {"file_path": "docs/images/new.png", "content": "x"}) == "allow"


def test_deleting_what_a_glob_names_is_left_to_the_gate_that_reads_the_sentence():
    imp, _ = _compiled("- Never delete files under `docs/v*/`.")
    assert imp.trigger is None and imp.admission.decision != "admitted"


def _rules(text: str) -> list[dict]:
    return guardrules.emit(compile_sources([source_from_bytes("AGENTS.md", text.encode())]))["rules"]


def test_an_edit_that_names_nothing_acts_on_the_path_its_list_item_opens_with():
    # getsentry/sentry-javascript (set 3): "never modify this package" speaks of the item's `packages/types/`
    (rule,) = _rules("- `packages/types/` - Shared type definitions - this is deprecated, never modify this package\n")
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Edit", {"file_path": "packages/types/src/index.ts"}) == "block"
    assert _decide(evaluator, "Edit", {"file_path": "packages/core/src/types.ts"}) == "allow"
    (rule,) = _rules("- `src/gen/api.ts`: generated by `make api`. Don't edit directly, regenerate with `make api`\n")
    assert Evaluator([rule]).evaluate({"tool_name": "Write", "tool_input": {"file_path": "src/gen/api.ts"}}).decision == "ask"


@pytest.mark.parametrize("item", [
    "- `config.ts`: Do not change the defaults.",  # the defaults, not the file
    "- `completions/`: Generated completion files. Don't edit directly.",  # the root's folder; a rule would match every nested one
    "- `pnpm build` — builds everything. Never run it in CI.",  # not an edit
    "- `sqlite/upstream/` - golden tests. Do not modify these for behavior changes.",  # narrowed: Pass 2
])
def test_a_list_item_subject_is_not_read_where_the_words_say_otherwise(item):
    assert _rules(item + "\n") == []


@pytest.mark.parametrize("line, written, allowed", [
    # zed-industries/zed (set 9): a passive's subject is what it forbids, the antecedent of "which" included
    ("- This replaces `AppContext` which no longer exists and should NEVER be used.",
     "fn f(cx: &mut AppContext) {}", "fn f(cx: &mut App) {}"),
    ("- The old types `WindowContext` and `ViewContext<T>` should NEVER be used.",
     "fn render(&mut self, cx: &mut ViewContext<Self>) {}", "fn render(&mut self, cx: &mut Context<Self>) {}"),
    ("- `moment` must not be used.", "import moment from 'moment'", "import dayjs from 'dayjs'"),
])
def test_a_passive_forbids_its_subject(line, written, allowed):
    imp, evaluator = _compiled(line)
    assert imp.admission.decision == "admitted"
    assert _decide(evaluator, "Write", {"file_path": "src/a.rs", "content": written}) != "allow"
    assert _decide(evaluator, "Write", {"file_path": "src/a.rs", "content": allowed}) == "allow"


def test_a_passive_with_a_subject_of_its_own_forbids_only_the_antecedent_of_which():
    (rule,) = _rules("- `HttpClient` replaces `LegacyClient`, which should never be used.\n")
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Write", {"file_path": "a.ts", "content": "LegacyClient()"}) == "ask"  # "should never": ask
    assert _decide(evaluator, "Write", {"file_path": "a.ts", "content": "HttpClient()"}) == "allow"
    assert _rules("- `HttpClient` replaces `LegacyClient` and should never be used.\n") == []  # whose passive: unclear


def test_a_passive_edited_by_hand_is_an_edit_of_its_subject():
    (rule,) = _rules("- `src/generated/` must never be edited by hand.\n")
    assert _decide(Evaluator([rule]), "Edit", {"file_path": "src/generated/api.ts"}) == "block"


# Findings of the blind held-out set 12 (files 102-110, measured blind: precision 7/14).

def test_a_prohibition_without_what_its_list_names_requires_the_list():
    # ktorio/ktor: the checks to run before returning control were four blocks on the commands themselves
    text = ("**NEVER return control to the user without ensuring:**\n"
            "1. Tests pass: `./gradlew :module-name:jvmTest`\n2. Code compiles: `./gradlew :module-name:assemble`\n")
    assert _rules(text) == []


def test_a_fence_after_a_lead_that_names_its_object_is_an_example_of_it():
    # nextcloud/server: the DCO trailer shown after "agents must not add it:" became a literal rule on its placeholder name
    text = ("Only the human contributor may add the `Signed-off-by` trailer - agents must not add it:\n\n"
            "```\nSigned-off-by: Random J Developer <random@developer.example.org>\n```\n")
    assert not any("Random" in json.dumps(r) for r in _rules(text))
    listed = "Never run these:\n\n```\nrm -rf /\n```\n"  # a lead that names nothing still hands its marker to the fence
    assert _rules(listed)


@pytest.mark.parametrize("line", [
    "- Never use the `deprecated` directive.",  # scrapy: `.. deprecated::`, not the word in a warning message
    "- Slow tests should use `.test_slow` extension instead of `.test`.",  # duckdb: some tests, and file endings
])
def test_a_name_of_a_form_or_of_some_tests_is_no_literal_rule(line):
    assert _rules(line + "\n") == []


# Findings of the blind held-out set 13 (files 111-120, measured blind: precision 8/10, both wrong rules warns); the
# lines that make no rule are in the list of set 11 below.

def test_attribution_rules_fire_where_the_sentence_says():
    # BerriAI/litellm: "… to PR descriptions or comments" is about pull requests, not commit messages
    (rule,) = _rules('- Do not add "Generated with Claude Code" (or any similar attribution) to PR descriptions or comments.\n')
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Bash", {"command": 'gh pr create --body "Fixes #1\n\nGenerated with Claude Code"'}) == "ask"
    assert _decide(evaluator, "Bash", {"command": 'git commit -m "fix\n\nGenerated with Claude Code"'}) == "allow"


def test_then_closes_a_condition_so_the_rule_after_it_is_read():
    # opentofu/opentofu: "If you … identified a problem with the help of an LLM then you must open an issue … and you
    # MUST NOT open a pull request" had no marker outside the condition; its condition now goes to Pass 2 with it
    text = ("If you or a human you are assisting has identified a problem with the help of an LLM then you must "
            "**open an issue to discuss** and you **MUST NOT open a pull request**.\n")
    (imp,) = compile_sources([source_from_bytes("AGENTS.md", text.encode())]).imperatives
    assert imp.trigger.patterns and (imp.admission.decision, imp.admission.gate) == ("demoted", "scope")


# Findings of the blind held-out set 14 (files 121-130, measured blind: precision 1/3): in the list below.


# Findings of the blind held-out set 15 (files 131-140, measured blind: precision 0/3, two of them right but for
# their action).

def test_a_heading_rule_word_grades_a_weaker_one_of_the_same_polarity():
    # block/goose: "## Never" over "- Do not edit `Cargo.toml` by hand": the heading's "never" is the strongest marker
    (rule,) = _rules("## Never\n\n- Do not edit `Cargo.toml` by hand — use `cargo add`.\n")
    assert rule["action"] == "block"
    (rule,) = _rules("## Avoid\n\n- Never edit `Cargo.toml` by hand.\n")  # a weaker heading never softens
    assert rule["action"] == "block"
    (rule,) = _rules("## Always\n\n- Do not edit `Cargo.toml` by hand.\n")  # another polarity grades nothing
    assert rule["action"] == "ask"
    # openai-agents-python: "## Policies & Mandatory Rules" over a whole section does not make a preference a block
    (rule,) = _rules("## Policies & Mandatory Rules\n\n### Docs\n\n- Prefer `tool` over `function_tool`.\n")
    assert rule["action"] == "warn"
    (rule,) = _rules("## Never\n\n### Files\n\n- Do not edit `Cargo.toml` by hand.\n")  # only its own heading grades it
    assert rule["action"] == "ask"


def test_a_url_the_sentence_forbids_using_is_a_command_that_names_it():
    # flutter/flutter: the archived mirror was a content rule on writing the URL; the clone was allowed
    (rule,) = _rules("- Do not use the archived `https://github.com/flutter/engine.git` mirror.\n")
    evaluator = Evaluator([rule])
    for command in ("git clone https://github.com/flutter/engine.git", "git remote add engine https://github.com/flutter/engine"):
        assert _decide(evaluator, "Bash", {"command": command}) == "ask", command
    for command in ("git clone https://github.com/flutter/flutter.git", "gclient sync"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


# Findings of the blind held-out set 11 (files 091-100, measured once, blind, on the session's final compiler:
# precision 6/15), read afterwards.

@pytest.mark.parametrize("text", [
    # set 13, maybe-finance/maybe: an example of the rejected side ("something … such as `X`") is not what it rejects
    "We prefer this over something more service-like such as `AccountSeries.new(account).call`.\n",
    # set 13, dotnet/runtime: "multiple duplicative `[Fact]` methods" are some uses of `[Fact]`, judged by the agent
    "When writing tests, prefer using `[Theory]` with multiple data sources (like `[InlineData]`) over multiple duplicative `[Fact]` methods.\n",
    "- Avoid unnecessary `useEffect` calls.\n",
    # set 14, keycloak/keycloak (under "## Required toolchain"): the command after the colon is the recommended wrapper
    "## Required toolchain\n- Use Maven Wrapper, not system Maven: `./mvnw`.\n",
    # set 14, prometheus/prometheus: a label on a change is metadata, not the content of a file
    "- A problem that is only reachable through Go library use is not a bug: do not label the change `[BUGFIX]`.\n",
    # set 6, PrefectHQ/prefect src/prefect/server/AGENTS.md and openai-agents-js's read-only skill
    "- **Auth token comparisons must use `hmac.compare_digest`** — never compare auth tokens with `==` or `!=`.\n",  # operators
    "- Do not refactor this to use the generic `read_configuration()` helper — the cache isolation is the desired behavior.\n",
    "- Do not assume `force=True` skips all orchestration rules.\n",
    "- Never return ORM model fields directly from `api/concurrency_limits_v2.py` — use the helper.\n",  # where from
    "- Never create, modify, rename, or delete a log, rerun list, result file, source file, or PID file.\n",  # some files only
    # set 7, BerriAI/litellm CLAUDE.md, calcom/cal.com AGENTS.md
    '- Never use `pytest` commands or the like as "Screenshots / Proof of Fix".\n',  # a role: "as …" after the object
    "- Put permission checks in `page.tsx`, never in `layout.tsx`\n",  # where something goes
    # set 9, immich-app/immich (which ones is a judgement) and zed-industries/zed (a shape)
    "- Keep noise low: Don’t add unrelated dependencies, files, or formatting changes.\n",
    "- Example: avoid `let _ = client.request(...).await?;` - use `client.request(...).await?;` instead\n",
    # set 16, googleapis/genai-toolbox: a rule word inside an example parenthesis is part of the example
    "- Do *not* include the product name (e.g., avoid `firestore_list_collections`).\n",
    # set 11, pulumi/pulumi, mem0ai/mem0: under a "## Forbidden actions" / "## Do NOT" heading, an item's later sentence explains it
    "## Forbidden actions\n\n- Do not edit other generated files by hand. Some tests use golden files updated with `PULUMI_ACCEPT=1`.\n",
    "## Do NOT\n\n- Mix up linter configs. Root Python is ruff at line length **120**, `cli/python/` is ruff at **100**.\n",
    # yamadashy/repomix: "is always better than" describes
    "**A clean conventional commit subject with no action lines is always better than fabricated context.**\n",
    # trpc/trpc: "though `any` is allowed"
    "- Prefer explicit typing over `any` (though `any` is allowed when needed)\n",
])
def test_unseen_lines_that_make_no_rule(text):
    assert _rules(text) == []


def test_importing_from_a_module_glob_is_any_import_from_below_it():
    # trpc/trpc: "**NEVER** import from `@trpc/*/src`" was an import of no name from the module "@trpc/"
    (rule,) = _rules("- **NEVER** import from `@trpc/*/src` - remove the `/src` part\n")
    evaluator = Evaluator([rule])
    for code in ("import { TRPCError } from '@trpc/server/src';", "import { httpLink } from '@trpc/client/src/links/httpLink';"):
        assert _decide(evaluator, "Write", {"file_path": "a.ts", "content": code}) == "block", code
    assert _decide(evaluator, "Write", {"file_path": "a.ts", "content": "import { TRPCError } from '@trpc/server';"}) == "allow"


def test_examples_feed_no_prose_entry_and_import_from_lists_modules():
    # vitest-dev/vitest (set 11): "unix-only commands like `rm -rf` … in package.json scripts" is no ban on deleting files
    assert _rules("- Never use unix-only commands like `rm -rf` or `cp -r` in package.json scripts; use a node script.\n") == []
    # "Source in `packages/*/src` must not import from `vitest` or `vitest/node`": both are modules, in those folders
    (rule,) = _rules("- Source in `packages/*/src` must not import from `vitest` or `vitest/node`, even type-only.\n")
    evaluator = Evaluator([rule])
    for code in ("import type { TestProject } from 'vitest/node'", "import { expect } from 'vitest'"):
        assert _decide(evaluator, "Write", {"file_path": "packages/vitest/src/a.ts", "content": code}) == "block", code
    assert _decide(evaluator, "Write", {"file_path": "packages/vitest/test/a.test.ts", "content": "import { expect } from 'vitest'"}) == "allow"
    assert _decide(evaluator, "Write", {"file_path": "packages/vitest/src/a.ts", "content": "import { x } from '@vitest/utils'"}) == "allow"


def test_list_items_take_the_verb_of_their_lead_line():
    # dotnet/maui (set 17, blind): the items of "must NOT be committed:" were edit bans on the files
    text = ("These files are auto-generated and must NOT be committed:\n"
            "- `cgmanifest.json` - Generated during CI builds\n- `templatestrings.json` - Auto-generated localization\n")
    evaluator = Evaluator(_rules(text))
    assert _decide(evaluator, "Bash", {"command": "git add src/cgmanifest.json"}) == "block"
    assert _decide(evaluator, "Bash", {"command": "git add eng/templatestrings.json"}) == "block"
    assert _decide(evaluator, "Bash", {"command": "git checkout -- cgmanifest.json"}) == "allow"
    assert _decide(evaluator, "Edit", {"file_path": "cgmanifest.json", "new_string": "{}"}) == "allow"
    # a lead that runs its items
    evaluator = Evaluator(_rules("Never run these commands:\n- `make clean-all`\n"))
    assert _decide(evaluator, "Bash", {"command": "make clean-all"}) == "block"


def test_where_a_placing_verb_puts_its_object_is_not_forbidden_itself():
    # novuhq/novu (set 17, blind): the rule fired on any edit naming `minimumReleaseAgeExclude`
    (imp, _) = _compiled("Never add `follow-redirects` to `minimumReleaseAgeExclude` in `pnpm-workspace.yaml`.")
    assert [o.text for o in imp.clause.objects] == ["follow-redirects"]
    assert imp.admission.decision == "demoted" and "to minimumReleaseAgeExclude" in imp.admission.reason
    # a file or folder it goes to is the rule's file scope
    (rule,) = _rules("Never add `console.log` to `src/`.\n")
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Write", {"file_path": "src/a.ts", "content": "console.log(1)"}) == "block"
    assert _decide(evaluator, "Write", {"file_path": "scripts/a.ts", "content": "console.log(1)"}) == "allow"
    # "related to `X`" is no place: codex's ban on code about the sandbox variables stays
    assert _rules("Never add or modify any code related to `CODEX_SANDBOX_ENV_VAR`.\n")


def test_names_in_a_relative_clause_after_a_plain_noun_describe_it():
    # huggingface/diffusers (set 17, blind): "avoid helper functions that hide `nn.Module` calls" banned `nn.Module(`
    assert _rules("All layer calls should be visible directly in `forward` — avoid helper functions that hide `nn.Module` calls.\n") == []
    assert _rules("Never edit files that `make gen` writes.\n") == []
    assert _rules("Do not use `foo` that is deprecated.\n")  # a name before the pronoun is still the object


def test_file_endings_in_a_parenthesis_after_files_name_those_files():
    # apache/spark (set 17, blind): "the generated golden files (`.sql.out`)" are the files the edit ban is about
    (rule,) = _rules("DO NOT edit the generated golden files (`.sql.out`) directly.\n")
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Edit", {"file_path": "sql/core/src/test/resources/sql-tests/results/join.sql.out"}) == "block"
    assert _decide(evaluator, "Edit", {"file_path": "sql/core/src/test/resources/sql-tests/inputs/join.sql"}) == "allow"
    # other names in a parenthesis stay examples: ticket ids are no literal ban
    assert _rules("Never put internal ticket ids (`LFE-1234`, `LFINT-1234`) in commits.\n") == []


def test_mise_is_a_program():
    # oven-sh/bun (set 17, blind): "use `mise install`" was file content
    (imp, _) = _compiled("**DO NOT use `mise install` for lld** — it is not a standalone mise tool.")
    assert imp.trigger.kind == "command" and imp.admission.gate == "scope"


def test_that_file_is_the_last_path_named_before_the_rule_word():
    # vitest-dev/vitest (set 11): "… commit the regenerated `docs/guide/cli-generated.md`; never edit that file by hand"
    (rule,) = _rules("- After any change to CLI options, run `pnpm -C docs run cli-table` and commit the regenerated "
                     "`docs/guide/cli-generated.md`; never edit that file by hand\n")
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Edit", {"file_path": "docs/guide/cli-generated.md"}) == "block"
    assert _decide(evaluator, "Edit", {"file_path": "docs/guide/cli.md"}) == "allow"
    assert _decide(evaluator, "Bash", {"command": "pnpm -C docs run cli-table"}) == "allow"
    assert _rules("Never edit it by hand.\n") == []  # nothing named before: nothing to point at


def test_a_module_s_main_entry_point_is_the_module_alone():
    # vitest-dev/vitest (set 11): "Never import from `@vitest/utils` main entry point directly" blocked its subpaths
    (rule,) = _rules("- Never import from `@vitest/utils` main entry point directly.\n")
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Write", {"file_path": "a.ts", "content": "import { isObject } from '@vitest/utils'\n"}) == "block"
    assert _decide(evaluator, "Write", {"file_path": "a.ts", "content": "import { isObject } from '@vitest/utils/helpers'\n"}) == "allow"


def test_to_prevent_says_why_and_narrows_nothing():
    # ai (set 11): "in production code to prevent security risks" was one qualifier no scope could read
    (rule,) = _rules("- Never use `JSON.parse` directly in production code to prevent security risks.\n")
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Write", {"file_path": "packages/ai/src/parse.ts", "content": "JSON.parse(text)"}) == "block"
    assert _decide(evaluator, "Write", {"file_path": "packages/ai/src/parse.test.ts", "content": "JSON.parse(text)"}) == "allow"
    # a purpose that says what for still narrows a content rule
    (imp, _) = _compiled("Do not use `#[serde(default)]` to model optional collections.")
    assert imp.admission.decision == "demoted" and "to model optional collections" in imp.admission.reason


def test_a_cross_before_a_forbidding_rule_word_marks_a_prohibition_not_a_bad_example():
    # duckduckgo/apple-browsers (set 13): "- ❌ NEVER use `.shared` singletons" was skipped as a bad example
    (rule,) = _rules("## Critical Don'ts\n- ❌ NEVER use `.shared` singletons - use dependency injection instead\n")
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Edit", {"file_path": "a.swift", "new_string": "let m = LocalBookmarkManager.shared\n"}) == "block"
    # a cross before code is still a bad example
    assert _rules("Never call `fetch` in render:\n\n- ❌ `useEffect(() => fetch(url))`\n- ✅ `useQuery(url)`\n") == []
    assert [r["source"]["lines"] for r in _rules("Never call `fetch` in components:\n\n- Good: `useQuery(url)`\n")] == [[1, 1]]


@pytest.mark.parametrize("sentence", [
    "Never stage `.env`.", "Never read `.env`.", "Never cat `.env`.", "Do not ignore `dist/`.",
    "Never search `node_modules/`.", "Never link to `docs/internal.md`.",
])
def test_a_path_rule_needs_a_verb_that_changes_the_file(sentence):
    # "Never read `.env`" became a block on every edit of `.env`: reading is not what a path rule watches
    imp, evaluator = _compiled(sentence)
    assert imp.admission.decision == "demoted" and "does not change a file" in imp.admission.reason
    assert _rules(sentence + "\n") == []


@pytest.mark.parametrize("sentence", [
    "Never edit `dist/`.", "Never directly modify `dist/`.", "`dist/` must not be modified.",
    "Never hand-edit `dist/**`.", "NEVER touch `dist/`",
])
def test_edit_verbs_keep_their_path_rule(sentence):
    (rule,) = _rules(sentence + "\n")
    assert _decide(Evaluator([rule]), "Write", {"file_path": "dist/a.js", "content": "x"}) in ("block", "ask")


def test_a_verb_before_the_rule_word_acts_on_the_path_after_it():
    # langfuse/langfuse (set 2): the word after "never" is "in"; the verb is "Write"
    (rule,) = _rules("**Write agent guidance only in `AGENTS.md`, never in a `CLAUDE.md`.\n")
    assert _decide(Evaluator([rule]), "Write", {"file_path": "CLAUDE.md", "content": "x"}) == "block"


@pytest.mark.parametrize(("sentence", "name"), [
    ("Never expose `API_KEY`.", "API_KEY"), ("Never rename `handleClick`.", "handleClick"),
    ("Never change `DEFAULT_TIMEOUT`.", "DEFAULT_TIMEOUT"), ("Never print `token` values.", "token"),
])
def test_acting_on_a_name_without_writing_it_gives_no_content_rule(sentence, name):
    # a rule on the text `handleClick` would stop every edit that calls it, the ones the sentence wants included
    imp, _ = _compiled(sentence)
    assert imp.admission.decision == "demoted" and "without writing it" in imp.admission.reason
    assert _rules(sentence + "\n") == []
    (kept,) = _rules("Never call `eval`.\n")  # a writing verb keeps its rule
    assert _decide(Evaluator([kept]), "Write", {"file_path": "a.js", "content": "eval(code)"}) == "block"


@pytest.mark.parametrize("sentence", [
    "Don't forget to run `npm test`.", "Never forget to run `npm test`.", "Don't hesitate to run `npm test`.",
    "Do not neglect to run `npm test`.", "Don't ever forget to run `npm test`.", "Never fail to run `npm test`.",
    "You don't need to run `npm test`.", "You must not skip `npm test`.", "Do not skip running `npm test`.",
])
def test_a_double_negative_never_bans_what_it_asks_for(sentence):
    # "Don't forget to run `npm test`" asked before every `npm test`: the opposite of what it says
    assert _rules(sentence + "\n") == []
    assert _decide(Evaluator(_rules(sentence + "\n")), "Bash", {"command": "npm test"}) == "allow"


def test_a_double_negative_reads_as_the_positive_rule_of_its_strength():
    from policyc.compiler.clauses import find_markers, split_sentences
    (sentence,) = split_sentences("Never forget to run `npm test`.")
    assert [m.marker_class for m in find_markers(sentence)] == ["block-positive"]
    (sentence,) = split_sentences("Don't forget to run `npm test`.")
    assert [m.marker_class for m in find_markers(sentence)] == ["advisory"]
    (rule,) = _rules("Never skip pre-commit hooks.\n")  # skipping hooks is still banned: `--no-verify`
    assert _decide(Evaluator([rule]), "Bash", {"command": "git commit --no-verify -m x"}) == "block"


def test_a_dont_label_with_code_alone_is_the_bad_half_of_an_example_pair():
    # hashicorp/vault (set 18): every "* **DON'T:**" example and each line of its fenced block was a block rule,
    # `{{else}}` and `/>` among them
    text = ("**Instruction:** Avoid using `z-index`.\n\n* **DON'T:**\n    ```css\n    .modal {\n      z-index: 10;\n"
            "    }\n    ```\n* **DO:** `<div class=\"stacked\">`\n* **DON'T:** `selected=\"true\"`\n")
    rules = _rules(text)
    assert [r["source"]["lines"] for r in rules] == [[1, 1]]
    assert _decide(Evaluator(rules), "Edit", {"file_path": "a.scss", "new_string": ".modal { z-index: 10; }"}) == "ask"
    # a lead with words of its own still hands its fenced list its ban
    fenced = _rules("Do not perform destructive operations such as:\n\n```text\ngit reset --hard\n```\n")
    assert _decide(Evaluator(fenced), "Bash", {"command": "git reset --hard"}) == "ask"


def test_a_label_before_the_rule_word_narrows_nothing():
    (rule,) = _rules("**Instruction:** Avoid using `console.error`.\n")
    assert _decide(Evaluator([rule]), "Edit", {"file_path": "a.js", "new_string": "console.error(e)"}) == "ask"
    imp, _ = _compiled("**Testing:** Avoid using `console.error`.")  # a topic still narrows
    assert imp.admission.decision == "demoted"


@pytest.mark.parametrize("sentence", [
    "NEVER add `core-data` dependencies or direct REST API calls to it.",
    "Do not add dependencies to the root `package.json`.",
])
def test_a_named_package_or_destination_narrows_a_ban_on_installing(sentence):
    # WordPress/gutenberg (set 18): both stopped every `npm install x` in the monorepo
    imp, _ = _compiled(sentence)
    assert imp.admission.decision == "demoted" and imp.admission.gate == "scope"
    (rule,) = _rules("Do not install new dependencies.\n")
    assert _decide(Evaluator([rule]), "Bash", {"command": "npm install left-pad"}) == "ask"


def test_a_template_helper_matches_with_its_arguments():
    (rule,) = _rules("Avoid using the `{{concat}}` helper.\n")
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Edit", {"file_path": "a.hbs", "new_string": '<L @secret={{concat "role/" @model.id}} />'}) == "ask"
    assert _decide(evaluator, "Edit", {"file_path": "a.hbs", "new_string": "{{concatenate a}}"}) == "allow"


def test_a_rust_attribute_matches_as_an_inner_attribute_too():
    # held-out set 19: "NEVER use `#[allow(unused)]`" did not fire on a module's `#![allow(unused)]`
    (rule,) = _rules("NEVER use `#[allow(unused)]`.\n")
    evaluator = Evaluator([rule])
    for text in ("#[allow(unused)]\nfn f() {}", "#![allow(unused)]\n"):
        assert _decide(evaluator, "Write", {"file_path": "src/lib.rs", "content": text}) == "block", text
    assert _decide(evaluator, "Write", {"file_path": "src/lib.rs", "content": "#[allow(unused_imports)]"}) == "allow"


def test_a_code_span_in_parentheses_after_words_names_what_they_say():
    # vercel/next.js (held-out set 1): the parenthesis gives the command of "mark PRs as ready for review", and "let the
    # user decide when to mark them ready" is a question the user answers, not a condition that narrows the ban
    imp, evaluator = _compiled('- Do NOT mark PRs as "ready for review" (`gh pr ready`) - leave PRs in draft mode and let '
                               "the user decide when to mark them ready")
    assert imp.admission.decision == "admitted"
    assert _decide(evaluator, "Bash", {"command": "gh pr ready 123"}) == "block"
    assert _decide(evaluator, "Bash", {"command": "gh pr view 123"}) == "allow"
    # an example list in parentheses is still an aside
    imp, _ = _compiled("- Never call application code (models, `SiteSetting`, etc.) in migrations.")
    assert imp.admission.decision != "admitted"


@pytest.mark.parametrize("line, path", [
    ("- Never change NuGet.config files.", "src/NuGet.config"),  # dotnet/aspnetcore (held-out set 7)
    ("- Never edit go.sum by hand.", "go.sum"),
    ("- Don't touch Directory.Build.props.", "Directory.Build.props"),
])
def test_a_bare_file_name_with_a_build_file_extension_is_a_path(line, path):
    imp, evaluator = _compiled(line)
    assert imp.admission.decision == "admitted"
    assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": "b"}) != "allow"
    assert _decide(evaluator, "Edit", {"file_path": "src/app.config.ts", "old_string": "a", "new_string": "b"}) == "allow"


def test_a_word_before_a_name_that_says_which_uses_narrows_the_ban():
    # web-infra-dev/rspack AGENTS.md (an audit): tests in a dedicated test crate stay allowed, so a rule on every
    # `#[test]` would stop them
    imp, _ = _compiled("- Only add Rust test cases when they belong in a dedicated test crate; do not add inline `#[test]` "
                       "functions or crate-local unit tests.")
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "scope")
    assert "inline" in imp.admission.reason


def test_a_bare_name_is_banned_when_the_sentence_recommends_a_member_of_that_name():
    # trpc/trpc (held-out set 11): `waitFor` also matched the `vi.waitFor` it recommends, so it made no rule
    imp, evaluator = _compiled("- **NEVER** use `waitFor` from Testing Library - use `vi.waitFor` instead")
    assert imp.admission.decision == "admitted"
    path = "packages/tests/useQuery.test.tsx"
    assert _decide(evaluator, "Write", {"file_path": path, "content": "import { render, waitFor } from '@testing-library/react';"}) == "block"
    assert _decide(evaluator, "Write", {"file_path": path, "content": "await vi.waitFor(() => expect(x).toBe(1));"}) == "allow"


@pytest.mark.parametrize("line, blocked, allowed", [
    # a program written without backticks keeps its subcommand and options (red-team findings: "never run prisma
    # migrate reset" banned every `prisma` command)
    ("- Never run prisma migrate reset.", "npx prisma migrate reset --force", "npx prisma generate"),
    ("- Never run npm publish.", "npm publish --tag next", "npm install"),
    ("- Don't run docker-compose down -v", "docker-compose down -v", "docker-compose up -d"),
    ("- Never run uv pip install.", "uv pip install requests", "uv sync"),
])
def test_a_bare_command_keeps_its_subcommand(line, blocked, allowed):
    _, evaluator = _compiled(line)
    assert _decide(evaluator, "Bash", {"command": blocked}) != "allow"
    assert _decide(evaluator, "Bash", {"command": allowed}) == "allow"


@pytest.mark.parametrize("line", [
    "- Never launch jupyter with a public IP.",  # more words narrow the bare program: Pass 2 reads them
    "- Never call prisma directly from React components; use the repository layer.",
    "- Never run ansible against production.",
    "- Never create new top-level folders (`mkdir`).",  # after plain words, a code span in parentheses is an aside
    "- Do not download files at runtime (`wget`).",
    "- Never add new package sources to NuGet.config.",  # a package source is no package installed
    "- Never delete that file with a force-push.",  # caddy (held-out set 21): the force push is the means, not the ban
])
def test_a_narrowed_bare_program_or_an_aside_makes_no_rule(line):
    assert _rules(line + "\n") == []


def test_a_label_naming_where_attribution_goes_is_what_the_entry_reads():
    # vectordotdev/vector (held-out set 21): "**Commit messages:**" was read as a narrowing qualifier
    imp, evaluator = _compiled('- **Commit messages:** Do NOT include co-authoring information from coding agents (i.e. avoid '
                               '"Co-Authored-By: Claude" attribution)')
    assert imp.admission.decision == "admitted"
    assert _decide(evaluator, "Bash", {"command": 'git commit -m "fix: x\n\nCo-Authored-By: Claude <noreply@anthropic.com>"'}) != "allow"
    assert _decide(evaluator, "Bash", {"command": 'git commit -m "fix: x"'}) == "allow"
    # a person's co-author line stays allowed: the sentence is about agents'
    assert _decide(evaluator, "Bash", {"command": 'git commit -m "fix: x" -m "Co-authored-by: Jane Doe <jane@example.com>"'}) == "allow"


def test_replying_to_an_issue_is_the_issue_comment_command():
    # caddyserver/caddy (held-out set 21)
    _, evaluator = _compiled("- Never reply to an issue.")
    assert _decide(evaluator, "Bash", {"command": "gh issue comment 123 --body 'done'"}) == "block"
    assert _decide(evaluator, "Bash", {"command": "gh issue view 123"}) == "allow"


def test_a_file_ending_before_files_names_them_and_only_an_items_first_sentence_inherits():
    # dotnet/sdk (held-out set 22): "`.xlf` localization files" was the file named ".xlf", and the item's next
    # sentence, what to do instead, was a ban on `.resx`
    text = ("Never manually edit:\n\n- **`.xlf` localization files.** Change the source `.resx` strings instead, then "
            "regenerate the `.xlf`.\n")
    (rule,) = _rules(text)
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Edit", {"file_path": "src/Cli/xlf/CliStrings.de.xlf", "old_string": "a", "new_string": "b"}) == "block"
    assert _decide(evaluator, "Edit", {"file_path": "src/Cli/CliStrings.resx", "old_string": "a", "new_string": "b"}) == "allow"


def test_items_under_an_edit_lead_name_their_files_by_place_or_glob():
    # dotnet/sdk (held-out set 22): a folder after "under", and a glob in parentheses after "files"
    text = ("Never manually edit:\n\n- **Generated man pages** under `documentation/manpages/sdk`.\n"
            "- **Generated workflow lock files** (`.github/workflows/*.lock.yml`).\n")
    evaluator = Evaluator(_rules(text))
    edit = {"old_string": "a", "new_string": "b"}
    for path in ("documentation/manpages/sdk/dotnet-build.1", ".github/workflows/ci.lock.yml"):
        assert _decide(evaluator, "Edit", {"file_path": path, **edit}) == "block", path
    for path in ("documentation/manpages/README.md", ".github/workflows/ci.yml"):
        assert _decide(evaluator, "Edit", {"file_path": path, **edit}) == "allow", path


def test_a_banned_call_is_also_banned_as_an_import():
    # microsoft/fluentui (held-out set 21): "DO NOT use `initializeIcons()`" fired on the call, not on its import
    (rule,) = _rules("**DO NOT use `initializeIcons()`.**\n")
    evaluator = Evaluator([rule])
    for code in ("import { initializeIcons } from '@fluentui/font-icons-mdl2';", "initializeIcons();"):
        assert _decide(evaluator, "Write", {"file_path": "src/index.ts", "content": code}) == "block", code
    assert _decide(evaluator, "Write", {"file_path": "src/index.ts", "content": "import { initializeIconsV2 } from 'x';"}) == "allow"


def test_a_bare_folder_beside_a_dot_folder_path_is_not_inside_that_dot_folder():
    # triggerdotdev/trigger.dev (held-out set 3): `rules/` also stopped edits of `.claude/rules/`
    _, evaluator = _compiled("- Do NOT update `rules/` or `.claude/skills/trigger-dev-tasks/` unless explicitly asked.")
    edit = {"old_string": "a", "new_string": "b"}
    for path in ("rules/4.0.0/basic.md", "/home/u/repo/rules/a.md", ".claude/skills/trigger-dev-tasks/SKILL.md"):
        assert _decide(evaluator, "Edit", {"file_path": path, **edit}) != "allow", path
    assert _decide(evaluator, "Edit", {"file_path": ".claude/rules/package-installation.md", **edit}) == "allow"


def test_a_pointer_takes_the_paths_of_the_sentence_before():
    # anthropics/anthropic-sdk-python (an audit): "these" are the two folders the sentence before names
    (rule,) = _rules("1. **Generated Code**: Most code in `resources/` and `types/` is auto-generated from OpenAPI spec. "
                     "Avoid modifying these directly.\n")
    evaluator = Evaluator([rule])
    edit = {"old_string": "a", "new_string": "b"}
    for path in ("src/anthropic/resources/messages.py", "src/anthropic/types/message.py"):
        assert _decide(evaluator, "Edit", {"file_path": path, **edit}) == "ask", path
    assert _decide(evaluator, "Edit", {"file_path": "src/anthropic/_client.py", **edit}) == "allow"
    # of two paths before, "that file" may be either: no rule (huggingface_hub, held-out set 10)
    assert _rules("`make style` regenerates `docs/cli.md` via `utils/gen_cli.py`. Don't edit that file by hand.\n") == []


def test_always_prefer_is_a_preference():
    # python/cpython (held-out set 22): "ALWAYS prefer using `rg` rather than `find` or `grep`" was a block
    imp, _ = _compiled("- ALWAYS prefer using `rg` rather than `find` or `grep`.")
    assert imp.action == "warn"


def test_a_name_called_a_prefix_is_no_whole_word_trigger():
    # gutenberg (set 18): a whole-word `__experimental` never fired on `__experimentalGetBlockTools`
    imp, _ = _compiled("Avoid adding new APIs prefixed with `__experimental` or `__unstable`.")
    assert imp.admission.decision == "demoted" and imp.admission.gate == "object"


@pytest.mark.parametrize("sentence", [
    "Never write to any directory other than `tmp/`.", "Never modify files other than those in `src/`.",
    "Never run commands other than `npm test`.", "Do not use any package manager besides `pnpm`.",
    "Never run `make`, `make test` is fine.",
])
def test_a_name_after_other_than_is_what_the_sentence_allows(sentence):
    # "other than `tmp/`" became a block on writing to tmp/: the one place the sentence allows
    imp, _ = _compiled(sentence)
    assert imp.admission.decision == "demoted" and "names what the sentence allows" in imp.admission.reason
    # an exception that only says where the name is allowed leaves the rule on it
    (rule,) = _rules("- **Avoid type casting with `as`** - use type guards or type predicates instead (except in test code "
                     "where `as` is acceptable)\n")
    assert _decide(Evaluator([rule]), "Edit", {"file_path": "src/a.ts", "new_string": "const x = y as Foo;"}) == "ask"


def test_a_slashed_name_imported_from_a_word_is_a_module_from_a_place():
    # kubernetes (set 18): "from staging" is the staging/ tree, not a module; the rule could never fire
    imp, _ = _compiled("Never import `k8s.io/kubernetes` from staging.")
    assert imp.admission.decision == "no-candidate"


def test_crucial_to_avoid_is_an_instruction_not_a_purpose():
    # google-gemini/gemini-cli (set 1): "it's crucial to avoid the `any` type" read as "to avoid", a purpose
    (rule,) = _rules("It's crucial to avoid the `any` type.\n")
    assert _decide(Evaluator([rule]), "Edit", {"file_path": "a.ts", "new_string": "let x: any = 1;"}) == "ask"
    assert _rules("Wrap the call in a helper to avoid `any` casts.\n") == []


def test_an_item_that_opens_with_its_purpose_names_a_means_not_a_forbidden_thing():
    # "2. To regenerate, run `make gen`." under "## Forbidden" blocked `make gen`
    rules = _rules("## Forbidden\n\n1. Running `rm -rf /` from scripts.\n2. To regenerate, run `make gen`.\n")
    assert _decide(Evaluator(rules), "Bash", {"command": "make gen"}) == "allow"
    (rule,) = _rules("## Forbidden\n\n- To be run by hand: `make deploy`\n")  # no comma: the item is the thing
    assert _decide(Evaluator([rule]), "Bash", {"command": "make deploy"}) == "block"


def test_a_named_file_among_concepts_is_still_what_a_commit_must_not_carry():
    # mem0ai/mem0, calcom/cal.com, openai/openai-python (sets 7, 11): "Commit `.env` files, API keys, or credentials"
    (rule,) = _rules("Never commit `.env` files, API keys, or credentials.\n")
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Bash", {"command": "git add .env"}) == "block"
    assert _decide(evaluator, "Bash", {"command": "git add .env.example"}) == "allow"
    (staged,) = _rules("Never commit secrets, API keys, or credentials.\n")  # no file named: the files secrets live in
    assert staged["tool_match"] == ["Bash"]
    (scanner,) = _rules("Never hardcode secrets, API keys, or credentials.\n")  # written into code: the secret scanner
    assert scanner["tool_match"] == ["Write", "Edit", "MultiEdit", "NotebookEdit"]


def test_a_rule_on_code_never_fires_in_the_prose_files_that_talk_about_it():
    # "Never use `console.log`" blocked adding that very line to AGENTS.md, and "never use `moment`" blocked
    # "just a moment" in a README
    rules = _rules("Never use `console.log`.\n\nNever use `moment`; use `date-fns`.\n")
    evaluator = Evaluator(rules)
    assert _decide(evaluator, "Write", {"file_path": "src/a.ts", "content": "console.log(x)"}) == "block"
    assert _decide(evaluator, "Write", {"file_path": "AGENTS.md", "content": "Never use console.log."}) == "allow"
    assert _decide(evaluator, "Edit", {"file_path": "README.md", "new_string": "just a moment"}) == "allow"
    assert _decide(evaluator, "Edit", {"file_path": "docs/guide.mdx", "new_string": "console.log(x)"}) == "allow"
    # a sentence that names the files keeps them
    (docs,) = _rules("Never use `TODO` in `docs/**/*.md`.\n")
    assert _decide(Evaluator([docs]), "Edit", {"file_path": "docs/a.md", "new_string": "TODO: fix"}) == "block"


@pytest.mark.parametrize(("sentence", "command"), [
    ("Never push before `npm test` passes.", "npm test"),
    ("Never commit code that doesn't pass `eslint`.", "npx eslint ."),
    ("Never commit before running `make lint`.", "make lint"),
    ("Never run `git push` before running `npm test`.", "npm test"),
    ("Don't open a PR until `npm run typecheck` is clean.", "npm run typecheck"),
    ("Don't run `npm install` again after `pnpm install`.", "pnpm install"),
])
def test_what_must_come_first_is_never_the_banned_command(sentence, command):
    # red-team review: each blocked the very step the sentence asks for first
    assert _decide(Evaluator(_rules(sentence + "\n")), "Bash", {"command": command}) == "allow"


@pytest.mark.parametrize(("sentence", "command"), [
    ("Never prompt the user before running `npm run lint`.", "npm run lint"),
    ("Don't ask before running `git status`.", "git status"),
    ("Don't request confirmation to run `make lint`.", "make lint"),
    ("Don't shy away from running `npm test` often.", "npm test"),
    ("You do not have to run `make clean` first.", "make clean"),
    ("Don't worry about running `npm run lint`; CI does it.", "npm run lint"),
])
def test_not_asking_first_encourages_the_command(sentence, command):
    assert _decide(Evaluator(_rules(sentence + "\n")), "Bash", {"command": command}) == "allow"


@pytest.mark.parametrize(("sentence", "tool", "tool_input"), [
    ("Don't amend the description of the PR.", "Bash", {"command": "git commit --amend"}),
    ("Don't squash unrelated fixes into one function.", "Bash", {"command": "git merge --squash feat"}),
    ("Never add comments to library code.", "Bash", {"command": "npm install left-pad"}),
    ("Do not add cyclic dependencies between packages.", "Bash", {"command": "pip install requests"}),
    ("Don't drop support for older databases.", "Bash", {"command": "psql -c 'DROP TABLE t'"}),
    ("Never delete files you didn't create.", "Bash", {"command": "rm build/out.js"}),
    ("Never add `TODO` to the README.", "Edit", {"file_path": "src/a.py", "new_string": "# TODO"}),
    ("Don't add logging to the `packages/` directory.", "Edit", {"file_path": "packages/a/x.ts", "new_string": "x"}),
])
def test_a_word_family_or_destination_does_not_widen_the_ban(sentence, tool, tool_input):
    assert _decide(Evaluator(_rules(sentence + "\n")), tool, tool_input) == "allow"


@pytest.mark.parametrize(("sentence", "tool", "tool_input"), [
    ("Never amend commits.", "Bash", {"command": "git commit --amend"}),
    ("Never drop or truncate tables.", "Bash", {"command": "psql -c 'drop table users'"}),
    ("Do not add new npm packages.", "Bash", {"command": "npm install left-pad"}),
    ("Never add files to `dist/`.", "Write", {"file_path": "dist/a.js", "content": "x"}),
])
def test_the_tightened_readings_keep_their_rules(sentence, tool, tool_input):
    assert _decide(Evaluator(_rules(sentence + "\n")), tool, tool_input) in ("block", "ask")


def test_creating_a_file_is_a_write_never_an_edit_of_one_that_exists():
    # "Never create a new `tsconfig.json`" blocked editing tsconfig.json
    (rule,) = _rules("Never create a new `tsconfig.json`.\n")
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Write", {"file_path": "packages/a/tsconfig.json", "content": "{}"}) == "block"
    assert _decide(evaluator, "Edit", {"file_path": "tsconfig.json", "old_string": "a", "new_string": "b"}) == "allow"
    # browser-use (set 2): doing it "proactively" is what is forbidden, so the user decides
    (docs,) = _rules("NEVER proactively create documentation files (`*.md`) or README files.\n")
    assert _decide(Evaluator([docs]), "Write", {"file_path": "NOTES.md", "content": "x"}) == "ask"


@pytest.mark.parametrize(("sentence", "fires", "allowed"), [
    ("Never use `git push` with `--force`.", "git push origin main --force", "git push origin feat"),
    ("Never run `terraform apply` with `-auto-approve`.", "terraform apply -auto-approve", "terraform apply plan.out"),
    ("Don't use `docker run` with `--privileged`.", "docker run --privileged img", "docker run img"),
])
def test_an_option_in_its_own_code_span_belongs_to_its_command(sentence, fires, allowed):
    evaluator = Evaluator(_rules(sentence + "\n"))
    assert _decide(evaluator, "Bash", {"command": fires}) in ("block", "ask")
    assert _decide(evaluator, "Bash", {"command": allowed}) == "allow"


@pytest.mark.parametrize("sentence", [
    "Never run `npm test` from the repo root; `cd packages/app` first.", "Never call `git push` from scripts.",
    "Never run `kubectl delete` against the production cluster.", "Never run more than one `pytest` at a time.",
    "Never rerun `pytest` just to check flakiness.", "Don't use `git stash` to hide changes.",
])
def test_where_how_often_or_what_for_narrows_a_command(sentence):
    imp, _ = _compiled(sentence)
    assert imp.admission.decision == "demoted" and imp.admission.gate == "scope"
    # the agent's own machine, or a purpose that is what the command does, narrows nothing
    for kept in ("Never run `npm publish` from a laptop.", "NEVER use `npm run compile` to compile TypeScript files"):
        assert _compiled(kept)[0].admission.decision == "admitted"


def test_a_lead_that_turns_to_what_to_do_instead_recommends_its_list():
    # "Never call the API directly; use one of:" blocked the client calls it recommends
    rules = _rules("Never call the API directly; use one of:\n\n- `apiClient.get()`\n- `apiClient.post()`\n")
    assert _decide(Evaluator(rules), "Edit", {"file_path": "a.ts", "new_string": "apiClient.get('/x')"}) == "allow"
    # "…, use `npm ci`" after the banned command is the side the sentence recommends
    (rule,) = _rules("Don't use `npm install`, use `npm ci` or `pnpm install`.\n")
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Bash", {"command": "npm install x"}) == "ask"
    assert _decide(evaluator, "Bash", {"command": "pnpm install"}) == "allow"
    # a do/don't pair on one paragraph: the DON'T half is an example
    assert _rules("**Don't:** `npm install`\n**Do:** `pnpm install`\n") == []


@pytest.mark.parametrize("sentence", [
    "Don't call the module `utils`.", "Never call a file `index.ts` unless it only re-exports.",
    "Don't call your test file `test.py`.",
])
def test_giving_something_a_name_bans_no_text(sentence):
    imp, _ = _compiled(sentence)
    assert imp.admission.decision == "demoted" and "gives something a name" in imp.admission.reason


def test_items_take_the_verb_of_their_prohibition_heading():
    # "## Never commit" over "- `.env`" was an edit ban on .env, and `git add .env` went through
    rules = _rules("## Never commit\n\n- `.env`\n\n## Never edit\n\n- `dist/`\n")
    evaluator = Evaluator(rules)
    assert _decide(evaluator, "Bash", {"command": "git add .env"}) == "block"
    assert _decide(evaluator, "Edit", {"file_path": ".env", "new_string": "A=1"}) == "allow"
    assert _decide(evaluator, "Edit", {"file_path": "dist/a.js", "new_string": "x"}) == "block"


def test_a_prose_entry_that_names_no_value_is_read_without_a_crash():
    # red-team round 2: "Never bump the major version in `package.json`." raised IndexError and stopped the compile
    imp, _ = _compiled("Never bump the major version in `package.json`.")
    assert imp.admission is not None


@pytest.mark.parametrize(("text", "tool", "tool_input"), [
    ("You must not skip `npm test`.\n", "Bash", {"command": "npm test"}),
    ("## Never skip\n\n- `npm test`\n- `npm run lint`\n", "Bash", {"command": "npm run lint"}),
    ("Never skip the following checks:\n\n- `make check`\n", "Bash", {"command": "make check"}),
    ("Never suppress `eslint` errors with `// eslint-disable`.\n", "Bash", {"command": "npx eslint ."}),
    ("Never disable `prettier`.\n", "Bash", {"command": "npx prettier --write ."}),
    ("Never turn off `noImplicitAny`.\n", "Edit", {"file_path": "tsconfig.json", "new_string": '"noImplicitAny": true'}),
    ("Do not uninstall `pre-commit`.\n", "Bash", {"command": "pre-commit run --all-files"}),
    ("Never edit `package.json` scripts.\n", "Edit", {"file_path": "package.json", "new_string": '"lodash": "^4"'}),
])
def test_what_a_sentence_protects_is_never_banned(text, tool, tool_input):
    assert _decide(Evaluator(_rules(text)), tool, tool_input) == "allow"


def test_a_committed_glob_is_staging_files_that_match_it():
    # "Don't commit `*.log` files" asked on every `console.log(` and let `git add app.log` through
    (rule,) = _rules("Don't commit `*.log` files.\n")
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Bash", {"command": "git add logs/app.log"}) == "ask"
    assert _decide(evaluator, "Bash", {"command": "git add app.log.bak"}) == "allow"
    assert _decide(evaluator, "Write", {"file_path": "a.ts", "content": "console.log(x)"}) == "allow"


def test_a_script_name_with_a_suffix_is_another_script():
    (rule,) = _rules("Never run `npm run deploy`.\n")
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Bash", {"command": "npm run deploy"}) == "block"
    assert _decide(evaluator, "Bash", {"command": "npm run deploy:preview"}) == "allow"


@pytest.mark.parametrize(("sentence", "tool_input"), [
    ("Never tag `develop`.", {"file_path": ".github/workflows/ci.yml", "new_string": "branches: [main, develop]"}),
    ("Never check out `gh-pages` locally.", {"file_path": "deploy.yml", "new_string": "branch: gh-pages"}),
    ("Never pin `numpy` below 1.24.", {"file_path": "a.py", "new_string": "import numpy as np"}),
])
def test_a_content_rule_needs_a_verb_that_writes_the_name(sentence, tool_input):
    assert _decide(Evaluator(_rules(sentence + "\n")), "Edit", tool_input) == "allow"


def test_removing_a_line_from_a_file_is_an_edit_not_a_deletion():
    # "Never delete `node_modules/` from `.gitignore`" blocked `rm -rf node_modules`
    assert _rules("Never delete `node_modules/` from `.gitignore`.\n") == []
    (rule,) = _rules("DO NOT delete files from `repros/` directory.\n")  # a folder is where the files are
    assert _decide(Evaluator([rule]), "Bash", {"command": "rm repros/a.txt"}) in ("block", "ask")


@pytest.mark.parametrize(("sentence", "tool", "tool_input"), [
    ("Never use `torch.load` with `weights_only=False`.", "Edit", {"file_path": "a.py", "new_string": "torch.load(p, weights_only=True)"}),
    ("Never call `subprocess.run` with `shell=True`.", "Edit", {"file_path": "a.py", "new_string": "subprocess.run(['ls'])"}),
    ("Never run `npm install` with `sudo`.", "Bash", {"command": "npm install"}),
])
def test_a_name_forbidden_only_with_another_is_no_rule_on_it_alone(sentence, tool, tool_input):
    assert _decide(Evaluator(_rules(sentence + "\n")), tool, tool_input) == "allow"


# Findings of the blind held-out set 19 (files 171-180, measured blind on the final compiler of its session:
# precision 8/11, one of the three wrong rules right but for its action).


def test_a_bare_do_not_commit_after_a_path_is_about_that_file():
    # mattermost (set 19): "(generated, do not commit)" asked before every `git commit`
    (rule,) = _rules("- **Cloud Agent config**: `server/config/config-cursor-cloud.json` (generated, do not commit)\n")
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Bash", {"command": "git add server/config/config-cursor-cloud.json"}) == "ask"
    assert _decide(evaluator, "Bash", {"command": "git commit -m 'fix'"}) == "allow"


def test_an_instead_of_inside_an_example_is_the_example_pair():
    # desktop/desktop (set 19): "(e.g., `<Component visible={true} />` instead of `<Component visible />`)" blocked
    # every `<Component`
    assert _rules("- **JSX**: Always use explicit boolean values (e.g., `<Component visible={true} />` instead of "
                  "`<Component visible />`)\n") == []


def test_a_short_option_is_the_long_one():
    # red-team round 2: "Never run `git push --force`" let `git push -f` through
    (rule,) = _rules("Never run `git push --force`.\n")
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Bash", {"command": "git push -f origin x"}) == "block"
    assert _decide(evaluator, "Bash", {"command": "git push origin main -f"}) == "block"
    assert _decide(evaluator, "Bash", {"command": "git push -u origin x"}) == "allow"


def test_a_banned_global_function_is_not_a_method_of_the_same_name():
    # red-team: "Never use `eval()`" blocked PyTorch's everyday `model.eval()`
    (rule,) = _rules("Never use `eval()`.\n")
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Write", {"file_path": "a.py", "content": "x = eval(code)"}) == "block"
    assert _decide(evaluator, "Write", {"file_path": "a.py", "content": "model.eval()"}) == "allow"


# Findings of the audit of cloudflare/workerd's rule files (17 files; 4 of 8 rules kept before these fixes).


@pytest.mark.parametrize(("sentence", "content"), [
    ("**NEVER** unwrap `Ref<Object>` — use `V8Ref<v8::Object>` instead", "Ref<Object> obj = get();"),
    ("**NEVER** opaque-wrap `V8Ref<T>` — use handle directly", "V8Ref<v8::Object> handle;"),
    ("**NEVER** change `Headers::Guard` enum values (serialized)", "enum class Mode { A, B };"),
])
def test_a_bold_rule_word_still_has_its_verb_read(sentence, content):
    # the verb after "**NEVER**" was read as "" (the emphasis), so no verb gate ran; "enum values" read as enums
    assert _decide(Evaluator(_rules(sentence + "\n")), "Write", {"file_path": "src/a.c++", "content": content}) == "allow"


def test_a_name_turned_down_for_what_a_subject_uses_is_no_ban_everywhere():
    # workerd src/per_isolate: "Internal class dispatch uses private-brand `in` checks, NEVER `instanceof`"
    imp, _ = _compiled("Internal class dispatch uses private-brand `in` checks, NEVER `instanceof` (classes reachable "
                       "from the global have user-reachable `Symbol.hasInstance`).")
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "scope")


# Findings of the audit of home-assistant/frontend's copilot instructions (2 of 4 rules kept before these fixes).


@pytest.mark.parametrize(("sentence", "tool", "tool_input"), [
    ("**WARNING:** Never run `tsc` or `yarn lint:types` with file arguments (e.g., `yarn lint:types src/file.ts`).",
     "Bash", {"command": "yarn lint:types"}),
    ("Sanitize HTML - Never use `unsafeHTML` with user content", "Edit",
     {"file_path": "src/a.ts", "new_string": "unsafeHTML(this._trustedMarkdown)"}),
])
def test_what_makes_a_use_dangerous_narrows_the_ban_to_it(sentence, tool, tool_input):
    assert _decide(Evaluator(_rules(sentence + "\n")), tool, tool_input) == "allow"


# Held-out set 23's findings: sentence forms whose rule word is the shape of the sentence, comments on issues and
# PRs, and words true of anything the agent does.


@pytest.mark.parametrize("line", [
    "- Only commit when explicitly asked",  # pytorch/executorch (held-out set 23)
    "- Only commit if asked",
    "- Only commit when the user explicitly asks",
    "- Only commit when you are specifically told to",
])
def test_only_when_asked_is_dont_unless_asked_and_asks(line):
    imp, evaluator = _compiled(line)
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    assert _decide(evaluator, "Bash", {"command": 'git commit -m "Fix typo"'}) == "ask"
    assert _decide(evaluator, "Bash", {"command": "git status"}) == "allow"
    assert _decide(evaluator, "Bash", {"command": "git add a.py"}) == "allow"


@pytest.mark.parametrize("line", [
    "- Only use `sudo` when installing packages",  # a narrowing condition, not a person's request: no rule word
    "- Only commit when tests pass",
    "- Only the maintainers merge when asked",  # no verb after "only": no instruction
    "- Commit only when the build is green",
    "- The release script only pushes when asked",  # "only" does not open the sentence: a description
])
def test_only_with_any_other_condition_makes_no_rule(line):
    assert _rules(line + "\n") == []


@pytest.mark.parametrize("line", [
    # open-telemetry/opentelemetry-collector-contrib (held-out set 23)
    "The most important rule is not to post comments on issues or PRs that are AI-generated.",
    "The golden rule is not to comment on issues or pull requests.",
    "Never post AI-generated comments on PRs or issues.",
])
def test_the_rule_is_not_to_comment_on_issues_or_prs_blocks_both_commands(line):
    imp, evaluator = _compiled(line)
    assert imp.action == "block" and imp.admission.decision == "admitted"
    assert _decide(evaluator, "Bash", {"command": 'gh issue comment 41234 --body "I can take this"'}) == "block"
    assert _decide(evaluator, "Bash", {"command": 'gh pr comment 40123 --body "Addressed the feedback"'}) == "block"
    for command in ("gh issue view 41234 --comments", "gh pr view 40123", "gh pr checks 40123", 'git commit -m "x"'):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow"


def test_a_cannot_reminded_is_a_prohibition_and_its_reason_and_behalf_narrow_nothing():
    # open-telemetry/opentelemetry-collector-contrib (held-out set 23)
    imp, evaluator = _compiled("Do not forget that you cannot comment for users on issue threads on their behalf as it "
                               "is against the rules of this project.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    assert _decide(evaluator, "Bash", {"command": 'gh issue comment 41234 --body "My plan is"'}) == "block"
    assert _decide(evaluator, "Bash", {"command": "gh issue view 41234 --comments"}) == "allow"
    assert _decide(evaluator, "Bash", {"command": 'gh pr comment 1 --body "x"'}) == "allow"


@pytest.mark.parametrize("line", [
    "The rule is not to be applied to tests.",  # describes the rule
    "Do not forget that you cannot run Docker in the sandbox without `sudo`.",  # narrowed: no rule the hook keeps
    "You cannot comment on issues.",  # "cannot" alone says what is possible
    "Never comment on issues that are stale.",  # a real narrowing stays one
    "Never comment on issues for users.",  # "for users" without "on their behalf" may say who reads it
    "Do not comment on PRs that only change docs.",
])
def test_near_misses_of_the_forms_and_the_agent_made_words_are_no_hook_rule(line):
    assert _rules(line + "\n") == []


def test_never_checking_a_named_box_blocks_a_pr_body_that_ticks_it():
    # open-telemetry/opentelemetry-collector-contrib (held-out set 23)
    imp, evaluator = _compiled("You must not check the `I, a human, wrote this pull request description myself` box on the "
                               "user's behalf.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    body = "#### Description\nAdds OAUTHBEARER.\n\n- [{}] I, a human, wrote this pull request description myself"
    assert _decide(evaluator, "Bash", {"command": f'gh pr create --title "x" --body "{body.format("x")}"'}) == "block"
    assert _decide(evaluator, "Bash", {"command": f'gh pr edit 40123 --body "{body.format("X")}"'}) == "block"
    assert _decide(evaluator, "Bash", {"command": f'gh pr create --title "x" --body "{body.format(" ")}"'}) == "allow"
    assert _decide(evaluator, "Bash", {"command": "gh pr view 40123"}) == "allow"
    assert _decide(evaluator, "Bash", {"command": "git push origin kafka"}) == "allow"


@pytest.mark.parametrize("line", [
    "Never check the box.",  # names no box
    "Do not check the tests box until CI passes.",  # narrowed
    "Always check the `Allow edits from maintainers` box.",  # asks for it
])
def test_a_box_the_sentence_does_not_forbid_by_name_is_no_rule(line):
    assert _rules(line + "\n") == []


def test_never_deleting_tests_blocks_removing_a_test_source_file():
    # eslint/eslint copilot instructions (held-out set 24): "even if" adds a case, it narrows nothing
    imp, evaluator = _compiled("Never delete existing tests even if they are failing.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    for command in ("rm tests/lib/rules/no-unused-vars.js", "git rm tests/lib/linter/linter.js", "rm src/app.test.ts",
                    "rm -f pkg/test_parser.py"):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    for command in ("npx mocha tests/lib/rules/no-unused-vars.js", "rm -rf coverage", "git rm lib/rules/no-obsolete-rule.js",
                    "rm tests/__snapshots__/a.snap", "rm -rf test-results"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


def test_never_leaving_trailing_whitespace_blocks_it_in_written_lines():
    # python/cpython CLAUDE.md (held-out set 22)
    imp, evaluator = _compiled("NEVER leave trailing whitespace on any line.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    assert _decide(evaluator, "Edit", {"file_path": "Lib/x.py", "old_string": "a", "new_string": "    return result   \n"}) == "block"
    assert _decide(evaluator, "Write", {"file_path": "Modules/x.c", "content": "if (res == NULL) {\t\n}\n"}) == "block"
    assert _decide(evaluator, "Write", {"file_path": "Lib/x.py", "content": "    return result\n\n    x = 1\n"}) == "allow"


def test_generated_protobuf_code_is_the_code_protoc_writes_not_the_proto_source():
    # pulumi/pulumi AGENTS.md (held-out set 12)
    imp, evaluator = _compiled("Do not edit generated proto files by hand")
    assert imp.admission.decision == "admitted"
    for path in ("sdk/proto/go/resource.pb.go", "sdk/python/lib/pulumi/runtime/proto/resource_pb2.py", "sdk/nodejs/proto/resource_pb.js"):
        assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": "b"}) == imp.action, path
    for path in ("proto/pulumi/resource.proto", "pkg/resource/deploy/source_eval.go"):
        assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": "b"}) == "allow", path


@pytest.mark.parametrize("line", [
    "Don't delete the test fixtures.",  # fixtures are not the tests
    "Never delete tests that cover public APIs.",  # narrowed
    "Never add trailing whitespace in YAML files.",  # narrowed to files no glob here says
    "Never edit proto files by hand.",  # the sources, which are not generated
])
def test_near_misses_of_the_test_whitespace_and_protobuf_readings_are_no_hook_rule(line):
    assert _rules(line + "\n") == []


# Findings of the blind held-out set 24 (files 218-225, measured blind: precision 2/12).


@pytest.mark.parametrize("sentence", [
    "Avoid `Factory` suffix unless the class is a true factory.",  # apache/iceberg (set 24)
    "Don't use the suffix `Impl` for classes.",
    "Never name classes ending with `Manager`.",
])
def test_a_name_called_a_suffix_ends_other_names(sentence):
    imp, evaluator = _compiled(sentence)
    assert "pass1" not in imp.routes and "end of a name" in imp.admission.reason
    assert _decide(evaluator, "Write", {"file_path": "A.java", "content": "class ConnectionFactory {}"}) == "allow"


def test_a_name_not_called_a_suffix_is_still_banned():
    (rule,) = _rules("Never use `BeanFactory` in new code.\n")
    assert _decide(Evaluator([rule]), "Write", {"file_path": "A.java", "content": "new BeanFactory()"}) == "block"


def test_two_calls_of_one_callee_that_differ_in_their_arguments_are_no_literal():
    # traefik/traefik (set 24): the warn matched the literal placeholder call, which code never holds
    imp, _ = _compiled('- Prefer `assert.Equal(t, expected, actual)` over `assert.Equal(t, expected, actual, "detailed '
                       'explanation")`.')
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "polarity")
    assert "differ only in their arguments" in imp.admission.reason
    # near miss: two different callees keep their rule
    (rule,) = _rules("- Prefer `structlog.get_logger()` over `logging.getLogger()`.\n")
    assert Evaluator([rule]).evaluate({"tool_name": "Write", "tool_input": {"file_path": "a.py",
                                                                           "content": "log = logging.getLogger(__name__)"}}).warnings


def test_squashing_unrelated_work_is_a_judgement_of_which_commits():
    # jestjs/jest (set 24): "don't squash unrelated work" asked before every squash merge
    imp, _ = _compiled("One logical change per commit; don't squash unrelated work.")
    assert "pass1" not in imp.routes and "unrelated work" in imp.admission.reason
    (rule,) = _rules("Never squash commits.\n")
    assert _decide(Evaluator([rule]), "Bash", {"command": "git merge --squash feature"}) in ("block", "ask")


def test_a_fenced_line_under_never_is_its_code_without_the_trailing_comment():
    # jestjs/jest (set 24): each line of the fence under "Never:" was a block on the whole line, comment included
    text = ("Never:\n\n```ts\njest.fn().mockReturnValue(x); // widens to UnknownFunction\n"
            "(x as jest.Mock).mockReturnValue(y); // cast soup\n({foo: jest.fn()}) as unknown as Real; // construct typed instead\n```\n")
    ir = compile_sources([source_from_bytes("AGENTS.md", text.encode())])
    admitted = [i for i in ir.imperatives if "pass1" in i.routes]
    demoted = [i for i in ir.imperatives if i.admission and i.admission.decision == "demoted"]
    assert len(admitted) == 1 and len(demoted) == 2 and all("placeholders" in i.admission.reason for i in demoted)
    evaluator = Evaluator(guardrules.emit(ir)["rules"])
    path = "packages/jest-runtime/src/__tests__/runtime.test.ts"
    def decide(content: str) -> str:
        return _decide(evaluator, "Edit", {"file_path": path, "new_string": content})

    assert decide("const resolve = jest.fn().mockReturnValue('/root/index.js');\n") == "block"
    assert decide("const resolve = jest.fn<typeof resolveModule>().mockReturnValue('/root/index.js');\n") == "allow"
    assert decide("jest.mocked(fs.readFileSync).mockReturnValue('{}');\n") == "allow"
    # a shell line's comment is no part of the command either
    (rule,) = _rules("Never run:\n\n```bash\ngit push --force  # rewrites shared history\n```\n")
    assert _decide(Evaluator([rule]), "Bash", {"command": "git push --force origin main"}) == "block"


def test_a_lint_rule_named_as_the_enforcer_is_not_banned():
    # jestjs/jest (set 24): "banned by `no-restricted-globals`" banned the lint rule's name too, and `global` fired on
    # the English word in a comment
    (rule,) = _rules("- **`globalThis`, never `global`** — banned by `no-restricted-globals`.\n")
    evaluator = Evaluator([rule])
    path = "packages/jest-environment-node/src/index.ts"
    def decide(content: str) -> str:
        return _decide(evaluator, "Edit", {"file_path": path, "new_string": content})

    assert decide("    global.__coverage__ = coverage;\n") == decide("  const originalConsole = global.console;\n") == "block"
    for content in ("    globalThis.__coverage__ = coverage;\n", "  const {globalConfig} = options;\n",
                    "  // Install the fake timers on the global object.\n", "// see no-restricted-globals\n"):
        assert decide(content) == "allow"
    # Python's statement is the name used as code too
    (rule,) = _rules("Never use `global` in Python code.\n")
    assert _decide(Evaluator([rule]), "Edit", {"file_path": "a.py", "new_string": "def f():\n    global counter\n"}) == "block"
    # near miss: a name banned outright, not by a check, stays
    (rule,) = _rules("Never use `moment`; it is flagged by `no-restricted-imports`.\n")
    assert _decide(Evaluator([rule]), "Edit", {"file_path": "a.ts", "new_string": "import moment from 'moment';"}) == "block"


def test_a_pronoun_subject_for_named_things_narrows_the_rule():
    # jestjs/jest (set 24): "they" are seven browser-bundled packages, not every file
    imp, _ = _compiled("- **Exception**: `expect`, `expect-utils`, `jest-util` are consumed by webpack/browser bundles — they "
                       "must NOT use `node:`.")
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "scope") and "they (`expect`" in imp.admission.reason
    # a pronoun for named folders is those folders' files
    (rule,) = _rules("`legacy/` holds old code — it must never import `moment`.\n")
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Edit", {"file_path": "legacy/a.ts", "new_string": "import moment from 'moment';"}) == "block"
    assert _decide(evaluator, "Edit", {"file_path": "src/a.ts", "new_string": "import moment from 'moment';"}) == "allow"
    # near misses: no pronoun
    (rule,) = _rules("We use `dayjs`; never use `moment`.\n")
    assert _decide(Evaluator([rule]), "Edit", {"file_path": "a.ts", "new_string": "import moment from 'moment';"}) == "block"
    (rule,) = _rules("Never use `node:` imports.\n")
    assert _decide(Evaluator([rule]), "Edit", {"file_path": "a.ts", "new_string": "import * as path from 'node:path';"}) == "block"


def test_a_name_counted_as_a_single_one_is_a_judgement():
    # jestjs/jest (set 24): "never a single `deps: Options` bag" is a class design, not the literal
    assert _rules("One `private readonly x: T` field per dep — never a single `deps: Options` bag.\n") == []


def test_files_known_by_their_whole_name_are_paths_and_a_discussion_is_had_with_a_person():
    # apache/iceberg AGENTS.md (held-out set 24): `LICENSE` and `NOTICE` are files; "without explicit discussion" asks
    imp, evaluator = _compiled("**Never** modify `.asf.yaml`, `LICENSE`, `NOTICE`, or `versions.props` without explicit discussion.")
    assert imp.action == "ask" and "leaves the exception to a person" in imp.admission.reason
    for path in (".asf.yaml", "LICENSE", "NOTICE", "versions.props"):
        assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": "b"}) == "ask", path
    for path in ("core/src/main/java/org/apache/iceberg/TableMetadata.java", "docs/LICENSE.md"):
        assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": "b"}) == "allow", path
    imp, evaluator = _compiled("Never edit the `Makefile`.")
    assert _decide(evaluator, "Edit", {"file_path": "build/Makefile", "old_string": "a", "new_string": "b"}) == "block"
    assert _decide(evaluator, "Write", {"file_path": "docs/build.md", "content": "Run the Makefile target."}) == "allow"


def test_never_opening_an_issue_or_pull_request_covers_both():
    # docker/compose AGENTS.md (held-out set 24)
    imp, evaluator = _compiled("Never create an issue or pull request without the user's explicit instruction.")
    assert imp.action == "ask"
    assert _decide(evaluator, "Bash", {"command": 'gh pr create --title "fix" --body "x"'}) == "ask"
    assert _decide(evaluator, "Bash", {"command": 'gh issue create --title "bug"'}) == "ask"
    assert _decide(evaluator, "Bash", {"command": "gh pr view 12"}) == "allow"
    assert _rules("Don't open issues or PRs for typos.\n") == []


def test_never_committing_secrets_is_never_staging_a_secrets_file():
    # strapi, apache/iceberg and langfuse (held-out sets 2, 22, 24): what one call shows of committing a secret is
    # staging the file that holds it; a secret in a local `.env` kept out of git is where it belongs
    imp, evaluator = _compiled("Never commit secrets, credentials, or API keys.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    for command in ("git add .env", "git add examples/getstarted/.env", "git add .env.local",
                    "git add aws/src/integration/resources/credentials.properties", "git add certs/server.pem"):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    for command in ("git add .env.example", "git add .env.dev.example", "git add packages/core/admin/server/src/services/token.ts",
                    'git commit -m "Add .env support"', "cat .env", "git status"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command
    assert _decide(evaluator, "Write", {"file_path": ".env", "content": 'OPENAI_API_KEY="sk-abcdefghijklmnopqrstuvwx"'}) == "allow"
    # hard-coding one is writing it: the written content is what is scanned
    imp, evaluator = _compiled("Never hardcode API keys or passwords.")
    assert _decide(evaluator, "Write", {"file_path": "src/config.ts", "content": 'const apiKey = "sk-abcdefghijklmnopqrstuvwx";'}) == "block"


# Findings of the blind held-out set 25 (files 226-234, measured blind: precision 11/15).


def test_the_signatures_of_what_a_folder_holds_are_a_part_of_its_files():
    # helm/helm AGENTS.md: a rule on every edit under `pkg/` would stop all work there
    imp, _ = _compiled("- the signatures of public APIs, i.e., those in the `pkg/` directory should not change")
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "scope")
    imp, evaluator = _compiled("Files in `pkg/` should not change.")
    assert _decide(evaluator, "Edit", {"file_path": "pkg/action/install.go", "old_string": "a", "new_string": "b"}) == "ask"


def test_a_commit_title_is_its_message():
    # inngest/inngest AGENTS.md: "titles are required for any commit or PR title" is about commit messages too
    imp, evaluator = _compiled("Conventional Commit-style titles are required for any commit or PR title you create.")
    assert _decide(evaluator, "Bash", {"command": 'git commit -m "handle empty query"'}) == "block"
    assert _decide(evaluator, "Bash", {"command": 'git commit -m "fix: handle empty query"'}) == "allow"


def test_a_leading_qualifier_after_a_label_narrows_the_sentence():
    # appwrite/appwrite AGENTS.md: "in handlers" holds for the "— never" clause too
    imp, _ = _compiled("- **Spans:** in handlers only `Span::add($key, $value)` — never `Span::init`, `setError`, or `Span::finish`.")
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "scope")
    imp, evaluator = _compiled("- **Note:** In tests, never use `time.sleep`.")
    assert imp.scope.get("file_scope")
    assert _decide(evaluator, "Write", {"file_path": "tests/test_a.py", "content": "time.sleep(1)\n"}) == "block"
    assert _decide(evaluator, "Write", {"file_path": "src/a.py", "content": "time.sleep(1)\n"}) == "allow"


# Readings from the held-out sets read by the team (recall25): each a general form, with its near misses.


def test_never_writing_changeset_files_asks_on_a_changeset_only():
    # gradio-app/gradio AGENTS.md (held-out set 7): the bot writes them
    imp, evaluator = _compiled("7. **Don't write changeset files.** A GitHub Action adds `.changeset/*.md` to your branch.")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    for path in (".changeset/fix-dataframe-sort.md", ".changeset/brave-owls-dance.md"):
        assert _decide(evaluator, "Write", {"file_path": path, "content": "x"}) == "ask", path
    for path in (".changeset/README.md", ".changeset/config.json", "CHANGELOG.md", "js/dataframe/CHANGELOG.md", "guides/a.md"):
        assert _decide(evaluator, "Write", {"file_path": path, "content": "x"}) == "allow", path


def test_a_branch_prefix_the_sentence_forbids_asks_on_creating_such_a_branch():
    # BerriAI/litellm CLAUDE.md (held-out set 7)
    imp, evaluator = _compiled("Do not create a branch prefixed with claude/ and generally do not have / in your branch names")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    for command in ("git checkout -b claude/fix-router-timeout", "git switch -c claude/add-azure-retry", "git branch claude/x",
                    "git worktree add -b claude/x wt"):
        assert _decide(evaluator, "Bash", {"command": command}) == "ask", command
    for command in ("git checkout -b litellm_fix_router_timeout litellm_internal_staging", "git checkout claude/x",
                    "git checkout -- litellm/router.py", "git branch -D claude/x", "git log claude/x"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


def test_naming_an_agent_in_commit_messages_asks_on_a_commit_that_does():
    # chatwoot/chatwoot AGENTS.md (held-out set 17)
    imp, evaluator = _compiled("- Don't reference Claude in commit messages")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    for command in ('git commit -m "fix: contact merge (written with Claude)"',
                    'git commit -m "feat(auth): add SSO\n\nCo-Authored-By: Claude <noreply@anthropic.com>"'):
        assert _decide(evaluator, "Bash", {"command": command}) == "ask", command
    for command in ('git commit -m "fix: contact merge keeps notes"', 'git commit -m "docs: update CLAUDE.md"',
                    'git commit -m "chore: .claude/settings.json"', "gh pr view 12345", "git log --grep=claude"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


def test_never_disabling_lint_rules_asks_on_a_disable_comment():
    # RooCodeInc/Roo-Code CLAUDE.md (held-out set 16): "without explicit user approval" is the user's exception
    imp, evaluator = _compiled("- Never disable lint rules without explicit user approval")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    for content in ("\t\t// eslint-disable-next-line @typescript-eslint/no-explicit-any", "/* eslint-disable */"):
        assert _decide(evaluator, "Edit", {"file_path": "src/core/task/Task.ts", "old_string": "a", "new_string": content}) == "ask"
    assert _decide(evaluator, "Write", {"file_path": "a.py", "content": "import os  # noqa: F401"}) == "ask"
    for content in ("\t\t// TODO: narrow the type of this handler", "\t\tconst lintRules = await getLintRules(cwd)"):
        assert _decide(evaluator, "Edit", {"file_path": "src/core/task/Task.ts", "old_string": "a", "new_string": content}) == "allow"
    assert _decide(evaluator, "Write", {"file_path": "a.py", "content": "x = f()  # type: ignore"}) == "allow"  # a type checker's
    assert _decide(evaluator, "Write", {"file_path": "docs/lint.md", "content": "// eslint-disable-next-line"}) == "allow"


def test_avoiding_default_exports_asks_on_export_default_in_a_module():
    # desktop/desktop copilot instructions (held-out set 18)
    imp, evaluator = _compiled("- **Avoid default exports**: Use named exports only")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    for content in ("export default class CommitList extends React.Component<ICommitListProps> {\n",
                    "export default function parseCommit(line: string) {\n"):
        assert _decide(evaluator, "Edit", {"file_path": "app/src/lib/git/log.ts", "old_string": "a", "new_string": content}) == "ask"
    for content in ("export function parseCommit(line: string) {\n", "export const defaultBranch = 'main'\n",
                    "export { defaultProfile } from './profile'\n", "// never export default here\n"):
        assert _decide(evaluator, "Edit", {"file_path": "app/src/lib/git/log.ts", "old_string": "a", "new_string": content}) == "allow"
    for path in ("vite.config.ts", "app/dashboard/page.tsx", "src/Button.stories.tsx", "docs/style.md"):  # a framework's own
        assert _decide(evaluator, "Write", {"file_path": path, "content": "export default {}\n"}) == "allow", path


def test_a_react_directive_in_quotes_is_that_directive():
    # documenso/documenso .cursorrules (held-out set 5)
    imp, evaluator = _compiled("- Never use 'use client'")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    path = "apps/remix/app/components/forms/signin.tsx"
    for content in ("'use client';\n\nimport { useState } from 'react';\n", "\"use client\";\n\nimport { Trans } from 'x';\n"):
        assert _decide(evaluator, "Write", {"file_path": path, "content": content}) == "block"
    for content in ("import { useState } from 'react';\n", "// we never use client components here\n"):
        assert _decide(evaluator, "Write", {"file_path": path, "content": content}) == "allow"


def test_package_versions_in_project_files_block_a_versioned_package_reference():
    # dotnet/efcore copilot instructions (held-out set 16): versions live in eng/Versions.props
    imp, evaluator = _compiled("- **NEVER** hardcode package versions in `.csproj` files")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    path = "src/EFCore.Relational/EFCore.Relational.csproj"
    for content in ('    <PackageReference Include="Microsoft.Extensions.Caching.Memory" Version="10.0.0" />',
                    '    <PackageReference Include="System.Text.Json" Version="9.0.4" />'):
        assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": content}) == "block"
    for content in ('    <PackageReference Include="Microsoft.Extensions.Caching.Memory" />',
                    '    <ProjectReference Include="..\\EFCore\\EFCore.csproj" />'):
        assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": content}) == "allow"
    assert _decide(evaluator, "Edit", {"file_path": "eng/Versions.props", "old_string": "a",
                                       "new_string": "    <SystemTextJsonVersion>9.0.4</SystemTextJsonVersion>"}) == "allow"


@pytest.mark.parametrize("line", [
    "Don't write changeset files for internal packages.",  # narrowed
    "Do not edit the changeset config.",  # no changeset written
    "Do not create a branch prefixed with a ticket number.",  # no prefix named
    "Never create branches named after people.",  # no prefix
    "Don't reference issue numbers in commit messages.",  # no agent named
    "Don't mention Claude in PR descriptions.",  # no commit
    "Never disable lint rules in CI config.",  # narrowed to a place
    "Never disable the lint job.",  # a job, not the rules
    "Avoid default exports for hooks.",  # narrowed
    "Avoid default values for props.",  # no export
    "Never use client components for layouts.",  # not the directive
    "Always use 'use client' in interactive components.",  # asks for it
    "Never hardcode package versions.",  # no project file named: every ecosystem pins in its own way
    "Never hardcode versions in Directory.Packages.props.",  # where versions belong
])
def test_near_misses_of_the_recall25_readings_are_no_hook_rule(line):
    assert _rules(line + "\n") == []


def test_a_required_wrapper_blocks_the_programs_its_examples_run_bare():
    # streamlit/streamlit AGENTS.md (held-out set 9): the examples name the programs, "any Python command" Python itself
    imp, evaluator = _compiled("- Always use `uv run` to run any Python command (e.g. `uv run pytest`, `uv run ruff`, `uv run mypy`, etc.).")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    for command in ("pytest lib/tests/streamlit/elements/button_test.py", "python -m pytest lib/tests", "ruff check lib/streamlit",
                    "cd lib && mypy streamlit", "python3 scripts/x.py"):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    for command in ("uv run pytest lib/tests/streamlit/elements/button_test.py", "uv run python -m pytest lib/tests",
                    "make python-tests", "cd frontend && yarn vitest run lib/src/components/widgets/Button", "git commit -m pytest",
                    "uvx ruff check", "echo pytest"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


@pytest.mark.parametrize("line", [
    "Always use `uv run` to run tests (e.g. `uv run build-docs`).",  # no known program in the example
    "Always use `uv run` (e.g. `uv run pytest`).",  # no "to run": what it is for is not said
    "Always use `uv run pytest` to run tests (e.g. `uv run pytest -k x`).",  # a command, not a wrapper
    "Always use `uv run` to run Python commands in CI (e.g. `uv run pytest`).",  # narrowed
    "Never use `uv run` to run tools (e.g. `uv run ruff`).",  # forbids the wrapper
])
def test_near_misses_of_the_required_wrapper_are_no_bare_program_block(line):
    assert not [r for r in _rules(line + "\n") if "without" in r["id"]]


# Findings of the blind held-out set 26 (files 235-242, measured blind: precision 7/11).


def test_a_command_given_an_object_named_elsewhere_is_narrowed():
    # facebook/lexical AGENTS.md: "never `git add` the file" is about one file, not every `git add`
    imp, _ = _compiled("That edit is not yours to make — revert it before staging, and never `git add` the file.")
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "scope")
    imp, evaluator = _compiled("Never `git commit` the changes without review.")  # "the changes": all of them
    assert _decide(evaluator, "Bash", {"command": "git commit -m x"}) == "block"


def test_an_import_path_that_opens_with_a_domain_is_code_not_a_file():
    # grafana/loki AGENTS.md
    imp, evaluator = _compiled("- Always prefer `github.com/stretchr/testify/require` over `github.com/stretchr/testify/assert`")
    assert imp.trigger.kind == "content"
    def warned(content: str) -> bool:
        return bool(evaluator.evaluate({"tool_name": "Edit", "tool_input": {"file_path": "pkg/x_test.go", "old_string": "a",
                                                                          "new_string": content}}).warnings)
    assert warned('\t"github.com/stretchr/testify/assert"\n') and not warned('\t"github.com/stretchr/testify/require"\n')


def test_the_file_a_preceding_clause_recommends_is_exempt_from_the_ban():
    # huggingface/lerobot AGENTS.md: the flags are defined with the banned call in the recommended file
    imp, evaluator = _compiled("- Reuse the `_foo_available` flags in `utils/import_utils.py`; don't call `is_package_available`.")
    edit = {"old_string": "a", "new_string": 'ok = is_package_available("pyrealsense2")\n'}
    assert _decide(evaluator, "Edit", {"file_path": "src/lerobot/cameras/realsense/camera_realsense.py", **edit}) == "ask"
    assert _decide(evaluator, "Edit", {"file_path": "src/lerobot/utils/import_utils.py", **edit}) == "allow"


# Findings of the blind held-out set 27 (files 243-251, measured blind: precision 3/6).


def test_a_fence_under_a_lead_line_that_says_what_to_run_first_is_what_to_run():
    # weaviate/weaviate CLAUDE.md: "Run per-package only, never repo-wide:" shows the per-package command to run
    text = ("Use build tag `integrationTest`. Run per-package only, never repo-wide:\n```bash\n"
            "go test -tags integrationTest -count 1 -race ./adapters/repos/db/...\n```\n")
    assert _rules(text) == []
    assert len(_rules("Never run these:\n```bash\nnpm publish\n```\n")) == 1  # a lead that only forbids still hands it down


def test_a_program_name_called_a_statement_is_code_no_command():
    # weaviate/weaviate CLAUDE.md: "bare `go` statements" are Go's goroutine statements, not the `go` tool
    assert _rules("Never use bare `go` statements.\n") == []
    (rule,) = _rules("Never run `go` directly; use `make`.\n")
    assert rule["tool_match"] == ["Bash"]


def test_hand_edit_is_an_edit_verb():
    # fluxcd/flux2 AGENTS.md
    imp, evaluator = _compiled("- Never hand-edit files under `cmd/flux/manifests/`.")
    assert _decide(evaluator, "Edit", {"file_path": "cmd/flux/manifests/bases.yaml", "old_string": "a", "new_string": "b"}) == "block"
    assert _decide(evaluator, "Edit", {"file_path": "cmd/flux/main.go", "old_string": "a", "new_string": "b"}) == "allow"


# Readings from the held-out sets read by the team (recall26): each a general form, with its near misses.


@pytest.mark.parametrize("line", [
    "- You MUST mark your PRs as drafts",  # marimo-team/marimo AGENTS.md (held-out set 5)
    "- All PRs must be created as **drafts**. Use `gh pr create --draft` or the GitHub UI draft option.",  # NVIDIA/Megatron-LM
    "- Always open every pull request as a draft.",
])
def test_prs_required_as_drafts_block_a_pr_opened_without_draft(line):
    imp, evaluator = _compiled(line)
    assert imp.action == "block" and imp.admission.decision == "admitted"
    for command in ('gh pr create --title "Fix output truncation for wide tables" --body "Fixes #4120"', "gh pr create --fill --base main",
                    "cd repo && gh pr create --fill"):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    for command in ('gh pr create --draft --title "Fix x" --body "Fixes #4120"', "gh pr create -d --fill", "gh pr create -dw",
                    'gh pr create --title "a; b" --draft', 'gh pr create --body "$(cat <<EOF\nx\nEOF\n)" --draft',
                    "gh pr view 4120", "gh pr ready 4120 --undo", "git push origin fix"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


def test_never_editing_vendored_files_blocks_edits_under_vendor():
    # containers/podman AGENTS.md (held-out set 25)
    imp, evaluator = _compiled("- **Never edit vendored files directly**—use `go get` then `make vendor`.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    for path in ("vendor/github.com/containers/storage/store.go", "vendor/go.podman.io/common/libnetwork/types/network.go",
                 "src/pip/_vendor/rich/console.py"):
        assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": "b"}) == "block", path
    for path in ("pkg/domain/infra/abi/containers.go", "libpod/container_api.go", "test/e2e/run_test.go", "docs/vendoring.md"):
        assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": "b"}) == "allow", path


def test_hand_edits_of_changelog_files_under_a_must_not_heading_block_the_changelog():
    # grafana/alloy AGENTS.md (held-out set 25): the item takes its rule word from the heading
    ir = compile_sources([source_from_bytes("AGENTS.md", b"### MUST NOT\n\n- Edit changelog files by hand (release tooling derives "
                                                          b"entries from PR titles).\n")])
    (imp,) = ir.imperatives
    assert imp.action == "block" and imp.admission.decision == "admitted"
    evaluator = Evaluator(guardrules.emit(ir)["rules"])
    for path in ("CHANGELOG.md", "operations/helm/charts/alloy/CHANGELOG.md"):
        assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": "b"}) == "block", path
    for path in ("docs/developer/contributing.md", "internal/component/loki/process/process.go", ".chloggen/fix-x.yaml",
                 "changes/123.bugfix.md", "docs/changelog-policy.md"):
        assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": "b"}) == "allow", path


def test_a_review_posted_as_a_comment_is_a_pr_comment():
    # open-telemetry/opentelemetry-python AGENTS.md (held-out set 26)
    imp, evaluator = _compiled("The most important rule is not to post comments on issues or PRs that are AI-generated.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    for command in ('gh issue comment 5090 --body "I can take this one."', 'gh pr comment 5089 --body "Addressed the review."',
                    'gh pr review 5089 --comment --body "LGTM"', "gh pr review -c -b x"):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    for command in ("gh issue view 5090 --comments", "gh pr view 5089 --comments", "gh pr create --draft", "gh pr review 5089 --approve",
                    'gh pr review 5089 --body "--comment"'):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


def test_a_no_label_before_a_positive_rule_names_the_rejected_form():
    # NVIDIA/Megatron-LM skills/mcore-linting-and-formatting/SKILL.md (held-out set 26)
    imp, evaluator = _compiled("- **No bare `except`**: always catch specific exception types.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    path = "megatron/core/models/gpt/gpt_model.py"
    assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": "    except:\n        pass\n"}) == "block"
    for content in ("    except ValueError:\n        pass\n", '    except Exception as exc:\n        raise RuntimeError("bad") from exc\n'):
        assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": content}) == "allow"


def test_agent_session_urls_in_commits_and_prs_are_the_session_link():
    # facebook/lexical AGENTS.md (held-out set 26): "or other private links" is left to the gate
    imp, evaluator = _compiled("This is an open source project: never include agent-session URLs or other private/team-internal links "
                               "(e.g. `https://claude.ai/code/session_...`) in commit messages, PR titles, or PR bodies.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    for command in ('git commit -m "[lexical] Bug Fix: Fix caret jump" -m "https://claude.ai/code/session_01AbCdEf"',
                    'gh pr create --title "[lexical] Fix" --body "Session: https://claude.ai/code/session_01AbCdEf"'):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    for command in ('git commit -m "Fix" -m "Co-Authored-By: Claude <noreply@anthropic.com>"', 'gh pr create --title "Fix" --body "Closes #7000"'):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


def test_never_pushing_to_a_repository_url_blocks_a_push_to_that_url():
    # NVIDIA/Megatron-LM AGENTS.md (held-out set 26)
    imp, evaluator = _compiled("- Never push branches directly to `https://github.com/NVIDIA/Megatron-LM`.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    for command in ("git push https://github.com/NVIDIA/Megatron-LM.git my-feature", "git push git@github.com:NVIDIA/Megatron-LM.git x",
                    "git push ssh://git@github.com/nvidia/megatron-lm main", "git push -u https://github.com/NVIDIA/Megatron-LM x"):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    for command in ("git push https://github.com/jdoe/Megatron-LM.git my-feature", "git push fork my-feature",
                    "git push https://github.com/NVIDIA/Megatron-LM-extras.git x", "git clone https://github.com/NVIDIA/Megatron-LM",
                    "git remote add upstream https://github.com/NVIDIA/Megatron-LM.git"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


def test_a_call_of_a_call_with_open_arguments_is_that_nesting():
    # docker/compose AGENTS.md (held-out set 25): `...` stands for any arguments
    imp, evaluator = _compiled("- Prefer `fmt.Fprintf` over `WriteString(fmt.Sprintf(...))`")
    assert imp.action == "warn" and imp.admission.decision == "admitted"
    def warned(content: str) -> bool:
        return bool(evaluator.evaluate({"tool_name": "Edit", "tool_input": {"file_path": "pkg/compose/printer.go", "old_string": "a",
                                                                          "new_string": content}}).warnings)
    assert warned('\tb.WriteString(fmt.Sprintf("%s=%s\\n", k, v))\n') and warned("\tb.WriteString( fmt.Sprintf(f, v))\n")
    for content in ('\tfmt.Fprintf(&b, "%s=%s\\n", k, v)\n', "\tb.WriteString(name)\n", '\tmsg := fmt.Sprintf("%s=%s", k, v)\n'):
        assert not warned(content), content


@pytest.mark.parametrize("line", [
    "Always open PRs as ready for review, not as drafts.",  # the opposite
    "Always mark draft PRs with [WIP].",  # about draft PRs, not every PR
    "Always open PRs as drafts until CI passes.",  # only for a while
    "Always write PR descriptions as drafts.",  # a text, not the PR
    "PR descriptions must be created as drafts.",
    "Never edit vendored files without updating the patch file.",  # narrowed
    "Never edit the changelog.",  # no "by hand": releases edit it
    "Never edit changelog files by hand for unreleased changes.",  # narrowed
    "Do not edit `CHANGELOG.md` directly for unreleased PR changes.",  # grafana/tempo: narrowed
    "Never push tags to `https://github.com/NVIDIA/Megatron-LM`.",  # tags, which a push's arguments do not tell apart
    "Never push to `https://github.com/NVIDIA/Megatron-LM` without review.",  # narrowed
    "Always push to `https://github.com/jdoe/Megatron-LM`.",  # asks for it
    "- **No breaking changes**: always keep the API stable.",  # no form a pattern sees
    "Never include session URLs in commits.",  # whose session is not said
])
def test_near_misses_of_the_recall26_readings_are_no_hook_rule(line):
    assert _rules(line + "\n") == []


def test_a_quoted_word_after_the_rule_word_is_that_text():
    # netbox-community/netbox CLAUDE.md, pytorch/executorch CLAUDE.md, outline/outline AGENTS.md, tensorzero AGENTS.md
    # (held-out sets 14, 23, 27, 25): a word in double quotes right after the rule word (or "use") is the text itself,
    # in prose files too
    _, evaluator = _compiled('- Never "Netbox" or other variations')
    assert _decide(evaluator, "Edit", {"file_path": "docs/models/dcim/device.md", "old_string": "a",
                                       "new_string": "A device in Netbox represents hardware.\n"}) == "block"
    for path, content in (("docs/models/dcim/device.md", "A device in NetBox represents hardware.\n"),
                          ("netbox/dcim/models/devices.py", "from netbox.models import NetBoxModel\n")):
        assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": content}) == "allow"
    _, evaluator = _compiled('- Never use "any".')
    assert _decide(evaluator, "Write", {"file_path": "app/utils/parse.ts", "content": "export function f(input: any) {\n"}) == "block"
    assert _decide(evaluator, "Write", {"file_path": "app/utils/parse.ts", "content": "// any of these values may be null\n"}) == "allow"
    imp, evaluator = _compiled('- Prefer "Postgres" instead of "PostgreSQL" in comments, error messages, docs, etc.')
    assert imp.action == "warn" and imp.admission.decision == "admitted"
    def warned(content: str) -> bool:
        return bool(evaluator.evaluate({"tool_name": "Edit", "tool_input": {"file_path": "src/db/mod.rs", "old_string": "a",
                                                                          "new_string": content}}).warnings)
    assert warned("    // Connect to PostgreSQL and run the migrations\n")
    assert not warned("    // Connect to Postgres and run the migrations\n")


@pytest.mark.parametrize("line", [
    'Never use "magic" numbers.',  # the quote describes the noun after it
    'Do not emit "Act", "Arrange" or "Assert" comments.',
    'Never "fix" tests by deleting them.',  # a scare-quoted verb
    'Don\'t "improve" adjacent code, comments, or formatting.',  # effect-ts: the same
    'Do not say "done" until tests pass.',  # said to a person
    'Never use `eval`; "safe" wrappers are no better.',  # a clause with a code span keeps reading it
])
def test_near_misses_of_quoted_words_are_no_quoted_text_rule(line):
    rules = _rules(f"- {line}\n")
    assert all(not any(p["regex"] in (r"\bmagic\b", r"\bfix\b", r"\bimprove\b", r"\bdone\b", r"\bsafe\b", r"\bAct\b")
                       for p in r["patterns"]) for r in rules), rules


def test_runtime_code_paths_are_the_code_outside_tests():
    # fluxcd/flux2 AGENTS.md (held-out set 27): "in runtime code paths" is production code, as "in runtime code" is
    imp, evaluator = _compiled("- Never use `panic` in runtime code paths.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    edit = {"old_string": "a", "new_string": "\t\tpanic(err)\n"}
    assert _decide(evaluator, "Edit", {"file_path": "cmd/flux/create_source_git.go", **edit}) == "block"
    assert _decide(evaluator, "Edit", {"file_path": "cmd/flux/create_source_git_test.go", **edit}) == "allow"
    # which code paths are hot is for a reader to judge
    (imp,) = compile_sources([source_from_bytes("AGENTS.md", b"- Never use `panic` in hot code paths.\n")]).imperatives
    assert "pass1" not in imp.routes


def test_a_bold_rule_word_label_before_a_colon_governs_what_follows():
    # jupyterlab/jupyterlab AGENTS.md (held-out set 27): "**Don't**:" labels the rule after the colon
    imp, evaluator = _compiled("- **Don't**: Use the `any` type; prefer `unknown` with type guards")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    assert _decide(evaluator, "Edit", {"file_path": "packages/app/src/a.ts", "old_string": "a",
                                       "new_string": "function f(x: any) {}\n"}) == "ask"
    assert _decide(evaluator, "Edit", {"file_path": "packages/app/src/a.ts", "old_string": "a",
                                       "new_string": "function f(x: unknown) {}\n"}) == "allow"
    # an import statement after "import from <kind of path>:" shows the kind, it names no module
    imp, _ = _compiled("- **Don't**: Import from internal paths: `import { Widget } from '@lumino/widgets/lib/widget'`")
    assert "pass1" not in imp.routes
    # a colon after more than the rule word still opens an explanation, whose names are not the rule's
    imp, _ = _compiled("- Never use plain objects here: Use `Map` for caches instead.")
    assert imp.trigger is None or "Map" not in imp.trigger.values


def test_an_import_statement_with_its_names_elided_is_any_import_of_that_module():
    # vitest-dev/vitest AGENTS.md (held-out set 11)
    imp, evaluator = _compiled("- Never `import ... from 'path'`; it is an ESLint error everywhere.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    def decide(content: str) -> str:
        return _decide(evaluator, "Edit", {"file_path": "packages/vitest/src/node/pool.ts", "old_string": "a", "new_string": content})
    assert decide("import { resolve } from 'path'\n") == "block" and decide("import path from 'path'\n") == "block"
    for content in ("import { resolve } from 'pathe'\n", "import { resolve } from 'node:path'\n", "import x from 'path/posix'\n",
                    "const path = join(root, 'src')\n"):
        assert decide(content) == "allow", content
    # an import with its names spelled out is that statement, not every import of the module
    imp, _ = _compiled("- Never `import { resolve } from 'path'`.")
    assert imp.trigger is None or "path" not in imp.trigger.values


def test_what_a_named_thing_is_for_anyway_does_not_narrow_it():
    # PostHog/posthog AGENTS.md (held-out set 7): an SQL clause is in SQL statements wherever it is written
    imp, evaluator = _compiled("- NEVER use `ON CLUSTER` clause in SQL statements")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    path = "posthog/clickhouse/migrations/0123_events_add_foo.py"
    assert _decide(evaluator, "Write", {"file_path": path, "content": 'run_sql("ALTER TABLE e ON CLUSTER \'posthog\' ADD COLUMN foo")\n'}) == "block"
    assert _decide(evaluator, "Write", {"file_path": path, "content": 'run_sql(ADD_FOO_COLUMN_SQL(on_cluster=False))\n'}) == "allow"
    imp, _ = _compiled("- Do not use `pip` for dependency management")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    # other purposes and places still narrow the rule
    for line in ("- Never use `ON CLUSTER` in local SQL statements", "- Do not use `pip` for dependency management in CI"):
        imp, _ = _compiled(line)
        assert "pass1" not in imp.routes, line


def test_what_a_person_approves_is_part_of_the_exception():
    # langfuse/langfuse AGENTS.md (held-out set 2): "approval for the exact rule and scope" says what is approved
    imp, evaluator = _compiled("- Do not add or widen ESLint disable comments or config overrides\n"
                               "  without explicit user approval for the exact rule and scope.")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    path = "web/src/features/evals/server/service.ts"
    assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": "  // eslint-disable-next-line no-any\n"}) == "ask"
    assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": "  // TODO: handle the empty state\n"}) == "allow"
    # a "for" after any other "without" still narrows the rule
    imp, _ = _compiled("- Do not add ESLint disable comments without a tracking issue for the exact rule.")
    assert "pass1" not in imp.routes


def test_any_other_linting_suppression_is_every_inline_lint_suppression():
    # MystenLabs/sui CLAUDE.md (held-out set 18): the names, then the class they are of
    imp, evaluator = _compiled("- **NEVER use `#[allow(dead_code)]`, `#[allow(unused)]`, or any other linting suppressions**")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    def decide(content: str) -> str:
        return _decide(evaluator, "Edit", {"file_path": "crates/sui-core/src/authority.rs", "old_string": "a", "new_string": content})
    for content in ("#[allow(dead_code)]\nfn legacy() {}\n", "#![allow(unused)]\n", "#[allow(clippy::too_many_arguments)]\n"):
        assert decide(content) == "block", content
    for content in ("#[derive(Debug, Clone)]\n", "#[cfg(test)]\n", "    // allow unused validators to rejoin\n"):
        assert decide(content) == "allow", content
    # taking a suppression out is what the sentence asks for
    imp, _ = _compiled("- Do not remove lint suppressions.")
    assert "pass1" not in imp.routes


def test_keywords_named_before_classes_are_class_modifiers():
    # filamentphp/filament AGENTS.md (held-out set 20): a class declared with the modifiers, not every use of the words
    imp, evaluator = _compiled("- Do not use `final` or `readonly` classes")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    def decide(content: str) -> str:
        return _decide(evaluator, "Edit", {"file_path": "packages/forms/src/Components/TextInput.php", "old_string": "a",
                                           "new_string": content})
    for content in ("final class TextInput extends Field\n", "readonly class FieldState\n", "final readonly class ColumnSpan\n"):
        assert decide(content) == "ask", content
    for content in ("class TextInput extends Field\n", "    public readonly string $name;\n",
                    "    public function __construct(protected readonly string $model) {}\n", "// the final result\n"):
        assert decide(content) == "allow", content
    # a keyword named alone is the keyword wherever it is written
    imp, evaluator = _compiled("- Never use `readonly` in this package.")
    assert imp.trigger is None or "class" not in imp.trigger.patterns[0].regex


def test_a_parenthesised_prohibition_ends_at_its_parenthesis():
    # dotnet/msbuild tests.instructions.md (held-out set 22): "(never `async void`) and `await` …" goes back to what the
    # sentence recommends; a test project named by its suffix (`Build.UnitTests/`, `*_Tests.cs`) holds tests
    imp, evaluator = _compiled("- For async tests, always return `async Task` (never `async void`) and `await` asynchronous operations.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    path = "src/Build.UnitTests/BackEnd/TaskBuilder_Tests.cs"
    def decide(path: str, content: str) -> str:
        return _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": content})
    assert decide(path, "        public async void BuildSucceedsWithCancellation()\n") == "block"
    for content in ("        public async Task BuildSucceeds()\n", "            await service.DoWorkAsync();\n"):
        assert decide(path, content) == "allow", content
    assert decide("src/Build/BackEnd/TaskBuilder.cs", "        public async void OnEvent()\n") == "allow"  # not a test
    # a qualifier after the parenthesis still narrows the rule
    imp, _ = _compiled("- Use `pnpm` (never `npm`) for installs.")
    assert "pass1" not in imp.routes


def test_a_bare_program_is_the_program_run_without_a_runner():
    # reflex-dev/reflex AGENTS.md (held-out set 11): "never bare `python`" leaves `uv run python` to the agent
    imp, evaluator = _compiled("- Use `uv` for everything — never bare `python` or `python3`.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    for command in ("python scripts/make_pyi.py", "python3 -m pytest tests/units", 'python -c "import reflex"',
                    "cd app && python manage.py", "sudo python3 setup.py install"):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    for command in ("uv run python scripts/make_pyi.py", "uv run pytest tests/units", "uv sync", "poetry run python x.py"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command
    # without "bare", the program is the program however it is run
    _, evaluator = _compiled("- Never run `python`.")
    assert _decide(evaluator, "Bash", {"command": "uv run python scripts/make_pyi.py"}) == "block"


def test_semantic_pull_request_titles_are_the_conventional_pr_title():
    # argoproj/argo-cd AGENTS.md (held-out set 20)
    imp, evaluator = _compiled("- **Semantic PR Titles:** You must use Semantic Pull Request formatting for your PR title.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    assert _decide(evaluator, "Bash", {"command": 'gh pr create --title "Fix OutOfSync bug on PostDelete hook" --body "x"'}) == "block"
    for command in ('gh pr create --title "fix: resolve OutOfSync bug" --body "x"', 'gh pr create --title "feat(ui): add filter"',
                    "gh pr view 21034"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


def test_commit_messages_and_pr_titles_named_together_require_the_form_of_both():
    # jdx/mise .cursor/rules (held-out set 19): one sentence, two commands
    imp, evaluator = _compiled("All commit messages and PR titles MUST follow conventional commit format.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    for command in ('git commit -m "Add new command for tool management"',
                    'gh pr create --title "Resolve parsing issue with nested tables" --body "Fixes a crash."'):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    for command in ('git commit -m "feat(cli): add new command"', 'git commit -m "registry: add miller"',
                    'gh pr create --title "fix(config): resolve parsing issue" --body "x"', "git status", 'gh pr list --author "@me"'):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command
    # commit messages alone say nothing of PR titles
    _, evaluator = _compiled("All commit messages MUST follow conventional commit format.")
    assert _decide(evaluator, "Bash", {"command": 'gh pr create --title "Resolve parsing issue" --body "x"'}) == "allow"


def test_coordinated_operations_each_a_command_are_all_of_them():
    # jlowin/fastmcp AGENTS.md (held-out set 2)
    imp, evaluator = _compiled("- **NEVER** create a release, comment on an issue, or open a PR unless specifically instructed to do so.")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    for command in ("gh release create v2.14.0", 'gh issue comment 1234 --body "Fixed in main"', 'gh pr create --title "Add auth" --body "..."'):
        assert _decide(evaluator, "Bash", {"command": command}) == "ask", command
    for command in ("gh pr view 1234", "gh issue view 1234", "gh release list"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


@pytest.mark.parametrize("line", [
    "NEVER commit, push, or run tests without explicit user permission.",  # "run tests": no entry reads it
    "Never comment on an issue or run the whole test suite.",
    "Never create release notes.",  # not a GitHub release
    "Never create a release branch.",
])
def test_a_coordination_with_a_part_no_entry_reads_is_no_hook_rule(line):
    assert _rules(line + "\n") == []


def test_a_committed_path_after_a_quoted_message_is_that_path():
    # facebook/lexical AGENTS.md (held-out set 26)
    imp, evaluator = _compiled("- **Never commit changes to `scripts/error-codes/codes.json`.**")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    for command in ("git add scripts/error-codes/codes.json", 'git commit -m "[lexical] Chore: update codes" scripts/error-codes/codes.json',
                    "git commit -m 'update' scripts/error-codes/codes.json"):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    # the name inside the message, another file, or restoring it is no commit of it
    for command in ('git commit -m "update scripts/error-codes/codes.json"', "git commit -m 'bump scripts/error-codes/codes.json'",
                    "git add packages/lexical/src/LexicalEditor.ts", "git checkout main -- scripts/error-codes/codes.json"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


def test_a_usual_top_folder_and_a_name_is_a_path_not_a_shape():
    # openai/openai-agents-python AGENTS.md (held-out set 3)
    imp, evaluator = _compiled("- `docs/`: MkDocs documentation source; do not edit translated docs under `docs/ja`, `docs/ko`, or `docs/zh` "
                               "(they are generated).")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    for path in ("docs/ja/agents.md", "docs/ko/tools.md", "docs/zh/handoffs.md"):
        assert _decide(evaluator, "Edit", {"file_path": path}) == "ask", path
    for path in ("docs/agents.md", "docs/scripts/translate_docs.py", "mkdocs.yml", "docs/japan.md"):
        assert _decide(evaluator, "Edit", {"file_path": path}) == "allow", path
    # a shape like `and/or` or `client/server` is still no path
    for line in ("Never edit `and/or`.", "Never change `client/server`."):
        imp, _ = _compiled(line)
        assert (imp.admission.decision, imp.admission.gate) == ("demoted", "kind"), line


def test_what_a_place_holds_coordinated_with_an_object_is_an_object_too():
    # kyverno/kyverno AGENTS.md (held-out set 27), without its topic label
    imp, evaluator = _compiled("Never edit files matching `zz_generated.*` or content in `pkg/client/` manually.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    for path in ("api/kyverno/v1/zz_generated.deepcopy.go", "pkg/client/clientset/versioned/clientset.go"):
        assert _decide(evaluator, "Edit", {"file_path": path}) == "block", path
    for path in ("api/kyverno/v1/clusterpolicy_types.go", "pkg/engine/engine.go", "pkg/clients/dclient/client.go"):
        assert _decide(evaluator, "Edit", {"file_path": path}) == "allow", path
    # a place after the object alone still narrows it to that place
    _, evaluator = _compiled("Never edit `a.json` in `pkg/client/`.")
    assert _decide(evaluator, "Edit", {"file_path": "pkg/client/a.json"}) == "block"
    assert _decide(evaluator, "Edit", {"file_path": "pkg/client/b.json"}) == "allow"


def test_a_parenthesis_of_folders_and_endings_after_artifacts_names_them():
    # ggml-org/llama.cpp .github/copilot-instructions.md (held-out set 14)
    imp, evaluator = _compiled("- **Never** commit build artifacts (`build/`, `.ccache/`, `*.o`, `*.gguf`)")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    for command in ("git add build/bin/llama-cli", "git add -f models/ggml-model-q4_0.gguf", "git add src/llama.o", "git add .ccache/"):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    for command in ("git add src/llama.cpp", "git add CMakeLists.txt", "git add docs/build.md", "git status"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command
    # a parenthesis that names something else stays an aside
    assert _rules("- Never commit build artifacts (see `docs/build.md`).\n") == []


def test_files_a_dash_enumerates_are_the_files_the_clause_means():
    # traefik/traefik AGENTS.md (held-out set 24)
    imp, evaluator = _compiled("- Do not hand-edit generated files — notably `**/zz_generated*.go`, everything under "
                               "`pkg/provider/kubernetes/crd/generated/`, and `webui/static/`.")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    for path in ("pkg/config/dynamic/zz_generated.deepcopy.go", "pkg/provider/kubernetes/crd/generated/clientset/versioned/clientset.go",
                 "webui/static/index.html"):
        assert _decide(evaluator, "Edit", {"file_path": path}) == "ask", path
    for path in ("pkg/config/dynamic/middlewares.go", "pkg/provider/kubernetes/crd/kubernetes.go", "webui/src/App.tsx"):
        assert _decide(evaluator, "Edit", {"file_path": path}) == "allow", path


@pytest.mark.parametrize("line", [
    "Do not hand-edit generated files — use the generator in `tools/gen/` instead.",  # what to do instead
    "Do not hand-edit generated files — notably, `make gen` rewrites them.",  # a command, not the files
    "Do not hand-edit generated code — notably `webui/static/`.",  # not a clause about files
])
def test_a_dash_that_enumerates_no_files_names_no_files(line):
    assert _rules(line + "\n") == []


def test_a_title_that_must_start_with_listed_prefixes_opens_with_one():
    # gofiber/fiber AGENTS.md (held-out set 5)
    imp, evaluator = _compiled("- PR titles must start with a category prefix describing the change: `🐛 bug:`, `🔥 feat:`, `📒 docs:`, "
                               "or `🧹 chore:`.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    for command in ('gh pr create --title "Fix header parsing for multipart forms" --body "Fixes #3412"',
                    'gh pr create --title "feat: add SendStreamWriter" --body "Adds a streaming writer"'):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    for command in ('gh pr create --title "🐛 bug: fix header parsing" --body "Fixes #3412"', 'gh pr create --title "🧹 chore: bump" --body "CI"',
                    "gh pr view 3412", 'git commit -m "fix header parsing"'):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command
    _, evaluator = _compiled("Commit messages must start with `[area]` or `docs:`.")
    assert _decide(evaluator, "Bash", {"command": 'git commit -m "fix x"'}) == "block"
    for command in ('git commit -m "[area] fix x"', 'git commit -m "docs: x"', "git commit --amend --no-edit", 'gh pr create --title "x"'):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


@pytest.mark.parametrize("line", [
    "PR titles must start with a capital letter.",  # no prefix named
    "Module names must start with `ktor-`.",  # not a title or message
    "PR titles must start with `[ty]` when working on ty.",  # narrowed
    "PR titles must start with the issue key (`ABC-123`) and a colon.",  # not shaped like a prefix
])
def test_near_misses_of_listed_prefixes_are_no_hook_rule(line):
    assert _rules(line + "\n") == []


def test_merging_a_named_branch_into_another_is_that_merge():
    # fluxcd/flux2 AGENTS.md (held-out set 27)
    imp, evaluator = _compiled("- **Rebase, don't merge:** Never merge `main` into the feature branch; rebase onto the latest `main` and "
                               "push with `--force-with-lease`.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    for command in ("git merge main", "git merge origin/main", "git merge --no-ff main"):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    for command in ("git rebase origin/main", "git push --force-with-lease", "git merge --abort", "git merge feature/main-menu",
                    "git checkout main"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


@pytest.mark.parametrize("line", [
    "Never merge into `main`.",  # a PR's merge, not this one
    "Always merge `main` into your branch before opening a PR.",  # asks for it
    "Never merge the feature branch into `main`.",
])
def test_near_misses_of_merging_a_branch_into_another(line):
    assert [r for r in _rules(line + "\n") if "merge" in r["id"] and "into-a-branch" in r["id"]] == []


def test_a_pull_request_base_the_sentence_forbids_is_that_base():
    # BerriAI/litellm CLAUDE.md (held-out set 7): "when creating PRs" is what the pattern reads, no narrowing
    imp, evaluator = _compiled("- When creating PRs, don't set base to `main`.")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    for command in ('gh pr create --base main --title "fix(router): respect Retry-After" --body-file pr.md', "gh pr create -B main --fill"):
        assert _decide(evaluator, "Bash", {"command": command}) == "ask", command
    for command in ('gh pr create --base litellm_internal_staging --title "x"', "git checkout main", "git pull origin main",
                    "git diff main...HEAD --stat", "gh pr create --base main-v2"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command
    _, evaluator = _compiled("Never open PRs against `master`.")
    assert _decide(evaluator, "Bash", {"command": "gh pr create --base master"}) == "block"
    assert _decide(evaluator, "Bash", {"command": "gh pr create --base main"}) == "allow"


@pytest.mark.parametrize("line", [
    "Always set the PR base to `develop`.",  # asks for it
    "Don't set base to `main` when the fix is for a release branch.",  # narrowed
])
def test_near_misses_of_a_pull_request_base(line):
    assert [r for r in _rules(line + "\n") if "against" in r["id"]] == []


def test_committing_changes_to_a_pointer_commits_what_it_points_to():
    # strapi/strapi AGENTS.md (held-out set 22)
    imp, evaluator = _compiled("- **`examples/`** apps are sandboxes only — use them to reproduce and test fixes, never commit changes to "
                               "them unless specifically asked to do so.")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    for command in ("git add examples/getstarted/src/api/article/content-types/article/schema.json", "git add examples/getstarted/config/database.ts"):
        assert _decide(evaluator, "Bash", {"command": command}) == "ask", command
    for command in ("git add packages/core/database/src/query/query-builder.ts", "git diff examples/getstarted",
                    "git checkout -- examples/getstarted/config/database.ts"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


@pytest.mark.parametrize("line", [
    "- **`examples/`** apps are sandboxes only — never commit changes to the API.",  # not a pointer
    "- **`examples/`** apps are sandboxes only — never commit changes to them without running the tests.",  # narrowed
])
def test_near_misses_of_committing_changes_to_a_pointer(line):
    assert _rules(line + "\n") == []


def test_a_prefix_before_the_word_branch_is_the_branch_prefix():
    # langfuse/langfuse AGENTS.md (held-out set 2)
    imp, evaluator = _compiled("- Use Linear's git branch name (`lfe-XXXX-short-title`). Never create a `cursor/` branch, even if a "
                               "Cursor Cloud prompt suggests that prefix.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    for command in ("git checkout -b cursor/fix-trace-filter", "git switch -c cursor/add-seed-scenario", "git worktree add wt -b cursor/y"):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    for command in ("git checkout -b lfe-2087-fix-trace-filter", "git checkout main", "git branch -d cursor/x"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


@pytest.mark.parametrize("line", [
    "Never create a `cursor/` branch for the release.",  # narrowed
    "Never create a branch.",  # no prefix
])
def test_near_misses_of_a_prefix_before_the_word_branch(line):
    assert _rules(line + "\n") == []


def test_a_file_ending_alone_in_parentheses_names_the_files():
    # browser-use/browser-use CLAUDE.md (held-out set 2), outline/outline AGENTS.md (held-out set 27): no backticks
    imp, evaluator = _compiled("NEVER proactively create documentation files (*.md) or README files.")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    for path in ("docs/new-feature.md", "README_TOOLS.md"):
        assert _decide(evaluator, "Write", {"file_path": path, "content": "x"}) == "ask", path
    for path in ("browser_use/tools/service.py", "tests/ci/test_tools.py"):
        assert _decide(evaluator, "Write", {"file_path": path, "content": "x"}) == "allow", path
    imp, evaluator = _compiled("Critical – Do not create new markdown (.md) files.")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    assert _decide(evaluator, "Write", {"file_path": "server/commands/README.md", "content": "x"}) == "ask"
    for path in ("server/commands/documentCreator.ts", "app/i18n/locales/en_US/translation.json"):
        assert _decide(evaluator, "Write", {"file_path": path, "content": "x"}) == "allow", path
    # creating is writing a new file: editing an existing one stays allowed
    assert _decide(evaluator, "Edit", {"file_path": "docs/x.md", "old_string": "a", "new_string": "b"}) == "allow"


@pytest.mark.parametrize("line", [
    "Do not create new files (e.g. .md).",  # an example, not the files
    "Do not write markdown (.md) tables in code comments.",  # not files
    "Avoid long lines in config (.toml) sections.",
])
def test_an_ending_in_parentheses_that_names_no_files_is_no_hook_rule(line):
    assert _rules(line + "\n") == []


def test_a_required_commit_scope_is_a_conventional_type_with_its_scope():
    # nrwl/nx CLAUDE.md (held-out set 18)
    imp, evaluator = _compiled("Scope is **required** for all commits.")
    assert imp.action == "block" and imp.admission.decision == "admitted"
    for command in ('git commit -m "fix: handle missing project graph"', 'git commit -m "feat: add --skip-sync flag"'):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    for command in ('git commit -m "fix(core): handle missing project graph"', 'git commit -m "feat(nx-dev): add --skip-sync flag"',
                    "git commit --amend --no-edit", 'git commit -m "Update readme"'):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


@pytest.mark.parametrize("line", [
    "Always keep commits small in scope.",  # the size of a change
    "PR titles must have a scope.",  # not commits
    "A scope is optional for commits.",
])
def test_near_misses_of_a_required_commit_scope(line):
    assert _rules(line + "\n") == []


def test_introducing_new_libraries_is_installing_packages():
    # temporalio/temporal AGENTS.md (held-out set 12)
    imp, evaluator = _compiled("- Do not introduce new third party libraries unless specifically requested.")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    for command in ("go get github.com/samber/lo@v1.47.0", "go get github.com/stretchr/objx"):
        assert _decide(evaluator, "Bash", {"command": command}) == "ask", command
    for command in ("go mod tidy", "go build ./...", "make proto"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


@pytest.mark.parametrize("line", [
    "Do not introduce new abstractions or libraries of helpers.",
    "Never introduce breaking changes to library APIs.",
    "Do not introduce cyclic dependencies between packages.",
])
def test_introducing_what_is_no_package_installs_nothing(line):
    assert _rules(line + "\n") == []


def test_a_long_option_alone_is_a_commands_argument():
    # dotnet/efcore .github/copilot-instructions.md (held-out set 15): a flag is never file content
    imp, evaluator = _compiled("- Do not add `--no-build` unless the test assembly was built in the immediately preceding step.")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    for command in ("dotnet test --no-build", "dotnet test test/EFCore.Tests --no-build --filter X"):
        assert _decide(evaluator, "Bash", {"command": command}) == "ask", command
    for command in ("dotnet test", "dotnet build --no-restore", "dotnet test --no-build-server"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command
    # a prose entry reads its option first: `--no-verify` skips git hooks
    imp, _ = _compiled("Never use `--no-verify`.")
    assert imp.trigger.lexicon == "skip-hooks"


@pytest.mark.parametrize("line", [
    "Never use `--dry-run` output as proof.",  # a role, not the option
    "Do not add `--verbose` to the README examples.",  # where it goes
    "Do not use `--skip-provision-check` to work around the error.",  # zulip/zulip: the purpose narrows it
])
def test_near_misses_of_a_long_option_alone(line):
    assert _rules(line + "\n") == []


def test_which_dependencies_a_clause_after_the_noun_picks_narrows_the_install():
    # thunderbird/thunderbird-android AGENTS.md (held-out set 5): some dependencies, which no command shows
    assert _rules("Never:\n\n- Introduce dependencies with known vulnerabilities\n") == []
    assert _rules("- Never add libraries that duplicate existing ones.\n") == []


def test_a_to_after_a_second_act_is_that_acts_own():
    # dotnet/sdk .github/copilot-instructions.md (held-out set 21): "to additional files" is where the formatting goes
    imp, evaluator = _compiled("- Do not run `dotnet format` or make formatting changes to additional files.")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    for command in ("./.dotnet/dotnet format", "dotnet format sdk.slnx", "dotnet format whitespace src/Cli/dotnet/dotnet.csproj"):
        assert _decide(evaluator, "Bash", {"command": command}) == "ask", command
    for command in ("./.dotnet/dotnet build src/Cli/dotnet/dotnet.csproj", "git diff --stat"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


@pytest.mark.parametrize("line", [
    "Do not run `npm publish` to test the package.",  # one act: the purpose narrows it
    "Do not run `dotnet format` or other tools to reformat files.",  # "or" with no second act
    "Do not run `dotnet format` in CI or make formatting changes to additional files.",  # a qualifier still narrows
])
def test_a_to_with_no_second_act_still_narrows(line):
    assert _rules(line + "\n") == []


# Findings of the blind held-out set 28 (files 252-260).

def test_files_placed_in_a_folder_are_that_folders_files_not_every_file_in_it():
    # renovatebot/renovate AGENTS.md: "these" takes the files the sentence before names; "in `lib/`" places the glob,
    # and the command in parentheses is no path
    text = ("Files matching `*.generated.ts` in `lib/` are auto-generated during build (`pnpm generate:*`). "
            "Do not edit these directly.\n")
    (rule,) = _rules(text)
    evaluator = Evaluator([rule])
    assert _decide(evaluator, "Edit", {"file_path": "lib/config/options/index.generated.ts", "old_string": "a", "new_string": "b"}) == "ask"
    for path in ("lib/modules/manager/api.ts", "lib/renovate.ts", "tools/generate-imports.ts", "src/x.generated.ts"):
        assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": "b"}) == "allow"
    # two folders named side by side stay two paths
    (rule,) = _rules("Generated code lives in `gen/` and `proto/`. Never edit these by hand.\n")
    evaluator = Evaluator([rule])
    for path in ("gen/a.go", "proto/b.proto"):
        assert _decide(evaluator, "Edit", {"file_path": path, "old_string": "a", "new_string": "b"}) == "block"


def test_a_placeholder_in_a_path_is_any_name():
    # clerk/javascript clerk-monorepo SKILL.md: `packages/<pkg>/.changeset/` is every package's folder, not a folder
    # literally named `<pkg>`
    _, evaluator = _compiled("- Never write changesets in `packages/<pkg>/.changeset/`.")
    assert _decide(evaluator, "Write", {"file_path": "packages/nextjs/.changeset/fix.md", "content": "x"}) == "block"
    for path in (".changeset/fix.md", "packages/nextjs/src/index.ts", "packages/.changeset/fix.md"):
        assert _decide(evaluator, "Write", {"file_path": path, "content": "x"}) == "allow"


def test_directly_after_opening_an_issue_or_pr_says_again_it_is_the_agents_act():
    # renovatebot/renovate AGENTS.md: "**Do not create GitHub Issues directly.**"
    imp, evaluator = _compiled("**Do not create GitHub Issues directly.**")
    assert imp.action == "ask" and imp.admission.decision == "admitted"
    assert _decide(evaluator, "Bash", {"command": 'gh issue create --title "npm manager ignores workspaces"'}) == "ask"
    assert _decide(evaluator, "Bash", {"command": "gh issue list"}) == "allow"
    _, evaluator = _compiled("- Never open a PR yourself.")
    assert _decide(evaluator, "Bash", {"command": "gh pr create --fill"}) == "block"
    # a place after it is another tracker, which no call shows
    assert _rules("Do not create issues directly in Jira.\n") == []


def test_making_a_squash_commit_is_not_squashing():
    # jesseduffield/lazygit AGENTS.md (a hand audit): "Never squash the fixups yourself" stops the squashing
    # (`git rebase --autosquash`, a squash merge), not `git commit --squash=X`, which makes a commit to be squashed later
    _, evaluator = _compiled("**Never squash the fixups yourself.** Leave them in the history as separate commits.")
    assert _decide(evaluator, "Bash", {"command": "git rebase -i --autosquash main"}) == "block"
    assert _decide(evaluator, "Bash", {"command": "git merge --squash feature"}) == "block"
    assert _decide(evaluator, "Bash", {"command": "git commit --squash=HEAD~2 -m 'tweak'"}) == "allow"
    assert _decide(evaluator, "Bash", {"command": "git commit --fixup=abc123"}) == "allow"


# Findings of the held-out set 29 (files 261-270), measured blind and then read.

@pytest.mark.parametrize("line", [
    # hyperdxio/hyperdx AGENTS.md: "required" before a noun describes it, it instructs nothing
    "Use `useConfirm` for dialogs rather than a hand-rolled `Modal` - see `agent_docs/code_style.md` for required patterns.",
    "The mandatory fields are listed in `schema.json`.",
])
def test_required_before_a_noun_is_no_rule_word(line):
    assert _rules(line + "\n") == []


@pytest.mark.parametrize("line", [
    "Sign-off is required for every commit: use `git commit -s`.",
    "**Required**: never push to `main`.",
    "Mandatory: never push to `main`.",
])
def test_required_as_a_predicate_or_a_label_still_instructs(line):
    assert len(_rules(line + "\n")) == 1


def test_using_a_script_is_running_it():
    # github/github-mcp-server copilot-instructions: "**NEVER** use `script/tag-release`"
    imp, evaluator = _compiled("4. **NEVER** use `script/tag-release` or push tags")
    assert imp.action == "block"
    for command in ("script/tag-release v0.30.0", "./script/tag-release v1.2.3"):
        assert _decide(evaluator, "Bash", {"command": command}) == "block"
    assert _decide(evaluator, "Bash", {"command": "cat script/tag-release"}) == "allow"
    assert _decide(evaluator, "Write", {"file_path": "docs/release.md", "content": "Run script/tag-release."}) == "allow"
    _, evaluator = _compiled("Never use `scripts/deploy.sh`.")
    assert _decide(evaluator, "Bash", {"command": "bash -c 'scripts/deploy.sh prod'"}) == "block"
    # editing the script is another act, and a module path used in code stays content
    _, evaluator = _compiled("Do not edit `scripts/deploy.sh`.")
    assert _decide(evaluator, "Edit", {"file_path": "scripts/deploy.sh", "old_string": "a", "new_string": "b"}) == "ask"
    assert _decide(evaluator, "Bash", {"command": "scripts/deploy.sh"}) == "allow"


def test_pushing_tags_is_a_push_that_sends_tags():
    _, evaluator = _compiled("- Never push tags.")
    for command in ("git push --tags", "git push origin --tags", "git push origin refs/tags/v0.30.0", "git push --follow-tags"):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    for command in ("git push origin main", "git push", "git push origin feature-tags", "git tag v1.2.3"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


def test_a_full_stop_after_a_bare_path_ends_the_sentence():
    # facebook/pyrefly AGENTS.md: "… tests pulled from python/typing. Don't edit these manually." made an edit rule
    # on `python/typing.`, the full stop taken into the path and the two sentences read as one
    # (the path itself: test_the_dot_that_ends_a_sentence_is_not_part_of_a_bare_path)
    assert _rules("- conformance - Typing conformance tests pulled from python/typing. Don't edit these manually.\n") == []


def test_changing_a_remote_is_git_remote_set_url_add_remove_or_rename():
    # penpot/penpot AGENTS.md: "Do not change the remote URL, do not switch SSH↔HTTPS."
    imp, evaluator = _compiled("Do not change the remote URL, do not switch SSH↔HTTPS.")
    assert imp.action == "ask"
    for command in ("git remote set-url origin git@github.com:penpot/penpot.git", "git remote remove origin"):
        assert _decide(evaluator, "Bash", {"command": command}) == "ask", command
    for command in ("git remote -v", "git remote get-url origin", "git fetch origin", "git push origin develop"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command
    _, evaluator = _compiled("Never modify `git origin`.")
    assert _decide(evaluator, "Bash", {"command": "git remote rename origin upstream"}) == "block"


@pytest.mark.parametrize("line", [
    "Don't delete remote branches.",  # a remote's branches, not the remote
    "Never modify the remote server.",
    "Do not remove the origin of the data.",  # not a git remote
])
def test_near_misses_of_changing_a_remote(line):
    assert _rules(line + "\n") == []


def test_a_what_to_avoid_heading_hands_its_items_an_ask():
    # zauberzeug/nicegui AGENTS.md: "## What to Avoid" over "- **Overwriting `.env` files** without explicit user confirmation"
    text = "# Rules\n\n## What to Avoid\n\n- **Overwriting `.env` files** without explicit user confirmation\n- Running `npm publish`\n"
    rules = _rules(text)
    assert [r["action"] for r in rules] == ["ask", "ask"]
    evaluator = Evaluator(rules)
    assert _decide(evaluator, "Write", {"file_path": ".env", "content": "KEY=1"}) == "ask"
    assert _decide(evaluator, "Write", {"file_path": "src/env.py", "content": "x"}) == "allow"
    assert _decide(evaluator, "Bash", {"command": "npm publish --access public"}) == "ask"
    # inside a sentence, "what to avoid" states what a text is about
    assert _rules("# Rules\n\nThis page explains what to avoid when running `npm publish`.\n") == []


def test_a_required_co_authored_by_trailer_blocks_a_commit_message_without_one():
    # Chainlit/chainlit AGENTS.md: "All commits made with AI assistance **must** include a `Co-Authored-By` trailer"
    imp, evaluator = _compiled("All commits made with AI assistance **must** include a `Co-Authored-By` trailer identifying the AI agent.")
    assert imp.action == "block"
    for command in ('git commit -m "fix(data): handle empty thread list"', 'git commit -am "feat(i18n): add Hungarian"'):
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    for command in ('git commit -m "fix: x\n\nCo-Authored-By: Claude <noreply@anthropic.com>"',
                    "git commit -m \"$(cat <<'EOF'\nfix: x\n\nco-authored-by: Claude <n@a.com>\nEOF\n)\"",
                    "git commit --amend --no-edit", "git log --grep Co-Authored-By"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command
    # forbidding the trailer is the other rule
    imp, evaluator = _compiled("Do not add `Co-Authored-By` trailers.")
    assert _decide(evaluator, "Bash", {"command": 'git commit -m "fix: x"'}) == "allow"


@pytest.mark.parametrize("line", [
    "- Prefer Conventional Commits: `type(scope): subject` (scope optional)",  # chatwoot/chatwoot (held-out set 18)
    "- Commit messages should follow Conventional Commits.",
    "- Consider using conventional commits.",
])
def test_an_advisory_required_form_warns_on_the_call_without_it(line):
    imp, evaluator = _compiled(line)
    assert imp.action == "warn" and "pass1" in imp.routes, line
    def warned(command: str) -> bool:
        return bool(evaluator.evaluate({"tool_name": "Bash", "tool_input": {"command": command}}).warnings)

    assert warned('git commit -m "Add SSO login for agents"')
    assert not warned('git commit -m "feat(auth): add SSO login for agents"') and not warned("git commit --amend --no-edit")
    assert _decide(evaluator, "Bash", {"command": 'git commit -m "Add SSO login"'}) == "allow"  # a warning, never a block


@pytest.mark.parametrize("line", [
    "- Consider reading the Conventional Commits spec.",  # about the form, no call that has it
    "- You should not use conventional commits.",  # the opposite: a rule on the prefix, not its absence
    "- We usually follow conventional commits.",  # hedged
])
def test_advice_about_a_required_form_that_asks_for_no_call_without_it_stays_out(line):
    ir = compile_sources([source_from_bytes("AGENTS.md", (line + "\n").encode())])
    assert not any(imp.trigger and imp.trigger.kind == "required-form" for imp in ir.imperatives), line
    evaluator = Evaluator(guardrules.emit(ir)["rules"])
    assert not evaluator.evaluate({"tool_name": "Bash", "tool_input": {"command": 'git commit -m "Add SSO login"'}}).warnings


@pytest.mark.parametrize(("line", "blocked"), [
    ("**Only pnpm is supported** (yarn/npm will fail).", ["npm install", "yarn add clsx"]),  # mui/material-ui (set 18)
    ("- **pnpm only, Node `>=24.15`, pnpm `>=10.33`.**", ["npm install", "yarn add @clerk/shared"]),  # clerk (set 28)
    ("- Only uv is supported.", ["pip install requests", "poetry add requests"]),
])
def test_the_only_tool_of_a_family_blocks_the_others(line, blocked):
    imp, evaluator = _compiled(line)
    assert imp.action == "block" and "pass1" in imp.routes, line
    for command in blocked:
        assert _decide(evaluator, "Bash", {"command": command}) == "block", command
    for command in ("pnpm install", "pnpm -F @mui/material add some-package", "uv sync", "cat package.json", "corepack enable"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


def test_for_all_commands_narrows_nothing():
    # renovatebot/renovate (set 28): "Use `pnpm` for all commands (NOT npm/npx)": every command is a command
    _, evaluator = _compiled("- Always use `pnpm` for all commands (not npm).")
    assert _decide(evaluator, "Bash", {"command": "npm install"}) == "block"
    assert _decide(evaluator, "Bash", {"command": "pnpm install"}) == "allow"


@pytest.mark.parametrize("line", [
    "- Use only the public API.",  # no tool of a family
    "- Use the wrapper (not a shell).",  # no member named after "not"
    "- This repo is pnpm only.",  # a description, not a sentence that opens with the tool
    "- Only the maintainers use npm.",  # "only" picks the people
])
def test_only_or_not_without_a_family_member_leading_makes_no_family_rule(line):
    ir = compile_sources([source_from_bytes("AGENTS.md", (line + "\n").encode())])
    evaluator = Evaluator(guardrules.emit(ir)["rules"])
    for command in ("npm install", "yarn add x", "pip install x"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", (line, command)


def test_a_qualifier_that_picks_some_commands_still_narrows_the_family_rule():
    imp, _ = _compiled("- Always use `pnpm` for all Python commands (not npm).")
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "scope")
    imp, _ = _compiled("- Only npm is supported for publishing.")
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "scope")


def _file(text: str):
    ir = compile_sources([source_from_bytes("AGENTS.md", text.encode())])
    return ir, Evaluator(guardrules.emit(ir)["rules"])


@pytest.mark.parametrize("text", [
    # vercel/next.js (set 1) and vitest-dev/vitest (set 11)
    "## PR Descriptions\n\nWhen writing PR descriptions, you MUST include the following HTML comment at the bottom of the "
    "description:\n\n```\n<!-- NEXT_JS_LLM_PR -->\n```\n",
    "## PR Descriptions\n\nWhen creating a pull request, you MUST include the following HTML comment at the bottom of the "
    "PR description:\n\n```\n<!-- NEXT_JS_LLM_PR -->\n```\n",
])
def test_a_pr_body_must_include_the_comment_a_fence_gives_its_lead_line(text):
    ir, evaluator = _file(text)
    (imp,) = ir.imperatives
    assert imp.action == "block" and "pass1" in imp.routes
    assert _decide(evaluator, "Bash", {"command": 'gh pr create --title "Fix prefetch" --body "Fixes prefetch."'}) == "block"
    assert _decide(evaluator, "Bash", {"command": 'gh pr create --draft -t "Fix" -b "Fixes #7"'}) == "block"
    for command in ('gh pr create --title "Fix prefetch" --body "Fixes prefetch.\n\n<!-- NEXT_JS_LLM_PR -->"',
                    "gh pr create --title Fix --body-file /tmp/pr-body.md", "gh pr create --fill", "gh pr view 71234"):
        assert _decide(evaluator, "Bash", {"command": command}) == "allow", command


@pytest.mark.parametrize("text", [
    # a fence of several lines is a list of things (or an example), not one text
    "When creating a pull request, you MUST include the following:\n\n```\n<!-- A -->\n<!-- B -->\n```\n",
    # a text that is no HTML comment (a heading, a sentence) is for the reviewer to judge
    "When creating a pull request, you MUST include the following section:\n\n```\n## Test plan\n```\n",
    # a prohibition over the fence forbids, it requires nothing
    "When creating a pull request, never include the following comment:\n\n```\n<!-- SKIP_CI -->\n```\n",
    # no PR: a commit message or a file is not a PR body
    "Every source file MUST include the following header:\n\n```\n<!-- Copyright Acme -->\n```\n",
])
def test_a_fence_that_is_no_single_required_pr_comment_makes_no_pr_body_rule(text):
    ir, evaluator = _file(text)
    assert not any(imp.trigger and imp.trigger.summary == "PR body without the required comment" for imp in ir.imperatives)
    assert _decide(evaluator, "Bash", {"command": 'gh pr create --title "Fix" --body "Fixes #7"'}) == "allow"


def test_csharp_null_patterns_scope_the_rejected_comparison_to_csharp_files():
    # dotnet/runtime (set 12) and dotnet/aspnetcore (set 7): the recommended form is C#'s, so the rule is on C# files
    imp, evaluator = _compiled("- Always use `is null` or `is not null` instead of `== null` or `!= null`.")
    assert imp.action == "block" and "pass1" in imp.routes
    def decide(path: str, content: str) -> str:
        return _decide(evaluator, "Edit", {"file_path": path, "old_string": "x", "new_string": content})

    assert decide("src/Http/DefaultHttpContext.cs", "        if (context == null)\n") == "block"
    assert decide("src/Http/DefaultHttpContext.cs", "        if (feature != null)\n") == "block"
    for path, content in (("src/Http/DefaultHttpContext.cs", "        if (context is null)\n"),
                          ("src/Http/DefaultHttpContext.cs", "        var same = left == right;\n"),
                          ("src/mono/browser/runtime/loader/config.ts", "  if (value == null) {\n")):
        assert decide(path, content) == "allow", (path, content)


def test_a_recommended_form_of_no_one_language_scopes_nothing():
    # `is None` is no C# null pattern: the rule stays where it was (breadth judges it)
    imp, _ = _compiled("- Always use `x is None` instead of `x == None`.")
    assert "\\.cs$" not in (imp.trigger.file_scope if imp.trigger else "")


def test_a_script_a_list_item_opens_with_is_what_use_this_runs():
    # github/github-mcp-server copilot-instructions: "- **script/tag-release** - **NEVER USE THIS** - releases are managed separately"
    for item in ("- **script/tag-release** - **NEVER USE THIS** - releases are managed separately",
                 "- `script/tag-release` - **NEVER USE THIS**"):
        imp, evaluator = _compiled(item)
        assert imp.action == "block"
        assert _decide(evaluator, "Bash", {"command": "./script/tag-release v1.2.3"}) == "block"
        assert _decide(evaluator, "Bash", {"command": "script/get-me"}) == "allow"
    # a description, a run narrowed by a place, and a bold label are no such rule
    assert _rules("- **script/get-me** - Quick test script for the get_me tool\n") == []
    assert _rules("- `scripts/reset-db.sh` - never run this on production\n") == []
    assert _rules("- **Build** - never use this\n") == []


def test_a_list_item_does_what_its_lead_line_says_and_including_is_no_edit():
    # Arize-ai/phoenix typescript-tooling-migration SKILL.md (a hand audit): folders that "should NOT be included in
    # migrations" may still be edited; the item takes its lead's verb, and 'included' changes no file
    text = ("These directories have their own tooling and should NOT be included in migrations:\n"
            "- `scripts/mock-llm-server/` - Separate mock server\n- `internal_docs/` - Internal documentation utilities\n")
    assert _rules(text) == []
    ir = compile_sources([source_from_bytes("AGENTS.md", text.encode())])
    assert all("'included' does not change a file" in imp.admission.reason for imp in ir.imperatives)
    # a lead whose verb edits still hands it to its items
    (rule,) = _rules("Never edit these directories:\n- `vendor/` - third-party code\n")
    assert _decide(Evaluator([rule]), "Edit", {"file_path": "vendor/lib/a.go", "old_string": "a", "new_string": "b"}) == "block"
    (rule,) = _rules("These files are generated and must not be modified:\n- `src/gen/api.ts`\n")
    assert _decide(Evaluator([rule]), "Edit", {"file_path": "src/gen/api.ts", "old_string": "a", "new_string": "b"}) == "block"


def test_two_commands_joined_as_one_act_forbid_the_pair_not_each():
    # getsentry/sentry-cocoa AGENTS.md (a hand audit): "never `mv` + `git add`" is not a ban on `git add`, nor on the
    # text "mv" in a file (`mv` is a shell command, never file content)
    imp, _ = _compiled("- **File renames** — always use `git mv`, never `mv` + `git add`")
    assert imp.admission.decision == "demoted" and "forbids the pair" in imp.admission.reason
    assert _rules("- **File renames** — always use `git mv`, never `mv` + `git add`\n") == []
    assert _rules("Never run `git stash` followed by `git pull`.\n") == []
    # one command alone is still forbidden
    _, evaluator = _compiled("- Never use `git add -A`.")
    assert _decide(evaluator, "Bash", {"command": "git add -A"}) == "block"
    assert _decide(evaluator, "Write", {"file_path": "scripts/ship.sh", "content": "mv a b\n"}) == "allow"


def test_the_file_utilities_of_a_shell_are_commands_not_file_content():
    # getsentry/sentry-cocoa AGENTS.md (a hand audit): `mv` was read as text a file must not hold
    _, evaluator = _compiled("- Do not use `mv`; use `git mv` instead.")
    assert _decide(evaluator, "Bash", {"command": "mv src/a.swift src/b.swift"}) == "ask"
    assert _decide(evaluator, "Bash", {"command": "git mv src/a.swift src/b.swift"}) == "allow"
    assert _decide(evaluator, "Write", {"file_path": "scripts/release.sh", "content": "mv build/out dist/\n"}) == "allow"



def test_a_string_of_words_in_quotes_is_a_value_not_code():
    # Arize-ai/phoenix phoenix-release-notes SKILL.md (a hand audit): a release note's title must never be
    # `"Release Notes"`, but `docs.json` names its navigation tab "Release Notes", which the skill itself edits
    line = ('- [ ] **Frontmatter title is date-prefixed**: `title: "MM.DD.YYYY: Descriptive Title"` — never `"Release Notes"` '
            "(which is reserved for the index page) and never missing the date prefix")
    imp, _ = _compiled(line)
    assert imp.admission.decision == "demoted" and "a piece of text in quotes" in imp.admission.reason
    # a directive in quotes is code, and a name is still a name
    _, evaluator = _compiled("- Never write `'use strict'`.")
    assert _decide(evaluator, "Write", {"file_path": "src/page.js", "content": "'use strict';\n"}) == "block"
    _, evaluator = _compiled("- `console.log` MUST NOT be used directly.")
    assert _decide(evaluator, "Write", {"file_path": "src/cli.ts", "content": "console.log(x)\n"}) == "block"

def test_a_folder_whose_sentence_names_a_file_inside_it_as_another_thing_is_not_forbidden_whole():
    # e2b-dev/E2B CLAUDE.md (a hand audit): the specs in `spec/` are synced, but the pins beside them in `spec/` are
    # what the next sentence says to bump
    line = ("Never edit the API, envd, or volume-content specs in spec/ by hand; they are synced with Copybara from "
            "e2b-dev/infra and e2b-dev/belt at the commits pinned in spec/infra-ref and spec/belt-ref (see copy.bara.sky "
            "and spec/README.md).")
    imp, _ = _compiled(line)
    assert imp.admission.decision == "demoted" and "names `spec/infra-ref` inside `spec/`" in imp.admission.reason
    # a folder whose sentence names what to use elsewhere is still forbidden whole
    _, evaluator = _compiled("Do not edit `vendor/`, use `third_party/` instead.")
    assert _decide(evaluator, "Edit", {"file_path": "vendor/a.go", "old_string": "a", "new_string": "b"}) == "ask"
    _, evaluator = _compiled("Never edit files in `gen/` by hand; regenerate them with `make gen` instead.")
    assert _decide(evaluator, "Edit", {"file_path": "gen/api.go", "old_string": "a", "new_string": "b"}) == "block"


def test_the_dot_that_ends_a_sentence_is_not_part_of_a_bare_path():
    # found auditing e2b-dev/E2B: "Never edit files in gen/." watched `gen/.`, a file no edit touches
    _, evaluator = _compiled("Never edit files in gen/.")
    assert _decide(evaluator, "Edit", {"file_path": "gen/api.go", "old_string": "a", "new_string": "b"}) == "block"
    _, evaluator = _compiled("Never edit src/gen/api.ts.")
    assert _decide(evaluator, "Edit", {"file_path": "src/gen/api.ts", "old_string": "a", "new_string": "b"}) == "block"
    assert _decide(evaluator, "Edit", {"file_path": "src/gen/api.tsx", "old_string": "a", "new_string": "b"}) == "allow"


def test_constructing_a_type_is_a_call_of_its_constructor_not_every_mention():
    # getsentry/sentry-dart test-guidelines SKILL.md (a hand audit): "never construct `SentryOptions` directly" blocked
    # every test that names the type (`final SentryOptions options = defaultTestOptions();`)
    _, evaluator = _compiled("Always build options via `defaultTestOptions()` from `test_utils.dart` — never construct "
                             "`SentryOptions` directly.")
    def write(content: str) -> str:
        return _decide(evaluator, "Write", {"file_path": "test/client_test.dart", "content": content})

    assert write("final options = SentryOptions(dsn: fakeDsn);\n") == "block"
    assert write("const o = new SentryOptions();\n") == "block"
    assert write("final SentryOptions options = defaultTestOptions();\n") == "allow"
    assert write("void configure(SentryOptions options) {}\n") == "allow"
    # the verb "use" still watches every use of a name
    _, evaluator = _compiled("Never use `SentryOptions` in tests.")
    assert _decide(evaluator, "Write", {"file_path": "test/a_test.dart", "content": "SentryOptions? o;\n"}) == "block"


def test_a_place_after_the_form_a_preference_turns_down_is_where_it_holds():
    # getsentry/sentry-go AGENTS.md (a hand audit): the warning held in every test file, though the sentence speaks of
    # the tests built on `internal/sentrytest` only
    imp, _ = _compiled("- Prefer `fixture.Flush()` over direct `sentry.Flush(...)` in tests built on `internal/sentrytest`")
    assert imp.admission.decision == "demoted" and "narrows the rule" in imp.admission.reason
    # a place in words is how the turned-down side is met (tensorzero/tensorzero, chatwoot/chatwoot in the held-out
    # set): the rule stays; with no place, the preference holds everywhere
    imp, _ = _compiled('- Prefer "Postgres" instead of "PostgreSQL" in comments, error messages, and docs.')
    assert imp.admission.decision == "admitted"
    _, evaluator = _compiled("- Prefer `fixture.Flush()` over direct `sentry.Flush(...)`")
    write = {"tool_name": "Write", "tool_input": {"file_path": "client_test.go", "content": "sentry.Flush(time.Second)\n"}}
    assert evaluator.evaluate(write).warnings


# Findings of the held-out set 30 (files 271-278), measured blind and then read.

def test_a_javadoc_tag_is_code_not_a_git_tag():
    # apache/pekko AGENTS.md: "Do not add `@author` tags."
    imp, evaluator = _compiled("Do not add `@author` tags.")
    assert imp.action == "ask"
    assert _decide(evaluator, "Write", {"file_path": "src/Main.java", "content": "/**\n * @author jdoe\n */"}) == "ask"
    assert _decide(evaluator, "Write", {"file_path": "src/Main.java", "content": "/** Reads the stream. */"}) == "allow"
    assert _rules("Never push the `v1` tag.\n") == []  # a git tag's name is no text in a file


def test_a_types_member_is_code_not_a_file():
    # apache/pekko AGENTS.md: "Avoid `Thread.sleep`." (read as a file named `Thread.sleep` and demoted)
    imp, evaluator = _compiled("- Avoid `Thread.sleep`.")
    assert imp.action == "ask"
    assert _decide(evaluator, "Edit", {"file_path": "src/test/FooSpec.scala", "old_string": "a", "new_string": "Thread.sleep(100)"}) == "ask"
    assert _decide(evaluator, "Edit", {"file_path": "src/test/FooSpec.scala", "old_string": "a", "new_string": "probe.expectMsg(Done)"}) == "allow"
    # a lowercase name with an unknown ending may be a file: still no rule
    assert _rules("Avoid `config.local`.\n") == []


def test_a_place_in_code_is_no_folder_when_the_verb_has_its_own_object():
    # bitwarden/android .claude/CLAUDE.md, under "### DON'T": "Update state directly inside coroutines" updates the
    # state, somewhere in the code; no folder named `coroutines/` is meant
    assert _rules("# Rules\n\n### DON'T\n- Update state directly inside coroutines (use internal actions)\n") == []
    # with no object of its own, the place is what the edit acts on
    _, evaluator = _compiled("Never change anything in `vendor/`.")
    assert _decide(evaluator, "Edit", {"file_path": "vendor/lib/a.go", "old_string": "a", "new_string": "b"}) == "block"
    _, evaluator = _compiled("Never modify files under `dist/`.")
    assert _decide(evaluator, "Edit", {"file_path": "dist/app.js", "old_string": "a", "new_string": "b"}) == "block"


def test_a_named_path_that_holds_the_forbidden_folder_further_down_stays_allowed():
    # feast-dev/feast AGENTS.md: the place the sentence asks for ends in the folder it forbids elsewhere
    imp, evaluator = _compiled("**Blog posts must be placed in `/infra/website/docs/blog/`** — do NOT create blog posts under "
                               "`docs/blog/` or any other location.")
    assert imp.action == "block"
    assert _decide(evaluator, "Write", {"file_path": "docs/blog/launch.md", "content": "x"}) == "block"
    assert _decide(evaluator, "Write", {"file_path": "sdk/docs/blog/launch.md", "content": "x"}) == "block"
    assert _decide(evaluator, "Write", {"file_path": "infra/website/docs/blog/feast-dqm-monitoring.md", "content": "x"}) == "allow"
    # a path that starts with the forbidden folder is inside it, no other place
    _, evaluator = _compiled("Never edit `docs/blog/` or `docs/blog/drafts/`.")
    assert _decide(evaluator, "Edit", {"file_path": "docs/blog/drafts/a.md", "old_string": "a", "new_string": "b"}) == "block"


# Findings of the hand audit on the final tree (modelcontextprotocol/inspector, koel/koel).

def test_an_act_on_a_file_alone_forbids_it_only_without_the_other():
    # modelcontextprotocol/inspector AGENTS.md: "Never edit `copilot-instructions.md` alone to change a rule; change it
    # here first, then mirror." (the mirror step edits it)
    imp, _ = _compiled("** Never edit `copilot-instructions.md` alone to change a rule; change it here first, then mirror.")
    assert imp.admission.decision == "demoted" and "alone" in imp.admission.reason
    _, evaluator = _compiled("Never edit `copilot-instructions.md`.")
    assert _decide(evaluator, "Edit", {"file_path": ".github/copilot-instructions.md", "old_string": "a", "new_string": "b"}) == "block"


def test_a_verb_in_quotes_is_still_the_verb():
    # modelcontextprotocol/inspector AGENTS.md: '**Do not "fix" a `Done` card that is missing a milestone.**' asked on
    # every `Done` written; fixing a card writes nothing
    imp, _ = _compiled('**Do not "fix" a `Done` card that is missing a milestone.**')
    assert imp.admission.decision == "demoted" and "'fix'" in imp.admission.reason
    imp, _ = _compiled('Do not "use" `eval`.')
    assert imp.admission.decision == "admitted"


def test_a_rule_word_after_whose_and_a_noun_describes_it():
    # modelcontextprotocol/inspector AGENTS.md: "(the other clients, whose tests don't spawn their bundle, keep an explicit
    # `build`)" asked before every build command
    assert _rules("It has **no** separate `build` step (the other clients, whose tests don't spawn their bundle, keep an "
                  "explicit `build`).\n") == []
    # a rule word after the noun's own verb is still one (here narrowed by its subject, so it goes to Pass 2)
    imp, _ = _compiled("Clients whose tests spawn a bundle must never run `npm run build`.")
    assert imp.action == "block" and imp.marker.lower() == "must never"


@pytest.mark.parametrize("line", [
    "Don't add a dependency to a client just to satisfy this.",  # modelcontextprotocol/inspector AGENTS.md
    "Never force push only to tidy the history.",
])
def test_an_act_forbidden_just_for_one_purpose_goes_to_pass_2(line):
    imp, _ = _compiled(line)
    assert imp.admission.decision == "demoted" and "that purpose only" in imp.admission.reason


def test_a_purpose_that_does_not_limit_the_ban_keeps_the_rule():
    imp, _ = _compiled("Never push to main, not even to fix a typo.")
    assert imp.admission.decision == "admitted"
