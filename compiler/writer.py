"""Writing a run's artifacts: every file the emitters make from an IR, checked, then written atomically.

`compile`, `render` and `accept` write through here, and so do the lifecycle
verbs: after a verb changes the overrides file, the artifacts are rendered
again from the saved IR, so distilled-rules.json, list, show and the
companions agree with the overrides at once.
"""

from __future__ import annotations

import json
from contextlib import suppress

from . import forked
from .jsontext import encode
from .output import OutputError, Staged, emitted_before, remove_emitted, write_atomic
from .project import Project


def self_check_failures(doc: dict, ir) -> list[str]:
    """§12 failures of a distilled-rules document, each as "<rule id>: <problem>"."""
    from .checks import self_check

    return [f"{rule_id}: {message}" for rule_id, message in self_check(doc, {s.file: s.text for s in ir.sources})]


def _cedar_failures(files: dict, target: str) -> list[tuple[str, str]]:
    """Each lowering backend's files validated against its schema for the target: (file#policy, message)."""
    from ..emitters import registry
    from ..schemas import read as read_schema
    from .checks import cedar_check

    return cedar_check(files, {"." + b.kind: read_schema(name) for b in registry.BACKENDS if (name := b.schema(target))})


BACKGROUND_MIN_RULES = 500  # fewer rules than this check faster here than a fork costs


def planned_artifacts(ir, target: str, review: bool = False, rendered=None) -> tuple[dict, list[str], dict[str, str | bytes] | None, list[str]]:
    """Every artifact a run would write, checked: (distilled doc, failures, files or None, files to delete).

    None: a §12 failure, nothing is written. In review mode only distilled-rules.review.json and
    policy.review.ir.json. Each lowering backend's files are validated against its schema for the target;
    a file that fails is not written, and last run's copy goes. `rendered`, when given, is called with
    the files a run would write if every check passed, before the checks.

    With BACKGROUND_MIN_RULES rules or more and a free core, the §12 checks run in a forked process
    while this one makes the IR's JSON and validates the Cedar files (and `rendered` starts writing);
    the Cedar failures count only when the §12 checks pass, as when they run one after the other.
    """
    from ..emitters import ir_json, rendered_files
    from .checks import MAX_OUTPUT_BYTES

    files = rendered_files(ir, target)
    doc = json.loads(files["distilled-rules.json"])
    ahead = len(encode(doc)) < MAX_OUTPUT_BYTES  # over the harness's limit the checks fail for sure: nothing is done ahead of them
    checked = forked.Background(lambda: self_check_failures(doc, ir), fork=ahead and len(doc.get("rules", [])) >= BACKGROUND_MIN_RULES
                                and forked.cores() > 1)  # before `rendered` starts its threads
    try:
        if ahead:  # (else no file is written, the IR's JSON included)
            files["policy.ir.json"] = ir_json(ir)
            if review:
                files = {"distilled-rules.review.json": files["distilled-rules.json"], "policy.review.ir.json": files["policy.ir.json"]}
            if rendered is not None:
                rendered(files)
        cedar = _cedar_failures(files, target) if not review and checked.forked else None
        failures = checked.result()
    finally:
        checked.close()
    if failures:  # §12: a failing rule file is never written, nor anything beside it
        return doc, failures, None, []
    if review:
        return doc, failures, files, []
    deleted = []
    for where, message in _cedar_failures(files, target) if cedar is None else cedar:
        failures.append(f"{where}: {message}")
        path = where.split("#", 1)[0]
        files.pop(path, None)
        deleted.append(path)
    return doc, failures, files, deleted


def write_artifacts(ir, project: Project, target: str, review: bool = False) -> tuple[dict, list[str], bool]:
    """Check every artifact, then write the ones that pass: (distilled doc, failures, rules written).

    While the checks run, each file's temporary is already being written (output.Staged); only
    the renames, in the files' order, wait for them."""
    from .pipeline import SEAL_NAME, seal

    staged: list[Staged] = []

    def stage(files: dict) -> None:
        with suppress(OutputError, OSError):  # a refused or failing write: raised below by the same writes, after the checks
            staged.append(Staged([(project.out / path, text) for path, text in files.items()], project.out))

    try:
        doc, failures, files, deleted = planned_artifacts(ir, target, review, stage)
    except BaseException:
        for batch in staged:
            batch.discard()
        raise
    if files is None:
        for batch in staged:
            batch.discard()
        return doc, failures, False
    emitted = emitted_before(project.rules())
    for path in deleted:  # a file that failed validation must not pass for this run's, if policyc wrote it
        remove_emitted(project.out, path, emitted)
    batch = staged[0] if staged else Staged([(project.out / path, text) for path, text in files.items()], project.out)
    batch.commit([project.out / path for path in files])
    if "policy.ir.json" in files:  # the live IR: record what policyc wrote, so an edited copy is never trusted
        write_atomic(project.out / SEAL_NAME, seal(files["policy.ir.json"]), project.out)
    return doc, failures, True


def rerender(project: Project, overrides) -> str:
    """After the overrides changed: every artifact again from the saved IR, so the verb takes effect at once.

    Only a policy.ir.json that carries policyc's seal (the file the last run
    wrote) is rendered; otherwise the returned note asks for a compile.
    """
    from .pipeline import sealed
    from .project import load_ir

    if not project.ir().is_file() or not sealed(project.ir()):
        return f"{project.ir().name} is missing or not the file policyc wrote; run `policyc compile` to apply the change"
    ir = load_ir(project.ir(), validate=False)
    ir.overrides = overrides.to_json()
    target = json.loads(project.rules().read_text(encoding="utf-8")).get("cedar_target", "sondera-v2")
    _, failures, written = write_artifacts(ir, project, target)
    return "" if written and not failures else f"could not re-render the artifacts ({'; '.join(failures)}); run `policyc compile`"
