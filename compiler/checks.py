"""The ten §12 self-checks, plus a real JavaScript engine and a safety proof for every regex.

`self_check` returns failures as (rule id or "-", message); the caller aborts
the write when there is any.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from functools import cache
from typing import TYPE_CHECKING

import jsonschema_rs

from ..schemas import read as read_schema
from . import regex_safety
from .jsontext import encode
from .regex_safety import rule_regexes
from .regexes import redos_reasons, syntax_problems

if TYPE_CHECKING:
    import jsonschema

MAX_OUTPUT_BYTES = 2 * 1024 * 1024
_ID = re.compile(r"^enforce-[a-z0-9-]+$")
_NODE_CHECK = r"""
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = input.map(([regex, flags]) => {
  try { return new RegExp(regex, flags).test('') ? 'matches the empty string' : ''; }
  catch (e) { return 'JavaScript rejects it: ' + e.message; }
});
process.stdout.write(JSON.stringify(out));
"""


SCHEMAS = ("ir.schema.json", "distilled-rules.schema.json", "overrides.schema.json")


@cache
def load_schema(name: str) -> dict:
    return json.loads(read_schema(name))


@cache
def validator(name: str) -> jsonschema.protocols.Validator:
    """A validator for one of our schemas that words each violation; references between them resolve locally, never online."""
    import jsonschema  # (not imported by a run whose documents are valid: jsonschema-rs says so first)
    from referencing import Registry, Resource

    registry = Registry().with_resources((load_schema(n)["$id"], Resource.from_contents(load_schema(n))) for n in SCHEMAS)
    return jsonschema.Draft202012Validator(_inlined(load_schema(name)), registry=registry)


def _inlined(schema: dict) -> dict:
    """`schema` with each reference to one of its own $defs replaced by the definition (a cycle keeps its
    reference): the same verdicts and messages without a reference lookup per instance, which was a fifth
    of validating a distilled-rules.json."""
    definitions = schema.get("$defs", {})

    def inline(node, open_refs: frozenset[str]):
        if isinstance(node, list):
            return [inline(item, open_refs) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref", "")
        if len(node) == 1 and ref.startswith("#/$defs/") and ref not in open_refs:
            return inline(definitions[ref.removeprefix("#/$defs/")], open_refs | {ref})
        return {key: inline(value, open_refs) for key, value in node.items()}

    return inline(schema, frozenset())


@cache
def _compiled(name: str) -> jsonschema_rs.Validator:
    """The same schema compiled by jsonschema-rs: it says whether a document is valid about 100× faster,
    so jsonschema only explains the documents it rejects."""
    registry = jsonschema_rs.Registry([(load_schema(n)["$id"], load_schema(n)) for n in SCHEMAS])
    return jsonschema_rs.validator_for(_inlined(load_schema(name)), registry=registry)


def schema_errors(name: str, instance) -> list[jsonschema.ValidationError]:
    """Every violation of `instance`, as jsonschema reports it (none for a valid document)."""
    return [] if _compiled(name).is_valid(instance) else list(validator(name).iter_errors(instance))


def schema_error(name: str, instance) -> str:
    """The most relevant schema violation of `instance`, or ''."""
    errors = schema_errors(name, instance)
    if not errors:
        return ""
    from jsonschema.exceptions import best_match

    error = best_match(errors)
    return f"{'/'.join(map(str, error.absolute_path)) or 'top level'}: {error.message}"


def normalise_ws(text: str) -> str:
    return " ".join(text.split())


_node_verdicts: dict[tuple[str, str], str] = {}  # what Node.js said of each (regex, flags) in this process


def node_problems(pairs: list[tuple[str, str]]) -> list[str] | None:
    """Per (regex, flags): '' or what Node.js says is wrong; None when Node.js is absent.
    Node.js starts only for pairs it has not judged in this process (a verdict never changes)."""
    node = shutil.which("node")
    if node is None or not pairs:
        return None if node is None else []
    keys = [(regex, flags) for regex, flags in pairs]
    unjudged = [key for key in dict.fromkeys(keys) if key not in _node_verdicts]
    if unjudged:
        try:
            done = subprocess.run([node, "-e", _NODE_CHECK], input=json.dumps(unjudged), capture_output=True, text=True,
                                  timeout=60, check=True)
            verdicts = json.loads(done.stdout)
        except (subprocess.SubprocessError, ValueError) as exc:
            return [f"Node.js could not check the regexes: {exc}"] * len(pairs)
        _node_verdicts.update(zip(unjudged, verdicts))
    return [_node_verdicts[key] for key in keys]


def self_check(doc: dict, source_texts: dict[str, str], use_node: bool = True) -> list[tuple[str, str]]:
    """Run the §12 checks on a distilled-rules document."""
    failures: list[tuple[str, str]] = []
    rules = doc.get("rules", [])
    normalised = cache(lambda file: normalise_ws(source_texts[file]))  # (only the files rules quote, each once)
    lines_of = cache(lambda file: source_texts[file].split("\n"))
    seen: set[str] = set()
    pairs: list[tuple[str, str]] = []
    owners: list[str] = []
    for rule in rules:
        rid = rule.get("id", "-")
        src = rule.get("source", {})
        quote = normalise_ws(src.get("quote", ""))
        lines = src.get("lines", [0, 0])
        text = source_texts.get(src.get("file", ""))
        # 1. the quote is in its file, at its lines
        if not quote or text is None or quote not in normalised(src["file"]):
            failures.append((rid, "source.quote is not in the source file"))
        elif quote not in normalise_ws("\n".join(lines_of(src["file"])[lines[0] - 1 : lines[1]])):
            failures.append((rid, f"source.quote is not at lines {lines[0]}-{lines[1]}"))
        # 2. block/ask rules have a concrete trigger
        fields = {p.get("field") for p in rule.get("patterns", []) if not p.get("negate")}
        exact_tool = rule.get("tool_match") and "*" not in rule["tool_match"]
        if rule.get("action") in ("block", "ask") and not (fields & {"command", "file_path", "content", "new_string"} or (exact_tool and not rule["patterns"])):
            failures.append((rid, "block/ask rule without a command, file_path or content regex or exact tool"))
        for pattern in rule.get("patterns", []):
            flags = pattern.get("flags", "i")
            # 3 and 4. no empty match, no catastrophic backtracking (harness heuristic)
            for problem in syntax_problems(pattern["regex"], flags) + redos_reasons(pattern["regex"]):
                failures.append((rid, f"pattern {pattern['regex']!r}: {problem}"))
            pairs.append((pattern["regex"], flags))
            owners.append(rid)
        # 8, 9, 10. ids unique and well-formed, tool_match non-empty
        if rid in seen:
            failures.append((rid, "duplicate id"))
        seen.add(rid)
        if not _ID.match(rid):
            failures.append((rid, "id does not match ^enforce-[a-z0-9-]+$"))
        if not rule.get("tool_match"):
            failures.append((rid, "empty tool_match"))
    # 5. stats match the arrays
    stats = doc.get("stats", {})
    expected = {
        "distilled_block": sum(1 for r in rules if r.get("action") == "block"),
        "distilled_ask": sum(1 for r in rules if r.get("action") == "ask"),
        "distilled_advisory": sum(1 for r in rules if r.get("action") == "warn"),
        "skipped": len(doc.get("skipped", [])),
        "conflicts": len(doc.get("conflicts", [])),
        "removed": len(doc.get("removed", [])),
    }
    for key, value in expected.items():
        if stats.get(key) != value:
            failures.append(("-", f"stats.{key} is {stats.get(key)}, the arrays hold {value}"))
    # 6. JSON schema; 7. size
    for error in schema_errors("distilled-rules.schema.json", doc):
        failures.append(("-", f"schema: {'/'.join(map(str, error.absolute_path))}: {error.message}"))
    size = len(encode(doc))
    if size >= MAX_OUTPUT_BYTES:
        failures.append(("-", f"output is {size} bytes, over 2 MB"))
    # every regex the harness runs (patterns, file_scope, after_command) proven safe: static analysis, Node.js trial
    scoped = [(rule.get("id", "-"), what, regex, flags) for rule in rules
              for what, regex, flags in rule_regexes(rule.get("patterns", []), rule.get("active_when") or {})]
    for (rid, what, regex, _), problem in zip(scoped, regex_safety.problems([(r, f) for *_, r, f in scoped], use_node)):
        if problem:
            failures.append((rid, f"{what} {regex!r}: {problem}"))
    # every regex in a real JavaScript engine
    if use_node:
        for rid, problem in zip(owners, node_problems(pairs) or []):
            if problem:
                failures.append((rid, problem))
    return failures


_POLICY_ID = re.compile(r'^@id\("((?:[^"\\]|\\.)*)"\)', re.MULTILINE)
_POSITIONAL = re.compile(r"\bpolicy(\d+)\b")


def cedar_check(files: dict[str, str] | dict[str, str | bytes], schemas: dict[str, str]) -> list[tuple[str, str]]:
    """Validate every emitted Cedar file with cedarpy; failures name the policy's @id.

    `schemas` maps a file suffix (".interlinked.cedar", ".cedar") to schema text;
    the longest suffix a file name ends with decides. Other files are not Cedar.
    """
    import cedarpy  # imported here: only runs that emit Cedar need it loaded

    failures = []
    by_length = sorted(schemas, key=len, reverse=True)
    parsed = {suffix: cedarpy.Schema.from_str(text) for suffix, text in schemas.items()}  # once, not per file: 15x faster
    for path, text in sorted(files.items()):
        suffix = next((s for s in by_length if path.endswith(s)), None)
        if suffix is None or not isinstance(text, str):  # (the IR, the only bytes, is not Cedar)
            continue
        ids = _POLICY_ID.findall(text)
        result = cedarpy.validate_policies(text, parsed[suffix])
        for error in result.errors:
            m = _POSITIONAL.fullmatch(error.policy_id or "")
            policy = ids[int(m.group(1))] if m and int(m.group(1)) < len(ids) else (error.policy_id or "-")
            failures.append((f"{path}#{policy}", _POSITIONAL.sub(policy, error.error)))
    return failures
