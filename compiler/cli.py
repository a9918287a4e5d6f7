"""`policyc` command line.

    policyc compile [TARGETS...] [--root DIR] [--out DIR] [--format text|json] [--cedar-target T]
    policyc render IR.json --out DIR [--format text|json] [--cedar-target T]

Exit codes: 0 success, 1 a self-check failed or a source could not be read,
2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from importlib import resources

import jsonschema

from ..emitters import artifacts
from ..emitters.cedar_lowering import TARGETS
from ..emitters.plan import pass_counts
from .checks import cedar_check, load_schema, self_check
from .ir import PolicyIR
from .output import FALLBACK_MESSAGE, find_root, output_dir, write_atomic
from .pipeline import compile_paths
from .report import summary_data, summary_text
from .sources import discover, expand_targets


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="policyc", description="Compile coding-agent rulebooks into enforceable policy.")
    sub = parser.add_subparsers(dest="command", required=True)
    comp = sub.add_parser("compile", help="distill rule files into distilled-rules.json and policy.ir.json")
    comp.add_argument("targets", nargs="*", help="files or directories (default: discover rule files under the root)")
    comp.add_argument("--root", help="project root (default: nearest git root above the working directory)")
    comp.add_argument("--out", help="output folder (default: <root>/.interlinked/, else the working directory)")
    comp.add_argument("--format", choices=("text", "json"), default="text")
    comp.add_argument("--cedar-target", choices=("sondera-v1", "sondera-v2"), default="sondera-v1",
                      help="schema of the emitted <group>.cedar files (default: sondera-v1)")
    rend = sub.add_parser("render", help="re-render every artifact from a saved policy.ir.json, reading no source")
    rend.add_argument("ir", help="a policy.ir.json")
    rend.add_argument("--out", required=True, help="output folder")
    rend.add_argument("--format", choices=("text", "json"), default="text")
    rend.add_argument("--cedar-target", choices=("sondera-v1", "sondera-v2"), default="sondera-v1")
    return parser


def _schema_text(name: str) -> str:
    return resources.files("policyc.schemas").joinpath(name).read_text(encoding="utf-8")


def write_artifacts(ir: PolicyIR, out: Path, target: str) -> tuple[dict, list[str], bool]:
    """Check every artifact, then write the ones that pass: (distilled doc, failures, rules written)."""
    files = artifacts(ir, target)
    doc = json.loads(files["distilled-rules.json"])
    failures = [f"{rule_id}: {message}" for rule_id, message in self_check(doc, {s.file: s.text for s in ir.sources})]
    if failures:  # §12: a failing rule file is never written, nor anything beside it
        return doc, failures, False
    schemas = {".interlinked.cedar": _schema_text(TARGETS["interlinked"].schema), ".cedar": _schema_text(TARGETS[target].schema)}
    for where, message in cedar_check(files, schemas):
        failures.append(f"{where}: {message}")
        files.pop(where.split("#", 1)[0], None)  # this Cedar file is not written
    for path, text in files.items():
        write_atomic(out / path, text)
    return doc, failures, True


def _report(ir: PolicyIR, doc: dict, rules_path: Path, outcome: tuple[list[str], bool], fmt: str, target: str) -> int:
    failures, written = outcome
    for failure in failures:
        print(f"policyc: self-check failed: {failure}", file=sys.stderr)
    if not written:
        print("policyc: nothing written", file=sys.stderr)
    data = summary_data(ir, doc, str(rules_path), passes=pass_counts(ir, target))
    print(json.dumps(data, indent=2) if fmt == "json" else summary_text(data), end="\n" if fmt == "json" else "")
    return 1 if ir.errors or failures else 0


def _compile(args) -> int:
    if args.root:
        root = Path(args.root).resolve()
        if not root.is_dir():
            print(f"policyc: --root {args.root}: not a directory", file=sys.stderr)
            return 2
    else:
        root, is_git = find_root(Path.cwd())
        if not is_git:
            print(f"policyc: warning: not a git repository; using {root} as the project root", file=sys.stderr)
    config = root / ".interlinked" / "config.json"
    if config.is_file():
        try:
            if int(json.loads(config.read_text(encoding="utf-8")).get("version", 0)) < 2:
                print(f"policyc: warning: {config} has version < 2; distilled rules may not load on older harness builds", file=sys.stderr)
        except (ValueError, AttributeError, TypeError):
            print(f"policyc: warning: {config} is not valid JSON", file=sys.stderr)
    if args.targets:
        paths, problems = expand_targets(args.targets, root)
        for problem in problems:
            print(f"policyc: error: {problem}", file=sys.stderr)
        if problems and not paths:
            return 2
    else:
        paths = discover(root)
    if args.format == "text":
        print("Distilling: " + (", ".join(p.relative_to(root).as_posix() for p in paths) or "(no rule files found)"))
    ir = compile_paths(paths, root)
    for error in ir.errors:
        print(f"policyc: error: {error['message']}", file=sys.stderr)
    for warning in ir.warnings:
        print(f"policyc: warning: {warning}", file=sys.stderr)
    out, fallback = output_dir(root, args.out)
    doc, failures, written = write_artifacts(ir, out, args.cedar_target)
    if fallback and args.format == "text" and written:
        print(FALLBACK_MESSAGE.format(path=out / "distilled-rules.json"), file=sys.stderr)
    return _report(ir, doc, out / "distilled-rules.json", (failures, written), args.format, args.cedar_target)


def _render(args) -> int:
    try:
        data = json.loads(Path(args.ir).read_text(encoding="utf-8"))
        jsonschema.validate(data, load_schema("ir.schema.json"))
    except (OSError, ValueError, jsonschema.ValidationError) as exc:
        reason = exc.message if isinstance(exc, jsonschema.ValidationError) else exc
        print(f"policyc: error: {args.ir}: not a policy IR: {reason}", file=sys.stderr)
        return 2
    ir = PolicyIR.from_json(data)
    out = Path(args.out).resolve()
    doc, failures, written = write_artifacts(ir, out, args.cedar_target)
    return _report(ir, doc, out / "distilled-rules.json", (failures, written), args.format, args.cedar_target)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return {"compile": _compile, "render": _render}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
