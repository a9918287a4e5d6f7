"""The verbs' bodies: what `policyc VERB` does once cli.py has read its arguments.

cli.py imports this module only after parsing, so `--help`, `--version` and
the hook never load it (nor pathlib, dataclasses or the writer it imports).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from . import stamp
from .cli import DEFAULT_CEDAR_TARGET, FINDING_FORMATS
from .output import LockError, OutputError, find_root, locked, write_atomic
from .project import Project, UsageError, load_ir, open_project, stderr
from .writer import planned_artifacts, self_check_failures, write_artifacts


def run(args, argv: list[str] | None = None) -> int:
    """Run the parsed command (`argv`: the command line it was read from); the errors every verb may meet become one line and an exit code."""
    from . import overrides as overrides_file

    commands = {"compile": lambda a: _compile(a, argv=argv), "render": _render, "accept": _accept, "check": _check, "diff": _diff, "export": _export,
                "hook": _hook, "explain": _explain}
    try:
        return commands.get(args.command, _lifecycle)(args)
    except (UsageError, LockError) as exc:
        stderr(f"error: {exc}")
        return 2
    except (overrides_file.OverridesError, OutputError) as exc:
        stderr(f"error: {exc}")
        return 1
    except OSError as exc:  # a full disk, a read-only folder, --out naming a file: one line, no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        stderr(f"error: {where}{exc.strerror or exc}; nothing more was written")
        return 1


def _print(data, text: str, fmt: str) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False) if fmt == "json" else text, end="\n" if fmt == "json" else "")


def _report(ir, doc: dict, rules_path: Path, outcome: tuple[list[str], bool], args, review: bool = False) -> int:
    from .report import summary_data, summary_text

    failures, written = outcome
    for failure in failures:
        stderr(f"self-check failed: {failure}")
    if not written:
        stderr("nothing written")
    if args.format in FINDING_FORMATS[2:]:
        from . import findings

        _print_findings(findings.compile_findings(ir, failures, args.cedar_target), args.format)
    else:
        data = summary_data(ir, doc, str(rules_path), review=review)
        _print(data, summary_text(data), args.format)
    return 1 if ir.errors or failures else 0


def _print_findings(found: list, fmt: str) -> None:
    from . import findings

    print(findings.render_sarif(found) if fmt == "sarif" else findings.render_github(found), end="")


def _previous(project: Project) -> tuple:
    """The last run's IR and whether its items may be reused (it is the file policyc wrote)."""
    from .pipeline import sealed

    if not project.ir().is_file():
        return None, False
    trusted = sealed(project.ir())
    try:
        previous = load_ir(project.ir(), validate=not trusted)
    except ValueError as exc:
        stderr(f"warning: ignoring the previous IR: {exc}")
        return None, False
    if not trusted:
        stderr(f"warning: {project.ir().name} is not the file policyc last wrote; every source is compiled afresh")
    return previous, trusted


def _up_to_date(project: Project, previous, sources, target: str, overrides) -> bool:
    """Nothing to do: the same sources, compiler, Cedar target and overrides, and the rules on disk.

    A group removed since (a lifecycle verb re-renders at once, but only a compile drops its sources)
    means there is something to do."""
    from .pipeline import same_compiler

    try:
        written = project.load_rules()
    except UsageError:
        return False
    return (
        same_compiler(previous)
        and previous.overrides == overrides.to_json()
        and written.get("cedar_target") == target
        and {(s.file, s.sha256) for s in sources} == {(s.file, s.sha256) for s in previous.sources}
        and not any(s.group_id in overrides.removed_groups for s in previous.sources)
        and all((project.out / path).is_file() for path in written.get("policies_emitted", []))
    )


def _compile(args, fetcher=None, argv: list[str] | None = None) -> int:
    """`policyc compile`. Run from the command line (`argv`), a run that finds nothing to do leaves the
    stamp that lets the next identical one answer without compiling (stamp.py)."""
    if argv is None:
        return _compile_run(args, fetcher)[0]
    started = time.time_ns()
    with stamp.Tee() as printed:
        code, unchanged = _compile_run(args, fetcher)
    if code == 0 and unchanged:
        stamp.write(argv, unchanged, printed, started)
    return code


def _compile_run(args, fetcher=None) -> tuple[int, list[str] | None]:
    """(exit code, the paths a no-change answer depended on: stamp.dependencies, or None)."""
    from . import overrides as overrides_file
    from .pipeline import distilled_at, keep_failed, load_sources, merge_previous
    from .targets import discover, expand

    distilled_at()  # a bad SOURCE_DATE_EPOCH fails before anything is read
    project = open_project(args.root, args.out, warn=lambda m: stderr(f"warning: {m}"))
    if project.fallback:
        stderr(_fallback_folder(project))
    overrides = overrides_file.load(project.overrides)  # before anything is read or fetched (§9)
    home = project.home  # $HOME; only discovery reads files under it
    if args.targets:
        targets = expand(args.targets, project.root, fetcher, overrides.removed_groups)
    else:
        targets = discover(project.root, home)
    for problem in targets.errors:
        stderr(f"error: {problem}")
    if targets.errors and not (targets.paths or targets.remotes):
        return 2, None
    review = args.review or bool(targets.remotes)
    if args.format == "text":
        names = [p.relative_to(project.root).as_posix() for p in targets.paths] + [f"~/{p.relative_to(home).as_posix()}" for p in targets.home if home]
        names += [f"{r.label} (fetched sha256:{r.sha256[:12]}…)" for r in targets.remotes]
        print("Distilling: " + (", ".join(names) or "(no rule files found)"))
    previous, trusted = _previous(project)
    sources, errors, dropped = load_sources(targets, project.root, home)
    kept: list[str] = []
    if previous is not None:  # a subset run keeps the other sources; discovery keeps accepted remote ones
        sources = merge_previous(previous, sources, project.root, remote_only=not args.targets)
        sources, kept = keep_failed(previous, sources, errors, project.root)
        if kept and not trusted:  # only the file policyc wrote may speak for a source it cannot read now
            stderr(f"error: {', '.join(e['message'] for e in errors)}; {project.ir().name} is not the file policyc last wrote, "
                   "so the last rules of the file cannot be kept; nothing written")
            return 1, None
    if args.check:
        return _compile_check(project, (previous, trusted), (sources, errors, dropped), overrides, args, review), None
    if trusted and not review and not errors and _up_to_date(project, previous, sources, args.cedar_target, overrides):
        doc = project.load_rules()
        stderr("up to date: no source changed since the last run; nothing written")
        unchanged = None if args.targets or project.fallback else stamp.dependencies(project, targets, doc, bool(args.root))
        return _report(previous, doc, project.rules(), ([], True), args), unchanged
    from .pipeline import compile_sources  # (Lark and the extractor: only when something changed)
    from .regex_safety import stop_node_trials

    ir = compile_sources(sources, errors, previous, overrides, reuse=trusted)
    stop_node_trials()  # every regex is tried: no Node.js process stays through the writing
    ir.dropped = dropped
    ir.warnings += kept
    for error in ir.errors:
        stderr(f"error: {error['message']}")
    for warning in ir.warnings:
        stderr(f"warning: {warning}")
    with locked(project.out):
        doc, failures, written = write_artifacts(ir, project, args.cedar_target, review)
    if project.fallback and args.format == "text" and written:
        stderr(project.fallback_note())
    code = _report(ir, doc, project.rules(review), (failures, written), args, review)
    return code or (1 if targets.errors else 0), None  # a target that could not be read


def _fallback_folder(project: Project) -> str:
    return (f"no .interlinked/ folder in {project.root}: the output folder is the working directory {project.out} "
            "(distilled-rules.json, policy.ir.json, policies/); create .interlinked/ or pass --out DIR to choose another")


def _compile_check(project: Project, last: tuple, loaded: tuple, overrides, args, review: bool) -> int:
    """`compile --check`: which artifacts a compile would change; 0 when none, 1 otherwise. Writes nothing.

    With nothing to do (the sources, compiler, target and overrides of the last run), the last IR is
    rendered again, which is what is on disk unless a file was edited or deleted; otherwise the new IR
    gets the last run's timestamp, so only real changes are listed.
    """
    from . import findings
    from .pipeline import compile_sources

    (previous, trusted), (sources, errors, dropped) = last, loaded
    if trusted and not review and not errors and _up_to_date(project, previous, sources, args.cedar_target, overrides):
        ir = previous
    else:
        ir = compile_sources(sources, errors, previous, overrides, reuse=trusted)
        ir.dropped = dropped
        ir.distilled_at = previous.distilled_at if previous is not None else ir.distilled_at
    _, failures, files, deleted = planned_artifacts(ir, args.cedar_target, review)
    for failure in failures:
        stderr(f"self-check failed: {failure}")
    stale = [p for p, data in sorted((files or {}).items()) if _current(project.out / p) != (data.encode() if isinstance(data, str) else data)]
    stale += sorted(p for p in deleted if (project.out / p).exists())
    missing = [p for p in stale if not (project.out / p).exists()]
    data = {"output": str(project.out), "stale": [p for p in stale if p not in missing], "missing": missing,
            "current": len(files or {}) - len(stale), "failures": failures}
    lines = [f"{'missing' if p in missing else 'stale'}: {p}" for p in stale]
    lines.append(f"{len(stale)} of {len(files or {})} artifacts in {project.out} would change; run `policyc compile`"
                 if stale else f"up to date: {len(files or {})} artifacts in {project.out} are current")
    if args.format in FINDING_FORMATS[2:]:
        out = project.out.relative_to(project.root) if project.out.is_relative_to(project.root) else project.out
        _print_findings([findings.Finding("policyc/stale-artifact", f"{p} {'is missing' if p in missing else 'would change'}; "
                                          "run `policyc compile`", (out / p).as_posix(), subject=p) for p in stale]
                        + findings.compile_findings(ir, failures, args.cedar_target), args.format)
    else:
        _print(data, "\n".join(lines) + "\n", args.format)
    return 1 if stale or failures or ir.errors else 0


def _current(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _render(args) -> int:
    try:
        ir = load_ir(Path(args.ir))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    project = Project(Path.cwd(), Path(args.out).resolve(), False)
    with locked(project.out):
        doc, failures, written = write_artifacts(ir, project, args.cedar_target)
    return _report(ir, doc, project.rules(), (failures, written), args)


def _accept(args) -> int:
    """Promote the review file: validated (schema, §12) or not promoted at all (spec §14)."""
    project = open_project(args.root, args.out, warn=lambda m: stderr(f"warning: {m}"))
    review_rules, review_ir = project.rules(review=True), project.ir(review=True)
    if not review_rules.is_file() or not review_ir.is_file():
        raise UsageError(f"no review to accept in {project.out} (run `policyc compile --review` first)")
    try:
        doc = json.loads(review_rules.read_text(encoding="utf-8"))
        ir = load_ir(review_ir)
    except ValueError as exc:
        stderr(f"error: {review_rules.name}: {exc}; not promoted")
        return 1
    args.cedar_target = args.cedar_target or doc.get("cedar_target", DEFAULT_CEDAR_TARGET)
    failures = self_check_failures(doc, ir)
    if failures:
        for failure in failures:
            stderr(f"self-check failed: {failure}")
        stderr(f"{review_rules.name} not promoted; {project.rules().name} is unchanged")
        return 1
    with locked(project.out):
        _, failures, written = write_artifacts(ir, project, args.cedar_target)
        if not written:
            return _report(ir, doc, project.rules(), (failures, False), args)
        reviewed = json.loads(review_rules.read_text(encoding="utf-8"))
        reviewed["cedar_target"] = args.cedar_target  # the policies/ just written
        write_atomic(project.rules(), json.dumps(reviewed, indent=2, ensure_ascii=False) + "\n", project.out)  # the file as reviewed
        review_rules.unlink()
        review_ir.unlink()
    return _report(ir, doc, project.rules(), (failures, True), args)


def _lifecycle(args) -> int:
    from . import lifecycle

    state = lifecycle.load_state(open_project(args.root, args.out, warn=lambda m: None))
    verb = args.command
    if verb in ("list", "show"):
        if verb == "show":
            data, text = lifecycle.show(state, args.id), lifecycle.render_show
        elif args.group:
            data, text = lifecycle.list_group(state, args.group), lifecycle.render_group
        else:
            data, text = lifecycle.list_groups(state), lifecycle.render_groups
        _print(data, text(data), args.format)
        return 0
    if verb == "remove" and bool(args.id) == bool(args.source):
        raise UsageError("remove takes a rule id or --source GROUP")
    actions = {
        "remove": lambda: lifecycle.remove_group(state, args.source) if args.source else lifecycle.remove_rule(state, args.id),
        "add": lambda: lifecycle.add_group(state, args.source),
        "disable": lambda: lifecycle.disable(state, args.id),
        "enable": lambda: lifecycle.enable(state, args.id),
        "reset": lambda: lifecycle.reset(state, args.id),
        "modify": lambda: lifecycle.modify(state, args.id, args.action, args.severity, args.note),
    }
    message = actions[verb]()
    if args.format == "json":
        print(json.dumps({"ok": True, "message": message, "overrides": state.overrides.to_json()}, indent=2))
    else:
        print(message)
    return 0


def _diff(args) -> int:
    from . import diff as diffs
    from . import findings
    from .pipeline import compile_sources, load_sources
    from .targets import discover

    if args.git:
        if len(args.git) > 2 or args.sides:
            raise UsageError("diff takes OLD NEW, or --git REV [REV2]")
        root = Path(args.root).resolve() if args.root else find_root(Path.cwd())[0]
        old = diffs.compile_revision(root, args.git[0])
        if len(args.git) == 2:
            new = diffs.compile_revision(root, args.git[1])
        else:
            new = compile_sources(*load_sources(discover(root), root)[:2])
    elif len(args.sides) == 2:
        old, new = diffs.load_side(args.sides[0]), diffs.load_side(args.sides[1])
    else:
        raise UsageError("diff takes OLD NEW, or --git REV [REV2]")
    result = diffs.diff(old, new)
    if args.format in FINDING_FORMATS[2:]:
        _print_findings(findings.diff_findings(result), args.format)
    elif args.format == "json":
        print(json.dumps(result, indent=2, ensure_ascii=False))
    elif args.format == "markdown":
        print(diffs.render_markdown(result), end="")
    else:
        print(diffs.render_text(result, colour=sys.stdout.isatty()), end="")
    if args.fail_on == "weaken":
        return 1 if diffs.weakens(result) else 0
    return 1 if args.exit_code and diffs.differs(result) else 0


def _explain(args) -> int:
    from . import explain
    from .sources import SourceError, read_source, skip_reason

    path = Path(args.file).resolve()
    if not path.is_file():
        raise UsageError(f"{args.file}: not a file")
    root = Path(args.root).resolve() if args.root else find_root(path.parent)[0]
    try:
        source = read_source(path, root)
    except SourceError as exc:
        stderr(f"error: {exc}")
        return 1
    if reason := skip_reason(source):
        stderr(f"note: compile does not read {source.file} ({reason}); here is what it would make of it")
    found = explain.journey(source, args.stage)
    if args.format == "json":
        _print(explain.to_json(found), "", "json")
    else:
        print(explain.render_text(found), end="")
    return 0


def _check(args) -> int:
    from . import check

    if bool(args.events) == bool(args.transcript):
        raise UsageError("check takes an events file (`-` for stdin) or --transcript FILE...")
    project = open_project(args.root, args.out, warn=lambda m: None)
    rules = check.load_rules(project)
    policies = check.cedar_policies(project) if args.cedar else None
    events = check.read_transcripts(args.transcript) if args.transcript else check.read_events(args.events)
    report = check.run(events, rules, gate=args.gate, cedar_policies=policies)
    for result in report.unreadable:
        stderr(f"error: {result['at']}: unreadable: {result['error']}")
    if args.format == "json":
        for result in report.results:
            print(json.dumps(result, ensure_ascii=False))
        for disagreement in report.disagreements:
            stderr(f"cedar disagrees: {json.dumps(disagreement)}")
    else:
        print(check.render(report, args.gate), end="")
    return report.exit_code


def _hook(args) -> int:
    if args.action == "claude":
        from . import hook

        return hook.main(args)
    return _hook_settings(args)


def _hook_settings(args) -> int:
    """`hook install|uninstall claude`: merge or remove the PreToolUse entry; --dry-run prints the result."""
    from . import hook_install as settings
    from .check import load_rules

    scope = args.scope or "project"
    root = Path(args.root).resolve() if args.root else find_root(Path.cwd())[0]
    home = Path(os.environ["HOME"]) if os.environ.get("HOME") else None
    try:
        path = settings.settings_path(scope, root, home)
        if args.action == "install":
            if scope == "user":  # it serves every project, whose rules act on different tools
                matcher = "*"
            else:
                matcher = settings.matcher_for(load_rules(open_project(str(root), args.out, warn=lambda m: None)))
            if not matcher:
                raise UsageError("the compiled rules act on no tool; nothing to install")
            change = settings.install(path, matcher, settings.command_for(scope, _executable()))
        else:
            change = settings.uninstall(path)
        if args.dry_run:
            print(change.text, end="")
            return 0
        if change.changed:
            settings.write(change)
    except settings.SettingsError as exc:
        stderr(f"error: {exc}")
        return 1
    print(change.message)
    return 0


def _executable() -> str:
    """The running policyc's absolute path (for the settings files of this machine)."""
    program = Path(sys.argv[0])
    return str(program.resolve()) if program.name == "policyc" and program.exists() else "policyc"


def _export(args) -> int:
    """Export from the run's saved IR (policy.ir.json), so it matches what compile wrote."""
    from . import export

    project = open_project(args.root, args.out, warn=lambda m: None)
    if not project.ir().is_file():
        raise UsageError(f"no policy.ir.json in {project.out}; run `policyc compile` first")
    try:
        ir = load_ir(project.ir())
        folder = Path(args.dir).resolve()
        if args.check:
            changes = export.plan_export(ir, folder)[1]
        else:
            with locked(folder):
                changes = export.export(ir, folder)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    data = {"folder": str(folder), "check": args.check, "changed": changes.written, "removed": changes.removed,
            "unchanged": changes.unchanged}
    verb = ("would write", "would remove") if args.check else ("wrote", "removed")
    text = "".join(f"{verb[0]} {name}\n" for name in changes.written) + "".join(f"{verb[1]} {name}\n" for name in changes.removed)
    text += f"{folder}: {len(changes.written)} {verb[0].split()[-1]}, {len(changes.removed)} {verb[1].split()[-1]}, {changes.unchanged} unchanged\n"
    _print(data, text, args.format)
    return 1 if args.check and changes.any else 0
