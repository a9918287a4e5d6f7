"""Where a run reads and writes (spec §11): the project root, the output folder, the file names."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from . import locate
from .output import FALLBACK_MESSAGE, find_root


class UsageError(Exception):
    """A problem with the command line or the project; exit code 2."""


@dataclass(frozen=True, slots=True)
class Project:
    root: Path
    out: Path
    fallback: bool  # no .interlinked/: artifacts land in the working directory (§11)

    @property
    def home(self) -> Path | None:
        home = os.environ.get("HOME")
        return Path(home) if home else None

    def rules(self, review: bool = False) -> Path:
        return self.out / ("distilled-rules.review.json" if review else locate.RULES_NAME)

    def ir(self, review: bool = False) -> Path:
        return self.out / ("policy.review.ir.json" if review else "policy.ir.json")

    @property
    def overrides(self) -> Path:
        return self.out / locate.OVERRIDES_NAME

    def load_rules(self, review: bool = False) -> dict:
        """distilled-rules.json (or the review file) as a dict; UsageError when missing or broken."""
        path = self.rules(review)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise UsageError(f"no {path.name} in {self.out}; run `policyc compile{' --review' if review else ''}` first") from None
        except (OSError, ValueError) as exc:
            raise UsageError(f"{path}: {exc}") from None

    def fallback_note(self) -> str:
        return FALLBACK_MESSAGE.format(path=self.rules())


def open_project(root_arg: str | None, out_arg: str | None, warn=print) -> Project:
    """Resolve --root and --out with the §11 defaults; warnings go to `warn`."""
    if root_arg:
        root = Path(root_arg).resolve()
        if not root.is_dir():
            raise UsageError(f"--root {root_arg}: not a directory")
    else:
        root, is_git = find_root(Path.cwd())
        if not is_git:
            warn(f"not a git repository; using {root} as the project root")
    config = root / ".interlinked" / "config.json"
    if config.is_file():
        try:
            if int(json.loads(config.read_text(encoding="utf-8")).get("version", 0)) < 2:
                warn(f"{config} has version < 2; distilled rules may not load on older harness builds")
        except (ValueError, AttributeError, TypeError):
            warn(f"{config} is not valid JSON")
    out, fallback = locate.output_folder(str(root), out_arg)
    return Project(root, Path(out), fallback)


def load_ir(path: Path, validate: bool = True):
    """A saved IR (a PolicyIR); ValueError with the reason when it cannot be used.

    `validate=False` skips the JSON Schema for policyc's own previous run (an
    incremental cache, read on every compile); a file the user hands over is
    always validated.
    """
    from .ir import PolicyIR

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if validate:
            from .checks import schema_error  # jsonschema: only for an IR the user hands over

            if error := schema_error("ir.schema.json", data):
                raise ValueError(f"not a policy IR: {error}")
        return PolicyIR.from_json(data)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: {exc}") from None


def stderr(message: str) -> None:
    print(f"policyc: {message}", file=sys.stderr)
