"""Building and vetting the regexes of emitted rules.

Every regex the compiler writes is JavaScript (the harness runs
`new RegExp(regex, flags)` in V8) restricted to the subset that Python's `re`
reads the same way, so it can be tested here and in Node.js alike.
"""

from __future__ import annotations

import re
from functools import lru_cache

import bracex

from .ir import Pattern

_JS_SPECIAL = frozenset("\\^$.|?*+()[]{}")
# The harness loader drops a rule when any of these match its pattern text
# (interlinked-harness.md §4.3, `looksLikeReDoS`).
_REDOS_GROUP_QUANTIFIED = re.compile(r"\([^()]*[+*][^()]*\)[+*?]")
_REDOS_DOTSTAR_GROUP = re.compile(r"\(\.\*[^()]*\)[+*]")
_REDOS_ALTERNATION = re.compile(r"\(([^()|]*)\|([^()|]*(?:\|[^()|]*)*)\)[+*]")
# Python-only syntax that JavaScript rejects or silently misreads.
_NOT_JS = re.compile(r"\(\?P[<=]|\(\?[aiLmsux]+\)|\(\?[aiLmsux-]+:|\\[AZz]|\(\?#|\(\?>|[*+?}][+]")

_ANGLE = re.compile(r"<[^<>]*>")
_PLACEHOLDER = re.compile(r"^(?:<[^>]*>|\.{3}|…|\$\{?\w+\}?|\{[^}]*\}|\[[^\]]*\])$")

# Where a shell command starts: the start of the text (after any white space),
# after the separators the harness splits compounds on (; & | and a newline,
# §3.8), or inside a subshell or substitution: ( $( and a backtick, then spaces
# or tabs. The separator and the blanks after it share no character, so a run of
# newlines is read in one pass (a `\s*` after a newline made it quadratic).
POSITION = r"(?:^\s*|[;&|(`\n][ \t]*)"
# What may stand between a command position and the program it runs. Each
# entry consumes one wrapper with what follows it; any number of them chain
# (`sudo env CI=1 uv run pytest`). Wrappers are separated by spaces and tabs
# only: a newline ends the command, so no chain runs on into the next line
# (which made the search quadratic on many short lines). Some alternatives share
# a first character, but each ends at a blank or a slash, so a failed match
# backtracks at most one wrapper deep (compiler/regex_safety.py's trial checks it).
_WRAPPERS = (
    r"(?:sudo|doas|env|builtin|exec|nohup|time|nice|xargs|npx|bunx|pnpx|uvx)[ \t]+",
    r"command[ \t]+(?:-p[ \t]+|(?=[^-\s]))",  # not `command -v git`, which only looks git up
    r"(?:uv|poetry|pipenv|pdm|hatch|pipx|rye)[ \t]+run[ \t]+",  # uv run pytest
    r"(?:pnpm|npm|yarn|bundle)[ \t]+(?:exec|dlx)[ \t]+",  # pnpm exec eslint, yarn dlx
    r"bun[ \t]+x[ \t]+",
    r"python[0-9.]*[ \t]+-m[ \t]+",  # python -m pip
    r"(?:ba|z|da|k)?sh[ \t]+-[a-z]*c[a-z]*[ \t]+['\"]?",  # bash -c 'git push'
    r"eval[ \t]+['\"]?",
    r"timeout[ \t]+\S+[ \t]+",
    r"(?:-[ugn]|--with)[ \t]+\S+[ \t]+",  # a wrapper option with a value: sudo -u root, uv run --with x
    r"-\S*[ \t]+",  # any other wrapper option: sudo -E, npx -y, xargs -0
    r"\w+=(?:'[^']*'|\"[^\"]*\"|\S*)[ \t]+",  # an environment assignment: CI=1
    r"[\w.~$-]*/",  # a directory of the program: /usr/bin/, ./node_modules/.bin/
)
COMMAND_START = POSITION + "(?:" + "|".join(_WRAPPERS) + ")*"
# "never bare `python`": the program run directly, not through a runner that picks its environment (`uv run`,
# `npx`, `python -m`, `pnpm exec`); the other wrappers (sudo, env, a directory, …) still stand before it
_RUNNERS = frozenset({r"(?:uv|poetry|pipenv|pdm|hatch|pipx|rye)[ \t]+run[ \t]+", r"(?:pnpm|npm|yarn|bundle)[ \t]+(?:exec|dlx)[ \t]+",
                      r"bun[ \t]+x[ \t]+", r"python[0-9.]*[ \t]+-m[ \t]+"})
BARE_START = POSITION + "(?:" + "|".join(
    r"(?:sudo|doas|env|builtin|exec|nohup|time|nice|xargs)[ \t]+" if w.startswith("(?:sudo|") else w  # (not npx, bunx, uvx)
    for w in _WRAPPERS if w not in _RUNNERS) + ")*"
# Options a program takes before its subcommand (`git -C dir push`); the text
# between the program and its first subcommand word.
_GLOBAL_OPTIONS = {
    "git": r"-[Cc]\s+\S+|--(?:git-dir|work-tree|namespace)[=\s]\S+|--[\w-]+|-[Pp]",
    "npm": r"--prefix[=\s]\S+|-w\s+\S+|--workspace[=\s]\S+|--[\w-]+",
    "pnpm": r"-C\s+\S+|--dir[=\s]\S+|-F\s+\S+|--filter[=\s]\S+|-[rw]|--[\w-]+",
    "yarn": r"--cwd[=\s]\S+|--[\w-]+",
    "cargo": r"\+\S+|-Z\s+\S+|--[\w-]+",
    "kubectl": r"-n\s+\S+|--(?:namespace|context|kubeconfig)[=\s]\S+",
    "docker": r"-H\s+\S+|-c\s+\S+|--(?:host|context|config)[=\s]\S+",
}
# Other spellings of a subcommand that run the same thing (the package managers' own
# aliases; not npm's typo aliases such as `isntall`, which would only widen the Cedar forms).
# `npm ci` is no alias of `npm install`: rules often recommend it instead.
ALIASES = {
    ("npm", "install"): ("i", "in", "add"),
    ("npm", "uninstall"): ("un", "remove", "rm", "r"),
    ("npm", "test"): ("t",),
    ("npm", "run"): ("run-script",),
    ("npm", "ci"): ("clean-install",),
    ("pnpm", "install"): ("i",),
    ("pnpm", "remove"): ("rm", "uninstall", "un"),
    ("bun", "install"): ("i",),
    ("bun", "add"): ("a",),
    ("bun", "remove"): ("rm",),
}
# Short spellings of an option right after a subcommand: `git push -f` is `git push --force`
# Subcommands of two words (`gh pr review`): an option after them may follow their arguments, as after one word.
TWO_WORD_SUBCOMMANDS = frozenset({
    ("gh", "pr review"), ("gh", "pr comment"), ("gh", "pr create"), ("gh", "pr merge"), ("gh", "pr edit"),
    ("gh", "issue comment"), ("gh", "issue create"), ("gh", "issue edit"), ("gh", "release create"),
})
OPTION_ALIASES = {
    ("git", "push", "--force"): ("-f",),
    ("git", "commit", "--no-verify"): ("-n",),
    ("git", "checkout", "--force"): ("-f",),
    ("git", "clean", "--force"): ("-f",),
    ("git", "branch", "--delete"): ("-d",),
    ("npm", "install", "--global"): ("-g",),
    ("npm", "install", "--force"): ("-f",),
    ("npm", "publish", "--force"): ("-f",),
    ("gh", "pr review", "--comment"): ("-c",),
}
# A package script that runs without `run`: `pnpm test` is `pnpm run test`, `yarn build` is `yarn run
# build`. npm shortens its four lifecycle scripts only; pnpm and yarn every name that is none of
# their own commands (bun is left out: `bun test` and `bun build` are bun's own runner and bundler).
SCRIPT_SHORTCUTS = {"npm": frozenset({"test", "start", "stop", "restart"})}
BUILTIN_COMMANDS = {
    "pnpm": frozenset("""add approve-builds audit bin cat-file cat-index config create deploy dlx doctor env exec fetch
        find-hash help i ignored-builds import init install install-test it licenses link list ln ls outdated pack patch
        patch-commit patch-remove prune publish rb rebuild remove rm root run sbom self-update server setup store un
        uninstall unlink up update why""".split()),
    "yarn": frozenset("""add audit autoclean bin cache check config constraints create dedupe dlx exec explain
        generate-lock-entry global help import info init install licenses link list login logout node npm outdated owner
        pack patch patch-commit plugin policies publish rebuild remove run search set stage tag team unlink unplug up
        upgrade upgrade-interactive version versions why workspace workspaces""".split()),
}
# Options that make a subcommand do nothing it would otherwise do: `npm publish --dry-run` publishes nothing,
# `gh pr ready --undo` turns the PR back into a draft. A rule on the subcommand lets them through, unless it
# names them itself.
NO_EFFECT_OPTIONS = ("--dry-run", "--undo")
_WITHOUT_NO_EFFECT_OPTION = r"(?![^;&|\n]*\s(?:" + "|".join(NO_EFFECT_OPTIONS) + r")(?![\w-]))"
_LEXICON_PLACEHOLDER = re.compile(r"\{(cmd|[a-z][\w-]*)\}")


def any_of(alternatives: list[str]) -> str:
    """One regex matching any of the alternatives (a group only when there are several)."""
    return alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"


def js_escape(text: str) -> str:
    return "".join("\\" + c if c in _JS_SPECIAL else c for c in text)


def _ends_in_word(token: str) -> bool:
    return token[-1:].isalnum() or token[-1:] == "_"


def _options(program: str) -> str:
    """The options `program` may take before its subcommand, as a repeatable group."""
    options = _GLOBAL_OPTIONS.get(program)
    return r"(?:\s+(?:" + options + "))*" if options else ""


def runs_a_script(program: str, word: str) -> bool:
    """`pnpm <word>` runs the package script `word` (see SCRIPT_SHORTCUTS)."""
    if program in BUILTIN_COMMANDS:
        return not word.startswith("-") and word not in BUILTIN_COMMANDS[program]
    return word in SCRIPT_SHORTCUTS.get(program, ())


def without_run(tokens: list[str]) -> list[str]:
    """`pnpm run test` -> `pnpm test`: a package script's shorter spelling, the one every form of it shares."""
    if len(tokens) > 2 and tokens[1] in ("run", "run-script") and runs_a_script(tokens[0].rsplit("/", 1)[-1].lower(), tokens[2]):
        return [tokens[0], *tokens[2:]]
    return tokens


def _subcommand(program: str, word: str) -> str:
    spellings = [js_escape(s) for s in (word, *ALIASES.get((program, word), ()))]
    if runs_a_script(program, word):
        spellings.append(r"run(?:-script)?\s+" + js_escape(word))
    return any_of(spellings)


def command_regex(commands: list[str], versioned: frozenset[str] = frozenset()) -> str:
    """`npm run compile`, `git push <branch>` -> regex anchored at a command position.

    The program may sit behind wrappers and a directory (see COMMAND_START);
    a program in `versioned` also matches its versioned spellings (pip3,
    python3.12); a subcommand also matches its aliases (`npm i`), options
    may come before it (`git -C dir push`), and its first option after its arguments.
    """
    alternatives: list[str] = []
    for command in commands:
        tokens = _ANGLE.sub("<placeholder>", command.strip().removeprefix("$ ")).split()
        # a `<name>` right after the subcommand is the argument it is given first, not an option
        # (`git restore <user files>` restores files; `git restore --staged x` only unstages). Later in
        # the command (`git push --force origin <branch>`) it may be left out, so it adds nothing there
        argument = len(tokens) == 3 and tokens[-1] == "<placeholder>" and not tokens[1].startswith("-")
        while tokens and _PLACEHOLDER.match(tokens[-1]):  # a trailing placeholder adds nothing more
            tokens.pop()
        if not tokens:
            continue
        program = tokens[0]
        tokens = without_run(tokens)  # (both spellings match: see _subcommand)
        parts = [_program(program) + ("[0-9.]*" if program in versioned else "")]
        for n, token in enumerate(tokens[1:]):
            if _PLACEHOLDER.match(token):
                parts.append(r"\S+")
            elif n == 0:
                parts.append(_subcommand(program, token))
            elif (program, " ".join(tokens[1 : n + 1]), token) in OPTION_ALIASES:  # (`gh pr review --comment`: two words)
                parts.append(any_of([js_escape(s) for s in (token, *OPTION_ALIASES[(program, " ".join(tokens[1 : n + 1]), token)])]))
            else:  # a placeholder inside a token (`<branch>:refs/heads/<branch>`) is any characters of an argument
                parts.append(r"[^\s;&|]+".join(js_escape(piece) for piece in token.split("<placeholder>")))
        pushed = _pushed_branch(tokens)
        if pushed:
            parts[-1] = _BRANCH_REF + parts[-1]
        body = parts[0] + (_options(program) if len(parts) > 1 else "")
        body += "".join(_between(tokens, n) + p for n, p in enumerate(parts[1:], start=1))
        if pushed:  # (not `main-fix`, `main:backup` or `main~1:x`)
            body += r"(?![\w./:~^-])"
        elif argument:
            body += r"\s+[^-\s;&|)]"
        else:  # the last token ends there: `rm -rf /` is not `rm -rf /tmp/x`
            # (a script name with a suffix is another script: `npm run build` is not `npm run build:docs`)
            word_end = r"(?![\w:-])" if program in _SCRIPT_PROGRAMS else r"(?![\w-])"
            body += word_end if _ends_in_word(tokens[-1]) else r"(?=$|[\s;&|)])"
        if len(tokens) > 1 and not any(t.split("=")[0] in NO_EFFECT_OPTIONS for t in tokens):
            body += _WITHOUT_NO_EFFECT_OPTION
        if body not in alternatives:
            alternatives.append(body)
    return COMMAND_START + any_of(alternatives)


_SCRIPT_PROGRAMS = frozenset({"npm", "pnpm", "yarn", "bun"})


# How `git push` names the branch it updates: `main`, `+main`, `refs/heads/main`, `HEAD:main`, `feat:refs/heads/main`
_BRANCH_REF = r"(?:|\+|[^\s;&|]*(?::|refs/heads/))"
# Words of one command, outside quotes (an alternation, not an optional group: the harness drops a rule
# whose quantified group holds a `*`)
_SAME_COMMAND = r"(?:\s+|\s[^;&|\n\"'`]*\s)"


def _pushed_branch(tokens: list[str]) -> bool:
    """`git push origin main`: a remote and the branch it updates."""
    return (len(tokens) == 4 and tokens[:2] == ["git", "push"] and not any(t.startswith("-") for t in tokens[2:])
            and "<placeholder>" not in tokens[3])


def _between(tokens: list[str], n: int) -> str:
    """What may stand before token n: an option right after a subcommand may follow its arguments (`git push origin
    main --force` is `git push --force`), and options may stand before a push's remote (`git push -u origin
    main`), within the same command and outside quotes; so may an option right after a subcommand of two words
    (`gh pr review 12 --comment` is `gh pr review --comment`); anything else follows at once."""
    if n == 2 and (tokens[2].startswith("-") and not tokens[1].startswith("-") or _pushed_branch(tokens)) \
            or n == 3 and tokens[3].startswith("-") and not tokens[1].startswith("-") and not tokens[2].startswith("-") \
            and (tokens[0], " ".join(tokens[1:3])) in TWO_WORD_SUBCOMMANDS:
        return _SAME_COMMAND
    return r"\s+"


def _program(program: str) -> str:
    """A program's regex: `./bin/release` is also `bin/release` (COMMAND_START takes any folders before it), and
    `./node_modules/.bin/*` is any program in that folder."""
    if "/" in program:
        program = program.removeprefix("./")
    if program.endswith("/*"):
        return js_escape(program[:-1]) + r"[^\s;&|/]+"
    return js_escape(program)


def lexicon_regex(regex: str) -> str:
    """A lexicon regex with its placeholders filled: `{cmd}` a command position,
    `{git}` (any program) that program there with its options before a subcommand."""
    def fill(m: re.Match) -> str:
        name = m.group(1)
        return COMMAND_START + ("" if name == "cmd" else js_escape(name) + _options(name))
    return _LEXICON_PLACEHOLDER.sub(fill, regex)


def missing_flags_regex(command: str) -> str | None:
    """`./venv/bin/pytest -svv --reuse-db` -> a run of pytest that lacks one of its flags.

    The inverse trigger of "always run X with `X --flag`" (§5b); None when the
    command names no flags.
    """
    tokens = command.strip().removeprefix("$ ").split()
    flags = [t for t in tokens[1:] if t.startswith("-") and len(t) > 1]
    if not tokens or not flags:
        return None
    program = js_escape(tokens[0].rsplit("/", 1)[-1])
    lacks = "|".join(rf"(?!.*\s{js_escape(flag)}(?![\w-]))" for flag in flags)
    return COMMAND_START + rf"{program}(?![\w-])(?:{lacks})"


_HELPER = re.compile(r"^\{\{\s*([A-Za-z][\w-]*)\s*\}\}$")
_GENERIC = re.compile(r"^([A-Za-z_][\w:.]*)<[A-Z]\w{0,2}(?:,\s*[A-Z]\w{0,2})*>$")  # type parameters: `Model<T>`, `Map<K, V>`
_JSX_TAG = re.compile(r"^<([A-Za-z][\w.]*)\s*/?>$")


_EITHER_QUOTE = re.compile(r"[\"']")
# a call whose every argument is a placeholder (`jest.fn().mockReturnValue(x);`): the callee with any arguments
_CALL_WITH_ARGS = re.compile(r"^([A-Za-z_$][\w$]*(?:\(\))?(?:\.[A-Za-z_$][\w$]*(?:\(\))?)*)\(([^()]+)\);?$")
_PLACEHOLDER_ARG = re.compile(r"^(?:[a-z]|foo|bar|baz|qux|\.\.\.|…)$")
# a call whose one argument is such a call (`WriteString(fmt.Sprintf(...))`)
_CALL_OF_CALL = re.compile(r"^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\((.+)\);?$")


def open_call(ident: str) -> str | None:
    """`jest.fn().mockReturnValue(x);` -> `jest\\.fn\\(\\)\\.mockReturnValue\\(`: the regex of a call written with
    placeholder arguments (one-letter names, `foo`, `...`), which stand for any arguments, from its callee on; a call
    whose one argument is such a call is the outer callee with that call as its first argument
    (`WriteString(fmt.Sprintf(...))`); None for any other code."""
    ident = ident.strip()
    found = _CALL_WITH_ARGS.match(ident)
    if found is not None:
        if not all(_PLACEHOLDER_ARG.match(a.strip()) for a in found.group(2).split(",")):
            return None
        return js_escape(found.group(1)) + r"\("
    nested = _CALL_OF_CALL.match(ident)
    inner = open_call(nested.group(2)) if nested else None
    if nested is None or inner is None:
        return None
    return js_escape(nested.group(1)) + r"\(\s*" + inner


def identifier_regex(identifiers: list[str], known: dict[str, str], placeholders: frozenset[str] = frozenset(),
                     unqualified: frozenset[str] = frozenset()) -> str:
    """Identifiers written into files -> word-bounded literals.

    `Model.objects.create` (Model a placeholder) -> `\\b\\w+\\.objects\\.create\\b`;
    `datetime.now()` -> `\\bdatetime\\.now\\(` (any arguments); `verify.baseline*()` ->
    `\\bverify\\.baseline\\w*\\(`; `<Text>` -> `<Text\\b` (any attributes); `Model<T>` -> `\\bModel<`
    (any type parameters); `{{concat}}` -> `\\{\\{\\s*concat\\b` (a template helper with any arguments); quotes match
    either quote character.
    """
    alternatives = []
    for ident in identifiers:
        if ident in known:
            alternatives.append(known[ident])
            continue
        if tag := _JSX_TAG.match(ident):
            alternatives.append("<" + js_escape(tag.group(1)) + r"\b")
            continue
        if helper := _HELPER.match(ident):  # `{{concat}}`: the helper called with any arguments, `{{concat "a" b}}`
            alternatives.append(r"\{\{\s*" + js_escape(helper.group(1)) + r"\b")
            continue
        if ident.startswith("#[") and ident.endswith("]"):  # a Rust attribute, also as an inner one: `#![allow(unused)]`
            alternatives.append(r"#!?" + _EITHER_QUOTE.sub(lambda _: "[\"']", js_escape(ident[1:])))
            continue
        if generic := _GENERIC.match(ident):  # `ViewContext<T>`: the type with any parameters
            alternatives.append(r"\b" + js_escape(generic.group(1)) + "<")
            continue
        if called := open_call(ident):
            alternatives.append(r"\b" + called)
            continue
        call = ident.endswith("()")
        ident = ident.removesuffix("()")
        # a placeholder part is any name; a `*` inside a part (`verify.baseline*()`) is any name characters
        parts = [r"\w+" if part in placeholders else js_escape(part).replace(r"\*", r"\w*") for part in ident.split(".")]
        body = _EITHER_QUOTE.sub(lambda _: "[\"']", r"\.".join(parts))
        start = r"\b" if ident[:1].isalnum() or ident[:1] == "_" else ""
        if ident in unqualified:  # not a member of something: `waitFor`, never `vi.waitFor`
            start = r"(?<![\w.$])"
        end = r"\(" if call else (r"\b" if ident[-1:].isalnum() or ident[-1:] == "_" else "")
        alternatives.append(start + body + end)
        if call and re.fullmatch(r"[A-Za-z_$][\w$]*", ident):  # `initializeIcons()`: importing it, too
            alternatives.append(r"\bimport\b[^;\n]*\b" + body + r"\b")
    return any_of(alternatives)


@lru_cache(maxsize=4096)  # the same globs come back in every file (the lexicon's section and qualifier scopes)
def glob_to_regex(glob: str) -> str:
    """A path or glob -> regex on a file path that may be absolute or relative (§6).

    `db/migrations/` -> `(?:^|/)db/migrations/`; `**/*.py` -> `\\.py$`;
    `src/**/*.ts` -> `(?:^|/)src/.*\\.ts$`; `*.E01` -> `\\.E01$`. Braces expand
    (`*.{ts,tsx}`, with bracex) and character classes stay classes (`*.[jt]s`).
    """
    glob = glob.strip().strip("`")
    try:
        expanded = bracex.expand(glob, limit=_MAX_BRACE_EXPANSION)
    except bracex.ExpansionLimitException:  # too many combinations: each brace group an alternation
        expanded = [glob]
    return any_of(list(dict.fromkeys(_one_glob(g) for g in expanded)))


_MAX_BRACE_EXPANSION = 32
_GLOB_LITERAL = re.compile(r"[^*?\[{/]+")
_BRACE_GROUP = re.compile(r"\{[^{}/]*\}")
_PATH_PLACEHOLDER = re.compile(r"<[\w.-]+>")


def _one_glob(glob: str) -> str:
    glob = glob.removeprefix("~/").removeprefix("./")
    from_root = glob.startswith("/")
    glob = re.sub(r"\*\*+", "**", glob.lstrip("/"))
    glob = re.sub(r"(?<=[^/])\*\*|\*\*(?=[^/])", "*", glob)  # `**` inside a name is a `*` (`*e**e*` is `*e*e*`)
    glob = re.sub(r"(?:\*\*/)+", "**/", glob)  # `**/**/` is one `**/`
    anywhere = glob.startswith("**/")
    glob = glob.removeprefix("**/")
    if glob in ("", "*", "**"):  # every file: a regex that cannot match the empty string
        return "[^/]$"
    is_dir = glob.endswith("/")
    body = _glob_body(glob).replace("(?:|.*/)[^/]*", ".*")
    if body.startswith("[^/]*"):  # `*.py`: any file name, so no anchor is needed
        return body.removeprefix("[^/]*") + ("" if is_dir else "$")
    prefix = "^/" if from_root else ("" if anywhere and body.startswith(".*") else "(?:^|/)")
    if is_dir or body.endswith(".*"):
        return prefix + body
    last = glob.rsplit("/", 1)[-1]  # (`packages/*/src` names folders: only its last part says whether it is a file)
    is_file = any(c in last for c in "*?[") or "." in last.lstrip(".")
    return prefix + body + ("$" if is_file else "(?:/|$)")


def _glob_body(glob: str) -> str:
    """The regex of a glob whose braces are expanded, or, when they give too many
    combinations, each brace group as an alternation. A star before a
    one-character literal and another star stops at the first place it fits
    (`*a*` -> `[^/a]*a[^/]*`), so `*a*a*` matches in one way only."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:|.*/)")  # any folders, or none
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            literal = _GLOB_LITERAL.match(glob, i + 1)
            if literal and len(literal.group()) == 1 and glob.startswith("*", literal.end()):
                out.append(f"[^/{re.escape(literal.group())}]*")
            else:
                out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "<" and (placeholder := _PATH_PLACEHOLDER.match(glob, i)):
            out.append("[^/]+")  # `packages/<pkg>/.changeset/`: any name where the prose names a kind of name
            i = placeholder.end()
        elif (group := _BRACE_GROUP.match(glob, i)) and len(spellings := _brace_spellings(group.group())) > 1:
            out.append("(?:" + "|".join(_glob_body(g) for g in spellings) + ")")
            i = group.end()
        elif glob[i] == "[" and (end := glob.find("]", i + 2)) > 0:
            inner = glob[i + 1:end]
            negated = inner[:1] in ("!", "^")
            inner = re.sub(r"([\\\[\]^])", r"\\\1", inner[1:] if negated else inner)
            out.append(f"[^/{inner}]" if negated else f"[{inner}]")
            i = end + 1
        else:
            out.append(js_escape(glob[i]))
            i += 1
    return "".join(out)


def _brace_spellings(group: str) -> list[str]:
    try:
        return list(dict.fromkeys(bracex.expand(group, limit=_MAX_BRACE_EXPANSION * 8)))
    except bracex.ExpansionLimitException:
        return [group]


_MCP_FULL = re.compile(r"^mcp__[\w-]+__[\w-]+$")
_MCP_SERVER = re.compile(r"^mcp__([\w-]+)$")


def mcp_tools(names: list[str]) -> tuple[list[str], list[Pattern]]:
    """MCP tool names -> (tool_match, patterns) that fire on the names Claude Code uses,
    `mcp__<server>__<tool>` (interlinked-harness.md §6 item 8).

    A full name matches exactly; `server__tool` also gains its prefix. A bare
    tool (`volumeDelete`) or a whole server (`mcp__github`) leaves a part of the
    name unknown: every tool is matched and a tool_name regex picks them out,
    since tool_match takes no globs.
    """
    exact, regexes = [], []
    for name in names:
        if _MCP_FULL.match(name):
            exact.append(name)
        elif server := _MCP_SERVER.match(name):
            regexes.append(f"mcp__{js_escape(server.group(1))}__.+")
        elif "__" in name:
            exact += [name, "mcp__" + name]
        else:
            regexes += [js_escape(name), rf"mcp__.+__{js_escape(name)}"]
    if not regexes:
        return list(dict.fromkeys(exact)), []
    alternatives = list(dict.fromkeys([js_escape(n) for n in exact] + regexes))
    return ["*"], [Pattern(field="tool_name", regex="^" + any_of(alternatives) + "$", flags="")]


def redos_reasons(regex: str) -> list[str]:
    """Why the harness's ReDoS heuristic would drop a rule with this pattern."""
    reasons = []
    if _REDOS_GROUP_QUANTIFIED.search(regex):
        reasons.append("a group holding + or * is itself quantified")
    if _REDOS_DOTSTAR_GROUP.search(regex):
        reasons.append("a group starting with .* is quantified")
    for m in _REDOS_ALTERNATION.finditer(regex):
        branches = [m.group(1), *m.group(2).split("|")]
        if any(a != b and b.startswith(a) for a in branches for b in branches):
            reasons.append("a quantified alternation has branches that are prefixes of each other")
    return reasons


def syntax_problems(regex: str, flags: str = "i") -> list[str]:
    """Problems visible without a JavaScript engine: Python-only syntax, bad flags, empty match."""
    problems = []
    if _NOT_JS.search(regex):
        problems.append("uses syntax JavaScript does not read the same way")
    if set(flags) - set("dgimsuvy"):
        problems.append(f"invalid flags {flags!r}")
    try:
        compiled = re.compile(regex, re.IGNORECASE if "i" in flags else 0)
    except re.error as exc:
        problems.append(f"does not compile: {exc}")
    else:
        if compiled.search(""):
            problems.append("matches the empty string")
    return problems
