"""The compiled schema check (jsonschema-rs) and jsonschema agree: a document passes one exactly when the other finds
no violation, on every golden artifact and on random damage to them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from policyc.compiler.checks import _compiled, schema_errors, validator

SNAPSHOTS = Path(__file__).resolve().parents[1] / "golden" / "snapshots"
DOCUMENTS = [(name, path) for path in sorted(SNAPSHOTS.glob("*/*.json"))
             for name in [{"distilled-rules.json": "distilled-rules.schema.json", "policy.ir.json": "ir.schema.json"}.get(path.name)]
             if name]
EXAMPLES = [(name, json.loads(path.read_text(encoding="utf-8"))) for name, path in DOCUMENTS[:6]]


@pytest.mark.parametrize(("name", "path"), DOCUMENTS, ids=[f"{p.parent.name}/{p.name}" for _, p in DOCUMENTS])
def test_every_golden_artifact_is_valid_to_both(name, path):
    document = json.loads(path.read_text(encoding="utf-8"))
    assert _compiled(name).is_valid(document)
    assert schema_errors(name, document) == []


_JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "x", "block", "enforce-a", "1.3"]),
                     lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from(["id", "action", "x"]), inner, max_size=2),
                     max_leaves=4)


def _paths(node, path=()):
    """Every place in a JSON document: (path to it, node)."""
    yield path, node
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in children:
        yield from _paths(child, (*path, key))


@settings(max_examples=150)
@given(example=st.sampled_from(range(len(EXAMPLES))), where=st.integers(0, 10**6), value=_JSON, delete=st.booleans())
def test_both_judge_a_damaged_document_alike(example, where, value, delete):
    name, original = EXAMPLES[example]
    document = json.loads(json.dumps(original))
    places = list(_paths(document))[1:]
    path, _ = places[where % len(places)]
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    assert _compiled(name).is_valid(document) == (not list(validator(name).iter_errors(document)))
