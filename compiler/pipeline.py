"""The compile pipeline: paths -> sources -> imperatives -> checked IR."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import threading
from collections.abc import Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import lru_cache
from importlib import resources
from pathlib import Path

from .. import __version__, grammar, schemas
from . import forked
from .ir import IR_VERSION, Imperative, PolicyIR, Prose, Skipped, SourceIR
from .overrides import Overrides
from .project import UsageError
from .sources import REMOTE_GROUPS, Source, SourceError, load_conventions, read_source, skip_reason, source_from_bytes, submodules
from .targets import Targets

_DATA_SUFFIXES = (".yaml", ".lark", ".json", ".cedarschema")


@lru_cache(maxsize=1)
def compiler_fingerprint() -> str:
    """The package version and a hash of every grammar and schema data file: what extraction depends on."""
    digest = hashlib.sha256()
    for package in (grammar, schemas):
        for entry in sorted(resources.files(package).iterdir(), key=lambda e: e.name):
            if entry.name.endswith(_DATA_SUFFIXES):
                digest.update(f"{package.__name__}/{entry.name}\0".encode() + entry.read_bytes() + b"\0")
    return f"{__version__}+{digest.hexdigest()[:12]}"


def distiller_name() -> str:
    return f"policyc@{compiler_fingerprint()}"


def same_compiler(previous: PolicyIR) -> bool:
    """`previous` was written by this policyc, with these data files and IR version, so its items can be reused."""
    return previous.distiller == distiller_name() and previous.ir_version == IR_VERSION


SEAL_NAME = ".policy.ir.seal"


def seal(ir_data: str | bytes) -> str:
    """What policyc records beside the policy.ir.json it writes: the file's hash."""
    data = ir_data.encode("utf-8") if isinstance(ir_data, str) else ir_data
    return json.dumps({"policy.ir.json": "sha256:" + hashlib.sha256(data).hexdigest()}) + "\n"


def sealed(ir_path: Path) -> bool:
    """policy.ir.json is exactly what policyc wrote (not edited by hand since), so its items may be reused."""
    try:
        return (ir_path.parent / SEAL_NAME).read_text(encoding="utf-8") == seal(ir_path.read_bytes())
    except (OSError, UnicodeDecodeError):
        return False


def distilled_at() -> str:
    """UTC time of the run, or SOURCE_DATE_EPOCH when set (reproducible builds); UsageError when it is not a time."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch:
        return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        moment = datetime.fromtimestamp(int(epoch), UTC)
    except (ValueError, OverflowError, OSError):
        raise UsageError(f"SOURCE_DATE_EPOCH={epoch!r} is not a Unix time in seconds (e.g. 1767225600); unset it or fix it") from None
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def load_sources(targets: Targets, root: Path, home: Path | None = None) -> tuple[list[Source], list[dict], list[dict]]:
    """Read every target: (sources, errors, dropped). Errors are one line each; drops are §2d's."""
    sources, errors, dropped = [], [], []
    jobs = [(p, root, "local") for p in targets.paths] + [(p, home, "home") for p in targets.home if home]
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


def compile_sources(sources: list[Source], errors: list[dict] | None = None, previous: PolicyIR | None = None,
                    overrides: Overrides | None = None, reuse: bool = False, workers: int | None = None) -> PolicyIR:
    """Extract every source; a source whose hash matches `previous` reuses its items (§3).

    `workers`: processes that read the sources (default: one per core when there is enough text to
    read, see extract_all); the IR is the same for any number.

    Items are reused only when the caller vouches that `previous` is the file
    policyc wrote (`reuse`, from its seal) and the compiler fingerprint
    matches; otherwise `previous` only tells which rules were removed. Sources of a
    group the overrides remove are left out before extraction (§9).
    """
    overrides = overrides or Overrides()
    ir = PolicyIR(distiller=distiller_name(), distilled_at=distilled_at(), errors=list(errors or []), overrides=overrides.to_json())
    sources = [s for s in sources if s.group_id not in overrides.removed_groups]
    reusable = _reusable(previous) if reuse else {}
    ordered = sorted(sources, key=lambda s: s.file)
    with forked.few_collections():
        outcomes = extract_all(ordered, reusable, workers)
        return _built(ir, ordered, outcomes, previous, reuse)


def _built(ir: PolicyIR, ordered: list[Source], outcomes: list, previous: PolicyIR | None, reuse: bool) -> PolicyIR:
    """The IR of the extracted sources: their items in source order, ids, conflicts, removed rules."""
    # ids and conflicts: not for a run that finds nothing changed
    from .conflicts import resolve as resolve_conflicts
    from .ids import assign_ids

    for source, outcome in zip(ordered, outcomes):
        if isinstance(outcome, SourceError):  # over a per-file limit: this file fails, the run goes on
            ir.errors.append({"file": source.file, "message": str(outcome)})
            continue
        imperatives, skipped, prose = outcome
        ir.warnings.extend(source.warnings)
        ir.sources.append(source_ir(source))
        ir.imperatives.extend(imperatives)
        ir.skipped.extend(skipped)
        ir.prose.extend(prose)
    assign_ids(ir.imperatives, previous.imperatives if previous is not None and reuse else ())
    resolve_conflicts(ir)
    if previous is not None:
        ir.removed = _removed(previous, ir)
    return ir


def source_ir(source: Source) -> SourceIR:
    """A read source as the IR records it."""
    return SourceIR(
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


MAX_IMPERATIVES_PER_FILE = 1000  # about what fits the harness's 2 MB rule file; real rule files hold under 100
MAX_SECONDS_PER_FILE = 30.0


class _OverTime(BaseException):
    """Raised by the timer wherever the reading is; a BaseException, so no `except Exception` on the way swallows it."""


@contextmanager
def _time_limit(seconds: float):
    """Interrupt the block after `seconds` (POSIX main thread; elsewhere the imperative limit still bounds the work)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_alarm(signum, frame):
        raise _OverTime

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _extract(source: Source, reusable: dict) -> tuple[list, list, list]:
    """The items of one source, reused when its text and the compiler are unchanged; SourceError over a limit."""
    if (source.file, source.sha256) in reusable:
        imperatives, skipped, prose = reusable[(source.file, source.sha256)]
    else:
        from .extract import Extractor  # Lark and the grammars: not for a run that finds nothing changed

        extractor = Extractor(source)
        try:
            with _time_limit(MAX_SECONDS_PER_FILE):
                extractor.run()
        except _OverTime:
            raise SourceError(f"{source.file}: reading it took over {MAX_SECONDS_PER_FILE:g} s, the limit for one file; "
                              "not compiled (split it into smaller files)") from None
        imperatives, skipped, prose = extractor.imperatives, extractor.skipped, extractor.prose
    if len(imperatives) > MAX_IMPERATIVES_PER_FILE:
        raise SourceError(f"{source.file}: {len(imperatives)} imperatives, over the limit of {MAX_IMPERATIVES_PER_FILE} "
                          "for one file; not compiled (split it into smaller files)")
    return imperatives, skipped, prose


PARALLEL_MIN_CHARS = 512 * 1024  # less new text than this reads faster in one process than a fork costs


def extract_all(sources: list[Source], reusable: dict, workers: int | None = None) -> list:
    """Per source, in order: its (imperatives, skipped, prose), or the SourceError that fails it; every
    new imperative admitted (or demoted) already.

    With enough new text (PARALLEL_MIN_CHARS), the sources to read are shared out among one
    process per core (compiler/forked.py); each share is extracted file by file under the same
    limits, by the same `_extract`, and then admitted, which decides each imperative on its own
    and its file. `workers` overrides the count (1: all here). The result is the same for any count.
    """
    from . import regex_safety
    from .admission import admit_all

    def read(share: list[int]) -> tuple[list, dict]:
        outcomes = [_outcome(sources[i], reusable) for i in share]
        done = [(sources[i], o) for i, o in zip(share, outcomes) if not isinstance(o, SourceError)]
        admit_all([imp for _, (imps, _, _) in done for imp in imps], {s.file: source_ir(s) for s, _ in done})
        return outcomes, regex_safety.analysed()

    fresh = [i for i, s in enumerate(sources) if (s.file, s.sha256) not in reusable]
    # rules reused from the sealed IR are vouched for before any share is admitted, as in one pass
    reused = [i for i, s in enumerate(sources) if (s.file, s.sha256) in reusable]
    found = dict(zip(reused, read(reused)[0]))
    if fresh:
        from .extract import load_readers  # (Lark and the grammars: not for a run that finds nothing changed)

        load_readers()  # once, before any fork
    count = workers or (forked.cores() if sum(len(sources[i].text) for i in fresh) >= PARALLEL_MIN_CHARS else 1)
    shares = forked.balanced(fresh, lambda i: len(sources[i].text), min(count, len(fresh))) if fresh else []
    for number, (share, (outcomes, analysed)) in enumerate(zip(shares, forked.shared(read, shares))):
        found.update(zip(share, outcomes))
        if number:  # admitted in a child: its regexes' analyses are kept here, and admit_all, finding every rule
            regex_safety.remember(analysed)  # decided, records their proven regexes (the self-checks ask again)
            admit_all([imp for o in outcomes if not isinstance(o, SourceError) for imp in o[0]], {})
    return [found[i] for i in range(len(sources))]


def _outcome(source: Source, reusable: dict):
    try:
        return _extract(source, reusable)
    except SourceError as exc:
        return exc


def _reusable(previous: PolicyIR | None) -> dict:
    """(file, sha256) -> the items extracted from that exact text last time."""
    if previous is None or not same_compiler(previous):
        return {}
    found: dict = {(s.file, s.sha256): ([], [], []) for s in previous.sources}
    by_file = {s.file: (s.file, s.sha256) for s in previous.sources}
    kinds: tuple[Sequence[Imperative | Skipped | Prose], ...] = (previous.imperatives, previous.skipped, previous.prose)
    for index, items in enumerate(kinds):
        for item in items:
            if item.file not in by_file:  # an item with no source is not from a run of policyc: reuse nothing
                return {}
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


def merge_previous(previous: PolicyIR, sources: list[Source], root: Path | None = None, remote_only: bool = False) -> list[Source]:
    """A subset run keeps every other source of the previous run, unchanged (§3).

    With `remote_only`, only the remote sources (accepted `gh:`/`url:` targets,
    which discovery cannot find) are kept: they persist until their group is
    removed. Rank and group are derived again from the path, never read from
    the previous IR.
    """
    named = {s.file for s in sources}
    subs = submodules(root) if root else ()
    kept = []
    for old in previous.sources:
        if old.file in named or (remote_only and not old.group_id.startswith(REMOTE_GROUPS)):
            continue
        foreign = old.group_id.startswith((*REMOTE_GROUPS, "home:"))
        try:
            kept.append(source_from_bytes(old.file, old.text.encode("utf-8"), group_id=old.group_id if foreign else "",
                                          vendored=load_conventions().vendored(old.file, subs)))
        except SourceError:
            continue  # an empty or binary text cannot come from a source policyc read; nothing to keep
    return sources + kept


def keep_failed(previous: PolicyIR, sources: list[Source], errors: list[dict], root: Path | None = None) -> tuple[list[Source], list[str]]:
    """A source that could not be read this time keeps what the last run compiled from it.

    Returns the sources with the kept ones added, and one line per kept file
    for the summary. The read error stays in the IR (the run still exits 1).
    """
    failed = {e["file"] for e in errors}
    earlier = [s for s in previous.sources if s.file in failed or s.file.removeprefix("~/") in failed]
    if not earlier:
        return sources, []
    kept = merge_previous(PolicyIR(distiller="", distilled_at="", sources=earlier), sources, root)[len(sources):]
    counts = {s.file: sum(1 for i in previous.imperatives if i.file == s.file and "pass1" in i.routes) for s in kept}
    notes = [f"{s.file}: could not be read; its {counts[s.file]} rules of the last run are kept as they were" for s in kept]
    return sources + kept, notes


def compile_paths(paths: list[Path], root: Path) -> PolicyIR:
    """The IR of local files under root (unreadable ones become IR errors)."""
    sources, errors, dropped = load_sources(Targets(paths=list(paths)), root)
    ir = compile_sources(sources, errors)
    ir.dropped = dropped
    return ir
