"""Building and vetting the regexes of emitted rules.

Every regex the compiler writes is JavaScript (the harness runs
`new RegExp(regex, flags)` in V8) restricted to the subset that Python's `re`
reads the same way, so it can be tested here and in Node.js alike.
"""

from __future__ import annotations

import re

_JS_SPECIAL = frozenset("\\^$.|?*+()[]{}")
# The harness loader drops a rule when any of these match its pattern text
# (interlinked-harness.md §4.3, `looksLikeReDoS`).
_REDOS_GROUP_QUANTIFIED = re.compile(r"\([^()]*[+*][^()]*\)[+*?]")
_REDOS_DOTSTAR_GROUP = re.compile(r"\(\.\*[^()]*\)[+*]")
_REDOS_ALTERNATION = re.compile(r"\(([^()|]*)\|([^()|]*(?:\|[^()|]*)*)\)[+*]")
# Python-only syntax that JavaScript rejects or silently misreads.
_NOT_JS = re.compile(r"\(\?P[<=]|\(\?[aiLmsux]+\)|\(\?[aiLmsux-]+:|\\[AZz]|\(\?#|\(\?>|[*+?}][+]")

_ANGLE = re.compile(r"<[^<>]*>")
COMMAND_START = r"(?:^|[;&|(]\s*)"
_PLACEHOLDER = re.compile(r"^(?:<[^>]*>|\.{3}|…|\$\{?\w+\}?|\{[^}]*\}|\[[^\]]*\])$")


def any_of(alternatives: list[str]) -> str:
    """One regex matching any of the alternatives (a group only when there are several)."""
    return alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"


def js_escape(text: str) -> str:
    return "".join("\\" + c if c in _JS_SPECIAL else c for c in text)


def _ends_in_word(token: str) -> bool:
    return token[-1:].isalnum() or token[-1:] == "_"


def command_regex(commands: list[str], versioned: frozenset[str] = frozenset()) -> str:
    """`npm run compile`, `git push <branch>` -> regex anchored at a command position.

    A program in `versioned` also matches its versioned spellings (pip3, python3.12).
    """
    alternatives: list[str] = []
    for command in commands:
        tokens = _ANGLE.sub("<placeholder>", command.strip().removeprefix("$ ")).split()
        parts = [r"\S+" if _PLACEHOLDER.match(t) else js_escape(t) for t in tokens]
        if tokens and tokens[0] in versioned:
            parts[0] += "[0-9.]*"
        while parts and parts[-1] == r"\S+":  # a trailing placeholder adds nothing
            parts.pop()
            tokens.pop()
        if not parts:
            continue
        # the last token ends there: `rm -rf /` is not `rm -rf /tmp/x`
        body = r"\s+".join(parts) + (r"(?![\w-])" if _ends_in_word(tokens[-1]) else r"(?=$|[\s;&|)])")
        if body not in alternatives:
            alternatives.append(body)
    return COMMAND_START + any_of(alternatives)


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
    return COMMAND_START + rf"(?:{program}|[\w./-]*/{program})(?![\w-])(?:{lacks})"


_JSX_TAG = re.compile(r"^<([A-Za-z][\w.]*)\s*/?>$")


def identifier_regex(identifiers: list[str], known: dict[str, str], placeholders: frozenset[str] = frozenset()) -> str:
    """Identifiers written into files -> word-bounded literals.

    `Model.objects.create` (Model a placeholder) -> `\\b\\w+\\.objects\\.create\\b`;
    `datetime.now()` -> `\\bdatetime\\.now\\(` (any arguments); `<Text>` -> `<Text\\b`
    (any attributes); quotes match either quote character.
    """
    alternatives = []
    for ident in identifiers:
        if ident in known:
            alternatives.append(known[ident])
            continue
        if tag := _JSX_TAG.match(ident):
            alternatives.append("<" + js_escape(tag.group(1)) + r"\b")
            continue
        call = ident.endswith("()")
        ident = ident.removesuffix("()")
        parts = [r"\w+" if part in placeholders else js_escape(part) for part in ident.split(".")]
        body = re.sub(r"[\"']", lambda _: "[\"']", r"\.".join(parts))
        start = r"\b" if ident[:1].isalnum() or ident[:1] == "_" else ""
        end = r"\(" if call else (r"\b" if ident[-1:].isalnum() or ident[-1:] == "_" else "")
        alternatives.append(start + body + end)
    return any_of(alternatives)


def glob_to_regex(glob: str) -> str:
    """A path or glob -> regex on a file path that may be absolute (§6).

    `db/migrations/` -> `(?:^|/)db/migrations/`; `**/*.py` -> `\\.py$`;
    `src/**/*.ts` -> `(?:^|/)src/.*\\.ts$`; `*.E01` -> `\\.E01$`.
    """
    glob = glob.strip().strip("`").removeprefix("~/").removeprefix("./")
    from_root = glob.startswith("/")
    glob = glob.lstrip("/")
    anywhere = glob.startswith("**/")
    while glob.startswith("**/"):
        glob = glob[3:]
    is_dir = glob.endswith("/")
    body = ""
    i = 0
    while i < len(glob):
        if glob.startswith("**", i):
            body += ".*"
            i += 3 if glob.startswith("**/", i) else 2
        else:
            body += {"*": "[^/]*", "?": "[^/]"}.get(glob[i], js_escape(glob[i]))
            i += 1
    body = body.replace(".*[^/]*", ".*")
    if body.startswith("[^/]*"):  # `*.py`: any file name, so no anchor is needed
        return body.removeprefix("[^/]*") + ("" if is_dir else "$")
    prefix = "^/" if from_root else ("" if anywhere and body.startswith(".*") else "(?:^|/)")
    if is_dir or body.endswith(".*"):
        return prefix + body
    is_file = any(c in glob for c in "*?") or "." in glob.rsplit("/", 1)[-1].lstrip(".")
    return prefix + body + ("$" if is_file else "(?:/|$)")


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
