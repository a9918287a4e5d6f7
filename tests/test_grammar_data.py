"""The data files in grammar/ are read as YAML, where a repeated key silently replaces the first: each key once."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

GRAMMAR = Path(__file__).resolve().parents[1] / "grammar"


class _UniqueKeys(yaml.SafeLoader):
    def construct_mapping(self, node, deep=False):
        keys = [self.construct_object(key, deep=True) for key, _ in node.value]
        repeated = sorted({str(k) for k in keys if keys.count(k) > 1})
        if repeated:
            raise AssertionError(f"line {node.start_mark.line + 1}: {', '.join(repeated)} given twice")
        return super().construct_mapping(node, deep)


@pytest.mark.parametrize("path", sorted(GRAMMAR.glob("*.yaml")), ids=lambda p: p.name)
def test_every_key_is_given_once(path):
    yaml.load(path.read_text(encoding="utf-8"), Loader=_UniqueKeys)
