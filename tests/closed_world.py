"""Scoring compiled rules against the closed-world labels (tests/data/labels/*.yaml).

Shared by tests/test_closed_world.py and benchmarks/precision_recall.py. Each label
file lists, for one corpus file, every sentence with a lexical marker and every line
that inherits one, with the action a demanding user expects (`none`: no Pass 1 rule)
and, for a rule, inputs it must and must not fire on.

An emitted rule is *correct* when a label on its source lines expects its action and
the rule fires on at least one of that label's must_match inputs and on none of its
must_not_match inputs. A labelled rule is *met* when the correct rules at its line
(a line merged into another rule counts through the winner) together fire on every
must_match input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from conftest import DATA, corpus_manifest, lay_out, load_yaml
from policyc.compiler.harness import active, rule_fires
from policyc.compiler.pipeline import compile_paths
from policyc.emitters.guardrules import emit

LABELS = DATA / "labels"
MISSES_FILE = DATA / "closed_world_misses.yaml"
ACTIONS = ("block", "ask", "warn")
CLASSES = frozenset({"backticked-command", "plain-prose-command", "path", "content", "mcp", "multi-clause",
                     "instead-of", "inherited", "fenced-list", "required-form"})
DEFAULT_PATH = "src/example"


def label_files() -> list[Path]:
    return sorted(LABELS.glob("*.yaml"))


def load_labels(path: Path) -> dict:
    return load_yaml(path.read_text(encoding="utf-8"))


def load_misses() -> dict[tuple, str]:
    entries = load_yaml(MISSES_FILE.read_text(encoding="utf-8")) or []
    return {(m["file"], m["line"], m["text"]): m["reason"] for m in entries}


def key(corpus_file: str, label: dict) -> tuple:
    return (corpus_file, label["line"], label["text"])


def repo_path(corpus_file: str) -> str:
    """Where the corpus file lived in its repository (MANIFEST.tsv)."""
    return {r["file"]: r for r in corpus_manifest()}[corpus_file]["path"]


def compile_corpus_file(corpus_file: str, workdir: Path) -> dict:
    """distilled-rules.json for one corpus file laid out at its repository path."""
    row = {r["file"]: r for r in corpus_manifest()}[corpus_file]
    project = workdir / corpus_file.split("__", 1)[0]
    return emit(compile_paths([lay_out(row, project)], project))


def tool_input(label: dict, value) -> dict:
    """The tool input for one must/must_not value: a string, or {value, file_path}."""
    path = label.get("file_path", DEFAULT_PATH)
    if isinstance(value, dict):
        path, value = value.get("file_path", path), value["value"]
    if label["field"] == "content":
        return {"file_path": path, "new_string" if label["tool"] == "Edit" else "content": value}
    return {label["field"]: value}


def shown(value) -> str:
    return repr(value["value"] if isinstance(value, dict) else value)


def fires(rule: dict, label: dict, value) -> bool:
    """As the harness decides; an input that names its file path ({value, file_path}, or the label's
    file_path) is also held to the rule's file scope, as the harness holds it."""
    given = tool_input(label, value)
    scope = (rule.get("active_when") or {}).get("file_scope")
    named = isinstance(value, dict) and "file_path" in value or "file_path" in label
    if scope and named and not active({"active_when": {"file_scope": scope}}, {"tool_input": given}):
        return False
    return rule_fires(rule, label["tool"], given)


def fit(rule: dict, label: dict) -> list[str]:
    """Why `rule` is not a correct rule for `label` (empty: it is)."""
    if rule["action"] != label["expect"]:
        return [f"labelled {label['expect']}, emitted {rule['action']}"]
    problems = [f"fires on must_not_match {shown(v)}" for v in label.get("must_not_match", []) if fires(rule, label, v)]
    must = label.get("must_match", [])
    if must and not any(fires(rule, label, v) for v in must):
        problems.append("fires on no must_match input (wrong object)")
    return problems


@dataclass
class RuleVerdict:
    rule: dict
    line: int
    problems: list[str] = field(default_factory=list)

    @property
    def correct(self) -> bool:
        return not self.problems

    def describe(self) -> str:
        return f"{self.rule['id']} ({self.rule['action']}) at line {self.line}: {'; '.join(self.problems)}"


def judge_rule(rule: dict, labels: list[dict]) -> RuleVerdict:
    """Precision: is this emitted rule one a label on its lines asks for?"""
    first, last = rule["source"]["lines"]
    verdict = RuleVerdict(rule, first)
    here = [label for label in labels if first <= label["line"] <= last]
    if not here:
        verdict.problems.append("rule on an unlabelled line")
    elif all(label["expect"] == "none" for label in here):
        verdict.problems.append("labelled none")
    else:
        fits = [fit(rule, label) for label in here if label["expect"] != "none"]
        if all(fits):
            verdict.problems.extend(min(fits, key=len))
    return verdict


def rules_at(doc: dict, path: str, line: int) -> list[dict]:
    """Rules whose source covers `line`, plus the winners a rule from that line was merged into."""
    rules = [r for r in doc["rules"] if r["source"]["lines"][0] <= line <= r["source"]["lines"][1]]
    winners = {c["id"] for c in doc["conflicts"] if f"{path}:{line}" in c["overridden_sources"]}
    return rules + [r for r in doc["rules"] if r["id"] in winners and r not in rules]


def recall_problems(doc: dict, path: str, label: dict) -> list[str]:
    """Why a labelled rule is not met (empty: it is)."""
    candidates = [r for r in rules_at(doc, path, label["line"]) if r["action"] == label["expect"]]
    if not candidates:
        found = sorted(r["action"] for r in rules_at(doc, path, label["line"]))
        return [f"no {label['expect']} rule at line {label['line']} (found {found})"]
    good = [r for r in candidates if not any(fires(r, label, v) for v in label.get("must_not_match", []))]
    if not good:
        return [f"every {label['expect']} rule at line {label['line']} fires on a must_not_match input"]
    return [f"does not fire on {shown(v)}" for v in label.get("must_match", []) if not any(fires(r, label, v) for r in good)]


@dataclass
class FileScore:
    rules: list[RuleVerdict]
    recall: list[tuple[dict, list[str]]]  # (labelled rule, problems) for every expect != none

    @property
    def strict(self) -> list[tuple[dict, list[str]]]:
        return [(label, problems) for label, problems in self.recall if not label.get("optional")]


def score(path: str, labels: list[dict], doc: dict) -> FileScore:
    """Judge every emitted rule of `doc` (compiled from the file at repository `path`) and every labelled rule."""
    verdicts = [judge_rule(rule, labels) for rule in doc["rules"]]
    recall = [(label, recall_problems(doc, path, label)) for label in labels if label["expect"] != "none"]
    return FileScore(verdicts, recall)


def assert_labels_well_formed(labels: list[dict], lines: list[str]) -> None:
    """Each label quotes its line, expects an action or none, says why; a rule label names its class,
    tool, field and inputs that must and must not match (a `none` label takes no inputs)."""
    for label in labels:
        where = f"line {label['line']}"
        assert label["text"] in lines[label["line"] - 1], f"{where}: text is not on that line"
        assert label["expect"] in (*ACTIONS, "none"), f"{where}: expect {label['expect']!r}"
        assert label.get("why"), f"{where}: no why"
        if label["expect"] == "none":
            assert not {"must_match", "must_not_match", "optional"} & set(label), f"{where}: none takes no inputs"
            continue
        assert label["class"] in CLASSES, f"{where}: class {label['class']!r}"
        assert label["field"] in ("command", "file_path", "content"), f"{where}: field {label['field']!r}"
        assert label["tool"], f"{where}: no tool"
        assert label.get("must_match") and label.get("must_not_match"), f"{where}: needs must_match and must_not_match"
        for value in (*label["must_match"], *label["must_not_match"]):  # an unquoted "fix(x): y" reads as a mapping
            assert isinstance(value, str) or (isinstance(value, dict) and "value" in value), f"{where}: input {value!r}"
