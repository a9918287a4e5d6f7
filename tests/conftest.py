"""Shared fixtures: the real corpus laid out at its repository paths."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import settings

# Property tests check behaviour, not speed (speed goals live in benchmarks/): no per-example deadline,
# which a loaded two-core machine overruns at random.
settings.register_profile("policyc", deadline=None)
settings.load_profile("policyc")

DATA = Path(__file__).resolve().parent / "data"
# Real rule files from public repositories, byte-exact, with their origin (MANIFEST.tsv: repository,
# path, commit). A copy lives in the repository so the suite needs nothing beside the checkout.
CORPUS = DATA / "corpus"


def load_yaml(text: str):
    """Safe YAML through libyaml when PyYAML has it (pure Python takes 0.25 s for the label files, at every worker's collection)."""
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def corpus_manifest() -> list[dict]:
    """Rows of MANIFEST.tsv (file, repo, path, ...)."""
    with open(CORPUS / "MANIFEST.tsv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def lay_out(row: dict, project: Path) -> Path:
    """Copy one corpus file into `project` at the path it had in its repository."""
    target = project / row["path"]
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(CORPUS / "files" / row["file"], target)
    return target


def make_project(tmp_path: Path, files: dict[str, str], interlinked: bool = True) -> Path:
    """A git project (a `.git` folder is enough for the root search) holding `files`."""
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    if interlinked:
        (root / ".interlinked").mkdir()
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def copy_project(root: Path, tmp_path: Path) -> Path:
    """A test's own copy of a project compiled once for its module, where make_project would have put it.

    The artifacts name no absolute path, so the copy is what compiling it there gives; the
    copy of a file keeps its time stamp."""
    return Path(shutil.copytree(root, tmp_path / "proj", symlinks=True))


@pytest.fixture(scope="session")
def corpus_rows() -> list[dict]:
    return corpus_manifest()
