"""Recall (issue 10, part A): commands and identifiers that prose names without backticks.

Each sentence is compiled as a rule file writes it. When it becomes a rule, the emitted
distilled-rules.json is run through the project's evaluator (compiler.harness) on the calls the
sentence forbids and on near misses it must let through. When its qualifier cannot be checked
from a tool call ("a pushed commit"), the outcome is Pass 2, with a reason naming the words.
"""

from __future__ import annotations

import re
from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st
from policyc.compiler import regex_safety
from policyc.compiler.harness import Evaluator, rule_fires
from policyc.compiler.pipeline import compile_sources
from policyc.compiler.regexes import redos_reasons, syntax_problems
from policyc.compiler.sources import source_from_bytes
from policyc.compiler.triggers import load_lexicon
from policyc.emitters import guardrules


@cache
def _compiled(sentence: str):
    return compile_sources([source_from_bytes("AGENTS.md", (sentence + "\n").encode())])


def _only(sentence: str):
    imperatives = _compiled(sentence).imperatives
    assert len(imperatives) == 1, [i.quote for i in imperatives]
    return imperatives[0]


@cache
def _evaluator(sentence: str) -> Evaluator:
    return Evaluator(guardrules.emit(_compiled(sentence))["rules"])


def _acts(sentence: str, tool: str, tool_input: dict) -> bool:
    return _evaluator(sentence).evaluate({"tool_name": tool, "tool_input": tool_input}).decision != "allow"


def bash(*commands: str) -> list[tuple[str, dict]]:
    return [("Bash", {"command": c}) for c in commands]


def write(*files: tuple[str, str]) -> list[tuple[str, dict]]:
    return [("Write", {"file_path": path, "content": content}) for path, content in files]


RULES = [
    # (sentence, trigger kind, calls it must act on, near misses it must let through)
    ("Never build in release mode.", "prose:release-build",
     bash("cargo build --release", "cargo build --profile release", "dotnet publish -c Release", "swift build -c release",
          "cd app && flutter build apk --release", "./gradlew :app:assembleRelease", "cmake -DCMAKE_BUILD_TYPE=Release .."),
     bash("cargo build", "cargo build --profile dev", "dotnet build -c Debug", "git log --grep release", "gh release view",
          "cargo test --workspace")),
    ("Never bump every dependency at once.", "prose:update-every-dependency",
     bash("npm update", "pnpm up --latest", "yarn upgrade", "cargo update", "poetry update", "uv lock --upgrade",
          "npm update && npm test", "pnpm -r update", "npx npm-check-updates -u", "go get -u ./..."),
     bash("npm update lodash", "pnpm up react --latest", "cargo update -p serde", "poetry update requests",
          "uv lock --upgrade-package requests", "npm install", "npm uptime", "go get -u example.com/pkg")),
    ("Never commit and push in a single command.", "prose:commit-and-push",
     bash("git commit -m wip && git push", "git add . && git commit -m fix; git push origin main",
          "git commit -am fix\ngit push"),
     bash("git commit -m 'then git push'", "git commit -m wip", "git push", "git push && git commit -m next")),
    ("never use `@ts-ignore`.", "prose:ts-suppress",
     write(("src/a.ts", "// @ts-ignore\nfoo()"), ("src/b.tsx", "{/* @ts-ignore */}")),
     write(("src/a.ts", "// @ts-expect-error: typed later\nfoo()"), ("docs/typescript.md", "Avoid `// @ts-ignore`."),
           ("src/a.ts", "// @ts-nocheck"))),
    ("never catch a bare exception.", "prose:bare-except",
     write(("app/a.py", "try:\n    run()\nexcept:\n    pass\n"), ("app/b.py", "try:\n    run()\nexcept Exception as exc:\n    log(exc)\n"),
           ("app/c.py", "    except (Exception):\n        raise")),
     write(("app/a.py", "try:\n    run()\nexcept ValueError:\n    pass\n"), ("app/b.py", "exceptional = True\n"),
           ("docs/errors.md", "except:\n    pass\n"), ("app/c.py", "except (ValueError, TypeError) as exc:\n"))),
    ("Do not disable lint rules inline.", "prose:inline-lint-suppression",
     write(("src/a.ts", "// eslint-disable-next-line no-console\nconsole.log(x)"), ("src/a.py", "import os  # noqa: F401"),
           ("src/b.py", "x = f()  # type: ignore[arg-type]"), ("src/lib.rs", "#[allow(dead_code)]\nfn f() {}"),
           ("cmd/main.go", "x, _ := f() //nolint:errcheck"), ("src/A.java", '@SuppressWarnings("unchecked")')),
     write(("src/a.ts", "// lint rules live in eslint.config.js"), ("README.md", "Run ruff; never add `# noqa`."),
           ("src/a.py", "import os\n"), ("src/lib.rs", "#[derive(Debug)]\nstruct S;"))),
    ("Do not suppress ESLint rules.", "prose:eslint-disable",
     write(("src/a.ts", "// eslint-disable-next-line react-hooks/exhaustive-deps"), ("src/b.jsx", "/* eslint-disable */")),
     write(("src/a.ts", "// eslint rules live in eslint.config.js"), ("docs/lint.md", "eslint-disable is discouraged"),
           ("app/a.py", "import os  # noqa: F401"))),
    ("Do not add or widen ESLint disable comments or config overrides.", "prose:eslint-disable",
     write(("src/a.ts", "// eslint-disable-next-line no-console"),), write(("src/a.py", "x = 1  # noqa"),)),
    ("Never open a PR.", "command", bash("gh pr create --fill", "gh pr create -t x -b y"), bash("gh pr view 1", "gh pr list")),
    ("Never skip tests.", "prose:skip-tests",
     write(("src/a.test.ts", "it.skip('renders', () => {})"), ("tests/test_a.py", "@pytest.mark.skip(reason='flaky')\ndef test_a(): ..."),
           ("src/a.spec.js", "xit('renders', () => {})"), ("src/lib.rs", "#[test]\n#[ignore]\nfn slow() {}")),
     write(("tests/test_a.py", "@pytest.mark.skipif(sys.platform == 'win32', reason='posix only')"),
           ("tests/conftest.py", "pytest.skip('needs the extra')"), ("a_test.go", "if testing.Short() { t.Skip() }"),
           ("src/a.test.ts", "it('skips nothing', () => {})"), ("src/box.ts", "box.xit(1)"))),
    ("Avoid merging pull requests.", "command", bash("gh pr merge 12", "gh pr merge --auto --squash"),
     bash("gh pr view 12", "git merge main", "gh pr create --fill")),
    ("Avoid inline styles.", "prose:inline-styles",
     write(("src/row.tsx", '<div style={{ display: "flex", gap: 8 }}>'), ("public/index.html", '<span style="color: red">x</span>')),
     write(("src/row.tsx", '<div className="row">'), ("src/row.tsx", 'import "./row.css";'), ("app/plot.py", 'plot(style="dark")'),
           ("src/row.tsx", "<Box borderStyle={x} />"))),
    ("Never create minor or major version bumps.", "prose:version-bump",
     write((".changeset/brave-lions.md", '---\n"claude-dev": minor\n---\n\nAdd a feature\n'),
           (".changeset/calm-cats.md", "---\n'@scope/pkg': major\n---\n")),
     write((".changeset/brave-lions.md", '---\n"claude-dev": patch\n---\n\nA minor fix\n'),
           ("docs/release.md", '"claude-dev": minor\n'))),
    # git operations
    ("Never force push.", "prose:force-push",  # --force-with-lease still rewrites the remote's history
     bash("git push --force origin main", "git push -f", "git push --force-with-lease origin feat"),
     bash("git push origin feat", "git push --follow-tags")),
    ("Never force push; use `--force-with-lease` instead.", "prose:force-push",
     bash("git push --force origin main", "git push -f origin feat"),
     bash("git push --force-with-lease origin feat", "git push origin feat")),
    ("Never force push to main.", "prose:force-push-branch",
     bash("git push --force origin main", "git push -f origin HEAD:main", "git push origin +main",
          "git push --force-with-lease origin main"),
     bash("git push --force origin feat", "git push origin main", "git push -f origin main-backup", "git push -f origin feat/main")),
    ("Never squash commits.", "prose:squash",
     bash("git merge --squash feature", "gh pr merge 12 --squash", "git rebase -i --autosquash main"),
     bash("git merge feature", "gh pr merge 12 --rebase", "git commit -m squash")),
    ("Never create git tags.", "prose:create-tag",
     bash("git tag v1.2.0", "git tag -a v1.2.0 -m release", "gh release create v1.2.0"),
     bash("git tag", "git tag -l", "git tag -d v1.2.0", "git push origin main")),
    ("Never amend commits.", "prose:amend", bash("git commit --amend --no-edit"), bash("git commit -m amend")),
    ("Never rebase.", "prose:rebase", bash("git rebase main"), bash("git merge main")),
    # the git verb alone is the git operation
    ("Do not commit.", "command", bash("git commit -m wip", "git add . && git commit -am fix", "/usr/bin/git commit"),
     bash("git status", "git log --grep commit", "git push")),
    ("Never push your changes.", "command", bash("git push", "git push origin feat", "git -C app push"),
     bash("git pull", "git stash push", "git commit -m push")),
    # package managers: the update verb, and "use X, not Y"
    ("Never update dependencies.", "prose:update-dependencies",
     bash("npm update lodash", "cargo update -p serde", "uv lock --upgrade-package requests", "yarn up react"),
     bash("npm install", "npm ci", "cargo build", "uv lock")),
    ("Never use npm; use pnpm.", "prose:use-package-manager",
     bash("npm install", "cd web && npm run build"),
     bash("pnpm install", "npx prettier --check .", "pnpm run build")),
    ("Never use yarn or npm.", "prose:use-package-manager",
     bash("yarn add react", "npm ci"), bash("pnpm add react", "bun install")),
    # the family member the sentence rejects, not the whole family
    ("Always use pnpm, not npm.", "command", bash("npm install", "cd web && npm run build"), bash("pnpm install", "yarn install")),
    ("Always use pnpm.", "command", bash("npm install", "yarn install", "bun install"), bash("pnpm install")),
    # two operations the rule word governs alike are both the rule; one the words narrow is left out
    ("**Never amend commits or force push.**", "prose:force-push",
     bash("git commit --amend --no-edit", "git push --force origin feat", "git push -f"),
     bash("git commit -m x", "git push origin feat")),
    ("Never force push; amend your commit instead.", "prose:force-push", bash("git push --force"), bash("git commit --amend")),
    # a comma joins them too (the clause's words leave it out; the clause keeps where it stood)
    ("Never rebase, amend or force-push", "prose:force-push",
     bash("git rebase master", "git commit --amend --no-edit", "git push --force origin feat"), bash("git merge main", "git commit -m x")),
    ("You are not allowed to use `--no-verify` when making a commit or push.", "prose:skip-hooks",  # vercel/turborepo
     bash("git commit --no-verify -m x", "git push --no-verify", "git commit -n -m x", "git commit -anm x"),
     bash("git commit -m x", "git push -n origin main", 'git commit -m "add the -n flag"', "git commit --amend --no-edit")),
    ("Never commit or push.", "prose:commit-or-push", bash("git commit -m x", "git push origin dev"), bash("git status", "git stash push")),
    ("Don't commit, push your changes.", "prose:commit-or-push", bash("git commit -am x"), bash("git log")),
    ("Never squash merge PRs.", "prose:squash", bash("gh pr merge 12 --squash"), bash("gh pr merge 12 --merge")),  # one operation
    ("Never force push to main or amend pushed commits.", "prose:force-push-branch",
     bash("git push --force origin main"), bash("git commit --amend", "git push --force origin feat")),
    # "use `X` from Y" is that import
    ("Do not use `expect` from Vitest; use `assert` from `@effect/vitest`.", "content",
     write(("src/a.test.ts", 'import { expect, it } from "vitest"\n')),
     write(("src/a.test.ts", 'import { assert, it } from "@effect/vitest"\n'), ("src/b.test.ts", "expect(x).toBe(1)\n"))),
    # "in the lockfile" is where every update lands; the "and" before the next clause is not a qualifier
    ("NEVER update all dependencies in the lockfile and ALWAYS use `cargo update --precise` to make lockfile changes",
     "prose:update-every-dependency", bash("cargo update"), bash("cargo update --precise 1.2.3 -p serde", "cargo build")),
    # a file run as a program is that program, at a command position; `dir/*` is any program in the folder
    ("Never invoke Node-installed binaries through `./node_modules/.bin/*`.", "command",
     bash("./node_modules/.bin/eslint .", "cd web && node_modules/.bin/tsc -p ."),
     bash("pnpm exec eslint .", "ls ./node_modules/.bin/", "npx eslint .")),
    ("Do not execute `./bin/release`.", "command", bash("./bin/release --dry", "bin/release"),
     bash("./bin/release-notes", "cat bin/release", "vim bin/release")),
    # "in code, comments, or documentation" is everywhere an em dash can be written
    ("Never use em dashes (—) in code, comments, or documentation; use regular dashes.", "prose:em-dash",
     write(("docs/a.md", "fast — safe"), ("main.go", "// fast — safe")), write(("docs/a.md", "fast - safe"))),
    ("Never create an issue.", "command", bash("gh issue create --title x"), bash("gh issue list", "gh pr create")),
    # next.js: the lines an agent signs its work with, in a commit or a pull request
    ("Do NOT add \"Generated with Claude Code\" or co-author footers to commits or PRs", "prose:ai-attribution",
     bash('git commit -m "Fix x\n\n🤖 Generated with [Claude Code](https://claude.com/claude-code)"',
          'git commit -m "Fix x\n\nCo-Authored-By: Claude <noreply@anthropic.com>"', 'gh pr create --body "Generated with Claude Code"'),
     bash('git commit -m "Fix router prefetch"', "git log -5 --format=%B")),
    # two entries join only with the same flags: "Co-Authored-By" keeps its case-insensitive match
    ('Do not add "Co-Authored-By" or any AI attribution trailers to commit messages, by any means', "prose:agent-co-author",
     bash('git commit -m "Fix" -m "Co-Authored-By: Claude <noreply@anthropic.com>"'), bash('git commit -m "Fix NPE"')),
    # a required sign-off: every commit without it, and no spelling of it
    *((sentence, "required-form",
       bash("git commit -m 'fix: x'", "git -C repo commit -am 'x'", "git add . && git commit -m x", "git commit -S -m x"),
       bash("git commit -s -m 'fix: x'", "git commit -sm 'x'", "git commit --signoff -m x", "git commit -a -s", "git status"))
      for sentence in ("Always commit with `-s`:", "DCO sign-off: All commits MUST use the `-s` flag (otherwise CI will reject them).",
                       "Always sign off your commits.", "Always use `git commit -s` when committing.")),
    ("Always sign off your commits.", "required-form", bash("git commit -m x"),
     bash('git commit -m "$(cat <<\'EOF\'\nfix: x\n\nSigned-off-by: A <a@b.c>\nEOF\n)"')),
    # a conventional commit message: required (a -m message without a type), or forbidden (one with it)
    *((sentence, "required-form",
       bash('git commit -m "Add retry to provider fetch"', "git commit -am wip", 'git add . && git commit -m "Add x"'),
       bash('git commit -m "fix: add retry"', 'git commit -m "feat(tui): add picker"', "git commit -m 'refactor!: drop x'",
            'git commit -m "Fix: capital"', "git commit -F /tmp/msg.txt", "git commit --amend --no-edit",
            'git commit -m "$(cat <<\'EOF\'\nfix: x\nEOF\n)"', 'git commit -m "fix: pass -m wip to x"'))
      for sentence in ("ALWAYS use semantic commits", "Always write commit messages in the conventional commits format.")),
    ("ALWAYS use semantic commits (`fix:`, `feat:`, `chore:`, `refactor:`, `docs:`, `sec:`, etc).", "required-form",
     bash('git commit -m "Add retry"'), bash('git commit -m "sec: rotate keys"', 'git commit -m "fix: x"')),  # crush's own `sec:`
    ("Do not use conventional commit prefixes such as `feat:`, `fix:`, `chore:`, `refactor:`, `perf:` or `style:`.",
     "prose:conventional-commit-prefix", bash('git commit -m "fix: handle missing tap"', 'git commit -sm "feat: add --json"'),
     bash('git commit -m "reinstall: handle missing tap"', "git commit -m 'Fix the typecheck'", "git log --oneline -5")),
]


@pytest.mark.parametrize("sentence, kind, hits, misses", RULES, ids=[r[0] for r in RULES])
def test_prose_names_an_admitted_rule(sentence, kind, hits, misses):
    imp = _only(sentence)
    assert imp.admission.decision == "admitted", imp.admission
    assert imp.trigger.label == kind
    for tool, tool_input in hits:
        assert _acts(sentence, tool, tool_input), (sentence, tool_input)
    for tool, tool_input in misses:
        assert not _acts(sentence, tool, tool_input), (sentence, tool_input)


PASS2 = [
    # (sentence, the words the reason names): the command cannot tell what the sentence narrows it by
    ("Never amend a pushed commit.", "pushed commit"),  # amending a local commit is ordinary work
    ("Never amend commits that have already been pushed.", "commits that have already been pushed"),
    ("Never rebase shared branches.", "shared branches"),
    ("Never force push to shared branches.", "shared branches"),
    ("Never install packages globally.", "globally"),
    ("Never run cargo build in release mode.", "in release mode"),  # the backticked-command reading keeps its qualifier
    # a `raise ValueError` pattern would be the rule, but the repository's own commits raise them
    # (benchmarks/false_alarms.py: 2 of its 365 ordinary calls): left to the gate that reads the sentence
    ("Never use generic `ValueError` or bare `Exception` for raising errors.", "for raising errors"),
    ("Always sign off commits on the release branch.", "on the release branch"),  # the branch is not in the command
]


@pytest.mark.parametrize("sentence, words", PASS2, ids=[p[0] for p in PASS2])
def test_an_unscoped_qualifier_goes_to_pass2_with_its_words(sentence, words):
    imp = _only(sentence)
    assert imp.admission.decision == "demoted" and imp.admission.gate == "scope", imp.admission
    assert words in imp.admission.reason
    assert imp.routes == ["pass2"] and imp.pass2_cause == imp.admission.reason
    assert not guardrules.emit(_compiled(sentence))["rules"]


@pytest.mark.parametrize("sentence", ["Don't forget to commit.", "Don't commit until tests pass.", "Never commit directly to main.",
                                      "Don't skip running tests before you commit.", "Never merge PRs without review.",
                                      "Never commit without running tests.", "Never push to a fork."])
def test_a_git_verb_with_more_words_after_it_is_not_the_bare_operation(sentence):
    # each says when or where, which a command does not show: the gate that reads the sentence decides
    assert not guardrules.emit(_compiled(sentence))["rules"]


def test_leaving_the_commit_to_the_user_asks_before_each_commit():
    # pytorch/pytorch CLAUDE.md (held-out)
    sentence = "Don't commit unless the user explicitly asks you to."
    assert _only(sentence).action == "ask"
    assert _evaluator(sentence).evaluate({"tool_name": "Bash", "tool_input": {"command": "git commit -m fix"}}).decision == "ask"


@pytest.mark.parametrize("sentence, command", [
    ("Never commit or push without asking.", "git push origin feat"),
    ("Never make any commits or pushes without first requesting.", "git commit -m fix"),  # nushell AGENTS.md (held-out)
    ("Never run `git push` without explicit user approval.", "git push"),
    ("Never commit without explicit instructions to do so.", "git commit -am wip"),
])
def test_without_a_person_s_leave_asks_before_each_call(sentence, command):
    """"without asking", "without explicit approval": the exception is a person's, as in "unless asked"; it
    neither narrows what is forbidden nor leaves the rule to Pass 2."""
    imp = _only(sentence)
    assert imp.action == "ask" and imp.clause.condition.startswith("without") and not imp.clause.qualifiers
    assert _evaluator(sentence).evaluate({"tool_name": "Bash", "tool_input": {"command": command}}).decision == "ask"
    assert _evaluator(sentence).evaluate({"tool_name": "Bash", "tool_input": {"command": "git status"}}).decision == "allow"


@pytest.mark.parametrize("sentence", ["Never push without running the tests first.", "Never merge without a green build."])
def test_without_anything_but_a_person_s_leave_still_narrows(sentence):
    assert not guardrules.emit(_compiled(sentence))["rules"]


def test_an_amended_commit_is_ordinary_work_when_the_sentence_says_pushed():
    """The honest outcome for "Never amend a pushed commit": no rule blocks `git commit --amend`."""
    evaluator = _evaluator("Never amend a pushed commit.")
    assert evaluator.evaluate({"tool_name": "Bash", "tool_input": {"command": "git commit --amend --no-edit"}}).decision == "allow"


def test_a_language_entry_keeps_the_sentence_s_own_file_scope():
    """"in tests" narrows a content entry further: both scopes hold."""
    sentence = "Never use `@ts-ignore` in tests."
    assert _only(sentence).admission.decision == "admitted"
    assert _acts(sentence, "Write", {"file_path": "src/a.test.ts", "content": "// @ts-ignore"})
    assert not _acts(sentence, "Write", {"file_path": "src/a.ts", "content": "// @ts-ignore"})
    assert not _acts(sentence, "Write", {"file_path": "src/a.test.md", "content": "// @ts-ignore"})


def test_prefer_a_family_member_warns_on_the_others():
    """"Prefer pnpm over npm": a soft marker, so a warning, never a block."""
    sentence = "Prefer pnpm over npm."
    imp = _only(sentence)
    assert imp.admission.decision == "admitted" and imp.action == "warn"
    found = _evaluator(sentence).evaluate({"tool_name": "Bash", "tool_input": {"command": "npm install"}})
    assert found.decision == "allow" and found.warnings
    assert not _evaluator(sentence).evaluate({"tool_name": "Bash", "tool_input": {"command": "pnpm install"}}).warnings


def _entry_regexes():
    """Every regex a prose or required entry can emit, {NAMES} filled with every name its `names` reads."""
    for entry in load_lexicon().prose + load_lexicon().required:
        names = re.search(r"\(([\w|]+)\)", entry.get("names", ""))
        for regex in filter(None, [entry.get("regex"), entry.get("spares", {}).get("regex")]):
            yield entry["id"], regex.replace("{NAMES}", names.group(1) if names else ""), entry.get("flags", "")


def test_every_prose_regex_is_safe_and_never_matches_the_empty_string():
    found = list(_entry_regexes())
    for entry_id, regex, flags in found:
        assert not redos_reasons(regex) and not syntax_problems(regex, flags), entry_id
    assert not any(regex_safety.problems([(regex, flags) for _, regex, flags in found]))


_FLAG = st.from_regex(r"\A--?[a-z][a-z-]{0,8}\Z")
_PACKAGE = st.from_regex(r"\A[a-z][a-z0-9-]{0,10}\Z")


@cache
def _update_every_dependency_rule() -> dict:
    """Compiled once: each example only runs the rule."""
    return guardrules.emit(_compiled("Never bump every dependency at once."))["rules"][0]


@given(manager=st.sampled_from(["npm update", "pnpm up", "yarn upgrade", "cargo update", "poetry update"]),
       flags=st.lists(_FLAG, max_size=3), package=st.one_of(st.none(), _PACKAGE), tail=st.sampled_from(["", " && npm test", "; echo ok"]))
def test_updating_every_dependency_is_the_update_verb_with_no_package_named(manager, flags, package, tail):
    rule = _update_every_dependency_rule()
    command = " ".join([manager, *flags, *([package] if package else [])]) + tail
    assert rule_fires(rule, "Bash", {"command": command}) is (package is None), command


# --- the rejected side of a positive sentence (issue 10, part B) ---
# "X, not Y", "X instead of Y", "X over Y": Y gives the trigger, X the suggestion; never the reverse.

def edit(*edits: tuple[str, str]) -> list[tuple[str, dict]]:
    return [("Edit", {"file_path": path, "old_string": "x", "new_string": text}) for path, text in edits]


REJECTED = [
    # (sentence, action, calls it must act on, calls it must let through: the recommended side first)
    # the recommended remote is named only in parentheses: ", not to `upstream`" is still the rejected side
    ("**Always push to the user's fork (`origin`)**, not to `upstream` (`apache/airflow`).", "block",
     bash("git push upstream main", "git push upstream fix-grid-refresh"),
     bash("git push -u origin fix-grid-refresh", "git fetch upstream main", "git rebase upstream/main")),
    # a stated preference ("I want you to") warns; the typing generic is the annotation, never the word
    ("In Python, I want you to use the latest type syntax (`type | None`) instead of `Optional`.", "warn",
     edit(("app/chat.py", "    chat_id: Optional[UUID] = None")),
     edit(("app/chat.py", "    chat_id: UUID | None = None"), ("app/chat.py", "# Optional: only set for group chats"),
          ("app/chat.py", 'optional_fields = ["name"]'), ("web/chat.ts", "let a: Optional[int]"))),
    # the unittest framework is its module and its assertion methods; unittest.mock serves pytest too
    ("Always use `pytest` instead of `unittest`.", "block",
     edit(("tests/test_a.py", "class T(unittest.TestCase):"), ("tests/test_a.py", "self.assertRaises(ValueError, f, None)")),
     edit(("tests/test_a.py", "with pytest.raises(ValueError):"), ("tests/test_a.py", "from unittest import mock"),
          ("tests/test_a.py", "assert result == expected"))),
    # "`then` calls" is the call, not the word: `thenable` and a `Promise<void>` type are ordinary code
    ("Prefer `async` and `await` over `Promise` and `then` calls.", "warn",
     edit(("src/a.ts", "fetchData().then(result => render(result));")),
     edit(("src/a.ts", "const content = await readFile(uri);"), ("src/a.ts", "const thenable = getThenable();"),
          ("src/a.ts", "async function load(): Promise<void> {"))),
]


@pytest.mark.parametrize("sentence, action, hits, misses", REJECTED, ids=[r[0][:40] for r in REJECTED])
def test_the_rejected_side_gives_the_trigger(sentence, action, hits, misses):
    imp = _only(sentence)
    assert imp.admission.decision == "admitted", imp.admission
    assert imp.action == action
    evaluator = _evaluator(sentence)
    for tool, tool_input in hits:
        found = evaluator.evaluate({"tool_name": tool, "tool_input": tool_input})
        assert found.decision != "allow" or found.warnings, (sentence, tool_input)
    for tool, tool_input in misses:
        found = evaluator.evaluate({"tool_name": tool, "tool_input": tool_input})
        assert found.decision == "allow" and not found.warnings, (sentence, tool_input)


NEVER_THE_RECOMMENDED_SIDE = [
    # (sentence, calls the sentence asks for): no rule may stop or warn about them
    ("Always use `pnpm`, not `npm`.", bash("pnpm install", "pnpm run build")),
    ("Use pnpm, not npm.", bash("pnpm install", "npm install")),  # no marker: no rule at all
    ("Prefer `pnpm` over `npm`.", bash("pnpm install")),
    ("Always use pnpm instead of npm.", bash("pnpm install", "pnpm add react")),
    # the branch the prose entry knows stands on the recommended side: a push to main is what is asked for
    ("Always push to `main`, not to `develop`.", bash("git push origin main", "git push origin HEAD:main")),
    ("Always push to `upstream`, not to `origin`.", bash("git push upstream main")),
    ("Prefer `wait_for_event` over `wait_for_event_with_timeout`.",
     edit(("tests/suite/client.rs", "wait_for_event(&codex, |ev| matches!(ev, EventMsg::TaskComplete(_))).await;"))),
]


@pytest.mark.parametrize("sentence, asked", NEVER_THE_RECOMMENDED_SIDE, ids=[n[0] for n in NEVER_THE_RECOMMENDED_SIDE])
def test_the_recommended_side_never_fires(sentence, asked):
    evaluator = _evaluator(sentence)
    for tool, tool_input in asked:
        found = evaluator.evaluate({"tool_name": tool, "tool_input": tool_input})
        assert found.decision == "allow" and not found.warnings, (sentence, tool_input)


def test_a_positive_prose_entry_reads_only_the_rejected_side():
    """"Always push to feature branches, not main": the branch after "not" is the trigger."""
    sentence = "Always push to feature branches, not main."
    assert _only(sentence).trigger.label == "prose:push-protected-branch"
    assert _acts(sentence, "Bash", {"command": "git push origin main"})
    assert not _acts(sentence, "Bash", {"command": "git push origin feature/x"})
    assert _only("Always push to `main`, not to `develop`.").admission.decision != "admitted"


def test_a_call_noun_governs_the_names_before_it():
    imp = _only("Avoid `eval` calls.")
    assert imp.trigger.values == ("eval()",)
    assert _acts("Avoid `eval` calls.", "Write", {"file_path": "src/a.js", "content": "eval(code)"})
    assert not _acts("Avoid `eval` calls.", "Write", {"file_path": "src/a.js", "content": "// we never eval untrusted code"})


def test_never_remove_a_call_never_stops_writing_it():
    """"Never remove `console.log` calls": a content pattern sees only the text written, so it would stop
    what the sentence protects; the kind gate sends it to Pass 2."""
    sentence = "Never remove `console.log` calls from the CLI."
    imp = _only(sentence)
    assert imp.admission.decision == "demoted" and imp.admission.gate == "kind", imp.admission
    assert not _acts(sentence, "Write", {"file_path": "cli/main.js", "content": "console.log(result)"})


def test_a_gpg_signature_is_not_a_sign_off():
    """`-S` signs a commit with GPG; only `-s` adds the Signed-off-by line the entry requires."""
    imp = _only("Commits must be signed (`-S`).")
    assert imp.trigger is None or imp.trigger.label != "required-form"


def test_pinned_actions_are_read_and_left_to_the_gate_that_weighs_ordinary_workflows():
    """"GitHub Actions must stay pinned to commit SHAs": a workflow's `uses:` with a tag. Ordinary workflows
    elsewhere use tags (1.9% of the sample's edits), above the 1.5% a content rule may interrupt: Pass 2."""
    imp = _only("GitHub Actions must stay pinned to commit SHAs, not tags.")
    assert imp.trigger.summary == "action not pinned to a commit SHA"
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "breadth") and "above the 1.5%" in imp.admission.reason
    regex = re.compile(imp.trigger.patterns[0].regex)
    assert all(regex.search(line) for line in ("  - uses: actions/checkout@v4", "uses: 'pnpm/action-setup@v4.1.0'"))
    assert not any(regex.search(line) for line in ("  - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4",
                                                    "  - uses: ./.github/actions/setup", "  - run: pnpm test"))
    assert re.search(imp.trigger.file_scope, ".github/workflows/ci.yml") and not re.search(imp.trigger.file_scope, "src/app.ts")


def test_running_a_glob_of_files_names_no_program():
    """"Don't run `*.test.ts` files directly": the files are arguments of some runner, not a program at a command
    position, so the path reading stays and the kind gate sends it to Pass 2."""
    imp = _only("Don't run `*.test.ts` files directly.")
    assert (imp.admission.decision, imp.admission.gate) == ("demoted", "kind")


@pytest.mark.parametrize("sentence", ["PR titles must use conventional commits.", "Always follow conventional commits for PR titles.",
                                      "PR titles must follow [Conventional Commits](https://www.conventionalcommits.org/)."])
def test_conventional_commits_for_pr_titles_is_a_pr_title_rule(sentence):
    assert _only(sentence).trigger.summary == "PR title without a conventional type"
    for command in ('gh pr create --title "Add cache option" --body "x"', "gh pr create -t 'Add cache option'"):
        assert _acts(sentence, "Bash", {"command": command}), command
    for command in ('gh pr create --title "feat(cache): add option"', 'git commit -m "Add cache option"', "gh pr create --fill"):
        assert not _acts(sentence, "Bash", {"command": command}), command


def test_conventional_commits_for_branch_names_is_no_rule():
    assert not guardrules.emit(_compiled("Always use conventional commits for branch names."))["rules"]


def test_a_lead_line_with_no_list_after_it_is_a_rule_of_its_own():
    """jdx/mise (held-out set 20): the colon line stands over a heading and an example block, not a list."""
    text = "## Conventional Commits\n\nAll commit messages and PR titles MUST follow conventional commit format:\n\n### Format\n"
    (rule,) = guardrules.emit(compile_sources([source_from_bytes("AGENTS.md", text.encode())]))["rules"]
    assert Evaluator([rule]).evaluate({"tool_name": "Bash", "tool_input": {"command": 'git commit -m "Add x"'}}).decision == "block"
    text = "Never run these commands:\n\n- `git push --force`\n"  # a lead line with its list stays a lead
    (rule,) = guardrules.emit(compile_sources([source_from_bytes("AGENTS.md", text.encode())]))["rules"]
    assert rule["source"]["lines"] == [3, 3] and rule["source"]["lexical_marker"] == "Never"


def test_adding_to_tests_is_where_the_thing_goes():
    """duckdb: "Do not add `PRAGMA enable_verification` to tests" was a purpose ("to tests") the scope gate demoted."""
    imp = _only("Do not add `PRAGMA enable_verification` to tests - it should no longer be used in new tests.")
    assert imp.admission.decision == "admitted" and imp.trigger.file_scope
    assert _acts(imp.quote, "Write", {"file_path": "test/sql/a.test", "content": "PRAGMA enable_verification;"})
    assert not _acts(imp.quote, "Write", {"file_path": "src/main/a.cpp", "content": "// PRAGMA enable_verification"})


def test_preferring_a_new_commit_warns_on_an_amend():
    """dotnet/runtime (held-out set 13): the rejected side, "amending an existing one", is the amend."""
    sentence = "Prefer creating a new commit rather than amending an existing one."
    assert _only(sentence).trigger.label == "prose:amend"
    evaluator = _evaluator(sentence)
    assert evaluator.evaluate({"tool_name": "Bash", "tool_input": {"command": "git commit --amend --no-edit"}}).warnings
    assert not evaluator.evaluate({"tool_name": "Bash", "tool_input": {"command": "git commit -m x"}}).warnings


def test_ones_stands_for_the_plural_named_before_the_rule_word():
    """bitwarden/clients: "Legacy enums exist but don't add new ones" is a new enum declaration."""
    sentence = "Legacy enums exist but don't add new ones"
    assert _only(sentence).trigger.label == "prose:typescript-enums"
    assert _acts(sentence, "Write", {"file_path": "a.ts", "content": "export enum CipherType {"})
    assert not _acts(sentence, "Write", {"file_path": "a.ts", "content": "export const CipherType = Object.freeze({"})


def test_a_judgement_the_harness_cannot_make_is_left_to_the_user():
    # "Never use `any` unless absolutely necessary": a block would stop the necessary cases too
    ir = compile_sources([source_from_bytes("AGENTS.md", b"Never use `any` unless absolutely necessary.\n")])
    (imp,) = ir.imperatives
    assert imp.action == "ask"
    (kept,) = compile_sources([source_from_bytes("AGENTS.md", b"Never use `any` unless the type is unknown.\n")]).imperatives
    assert kept.action == "block"  # a checkable-sounding condition keeps the block as written


def test_a_prohibition_in_a_shell_comment_is_read():
    """tursodatabase/turso (held-out set 4): the rule sits in the comment of the command it is about; a comment's
    other rule words describe the command under it, and code in another language is an example."""
    text = ("```bash\ncargo build   # build. never build with --release\n# Commit with required DCO sign-off\n"
            "git commit -s -m x\n```\n\n```python\nx = 1  # never use eval\n```\n")
    rules = guardrules.emit(compile_sources([source_from_bytes("AGENTS.md", text.encode())]))["rules"]
    assert [(r["source"]["lines"], r["source"]["quote"]) for r in rules] == [([2, 2], "never build with --release")]
    evaluator = Evaluator(rules)
    for command, decision in (("cargo build --release", "block"), ("cargo build", "allow")):
        assert evaluator.evaluate({"tool_name": "Bash", "tool_input": {"command": command}}).decision == decision
