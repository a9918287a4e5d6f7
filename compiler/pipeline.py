"""The compile pipeline: paths -> sources -> imperatives -> checked IR."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from .conflicts import resolve as resolve_conflicts
from .ids import assign_ids
from .ir import IR_VERSION, PolicyIR, SourceIR
from .overrides import Overrides
from .regexes import redos_reasons, syntax_problems
from .sources import Source, SourceError, read_source, skip_reason, source_from_bytes
from .targets import Targets


def distiller_name() -> str:
    try:
        return f"policyc@{version('policyc')}"
    except PackageNotFoundError:  # running from a checkout without an install
        return "policyc@dev"


def same_compiler(previous: PolicyIR) -> bool:
    """`previous` was written by this policyc and this IR version, so its items can be reused."""
    return previous.distiller == distiller_name() and previous.ir_version == IR_VERSION


def distilled_at() -> str:
    """UTC time of the run, or SOURCE_DATE_EPOCH when set (reproducible builds)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = datetime.fromtimestamp(int(epoch), timezone.utc) if epoch else datetime.now(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def load_sources(targets: Targets, root: Path, home: Path | None = None) -> tuple[list[Source], list[dict], list[dict]]:
    """Read every target: (sources, errors, dropped). Errors are one line each; drops are §2d's."""
    sources, errors, dropped = [], [], []
    jobs = [(p, root, "local") for p in targets.paths] + [(p, home, "home") for p in targets.home]
    for path, base, origin in jobs:
        try:
            sources.append(read_source(path, base, origin))
        except SourceError as exc:
            errors.append({"file": path.relative_to(base).as_posix() if path.is_relative_to(base) else str(path), "message": str(exc)})
    for remote in targets.remotes:
        try:
            sources.append(source_from_bytes(remote.url, remote.data, group_id=remote.group_id))
        except SourceError as exc:
            errors.append({"file": remote.url, "message": str(exc)})
    kept = []
    for source in sources:
        reason = skip_reason(source)
        (dropped.append({"file": source.file, "reason": reason}) if reason else kept.append(source))
    return kept, errors, dropped


def _vet(imperative) -> None:
    """Keep a Pass 1 rule only if every regex would load and run in the harness."""
    if "pass1" not in imperative.routes:
        return
    for pattern in imperative.trigger["patterns"]:
        problems = redos_reasons(pattern["regex"]) + syntax_problems(pattern["regex"], pattern.get("flags", "i"))
        if problems:
            imperative.routes = [r for r in imperative.routes if r != "pass1"]
            imperative.reasons.append(f"Pass 1 dropped: pattern {pattern['regex']!r} {problems[0]}")
            imperative.pass2_cause = f"its pattern cannot load in the harness ({problems[0]})"
            return


def compile_sources(sources: list[Source], errors: list[dict] | None = None, previous: PolicyIR | None = None,
                    overrides: Overrides | None = None) -> PolicyIR:
    """Extract every source; a source whose hash matches `previous` reuses its items (§3).

    Sources of a group the overrides remove are left out before extraction (§9).
    """
    from .extract import Extractor  # Lark and the grammars: not for a run that finds nothing changed

    overrides = overrides or Overrides()
    ir = PolicyIR(distiller=distiller_name(), distilled_at=distilled_at(), errors=list(errors or []), overrides=overrides.to_json())
    sources = [s for s in sources if s.group_id not in overrides.removed_groups]
    reusable = _reusable(previous)
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
                precedence=source.precedence,
                frontmatter=source.frontmatter,
                scope=source.scope,
                role=source.role,
                subtree=source.subtree,
                text=source.text,
            )
        )
        if (source.file, source.sha256) in reusable:
            imperatives, skipped, prose = reusable[(source.file, source.sha256)]
        else:
            extractor = Extractor(source)
            extractor.run()
            imperatives, skipped, prose = extractor.imperatives, extractor.skipped, extractor.prose
        ir.imperatives.extend(imperatives)
        ir.skipped.extend(skipped)
        ir.prose.extend(prose)
    for imperative in ir.imperatives:
        _vet(imperative)
    assign_ids(ir.imperatives)
    resolve_conflicts(ir)
    if previous is not None:
        ir.removed = _removed(previous, ir)
    return ir


def _reusable(previous: PolicyIR | None) -> dict:
    """(file, sha256) -> the items extracted from that exact text last time."""
    if previous is None or not same_compiler(previous):
        return {}
    found: dict = {(s.file, s.sha256): ([], [], []) for s in previous.sources}
    by_file = {s.file: (s.file, s.sha256) for s in previous.sources}
    for index, items in enumerate((previous.imperatives, previous.skipped, previous.prose)):
        for item in items:
            found[by_file[item.file]][index].append(item)
    return found


def _removed(previous: PolicyIR, current: PolicyIR) -> list[dict]:
    """Previous Pass 1 rules of a re-read file whose quote is no longer in it."""
    texts = {s.file: " ".join(s.text.split()) for s in current.sources}
    live = {i.id for i in current.imperatives}
    return [
        {"id": i.id, "reason": f"source quote no longer present in {i.file} as of {current.distilled_at[:10]}"}
        for i in previous.imperatives
        if "pass1" in i.routes and i.file in texts and i.id not in live and " ".join(i.quote.split()) not in texts[i.file]
    ]


def merge_previous(previous: PolicyIR, sources: list[Source]) -> list[Source]:
    """A subset run keeps every other source of the previous run, unchanged (§3)."""
    named = {s.file for s in sources}
    kept = []
    for old in previous.sources:
        if old.file not in named:
            source = source_from_bytes(old.file, old.text.encode("utf-8"), group_id=old.group_id if not old.group_id.startswith(("local:", "skill:")) else "")
            source.precedence = old.precedence  # a home global keeps its low rank
            kept.append(source)
    return sources + kept


def compile_paths(paths: list[Path], root: Path) -> PolicyIR:
    """The IR of local files under root (unreadable ones become IR errors)."""
    sources, errors, dropped = load_sources(Targets(paths=list(paths)), root)
    ir = compile_sources(sources, errors)
    ir.dropped = dropped
    return ir
