"""Runtime fidelity (issue 10): every rule fires where its sentence says, on every shape a
command, path or tool name takes at runtime, and nowhere near it.

One table of shapes, each a forbidden call and a near miss, run through policyc's evaluator
(compiler.harness, a model of the Interlinked harness) on a rule compiled from a sentence, and
through cedarpy on the Cedar emitted for sondera-v1 and sondera-v2. What a Cedar target cannot
express is listed in GAPS with the reason; a listed gap must really be one (never a silent skip).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache

import cedarpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from policyc.compiler.harness import Evaluator
from policyc.compiler.pipeline import compile_sources
from policyc.compiler.regexes import command_regex, glob_to_regex, mcp_tools, redos_reasons, syntax_problems
from policyc.compiler.sources import source_from_bytes
from policyc.compiler.triggers import load_lexicon
from policyc.emitters import artifacts, guardrules
from policyc.emitters.cedar_lowering import TARGETS
from policyc.schemas import read as read_schema


@dataclass(frozen=True)
class Shape:
    name: str
    sentence: str  # the rule, as a rule file writes it
    fires: str  # a command the rule must block
    near_miss: str  # a command it must let through


SHAPES = [
    # separators: every command position the harness sees
    Shape("start of the text", "Never run `git push`.", "git push origin feature", "git status"),
    Shape("after ;", "Never run `git push`.", "cd repo; git push", "cd repo; git status"),
    Shape("after &&", "Never run `git push`.", "make test && git push", "make test && git pull"),
    Shape("after ||", "Never run `git push`.", "false || git push", "false || git fetch"),
    Shape("after |", "Never run `git push`.", "yes | git push", "git log | grep push"),
    Shape("in a subshell (", "Never run `git push`.", "(cd repo && git push)", "(cd repo && git diff)"),
    Shape("in $( )", "Never run `git push`.", "echo $(git push)", "echo $(git rev-parse HEAD)"),
    Shape("in backticks", "Never run `git push`.", "echo `git push`", "echo `git branch`"),
    Shape("after a newline", "Never run `git push`.", "git add .\ngit push", "git add .\ngit commit -m wip"),
    # prefixes and program paths
    Shape("env assignment", "Never run `git push`.", "GIT_TRACE=1 git push", "echo GIT_TRACE=1 git-push"),
    Shape("env command", "Never run `git push`.", "env GIT_TRACE=1 git push", "env | grep git"),
    Shape("absolute path", "Never run `git push`.", "/usr/bin/git push", "/usr/bin/gitk push"),
    Shape("relative path", "Never run `eslint`.", "./node_modules/.bin/eslint src", "./node_modules/.bin/eslint-doc src"),
    # wrappers
    Shape("sudo", "Never run `git push`.", "sudo git push", "sudo git status"),
    Shape("sudo -u user", "Never run `git push`.", "sudo -u deploy git push", "sudo -u deploy git log"),
    Shape("bash -c", "Never run `git push`.", "bash -c 'git push'", "bash -c 'git pull'"),
    Shape("sh -c", "Never run `git push`.", 'sh -c "git push origin"', 'sh -c "git fetch origin"'),
    Shape("python -m pip", "Never run `pip install`.", "python -m pip install requests", "python -m pip list"),
    Shape("python3 -m pytest", "Never run `pytest`.", "python3 -m pytest -x", "python3 -m pytest_cov"),
    Shape("uv run", "Never run `pytest`.", "uv run pytest tests", "uv run pytest-watch"),
    Shape("npx", "Never run `eslint`.", "npx eslint .", "npx eslint-config-init"),
    Shape("npx -y", "Never run `eslint`.", "npx -y eslint .", "npx -y prettier ."),
    Shape("pnpm exec", "Never run `eslint`.", "pnpm exec eslint .", "pnpm exec tsc"),
    Shape("yarn dlx", "Never run `eslint`.", "yarn dlx eslint .", "yarn dlx create-app"),
    Shape("bunx", "Never run `eslint`.", "bunx eslint .", "bunx prettier ."),
    Shape("command", "Never run `eslint`.", "command eslint .", "command -v eslint"),
    # options before a subcommand
    Shape("git -C dir", "Never run `git push`.", "git -C vendor/lib push", "git -C vendor/lib pull"),
    Shape("git -c key=value", "Never run `git push`.", "git -c push.default=current push", "git -c core.pager=cat log"),
    # an option after the subcommand's arguments
    Shape("option after arguments", "Never run `git push --force`.", "git push origin main --force",
          "git push origin main --force-with-lease"),
    Shape("option after another option", "Never run `git commit --amend`.", "git commit -a --amend",
          'git commit -m "no --amend"'),
    Shape("option in the next command", "Never run `git push --force`.", "git push -u origin x --force",
          "git push origin x; echo --force"),
    Shape("short option", "Never run `git push --force`.", "git push -f origin x", "git push -u origin x"),
    # aliases and versioned programs
    Shape("npm i", "Never run `npm install`.", "npm i lodash", "npm run install-deps"),
    Shape("npm add", "Never run `npm install`.", "npm add lodash", "npm ci"),
    Shape("pnpm i", "Never run `pnpm install`.", "pnpm i", "pnpm run install"),
    # the branch a push updates, however the push names it
    Shape("push by refspec", "Never run `git push origin main`.", "git push origin HEAD:main", "git push origin main:feature"),
    Shape("push with -u", "Never run `git push origin main`.", "git push -u origin main", "git push -u origin main-fix"),
    # an option that makes the subcommand do nothing it forbids
    Shape("dry run", "Never run `npm publish`.", "npm publish --tag next", "npm publish --dry-run"),
    Shape("undo", 'Do NOT mark PRs as "ready for review" (`gh pr ready`).', "gh pr ready 123", "gh pr ready 123 --undo"),
    # a package script runs with or without `run`
    Shape("script with run", "NEVER run `pnpm test` (runs all packages).", "pnpm run test", "pnpm run test:e2e"),
    Shape("script without run", "Never run `yarn run build`.", "yarn build", "yarn build:docs"),
    Shape("npm lifecycle script", "Never run `npm run start`.", "npm start", "npm run start:dev"),
    Shape("versioned pip3", "Never run `pip install`.", "pip3 install requests", "pip-audit"),
    # near misses that look like the command
    Shape("longer program name", "Never run `git push`.", "git push --tags", "gitlab push"),
    Shape("hyphenated program", "Never run `git push`.", "git push", "git-credential push"),
    Shape("quoted text", "Never run `git push`.", "git push", 'echo "git push"'),
    Shape("an argument", "Never run `git push`.", "git push", "echo git push"),
    Shape("a flag value", "Never run `git push`.", "git push", "git log --grep push"),
    Shape("longer subcommand", "Never run `git push`.", "git push", "git pushx"),
]

_NOT_PARSED = ("Sondera documents that its parse peels sudo, env, timeout and xargs (parse_facts below peels those only), "
               "so {w} counts as the program, not what it runs")
_V1_WRAPPER = "sondera-v1 has only `like` on the command text, which cannot tell a wrapper or path before a program from an argument, so they are not matched"
GAPS = {
    # (target, shape): why the target cannot express it
    **{("sondera-v1", s): _V1_WRAPPER for s in (
        "env assignment", "env command", "absolute path", "relative path", "sudo", "sudo -u user", "bash -c", "sh -c",
        "python -m pip", "python3 -m pytest", "uv run", "npx", "npx -y", "pnpm exec", "yarn dlx", "bunx", "command")},
    ("sondera-v1", "git -C dir"): "sondera-v1 `like` cannot skip options between a program and its subcommand",
    ("sondera-v1", "git -c key=value"): "sondera-v1 `like` cannot skip options between a program and its subcommand",
    ("sondera-v1", "longer subcommand"): "sondera-v1 `like` has no word boundary, so `git push*` also matches `git pushx`",
    **{("sondera-v1", s): "sondera-v1 `like` has no word boundary, so `pnpm run test*` also matches the script `test:e2e`"
       for s in ("script with run", "script without run", "npm lifecycle script")},
    **{("sondera-v1", s): ("sondera-v1 `like` has no word boundary and cannot stop at a separator or a quote, so "
                           "`git push * --force*` also matches `--force-with-lease` and a `--force` in a later command or a message")
       for s in ("option after arguments", "option after another option", "option in the next command")},
    ("sondera-v2", "bash -c"): _NOT_PARSED.format(w="`bash -c`"),
    ("sondera-v2", "sh -c"): _NOT_PARSED.format(w="`sh -c`"),
    ("sondera-v2", "python -m pip"): _NOT_PARSED.format(w="`python -m`"),
    ("sondera-v2", "python3 -m pytest"): _NOT_PARSED.format(w="`python3 -m`"),
    ("sondera-v2", "uv run"): _NOT_PARSED.format(w="`uv run`"),
    ("sondera-v2", "npx"): _NOT_PARSED.format(w="npx"),
    ("sondera-v2", "npx -y"): _NOT_PARSED.format(w="npx"),
    ("sondera-v2", "pnpm exec"): _NOT_PARSED.format(w="`pnpm exec`"),
    ("sondera-v2", "yarn dlx"): _NOT_PARSED.format(w="`yarn dlx`"),
    ("sondera-v2", "bunx"): _NOT_PARSED.format(w="bunx"),
    ("sondera-v2", "command"): _NOT_PARSED.format(w="`command`"),
    ("sondera-v2", "versioned pip3"): "context.parse.programs holds `pip3`, and the v2 form names the program `pip` exactly",
    ("sondera-v2", "a flag value"): "context.parse keeps no argument order, so the value of `--grep push` reads as the argument `git:push`",
    ("sondera-v1", "push by refspec"): "sondera-v1 `like` cannot stop at a colon, so `git push origin main*` also matches `main:feature`",
    ("sondera-v1", "push with -u"): "sondera-v1 `like` has no word boundary, so `git push * origin main*` also matches `main-fix`",
    ("sondera-v2", "push by refspec"): "context.parse holds the refspec `HEAD:main` as one argument, not the branch `git:main`",
    **{("sondera-v2", s): "the v2 form reads the facts of context.parse, which it does not check for `--dry-run` or `--undo`, "
       "so the rule also stops that run (it fails closed)" for s in ("dry run", "undo")},
    ("sondera-v2", "pnpm i"): "context.parse keeps no argument order, so `pnpm run install` holds `pnpm:install` too",
}


def test_every_gap_names_a_shape_in_the_table():
    names = {s.name for s in SHAPES}
    assert {shape for _, shape in GAPS} <= names
    assert all(target in ("guardrules", "sondera-v1", "sondera-v2") for target, _ in GAPS)


@cache
def _compiled(sentence: str):
    ir = compile_sources([source_from_bytes("AGENTS.md", (sentence + "\n").encode())])
    assert ir.imperatives and all(i.trigger for i in ir.imperatives), sentence
    return ir


@cache
def _evaluator(sentence: str) -> Evaluator:
    return Evaluator(guardrules.emit(_compiled(sentence))["rules"])


def _guardrules_block(sentence: str, tool: str, tool_input: dict) -> bool:
    return _evaluator(sentence).evaluate({"tool_name": tool, "tool_input": tool_input}).decision != "allow"


# --- Cedar requests, as Sondera builds them for a Claude tool call ---

_SHARED = {"workspace": {"cwd": "/repo"}, "signature": {"categories": [], "matches": 0, "severity": 0},
           "policy": {"compliant": True, "violations": []}}
_PEELED = {"sudo", "doas", "env", "timeout", "xargs"}  # the wrappers v2's schema says its parser peels


def parse_facts(command: str) -> dict:
    """context.parse for a command, as Sondera v2's schema documents it (a model of its
    tree-sitter parse): lower-case basenames of every command word across chains, pipes,
    subshells and substitutions, with sudo/env/timeout/xargs peeled; `program:token` facts."""
    programs, flags, args = set(), set(), set()
    text = re.sub(r"\$\(|[`\n]", ";", command)
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split = True
    simple: list[list[str]] = [[]]
    for token in lexer:
        if set(token) <= set(";&|()"):
            simple.append([])
        else:
            simple[-1].append(token)
    for words in simple:
        words = [w for w in words if w != "$"]
        while words and re.match(r"^\w+=", words[0]):
            words.pop(0)
        while words:
            program = words[0].rsplit("/", 1)[-1].lower()
            programs.add(program)
            rest = words[1:]
            if program not in _PEELED:
                break
            while rest and (rest[0].startswith("-") or re.match(r"^\w+=", rest[0]) or (program == "timeout" and rest[0][:1].isdigit())):
                rest = rest[2:] if rest[0] in ("-u", "-g") and program in ("sudo", "doas", "env") else rest[1:]
            words = rest
        for word in words[1:]:
            if word.startswith("--"):
                flags.add(f"{program}:{word.split('=', 1)[0]}")
            elif word.startswith("-") and len(word) > 2 and word[1:].isalpha():
                flags.update({f"{program}:{word}", *(f"{program}:-{c}" for c in word[1:])})
            elif word.startswith("-"):
                flags.add(f"{program}:{word}")
            elif not word.startswith("$"):
                args.add(f"{program}:{word}")
    return {"ok": True, "programs": sorted(programs), "program_flags": sorted(flags),
            "program_flags_normalized": sorted({f.lower() for f in flags}), "program_args": sorted(args),
            "program_args_normalized": sorted({a.lower() for a in args}), "program_arg_path_components_normalized": [],
            "has_dynamic_command": False, "has_command_substitution": "$(" in command or "`" in command,
            "has_pipeline": "|" in command, "has_redirection": ">" in command or "<" in command}


def _request(target: str, tool: str, tool_input: dict) -> dict:
    v2 = target == "sondera-v2"
    ns = "Sondera::" if v2 else ""
    shared = {**_SHARED, "label": {"__entity": {"type": f"{ns}Label", "id": "Public"}}}
    if not v2:
        shared["workspace"] = {**shared["workspace"], "permission_mode": "default", "transcript_path": "/t.jsonl"}
    principal = f'{ns}Agent::"claude"'
    if tool == "Bash":
        context = {**shared, "command": tool_input["command"], "working_dir": "/repo"}
        if v2:
            context = {**context, "file_signature": _SHARED["signature"], "parse": parse_facts(tool_input["command"])}
        return {"principal": principal, "action": f'{ns}Action::"ShellCommand"', "resource": f'{ns}Trajectory::"t1"', "context": context}
    if tool in ("Write", "Edit"):
        path = tool_input["file_path"]
        action = {"Write": "FileWrite", "Edit": "FileEdit"}[tool]
        context = {**shared, "path": path, "operation": action.removeprefix("File")}
        if v2:
            context["path_normalized"] = path.lower()
        return {"principal": principal, "action": f'{ns}Action::"{action}"', "resource": f'{ns}File::"{path}"', "context": context}
    return {"principal": principal, "action": f'{ns}Action::"PreToolUse"', "resource": f'{ns}Tool::"{tool}"',
            "context": {**shared, "tool": tool, "arguments": "{}"}}


@cache
def _policies(sentence: str, target: str) -> str:
    files = artifacts(_compiled(sentence), target)
    text = "\n".join(t for p, t in sorted(files.items()) if p.endswith(".cedar") and not p.endswith(".interlinked.cedar"))
    assert "\nforbid (" in text, (sentence, target)
    return text


@cache
def _schema(target: str) -> cedarpy.Schema:
    return cedarpy.Schema.from_str(read_schema(TARGETS[target].schema))


def _cedar_denies(sentence: str, target: str, tool: str, tool_input: dict) -> bool:
    policies = '@id("default-permit")\npermit (principal, action, resource);\n' + _policies(sentence, target)
    result = cedarpy.is_authorized(_request(target, tool, tool_input), policies, [], schema=_schema(target))
    assert not result.diagnostics.errors, result.diagnostics.errors
    return result.decision == cedarpy.Decision.Deny


def _outcome(target: str, sentence: str, tool: str, tool_input: dict) -> bool:
    if target == "guardrules":
        return _guardrules_block(sentence, tool, tool_input)
    return _cedar_denies(sentence, target, tool, tool_input)


@pytest.mark.parametrize("target", ["guardrules", "sondera-v1", "sondera-v2"])
@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
def test_command_shape(shape, target):
    fires = _outcome(target, shape.sentence, "Bash", {"command": shape.fires})
    misses = not _outcome(target, shape.sentence, "Bash", {"command": shape.near_miss})
    gap = GAPS.get((target, shape.name))
    if gap is None:
        assert fires, f"{target} does not block {shape.fires!r}"
        assert misses, f"{target} blocks the near miss {shape.near_miss!r}"
    else:  # a listed gap must be real: the target gets this shape wrong
        assert not (fires and misses), f"{target} handles {shape.name!r}; remove the gap ({gap})"


def test_policyc_evaluator_has_no_gaps_and_the_figures():
    assert not [shape for target, shape in GAPS if target == "guardrules"]
    for target in ("sondera-v1", "sondera-v2"):
        print(f"\n{target}: {len(SHAPES) - sum(t == target for t, _ in GAPS)} of {len(SHAPES)} command shapes right")


RECOMMENDED = [
    # (sentence, the form it recommends, which runs the forbidden program behind a wrapper; the forbidden form)
    ("Never run `pytest` directly; use `uv run pytest`.", "uv run pytest -x", "pytest -x"),
    ("Always use `uv run python` instead of `python`.", "uv run python app.py", "python app.py"),
    ("Never call `eslint` directly, always `pnpm exec eslint`.", "pnpm exec eslint src", "eslint src"),
]


@pytest.mark.parametrize("target", ["guardrules", "sondera-v1", "sondera-v2"])
@pytest.mark.parametrize("sentence, recommended, forbidden", RECOMMENDED)
def test_the_recommended_wrapper_form_stays_allowed(sentence, recommended, forbidden, target):
    assert not _outcome(target, sentence, "Bash", {"command": recommended})
    assert _outcome(target, sentence, "Bash", {"command": forbidden})


# --- paths: brace expansion, character classes, stacked wildcards ---

PATHS = [
    # (sentence, a path it must block, a path it must not)
    # narrow, realistic paths: a rule on every TypeScript file is demoted by the breadth gate
    ("Never edit `src/generated/**/*.{ts,tsx}`.", "/repo/src/generated/api/client.tsx", "/repo/src/generated/api/client.js"),
    ("Never edit `src/generated/**/*.{ts,tsx}`.", "src/generated/index.ts", "src/app/index.ts"),
    ("Never edit `dist/*.[jt]s` files.", "/repo/dist/main.js", "/repo/dist/main.cs"),
    ("Never edit `db/migrations/`.", "/repo/db/migrations/0001.sql", "/repo/db/migrations_old/0001.sql"),
    ("Never edit `.env*` files.", "/repo/.env.local", "/repo/config/x.env"),
]


@pytest.mark.parametrize("target", ["guardrules", "sondera-v1", "sondera-v2"])
@pytest.mark.parametrize("sentence, hit, miss", PATHS)
def test_path_shapes(sentence, hit, miss, target):
    assert _outcome(target, sentence, "Write", {"file_path": hit, "content": "x"})
    assert not _outcome(target, sentence, "Write", {"file_path": miss, "content": "x"})


@pytest.mark.parametrize(
    "glob, hits, misses",
    [
        ("src/**/*.{ts,tsx}", ["src/a.ts", "/r/src/b/c.tsx"], ["src/a.js", "lib/a.ts", "src/a.tsx.bak"]),
        ("*.[jt]s", ["a.js", "/x/b.ts"], ["a.cs", "a.jsx"]),
        ("*.[!j]s", ["a.ts"], ["a.js", "a/s"]),
        ("*a*a*", ["xaay", "/r/aa"], ["/a/xay", "a/a"]),
        ("**/**/*.py", ["a.py", "x/y/z.py"], ["a.pyc"]),
        ("src/**/x.ts", ["src/x.ts", "/r/src/a/b/x.ts"], ["src/ax.ts"]),
        ("/etc/**", ["/etc/passwd"], ["/x/etc/passwd"]),
        ("**/*", ["a", "/r/b/c.txt"], [""]),  # every file, yet never the empty string
        ("logs/day{1..40}.txt", ["/r/logs/day17.txt"], ["/r/logs/day41.txt"]),  # past 32 combinations: one alternation per group
        ("x/{a,b}/{c,d}/{e,f}/{g,h}/{i,j}/{k,l}/", ["x/a/d/e/h/i/l/1"], ["x/a/d/e/h/i/m/1"]),
    ],
)
def test_glob_regexes(glob, hits, misses):
    regex = glob_to_regex(glob)
    assert not redos_reasons(regex) and not syntax_problems(regex, "")
    assert "**" not in regex and "*[^/]*" not in regex  # no stacked wildcards
    assert [bool(re.search(regex, p)) for p in hits + misses] == [True] * len(hits) + [False] * len(misses)


# --- MCP tools: Claude Code calls them mcp__<server>__<tool> ---

MCP = [
    # (sentence, a tool name it must block, one it must not)
    ("Never use the railway-mcp__volumeDelete tool.", "mcp__railway-mcp__volumeDelete", "mcp__railway-mcp__volumeList"),
    ("Never use the railway-mcp__volumeDelete tool.", "railway-mcp__volumeDelete", "volumeDelete"),
    ("Never use mcp__github tools.", "mcp__github__create_issue", "mcp__gitlab__create_issue"),
]


@pytest.mark.parametrize("target", ["guardrules", "sondera-v2"])  # v1 has no action for MCP tools
@pytest.mark.parametrize("sentence, hit, miss", MCP)
def test_mcp_names(sentence, hit, miss, target):
    assert _outcome(target, sentence, hit, {"x": 1})
    assert not _outcome(target, sentence, miss, {"x": 1})


@pytest.mark.parametrize("names, hit, miss", [
    (["volumeDelete"], "mcp__railway__volumeDelete", "mcp__railway__volumeDeleteAll"),
    (["nx_workspace"], "mcp__nx-mcp__nx_workspace", "mcp__nx-mcp__nx_project_details"),
    (["mcp__github"], "mcp__github__merge", "mcp__githubx__merge"),
])
def test_bare_tool_names_fire_on_the_prefixed_name(names, hit, miss):
    tool_match, patterns = mcp_tools(names)
    assert tool_match == ["*"] and all(not redos_reasons(p.regex) for p in patterns)
    rule = {"id": "r", "enabled": True, "trigger": "PreToolUse", "tool_match": tool_match, "action": "block",
            "patterns": [p.to_json() for p in patterns]}
    evaluator = Evaluator([rule])
    assert evaluator.evaluate({"tool_name": hit, "tool_input": {}}).decision == "block"
    assert evaluator.evaluate({"tool_name": miss, "tool_input": {}}).decision == "allow"
    assert evaluator.evaluate({"tool_name": "Bash", "tool_input": {"command": "ls"}}).decision == "allow"


# --- MultiEdit: content rules see edits[].new_string in policyc's evaluator ---

def test_multiedit_edits_meet_content_rules_and_the_harness_gap_is_reported():
    sentence = "Never use `@ts-ignore`."
    edits = {"file_path": "/repo/a.ts", "edits": [{"old_string": "a", "new_string": "b"},
                                                  {"old_string": "x", "new_string": "// @ts-ignore\nx"}]}
    decision = _evaluator(sentence).evaluate({"tool_name": "MultiEdit", "tool_input": edits})
    assert decision.decision == "block"
    assert decision.defects and "MultiEdit" in decision.defects[0] and "getField" in decision.defects[0]
    clean = {**edits, "edits": edits["edits"][:1]}
    assert _evaluator(sentence).evaluate({"tool_name": "MultiEdit", "tool_input": clean}).decision == "allow"
    assert _guardrules_block(sentence, "Edit", {"file_path": "/repo/a.ts", "old_string": "x", "new_string": "// @ts-ignore"})


# --- every admitted rule kind has an input it fires on ---

KIND_EXAMPLES = {
    # trigger kind: (sentence, tool, input it must block, input of the same tool it must not)
    "command": ("Never run `git push`.", "Bash", {"command": "git push"}, {"command": "git pull"}),
    "required-form": ("Always run pytest with `pytest --reuse-db`.", "Bash", {"command": "pytest -x"}, {"command": "pytest --reuse-db -x"}),
    "path": ("Never edit `db/migrations/`.", "Edit", {"file_path": "db/migrations/1.sql", "old_string": "a", "new_string": "b"},
             {"file_path": "db/seeds/1.sql", "old_string": "a", "new_string": "b"}),
    "content": ("Never use `console.log`.", "Write", {"file_path": "a.ts", "content": "console.log(x)"}, {"file_path": "a.ts", "content": "logger.info(x)"}),
    "mcp": ("Never use the railway-mcp__volumeDelete tool.", "mcp__railway-mcp__volumeDelete", {}, None),
}
PROSE_EXAMPLES = {
    # lexicon prose id: (sentence, tool, input it must block, input it must not)
    "commit-and-push": ("Never commit and push in a single command.", "Bash", {"command": "git commit -m wip && git push"},
                        {"command": "git commit -m 'then git push'"}),
    "commit-or-push": ("Never commit or push.", "Bash", {"command": "git push origin dev"}, {"command": "git status"}),
    "commit": ("Never commit.", "Bash", {"command": "git commit -m wip"}, {"command": "git status"}),
    "push": ("Never push.", "Bash", {"command": "git push origin dev"}, {"command": "git stash push"}),
    "push-anything": ("Never push to any remote branch.", "Bash", {"command": "git push origin dev"}, {"command": "git fetch origin dev"}),
    "force-push-branch": ("Never force push to main.", "Bash", {"command": "git push -f origin main"}, {"command": "git push -f origin feat"}),
    "force-push": ("Never force push.", "Bash", {"command": "git push --force origin main"},
                   {"command": "git push origin main && rm -f build.log"}),  # (a -f of the next command is not the push's)
    "push-protected-branch": ("Never push to main.", "Bash", {"command": "git push origin HEAD:main"},
                              {"command": "git push origin feature && git checkout main"}),
    "tag-release": ("Never tag releases by hand.", "Bash", {"command": "git tag v1.2.0"}, {"command": "git tag -l"}),
    "agent-co-author": ('Never add "Co-Authored-By: Claude" trailers.', "Bash",
                        {"command": 'git commit -m "fix" -m "Co-Authored-By: Claude <noreply@anthropic.com>"'},
                        {"command": 'git commit -m "fix" -m "Co-authored-by: Jane Doe <jane@example.com>"'}),
    "hand-written-migrations": ("NEVER write migration files by hand.", "Write",
                                {"file_path": "src/modules/blog/migrations/Migration20250101.ts", "content": "x"},
                                {"file_path": "src/migrations/run-migrations.ts", "content": "x"}),  # (the runner, no migration)
    "claude-session-link": ("Do not include links to the Claude session.", "Bash",
                            {"command": 'gh pr create --title "fix: x" --body "Fix.\n\nhttps://claude.ai/code/session_01Ab"'},
                            {"command": 'gh pr create --title "fix: x" --body "Fix.\n\nRelated: #8123"'}),
    "comment-on-issue": ("Never reply to an issue.", "Bash", {"command": "gh issue comment 12 --body x"}, {"command": "gh issue view 12"}),
    "checked-checkbox": ("Never tick the `Ready for review` box.", "Bash", {"command": 'gh pr create --body "- [x] Ready for review"'},
                         {"command": 'gh pr create --body "- [ ] Ready for review"'}),
    "delete-tests": ("Never delete tests.", "Bash", {"command": "git rm tests/test_api.py"}, {"command": "rm -rf build"}),
    "trailing-whitespace": ("Never leave trailing whitespace.", "Write", {"file_path": "a.py", "content": "x = 1  \n"},
                            {"file_path": "a.py", "content": "x = 1\n"}),
    "generated-protobuf-code": ("Never edit generated protobuf files.", "Edit",
                                {"file_path": "api/v1/service.pb.go", "old_string": "a", "new_string": "b"},
                                {"file_path": "api/v1/service.proto", "old_string": "a", "new_string": "b"}),
    "open-issue-or-pull-request": ("Never open an issue or pull request.", "Bash", {"command": "gh pr create --fill"},
                                   {"command": "gh pr view 3"}),
    "commit-secret-files": ("Never commit secrets.", "Bash", {"command": "git add .env"}, {"command": "git add .env.example"}),
    "comment-on-pull-request": ("Never comment on PRs.", "Bash", {"command": "gh pr comment 12 --body x"}, {"command": "gh pr view 12"}),
    "comment-on-issues-and-pull-requests": ("Never post comments on issues or PRs.", "Bash", {"command": "gh pr comment 12 --body x"},
                                            {"command": "gh issue view 12 --comments"}),
    "push-tags": ("Never push tags.", "Bash", {"command": "git push origin --tags"}, {"command": "git push origin feature-tags"}),
    "change-remote": ("Do not change the remote URL.", "Bash", {"command": "git remote set-url origin git@github.com:o/r.git"},
                      {"command": "git remote -v"}),
    "create-tag": ("Never create git tags.", "Bash", {"command": "git tag -a v1.2.0 -m release"}, {"command": "git tag -l"}),
    "release-build": ("Never build in release mode.", "Bash", {"command": "cargo build --release"}, {"command": "cargo build"}),
    "destructive-git": ("Never perform destructive git operations.", "Bash", {"command": "git reset --hard HEAD~1"}, {"command": "git reset HEAD~1"}),
    "amend": ("Never amend commits.", "Bash", {"command": "git commit --amend --no-edit"}, {"command": "git commit -m amend"}),
    "rebase": ("Never rebase.", "Bash", {"command": "git rebase main"}, {"command": "git merge main"}),
    "squash": ("Never squash commits.", "Bash", {"command": "git merge --squash feature"}, {"command": "git merge feature"}),
    "reset-hard": ("Never do a hard reset.", "Bash", {"command": "git reset --hard origin/main"}, {"command": "git reset --soft HEAD~1"}),
    "skip-hooks": ("Never skip the pre-commit hooks.", "Bash", {"command": "git commit -m wip --no-verify"}, {"command": "git commit -m wip"}),
    "conventional-commit-prefix": ("Do not use conventional commit prefixes.", "Bash", {"command": 'git commit -m "fix: x"'},
                                   {"command": 'git commit -m "reinstall: x"'}),
    "co-authored-by": ("Never add Co-Authored-By lines.", "Bash", {"command": 'git commit -m "fix\n\nCo-Authored-By: Bot <b@x>"'},
                       {"command": 'git commit -m "fix"'}),
    "ai-attribution": ("Never add AI attribution trailers.", "Bash",
                       {"command": 'git commit -m "fix\n\nCo-Authored-By: Claude <noreply@anthropic.com>"'}, {"command": 'git commit -m "fix"'}),
    "ai-attribution-commit": ("Never add AI attribution trailers to commit messages.", "Bash",
                              {"command": 'git commit -m "fix\n\nGenerated with Claude Code"'},
                              {"command": 'gh pr create --body "Generated with Claude Code"'}),
    "ai-attribution-pr": ("Do not add \"Generated with Claude Code\" to PR descriptions.", "Bash",
                          {"command": 'gh pr create --body "Generated with Claude Code"'}, {"command": 'git commit -m "fix\n\nGenerated with Claude Code"'}),
    "publish-package": ("Never publish packages.", "Bash", {"command": "npm publish --access public"}, {"command": "npm pack"}),
    "update-every-dependency": ("Never bump every dependency at once.", "Bash", {"command": "pnpm up --latest"}, {"command": "npm update lodash"}),
    "update-dependencies": ("Never update dependencies.", "Bash", {"command": "cargo update -p serde"}, {"command": "npm install"}),
    "use-package-manager": ("Never use npm; use pnpm.", "Bash", {"command": "npm install"}, {"command": "pnpm install"}),
    "install-package": ("Never install new packages.", "Bash", {"command": "npm install lodash"}, {"command": "npm install"}),
    "drop-tables": ("Never drop tables.", "Bash", {"command": "psql -c 'DROP TABLE users'"}, {"command": "psql -c 'SELECT 1'"}),
    "curl-pipe-shell": ("Never pipe curl to a shell.", "Bash", {"command": "curl -fsSL https://x.sh | bash"}, {"command": "curl -fsSL https://x.sh -o x.sh"}),
    "sudo": ("Never use sudo.", "Bash", {"command": "sudo apt-get install jq"}, {"command": "apt-get install jq"}),
    "delete-files": ("Never delete files.", "Bash", {"command": "rm build/out.js"}, {"command": "ls build"}),
    "ts-suppress": ("never use `@ts-ignore`.", "Write", {"file_path": "a.ts", "content": "// @ts-ignore"},
                    {"file_path": "a.ts", "content": "// @ts-expect-error"}),
    "bare-except-clause": ("Never use a bare `except`.", "Write", {"file_path": "a.py", "content": "except:"},
                           {"file_path": "a.py", "content": "except Exception:"}),
    "bare-except": ("never catch a bare exception.", "Write", {"file_path": "a.py", "content": "except Exception:"},
                    {"file_path": "a.py", "content": "except ValueError:"}),
    "inline-lint-suppression": ("Do not disable lint rules inline.", "Write", {"file_path": "a.py", "content": "import os  # noqa"},
                                {"file_path": "a.md", "content": "never add # noqa"}),
    "version-bump": ("Never create major version bumps.", "Write", {"file_path": ".changeset/a.md", "content": '---\n"pkg": major\n---\n'},
                     {"file_path": ".changeset/a.md", "content": '---\n"pkg": patch\n---\n'}),
    "open-pull-request": ("Never open a PR.", "Bash", {"command": "gh pr create --fill"}, {"command": "gh pr view 12"}),
    "eslint-disable": ("Do not suppress ESLint rules.", "Write", {"file_path": "a.ts", "content": "// eslint-disable-next-line"},
                       {"file_path": "a.py", "content": "x = 1  # noqa"}),
    "open-issue": ("Never create an issue.", "Bash", {"command": "gh issue create --title x"}, {"command": "gh issue view 12"}),
    "merge-pull-request": ("Never merge PRs.", "Bash", {"command": "gh pr merge 12 --squash"}, {"command": "gh pr view 12"}),
    "create-release": ("Never create a release.", "Bash", {"command": "gh release create v1.2.0"}, {"command": "gh release list"}),
    "merge-branch-into": ("Never merge main into the feature branch.", "Bash", {"command": "git merge origin/main"},
                          {"command": "git rebase origin/main"}),
    "pr-base-branch": ("Never open PRs against master.", "Bash", {"command": "gh pr create --base master --fill"},
                       {"command": "gh pr create --base develop --fill"}),
    "skip-tests": ("Never skip tests.", "Write", {"file_path": "a.test.ts", "content": "it.skip('works', () => {})"},
                   {"file_path": "a.test.ts", "content": "it('works', () => {})"}),
    "sphinx-literals": ("Do NOT use Sphinx-style double backtick formatting", "Write",
                        {"file_path": "a.py", "content": '    """Return the ``Runnable``."""'},
                        {"file_path": "a.py", "content": '    """Example:\n    ```python\n    x()\n    ```"""'}),
    "em-dash": ("Never use em dashes.", "Write", {"file_path": "docs/a.md", "content": "fast — and safe"},
                {"file_path": "docs/a.md", "content": "fast - and safe"}),
    "inline-styles": ("Never use inline styles.", "Write", {"file_path": "a.tsx", "content": "<div style={{ gap: 8 }}>"},
                      {"file_path": "a.tsx", "content": '<div className="row">'}),
    "code-regions": ("Never use code regions.", "Write", {"file_path": "a.cs", "content": "#region Fields"}, {"file_path": "a.cs", "content": "// Fields"}),
    "px-spacing": ("Never use px values for spacing.", "Write", {"file_path": "a.css", "content": "margin: 12px;"},
                   {"file_path": "a.css", "content": "border: 1px solid;"}),
    "px-values": ("Never use px values in tests.", "Write", {"file_path": "tests/a.test.css", "content": "font-size: 14px;"},
                  {"file_path": "src/a.css", "content": "font-size: 14px;"}),
    "typescript-enums": ("Never use enums.", "Write",
                         {"file_path": "a.ts", "content": "export enum Color { Red }"},
                         {"file_path": "a.ts", "content": "type Color = 'red'"}),
    "hand-edit-vendored-code": ("Never edit vendored files directly.", "Edit",
                                {"file_path": "vendor/github.com/containers/storage/store.go", "old_string": "a", "new_string": "b"},
                                {"file_path": "libpod/container_api.go", "old_string": "a", "new_string": "b"}),
    "hand-edit-changelog": ("Never edit changelog files by hand.", "Edit",
                            {"file_path": "CHANGELOG.md", "old_string": "a", "new_string": "b"},
                            {"file_path": ".chloggen/fix-x.yaml", "old_string": "a", "new_string": "b"}),
    "write-changesets": ("Don't write changeset files.", "Write", {"file_path": ".changeset/brave-owls-dance.md", "content": "x"},
                         {"file_path": ".changeset/README.md", "content": "x"}),
    "branch-prefix": ("Do not create a branch prefixed with claude/", "Bash", {"command": "git checkout -b claude/fix"},
                      {"command": "git checkout -b fix/claude"}),
    "agent-in-commit-message": ("Don't reference Claude in commit messages", "Bash", {"command": 'git commit -m "fix (with Claude)"'},
                                {"command": 'git commit -m "docs: CLAUDE.md"'}),
    "disable-lint-rules": ("Never disable lint rules.", "Write", {"file_path": "a.ts", "content": "// eslint-disable-next-line"},
                           {"file_path": "a.py", "content": "x = 1  # type: ignore"}),
    "default-exports": ("Avoid default exports.", "Write", {"file_path": "a.ts", "content": "export default function f() {}"},
                        {"file_path": "a.ts", "content": "export function f() {}"}),
    "react-directive": ("Never use 'use client'.", "Write", {"file_path": "a.tsx", "content": "'use client';\n"},
                        {"file_path": "a.tsx", "content": "import x from 'y';\n"}),
    "csproj-package-version": ("Never hardcode package versions in `.csproj` files.", "Edit",
                               {"file_path": "src/A.csproj", "old_string": "a", "new_string": '<PackageReference Include="X" Version="1.0" />'},
                               {"file_path": "src/A.csproj", "old_string": "a", "new_string": '<PackageReference Include="X" />'}),
    "commit-secrets": ("Never hardcode secrets.", "Write",
                       {"file_path": "a.py", "content": "key = 'AKIAABCDEFGHIJKLMNOP'"},
                       {"file_path": "a.py", "content": "key = os.environ['KEY']"}),
}


def _examples():
    prose = {e["id"]: e for e in load_lexicon().prose}
    for kind, example in KIND_EXAMPLES.items():
        yield kind, kind, example
    for entry_id, example in PROSE_EXAMPLES.items():
        yield f"prose:{entry_id}", "command" if "command" in prose[entry_id] else f"prose:{entry_id}", example


def test_every_lexicon_prose_entry_has_an_example():
    assert set(PROSE_EXAMPLES) == {e["id"] for e in load_lexicon().prose}


@pytest.mark.parametrize("label, kind, example", list(_examples()), ids=[label for label, _, _ in _examples()])
def test_every_admitted_rule_kind_fires_on_its_example(label, kind, example):
    sentence, tool, hit, miss = example
    assert {i.trigger.label for i in _compiled(sentence).imperatives} == {kind}
    assert _guardrules_block(sentence, tool, hit)
    if miss is not None:
        assert not _guardrules_block(sentence, tool, miss)


def test_command_regexes_stay_linear_on_hostile_input():
    regex = re.compile(command_regex(["git push", "npm install", "pip"], frozenset({"pip"})))
    for hostile in ["sudo " * 2000 + "x", "-a " * 2000, "a/" * 4000 + " x", "A=1 " * 2000, "bash -c '" * 1000, "git -C x " * 1000 + "pul"]:
        assert regex.search(hostile) is None  # a catastrophic pattern would not return here
    option = re.compile(command_regex(["git push --force"]))  # an option that may follow the arguments
    for hostile in ["git push --forc " * 2000, "git push a" + " a" * 8000 + " --forc", "git push " + "x\t" * 8000]:
        assert option.search(hostile) is None


_NODE_TEST = r"""
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(cases.map(([regex, flags, text]) => new RegExp(regex, flags).test(text))));
"""


def test_v8_reads_every_shape_as_python_does():
    """The emitted regexes are in the subset V8 and Python's `re` read alike: same answer on every shape."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    cases = []
    for sentence in sorted({s.sentence for s in SHAPES} | {p[0] for p in PATHS}):
        for rule in guardrules.emit(_compiled(sentence))["rules"]:
            for pattern in rule["patterns"]:
                texts = [t for s in SHAPES if s.sentence == sentence for t in (s.fires, s.near_miss)]
                texts += [t for p in PATHS if p[0] == sentence for t in p[1:]]
                cases += [(pattern["regex"], pattern.get("flags", "i"), t) for t in texts]
    done = subprocess.run([node, "-e", _NODE_TEST], input=json.dumps(cases), capture_output=True, text=True, timeout=60, check=True)
    python = [bool(re.search(r, t, re.IGNORECASE if "i" in f else 0)) for r, f, t in cases]
    assert json.loads(done.stdout) == python
    assert len(cases) > 60


_PREFIXES = ["", "cd repo && ", "make; ", "true || ", "cat x | ", "(", "echo $(", "echo `", "ls\n"]
_WRAPPED = ["sudo ", "sudo -E ", "env CI=1 ", "CI=1 ", "nohup ", "timeout 5 ", "xargs -0 ", "bash -c '", 'sh -c "', "uv run ", "npx -y "]


@settings(max_examples=200)
@given(prefix=st.sampled_from(_PREFIXES), wrappers=st.lists(st.sampled_from(_WRAPPED), max_size=3),
       path=st.sampled_from(["", "/usr/bin/", "./bin/"]), tail=st.sampled_from(["", " origin main", " --tags"]))
def test_any_chain_of_wrappers_at_any_position_fires(prefix, wrappers, path, tail):
    regex = command_regex(["git push"])
    command = prefix + "".join(wrappers) + path + "git push" + tail
    assert re.search(regex, command), command
    assert not re.search(regex, prefix + "echo " + "".join(wrappers) + path + "git push" + tail)
