"""The compile pipeline: paths -> sources -> imperatives -> checked IR."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from .extract import Extractor
from .ids import assign_ids
from .ir import PolicyIR, SourceIR
from .regexes import redos_reasons, syntax_problems
from .sources import Source, SourceError, read_source


def distiller_name() -> str:
    try:
        return f"policyc@{version('policyc')}"
    except PackageNotFoundError:  # running from a checkout without an install
        return "policyc@dev"


def distilled_at() -> str:
    """UTC time of the run, or SOURCE_DATE_EPOCH when set (reproducible builds)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = datetime.fromtimestamp(int(epoch), timezone.utc) if epoch else datetime.now(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def read_all(paths: list[Path], root: Path) -> tuple[list[Source], list[dict]]:
    sources, errors = [], []
    for path in paths:
        try:
            sources.append(read_source(path, root))
        except SourceError as exc:
            errors.append({"file": path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path), "message": str(exc)})
    return sources, errors


def _vet(imperative) -> None:
    """Keep a Pass 1 rule only if every regex would load and run in the harness."""
    if "pass1" not in imperative.routes:
        return
    for pattern in imperative.trigger["patterns"]:
        problems = redos_reasons(pattern["regex"]) + syntax_problems(pattern["regex"], pattern.get("flags", "i"))
        if problems:
            imperative.routes = [r for r in imperative.routes if r != "pass1"]
            imperative.reasons.append(f"Pass 1 dropped: pattern {pattern['regex']!r} {problems[0]}")
            return


def compile_sources(sources: list[Source], errors: list[dict] | None = None) -> PolicyIR:
    ir = PolicyIR(distiller=distiller_name(), distilled_at=distilled_at(), errors=list(errors or []))
    for source in sorted(sources, key=lambda s: s.file):
        ir.warnings.extend(source.warnings)
        ir.sources.append(
            SourceIR(
                group_id=source.group_id,
                group_label=source.group_id.split(":", 1)[-1],
                file=source.file,
                kind=source.convention.kind,
                convention=source.convention.name,
                sha256=source.sha256,
                precedence=source.convention.precedence,
                frontmatter=source.frontmatter,
                scope=source.scope,
                role=source.role,
                text=source.text,
            )
        )
        extractor = Extractor(source)
        extractor.run()
        ir.imperatives.extend(extractor.imperatives)
        ir.skipped.extend(extractor.skipped)
        ir.prose.extend(extractor.prose)
    for imperative in ir.imperatives:
        _vet(imperative)
    assign_ids(ir.imperatives)
    return ir


def compile_paths(paths: list[Path], root: Path) -> PolicyIR:
    """The IR of the files under root (unreadable ones become IR errors)."""
    sources, errors = read_all(paths, root)
    return compile_sources(sources, errors)
