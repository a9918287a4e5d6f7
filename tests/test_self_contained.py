"""The suite reads nothing outside the repository: a fresh clone with nothing beside it must pass."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# ways a test could reach beyond the checkout: a sibling folder, or climbing more than one level up
_ESCAPES = re.compile(r"(?<![.\w])\.\./|parents\[[2-9]\]|/work/|\bshared\b\s*/|[\"']shared[\"']")


def test_no_test_reads_a_path_outside_the_repository():
    offenders = []
    for path in sorted([*REPO.glob("tests/**/*.py"), *REPO.glob("golden/**/*.py")]):
        if path == Path(__file__):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _ESCAPES.search(line.split("#", 1)[0]):
                offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert offenders == []


def test_the_corpus_copy_is_complete():
    manifest = (REPO / "tests/data/corpus/MANIFEST.tsv").read_text(encoding="utf-8").splitlines()[1:]
    names = {line.split("\t", 1)[0] for line in manifest}
    assert names and names == {p.name for p in (REPO / "tests/data/corpus/files").iterdir()}
