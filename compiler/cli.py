"""`policyc` command line: `policyc compile [TARGETS...] [--root DIR] [--out DIR] [--format text|json]`.

Exit codes: 0 success, 1 a self-check failed or a source could not be read,
2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..emitters import guardrules
from .checks import self_check
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
    return parser


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
    ir, source_texts = compile_paths(paths, root)
    for error in ir.errors:
        print(f"policyc: error: {error['message']}", file=sys.stderr)
    for warning in ir.warnings:
        print(f"policyc: warning: {warning}", file=sys.stderr)
    doc = guardrules.emit(ir)
    failures = self_check(doc, source_texts)
    if failures:
        for rule_id, message in failures:
            print(f"policyc: self-check failed: {rule_id}: {message}", file=sys.stderr)
        print("policyc: nothing written", file=sys.stderr)
        return 1
    out, fallback = output_dir(root, args.out)
    rules_path = out / "distilled-rules.json"
    write_atomic(rules_path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    write_atomic(out / "policy.ir.json", ir.dumps())
    if fallback and args.format == "text":
        print(FALLBACK_MESSAGE.format(path=rules_path), file=sys.stderr)
    data = summary_data(ir, doc, str(rules_path))
    print(json.dumps(data, indent=2) if args.format == "json" else summary_text(data), end="\n" if args.format == "json" else "")
    return 1 if ir.errors else 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "compile":
        return _compile(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
