"""`policyc` command line.

    policyc compile [TARGETS...] [--review] [--check] [--cedar-target T] [--root DIR] [--out DIR]
            [--format text|json|sarif|github]
    policyc render IR.json --out DIR [--cedar-target T] [--format text|json]
    policyc accept [--root DIR] [--out DIR] [--format text|json]
    policyc list [GROUP] | show ID | remove ID | remove --source GROUP | disable ID | enable ID
            | modify ID [--action A] [--severity S] [--note N] | add --source GROUP | reset ID
      (each with --root, --out and --format text|json)

    policyc check EVENTS.jsonl|- | --transcript FILE... [--gate|--audit] [--cedar] [--root DIR] [--out DIR] [--format text|json]
    policyc hook claude [--require-rules] [--on-error deny|allow] [--root DIR] [--out DIR]   (a Claude Code PreToolUse hook)
    policyc hook install claude [--project|--local|--user] [--dry-run] | hook uninstall claude [...]
    policyc diff OLD NEW | --git REV [REV2] [--exit-code] [--fail-on weaken] [--format text|json|markdown|sarif|github]
    policyc export sondera DIR [--check] [--root DIR] [--out DIR] [--format text|json]
    policyc explain FILE [--stage blocks|units|clauses|candidates|admission] [--root DIR] [--format text|json]

Exit codes: 0 success, 1 a self-check failed or a source could not be read
(diff: differences with --exit-code, weakening with --fail-on weaken; compile --check and
export --check: an artifact would change),
2 usage error, 3 check: an event was blocked (an unreadable event line is 1, and wins over 3).
`hook claude` always exits 0 and answers in JSON (it denies when it cannot decide).
"""

from __future__ import annotations

import sys
from types import SimpleNamespace

from .. import __version__

# The verbs' bodies are in verbs.py, imported after parsing; each verb imports its own modules
# when it runs (the hook, --help and `list` never load Lark, Jinja2, jsonschema or the emitters).
# These names are emitters.cedar_lowering.TARGETS' Sondera targets; a test keeps them equal.
CEDAR_TARGETS = ("sondera-v1", "sondera-v2")
DEFAULT_CEDAR_TARGET = "sondera-v2"  # emitters.cedar_lowering.DEFAULT_TARGET
FINDING_FORMATS = ("text", "json", "sarif", "github")  # sarif: SARIF 2.1.0; github: workflow-command annotations
EXPLAIN_STAGES = ("blocks", "units", "clauses", "candidates", "admission")  # compiler.explain.STAGES; a test keeps them equal


def _common(p, out_required=False, formats=("text", "json")):
    p.add_argument("--root", help="project root (default: nearest git root above the working directory)")
    p.add_argument("--out", required=out_required, help="output folder (default: <root>/.interlinked/, else the working directory)")
    p.add_argument("--format", choices=formats, default="text")
    return p


def _compile_arguments(comp) -> None:
    comp.add_argument("targets", nargs="*", help="files, folders, globs, owner/repo[/path] or https URLs (default: discover)")
    comp.add_argument("--review", action="store_true", help="write distilled-rules.review.json; nothing goes live (default for remote targets)")
    comp.add_argument("--check", action="store_true", help="compile in memory, write nothing; exit 1 when an artifact in the output folder would change")
    comp.add_argument("--cedar-target", choices=CEDAR_TARGETS, default=DEFAULT_CEDAR_TARGET, help=f"schema of <group>.cedar (default {DEFAULT_CEDAR_TARGET})")
    _common(comp, formats=FINDING_FORMATS)


def _render_arguments(rend) -> None:
    rend.add_argument("ir", help="a policy.ir.json")
    rend.add_argument("--cedar-target", choices=CEDAR_TARGETS, default=DEFAULT_CEDAR_TARGET)
    _common(rend, out_required=True)


def _accept_arguments(acc) -> None:
    acc.add_argument("--cedar-target", choices=CEDAR_TARGETS, help="default: the target the review was compiled for")
    _common(acc)


def _remove_arguments(rem) -> None:
    rem.add_argument("id", nargs="?")
    rem.add_argument("--source", help="a group id, e.g. gh:owner/repo/path")
    _common(rem)


def _modify_arguments(mod) -> None:
    from . import overrides as overrides_file

    mod.add_argument("id")
    mod.add_argument("--action", choices=overrides_file.ACTIONS)
    mod.add_argument("--severity", choices=overrides_file.SEVERITIES)
    mod.add_argument("--note")
    _common(mod)


def _add_arguments(add) -> None:
    add.add_argument("--source", required=True)
    _common(add)


def _check_arguments(chk) -> None:
    chk.add_argument("events", nargs="?", help="PreToolUse events, one JSON object a line (`-`: stdin)")
    chk.add_argument("--transcript", nargs="+", metavar="FILE", help="replay the tool calls of Claude Code session transcripts "
                     "(~/.claude/projects/*/*.jsonl)")
    mode = chk.add_mutually_exclusive_group()
    mode.add_argument("--gate", dest="gate", action="store_true", default=True, help="stop at the first block or unreadable line (default)")
    mode.add_argument("--audit", dest="gate", action="store_false", help="evaluate every event and count attempts per rule")
    chk.add_argument("--cedar", action="store_true", help="also evaluate the Sondera Cedar with cedarpy and report disagreements")
    _common(chk)


def _hook_arguments(hook) -> None:
    actions = hook.add_subparsers(dest="action", required=True)
    _hook_claude_arguments(actions.add_parser("claude", help="decide one PreToolUse event on stdin (Claude Code's hook JSON); always exits 0"))
    for action, text in (("install", "merge the policyc PreToolUse hook into a Claude Code settings file"),
                         ("uninstall", "remove the policyc hook from a Claude Code settings file")):
        p = actions.add_parser(action, help=text)
        p.add_argument("agent", choices=("claude",))
        scope = p.add_mutually_exclusive_group()
        scope.add_argument("--project", dest="scope", action="store_const", const="project", help=".claude/settings.json (default)")
        scope.add_argument("--local", dest="scope", action="store_const", const="local", help=".claude/settings.local.json")
        scope.add_argument("--user", dest="scope", action="store_const", const="user", help="~/.claude/settings.json")
        p.add_argument("--dry-run", action="store_true", help="print the settings file as it would be written; write nothing")
        p.add_argument("--root", help="project root (default: nearest git root above the working directory)")
        if action == "install":
            p.add_argument("--out", help="the rules folder (default: <root>/.interlinked/, else the working directory)")


def _diff_arguments(dif) -> None:
    dif.add_argument("sides", nargs="*", help="OLD NEW: policy.ir.json files or folders holding one")
    dif.add_argument("--git", nargs="+", metavar="REV", help="compile the rule sources at REV (and REV2, else the working tree)")
    dif.add_argument("--exit-code", action="store_true", help="exit 1 when anything differs")
    dif.add_argument("--fail-on", choices=("weaken",), help="exit 1 only when enforcement weakens")
    dif.add_argument("--root", help="project root for --git (default: nearest git root)")
    dif.add_argument("--format", choices=("text", "json", "markdown", *FINDING_FORMATS[2:]), default="text",
                     help="sarif and github: the weakening changes and removed rules as findings")


def _export_arguments(exp) -> None:
    exp.add_argument("kind", choices=("sondera",))
    exp.add_argument("dir", help="e.g. .sondera/policies/cedar/policyc")
    exp.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file would change")
    _common(exp)


def _explain_arguments(exp) -> None:
    exp.add_argument("file", help="a rule file (AGENTS.md, CLAUDE.md, a .cursor/rules/*.mdc, ...)")
    exp.add_argument("--stage", choices=EXPLAIN_STAGES, default=EXPLAIN_STAGES[-1],
                     help="stop after this stage (default: admission, the whole journey); blocks lists the markdown blocks")
    exp.add_argument("--root", help="the project root the file's path is read from (default: nearest git root above the file)")
    exp.add_argument("--format", choices=("text", "json"), default="text")


def _one(name: str):
    return lambda p: _common(p).add_argument(name)


_CHECK_EPILOG = ("Exit codes: 0 nothing blocked, 3 an event was blocked, 1 an unreadable line (wins over 3: the "
                 "verdict is incomplete; --gate stops at whichever comes first), 2 usage.")
# (verb, its line in `policyc --help`, what adds its arguments, add_parser's other keywords), in help order
VERBS: tuple[tuple, ...] = (
    ("compile", "distill rule files into distilled-rules.json, policy.ir.json and policies/", _compile_arguments, {}),
    ("render", "re-render every artifact from a saved policy.ir.json, reading no source", _render_arguments, {}),
    ("accept", "validate distilled-rules.review.json and promote it to distilled-rules.json", _accept_arguments, {}),
    ("list", "rules per source group, or one group's rules", lambda p: _common(p).add_argument("group", nargs="?"), {}),
    ("show", "one rule's JSON with its source context", _one("id"), {}),
    ("remove", "remove a rule, or every rule of a source group (--source)", _remove_arguments, {}),
    ("disable", "keep a rule on disk but do not enforce it", _one("id"), {}),
    ("enable", "enforce a disabled rule again", _one("id"), {}),
    ("reset", "clear every override of a rule", _one("id"), {}),
    ("modify", "change a rule's action or severity", _modify_arguments, {}),
    ("add", "restore a removed source group", _add_arguments, {}),
    ("check", "evaluate hook events (JSONL) or session transcripts against the compiled rules; exit 3 on a block",
     _check_arguments, {"epilog": _CHECK_EPILOG}),
    ("hook", "enforce the rules where the agent runs: a Claude Code PreToolUse hook", _hook_arguments, {}),
    ("diff", "what changed in enforcement between two IRs or two git revisions", _diff_arguments, {}),
    ("export", "write the Sondera v2 Cedar of every group in Sondera's layout (one policy per file)", _export_arguments, {}),
    ("explain", "why each sentence of a rule file became a rule, or none: its journey through every stage", _explain_arguments, {}),
)


def _parser(only: str | None = None):
    """The command line's parser: every verb's arguments, or with `only`, that verb's alone.

    Every verb is listed either way, with its help line, so `policyc --help` and
    a wrong verb read as before; building the other verbs' arguments would cost
    each run about 10 ms."""
    import argparse

    parser = argparse.ArgumentParser(prog="policyc", description="Compile coding-agent rulebooks into enforceable policy.")
    parser.add_argument("--version", action="version", version=f"policyc {__version__}", help="print policyc's version and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    for verb, text, arguments, keywords in VERBS:
        p = sub.add_parser(verb, help=text, **keywords)
        if only is None or only == verb:
            arguments(p)
    return parser


def _verb(argv: list[str]) -> str:
    """The verb argparse will read: the first argument that is not an option (the top level takes no option values)."""
    return next((a for a in argv if not a.startswith("-")), "")


def _hook_claude_arguments(claude):
    """`hook claude`'s options on an argparse parser (see also _hook_claude_fast)."""
    claude.add_argument("--require-rules", action="store_true",
                        help="deny when the project has no compiled rules (a hook installed for the project)")
    claude.add_argument("--on-error", choices=("deny", "allow"), default="deny",
                        help="when the event cannot be decided: deny (default, fail closed) or allow and say so")
    claude.add_argument("--root", help="project root when neither $CLAUDE_PROJECT_DIR nor the event's cwd gives one")
    claude.add_argument("--out", help="the rules folder (default: <root>/.interlinked/, else the working directory)")
    claude.set_defaults(command="hook", action="claude")
    return claude


def _hook_claude_fast(argv: list[str]):
    """`hook claude`'s options as the installer writes them, without argparse: on every tool call,
    argparse's import, translations and help formatter cost about 4 ms. None for anything else
    (help, another spelling, an error), which argparse then parses; a test keeps both in step."""
    values = {"require_rules": False, "on_error": "deny", "root": None, "out": None}
    args = iter(argv)
    for arg in args:
        if arg == "--require-rules":
            values["require_rules"] = True
        elif arg in ("--on-error", "--root", "--out"):
            value = next(args, None)
            if value is None or value.startswith("-") or (arg == "--on-error" and value not in ("deny", "allow")):
                return None
            values[arg[2:].replace("-", "_")] = value
        else:
            return None
    return SimpleNamespace(command="hook", action="claude", **values)


def _exit_now(code: int) -> None:
    """End the process without the interpreter's teardown, which frees every module and object one by one
    (about 3 ms of a hook call): the answer is written and nothing else is pending. Output that cannot
    be flushed exits 2, Claude Code's blocking error, as the hook does when it cannot write its answer."""
    import os

    os._exit(code if _flushed() else 2)


def _flushed() -> bool:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    process = argv is None  # the command itself, which ends when this returns (not a caller in Python)
    argv = sys.argv[1:] if argv is None else argv
    if argv[:2] == ["hook", "claude"]:  # on every tool call: build no other verb's parser
        args = _hook_claude_fast(argv[2:])
        if args is None:
            import argparse

            args = _hook_claude_arguments(argparse.ArgumentParser(prog="policyc hook claude")).parse_args(argv[2:])
        from .hook import main as hook

        code = hook(args)
        if process:
            _exit_now(code)
        return code
    if argv[:1] == ["compile"]:  # nothing changed since the last identical compile: print its answer again
        from .stamp import replay

        if replay(argv):
            return 0
    args = _parser(_verb(argv)).parse_args(argv)
    from .verbs import run

    code = run(args, argv)
    if process and args.command == "compile" and _flushed():  # every file is written: freeing a large run's
        import os  # objects one by one would cost 60-80 ms more

        os._exit(code)
    return code


if __name__ == "__main__":
    sys.exit(main())
