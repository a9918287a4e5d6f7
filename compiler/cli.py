"""`policyc` command line.

    policyc compile [TARGETS...] [--review] [--cedar-target T] [--root DIR] [--out DIR] [--format text|json]
    policyc render IR.json --out DIR [--cedar-target T] [--format text|json]
    policyc accept [--root DIR] [--out DIR] [--format text|json]
    policyc list [GROUP] | show ID | remove ID | remove --source GROUP | disable ID | enable ID
            | modify ID [--action A] [--severity S] [--note N] | add --source GROUP | reset ID
      (each with --root, --out and --format text|json)

    policyc check EVENTS.jsonl [--gate|--audit] [--cedar] [--root DIR] [--out DIR] [--format text|json]
    policyc diff OLD NEW | --git REV [REV2] [--exit-code] [--fail-on weaken] [--format text|json|markdown]

Exit codes: 0 success, 1 a self-check failed or a source could not be read
(diff: differences with --exit-code, weakening with --fail-on weaken),
2 usage error, 3 check: an event was blocked.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..emitters import artifacts
from ..emitters.cedar_lowering import TARGETS
from ..schemas import read as read_schema
from . import check, lifecycle
from . import diff as diffs
from . import overrides as overrides_file
from .checks import cedar_check, self_check
from .ir import PolicyIR
from .output import LockError, OutputError, emitted_before, find_root, locked, remove_emitted, write_atomic
from .pipeline import SEAL_NAME, compile_sources, keep_failed, load_sources, merge_previous, same_compiler, seal, sealed
from .project import Project, UsageError, load_ir, open_project, stderr
from .remote import fetch_https
from .report import summary_data, summary_text
from .targets import discover, expand

CEDAR_TARGETS = tuple(name for name in TARGETS if name.startswith("sondera"))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="policyc", description="Compile coding-agent rulebooks into enforceable policy.")
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p, out_required=False):
        p.add_argument("--root", help="project root (default: nearest git root above the working directory)")
        p.add_argument("--out", required=out_required, help="output folder (default: <root>/.interlinked/, else the working directory)")
        p.add_argument("--format", choices=("text", "json"), default="text")
        return p

    comp = sub.add_parser("compile", help="distill rule files into distilled-rules.json, policy.ir.json and policies/")
    comp.add_argument("targets", nargs="*", help="files, folders, globs, owner/repo[/path] or https URLs (default: discover)")
    comp.add_argument("--review", action="store_true", help="write distilled-rules.review.json; nothing goes live (default for remote targets)")
    comp.add_argument("--cedar-target", choices=CEDAR_TARGETS, default="sondera-v1", help="schema of <group>.cedar (default sondera-v1)")
    common(comp)
    rend = sub.add_parser("render", help="re-render every artifact from a saved policy.ir.json, reading no source")
    rend.add_argument("ir", help="a policy.ir.json")
    rend.add_argument("--cedar-target", choices=CEDAR_TARGETS, default="sondera-v1")
    common(rend, out_required=True)
    acc = sub.add_parser("accept", help="validate distilled-rules.review.json and promote it to distilled-rules.json")
    acc.add_argument("--cedar-target", choices=CEDAR_TARGETS, help="default: the target the review was compiled for")
    common(acc)
    common(sub.add_parser("list", help="rules per source group, or one group's rules")).add_argument("group", nargs="?")
    common(sub.add_parser("show", help="one rule's JSON with its source context")).add_argument("id")
    rem = sub.add_parser("remove", help="remove a rule, or every rule of a source group (--source)")
    rem.add_argument("id", nargs="?")
    rem.add_argument("--source", help="a group id, e.g. gh:owner/repo/path")
    common(rem)
    for verb, text in (("disable", "keep a rule on disk but do not enforce it"), ("enable", "enforce a disabled rule again"),
                       ("reset", "clear every override of a rule")):
        common(sub.add_parser(verb, help=text)).add_argument("id")
    mod = sub.add_parser("modify", help="change a rule's action or severity")
    mod.add_argument("id")
    mod.add_argument("--action", choices=overrides_file.ACTIONS)
    mod.add_argument("--severity", choices=overrides_file.SEVERITIES)
    mod.add_argument("--note")
    common(mod)
    add = sub.add_parser("add", help="restore a removed source group")
    add.add_argument("--source", required=True)
    common(add)
    chk = sub.add_parser("check", help="evaluate hook events (JSONL) against the compiled rules; exit 3 on a block")
    chk.add_argument("events", help="PreToolUse events, one JSON object a line")
    mode = chk.add_mutually_exclusive_group()
    mode.add_argument("--gate", dest="gate", action="store_true", default=True, help="stop at the first block (default)")
    mode.add_argument("--audit", dest="gate", action="store_false", help="evaluate every event and count attempts per rule")
    chk.add_argument("--cedar", action="store_true", help="also evaluate the Sondera Cedar with cedarpy and report disagreements")
    common(chk)
    dif = sub.add_parser("diff", help="what changed in enforcement between two IRs or two git revisions")
    dif.add_argument("sides", nargs="*", help="OLD NEW: policy.ir.json files or folders holding one")
    dif.add_argument("--git", nargs="+", metavar="REV", help="compile the rule sources at REV (and REV2, else the working tree)")
    dif.add_argument("--exit-code", action="store_true", help="exit 1 when anything differs")
    dif.add_argument("--fail-on", choices=("weaken",), help="exit 1 only when enforcement weakens")
    dif.add_argument("--root", help="project root for --git (default: nearest git root)")
    dif.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    return parser


def _self_check(doc: dict, ir: PolicyIR) -> list[str]:
    """§12 failures of a distilled-rules document, each as "<rule id>: <problem>"."""
    return [f"{rule_id}: {message}" for rule_id, message in self_check(doc, {s.file: s.text for s in ir.sources})]


def _print(data, text: str, fmt: str) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False) if fmt == "json" else text, end="\n" if fmt == "json" else "")


def write_artifacts(ir: PolicyIR, project: Project, target: str, review: bool = False) -> tuple[dict, list[str], bool]:
    """Check every artifact, then write the ones that pass: (distilled doc, failures, rules written).

    In review mode only distilled-rules.review.json and policy.review.ir.json are written.
    """
    files = artifacts(ir, target)
    doc = json.loads(files["distilled-rules.json"])
    failures = _self_check(doc, ir)
    if failures:  # §12: a failing rule file is never written, nor anything beside it
        return doc, failures, False
    if review:
        write_atomic(project.rules(review=True), files["distilled-rules.json"], project.out)
        write_atomic(project.ir(review=True), files["policy.ir.json"], project.out)
        return doc, failures, True
    schemas = {".interlinked.cedar": read_schema(TARGETS["interlinked"].schema), ".cedar": read_schema(TARGETS[target].schema)}
    emitted = emitted_before(project.rules())
    for where, message in cedar_check(files, schemas):
        failures.append(f"{where}: {message}")
        path = where.split("#", 1)[0]
        files.pop(path, None)  # this Cedar file is not written,
        remove_emitted(project.out, path, emitted)  # and last run's copy (if policyc wrote it) must not pass for it
    for path, text in files.items():
        write_atomic(project.out / path, text, project.out)
    write_atomic(project.out / SEAL_NAME, seal(files["policy.ir.json"]), project.out)
    return doc, failures, True


def _report(ir: PolicyIR, doc: dict, rules_path: Path, outcome: tuple[list[str], bool], args, review: bool = False) -> int:
    failures, written = outcome
    for failure in failures:
        stderr(f"self-check failed: {failure}")
    if not written:
        stderr("nothing written")
    data = summary_data(ir, doc, str(rules_path), review=review)
    _print(data, summary_text(data), args.format)
    return 1 if ir.errors or failures else 0


def _previous(project: Project) -> tuple[PolicyIR | None, bool]:
    """The last run's IR and whether its items may be reused (it is the file policyc wrote)."""
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


def _up_to_date(project: Project, previous: PolicyIR, sources, target: str, overrides) -> bool:
    """Nothing to do: the same sources, compiler, Cedar target and overrides, and the rules on disk."""
    try:
        written = project.load_rules()
    except UsageError:
        return False
    return (
        same_compiler(previous)
        and previous.overrides == overrides.to_json()
        and written.get("cedar_target") == target
        and {(s.file, s.sha256) for s in sources} == {(s.file, s.sha256) for s in previous.sources}
        and all((project.out / path).is_file() for path in written.get("policies_emitted", []))
    )


def _compile(args, fetcher=fetch_https) -> int:
    project = open_project(args.root, args.out, warn=lambda m: stderr(f"warning: {m}"))
    overrides = overrides_file.load(project.overrides)  # before anything is read or fetched (§9)
    if args.targets:
        targets = expand(args.targets, project.root, fetcher, overrides.removed_groups)
    else:
        targets = discover(project.root, project.home)
    for problem in targets.errors:
        stderr(f"error: {problem}")
    if targets.errors and not (targets.paths or targets.remotes):
        return 2
    review = args.review or bool(targets.remotes)
    if args.format == "text":
        names = [p.relative_to(project.root).as_posix() for p in targets.paths] + [f"~/{p.relative_to(project.home).as_posix()}" for p in targets.home]
        names += [f"{r.label} (fetched sha256:{r.sha256[:12]}…)" for r in targets.remotes]
        print("Distilling: " + (", ".join(names) or "(no rule files found)"))
    previous, trusted = _previous(project)
    sources, errors, dropped = load_sources(targets, project.root, project.home)
    kept: list[str] = []
    if previous is not None:  # a subset run keeps the other sources; discovery keeps accepted remote ones
        sources = merge_previous(previous, sources, project.root, remote_only=not args.targets)
        sources, kept = keep_failed(previous, sources, errors, project.root)
        if kept and not trusted:  # only the file policyc wrote may speak for a source it cannot read now
            stderr(f"error: {', '.join(e['message'] for e in errors)}; {project.ir().name} is not the file policyc last wrote, "
                   "so the last rules of the file cannot be kept; nothing written")
            return 1
    if trusted and not review and not errors and _up_to_date(project, previous, sources, args.cedar_target, overrides):
        doc = project.load_rules()
        stderr("up to date: no source changed since the last run; nothing written")
        return _report(previous, doc, project.rules(), ([], True), args)
    ir = compile_sources(sources, errors, previous, overrides, reuse=trusted)
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
    return code or (1 if targets.errors else 0)  # a target that could not be read


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
    args.cedar_target = args.cedar_target or doc.get("cedar_target", "sondera-v1")
    failures = _self_check(doc, ir)
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
    if args.format == "json":
        print(json.dumps(result, indent=2, ensure_ascii=False))
    elif args.format == "markdown":
        print(diffs.render_markdown(result), end="")
    else:
        print(diffs.render_text(result, colour=sys.stdout.isatty()), end="")
    if args.fail_on == "weaken":
        return 1 if diffs.weakens(result) else 0
    return 1 if args.exit_code and diffs.differs(result) else 0


def _check(args) -> int:
    project = open_project(args.root, args.out, warn=lambda m: None)
    rules, doc = check.load_rules(project)
    policies = check.cedar_policies(project, doc) if args.cedar else None
    events, errors = check.read_events(Path(args.events))
    for error in errors:
        stderr(f"error: {error}")
    report = check.run(events, rules, gate=args.gate, cedar_policies=policies)
    if args.format == "json":
        for result in report.results:
            print(json.dumps({k: result[k] for k in ("index", "decision", "rule_id", "warnings")}))
        for disagreement in report.disagreements:
            stderr(f"cedar disagrees: {json.dumps(disagreement)}")
    else:
        print(check.render(report, args.gate), end="")
    return check.EXIT_BLOCKED if report.blocked else (1 if errors else 0)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    commands = {"compile": _compile, "render": _render, "accept": _accept, "check": _check, "diff": _diff}
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


if __name__ == "__main__":
    sys.exit(main())
