"""Admission: a proposed rule enters Pass 1 only when every gate admits it.

Extraction proposes a candidate (trigger, action, scope) for each marked
sentence. `admit` runs the named gates over it, in order; the first gate
that finds a reason to doubt it demotes it to Pass 2 (policy.md, where the
LLM gate reads the sentence whole) with that reason in words. The IR keeps
the decision (`Imperative.admission`), so `policyc show`, policy.md, the
skipped report and the run summary can all say why. The gates' data lives
in grammar/admission.yaml.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from functools import cache, lru_cache

from ..grammar import load as load_grammar
from . import regex_safety
from .harness import rule_fires
from .ir import Action, Admission, AdmissionRate, ClauseObject, ClauseObjectKind, Decision, Gate, Imperative, TriggerKind, TriggerRecord, demoted_routes
from .ladder import load_ladder
from .ordinary import Rate, fire_rate
from .regexes import open_call, redos_reasons, syntax_problems
from .sources import load_conventions
from .triggers import load_lexicon

GATES = (Gate.SOURCE, Gate.POLARITY, Gate.OBJECT, Gate.KIND, Gate.SCOPE, Gate.LOADABLE, Gate.BREADTH)
# Breadth replays a candidate's regexes over the ordinary-call sample, so it runs only once
# every regex of the candidate is proven safe to run (a hostile rule file must not hang policyc).
_BEFORE_BREADTH = GATES[: GATES.index("breadth")]
# a code span that holds a command with arguments (`bun test <file>`); a lone `pytest` or `/opt/x/` names a program or a path
_COMMAND_SPAN = re.compile(r"`([^`\s][^`\n]*\s[^`\n]*[^`\s])`")
_PATH_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch", "Read"})
# Words for each tool kind in a breadth reason ("fires on 3.1% of ordinary edits").
_KIND_WORDS = {"shell": "commands", "path": "file paths", "content": "edits", "mcp": "tool calls"}


@dataclass(frozen=True, slots=True)
class _Data:
    hard_classes: frozenset[str]
    positive_openers: frozenset[str]
    placeholders: tuple[re.Pattern, ...]
    name_prefix: re.Pattern
    code_placeholder: re.Pattern
    not_paths: tuple[re.Pattern, ...]
    shell_token: re.Pattern
    quoted_text: re.Pattern
    preference_split: re.Pattern
    only_if_person: re.Pattern
    unprompted: re.Pattern
    purpose_limit: re.Pattern
    review_verbs: frozenset[str]
    review_places: re.Pattern
    action_verbs: frozenset[str]
    removal_verbs: frozenset[str]
    phrases: dict[str, str]  # shapes of a sentence around a name, `{value}` standing for it
    path_verbs: frozenset[str]
    not_verbs: frozenset[str]
    not_writing_verbs: frozenset[str]
    writing_verbs: frozenset[str]
    command_qualifier: re.Pattern
    env_var: re.Pattern
    command_context: re.Pattern
    common_words: frozenset[str]
    file_extensions: frozenset[str]
    file_names: frozenset[str]
    thresholds: dict[str, float]
    min_fired: int


_PHRASES = ("allowed_phrase", "prefix_phrase", "suffix_phrase", "exception_phrase", "precondition_phrase", "naming_phrase", "paired_with", "file_part",
            "command_narrowing", "tool_mention", "contrast", "narrowing_adjective")


@lru_cache(maxsize=1)
def load_admission() -> _Data:
    data = load_grammar("admission.yaml")
    return _Data(
        hard_classes=frozenset(data["hard_classes"]),
        positive_openers=frozenset(data["positive_openers"]),
        placeholders=tuple(re.compile(p) for p in data["placeholders"]),
        name_prefix=re.compile(data["name_prefix"]),
        code_placeholder=re.compile(data["code_placeholder"]),
        not_paths=tuple(re.compile(p) for p in data["not_paths"]),
        shell_token=re.compile(data["shell_tokens"]),
        quoted_text=re.compile(data["quoted_text"]),
        preference_split=re.compile(data["preference_split"], re.IGNORECASE),
        only_if_person=re.compile(data["only_if_person"], re.IGNORECASE),
        unprompted=re.compile(data["unprompted"], re.IGNORECASE),
        purpose_limit=re.compile(data["purpose_limit"], re.IGNORECASE),
        review_verbs=frozenset(data["review_verbs"]),
        review_places=re.compile(data["review_places"]),
        action_verbs=frozenset(data["action_verbs"]),
        removal_verbs=frozenset(data["removal_verbs"]),
        phrases={key: data[key] for key in _PHRASES},
        path_verbs=frozenset(data["path_verbs"]) | load_lexicon().edit_verbs,
        not_verbs=frozenset(data["not_verbs"]),
        not_writing_verbs=frozenset(data["not_writing_verbs"]),
        writing_verbs=frozenset(data["writing_verbs"]),
        command_qualifier=re.compile(data["command_qualifier"], re.IGNORECASE),
        env_var=re.compile(data["env_var"]),
        command_context=re.compile(data["command_context"], re.IGNORECASE),
        common_words=frozenset(str(w) for w in data["common_words"]),
        file_extensions=frozenset(data["file_extensions"]),
        file_names=frozenset(data["file_names"]),
        thresholds={k: float(v) for k, v in data["breadth_thresholds"].items()},
        min_fired=int(data["breadth_min_fired"]),
    )


def _texts(objects: tuple[ClauseObject, ...]) -> list[str]:
    return [o.text for o in objects]


def _codes(values) -> str:
    return ", ".join(f"`{v}`" for v in values)


def surely_a_path(value: str) -> bool:
    """`value` names a file or folder: not a shape like `and/or`, an e-mail, a URL or `console.log`, and a bare
    name only with a known file extension or as a known file name (`Makefile`)."""
    data = load_admission()
    name = value.rstrip("/").rsplit("/", 1)[-1]
    plain = "/" not in value and not any(c in value for c in "*?") and not value.startswith(".")
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    known = extension in data.file_extensions or name in data.file_names
    return not (any(p.search(value) for p in data.not_paths) or (plain and not known))


def known_file_name(value: str) -> bool:
    """`LICENSE`, `src/Makefile`: a file everyone knows by its whole name, which has no extension."""
    return value.rsplit("/", 1)[-1] in load_admission().file_names


def tool_kind(trigger: TriggerRecord) -> str:
    """shell | path | content | mcp: the kind of tool call a trigger watches."""
    if trigger.kind == TriggerKind.MCP:
        return "mcp"
    fields = {p.field for p in trigger.patterns}
    if "command" in fields:
        return "shell"
    return "path" if fields <= {"file_path", "notebook_path"} else "content"


# --- the gates: each returns (reason, rate) when it demotes the candidate, else None ---

def _source(imp, source, data: _Data):
    if source is None:
        return None
    if source.role and source.role not in load_conventions().roles:
        return f"the harness cannot scope rules to the agent role '{source.role}'", None
    if source.kind in ("scan-only", "mixed") and imp.marker_class not in data.hard_classes:
        return f"{source.file} is read for hard rules only, and '{imp.marker}' is a soft marker", None
    if source.convention == "skill" and imp.context.get("step"):
        return "a step of the skill's procedure, which describes one moment of it, not a standing rule", None
    return None


def _pattern_fires(patterns, text: str) -> bool:
    """A trigger's patterns on one text as the evaluator reads them: a positive one matches and no negated one does."""
    def hit(p) -> bool:
        return re.search(p.regex, text, re.IGNORECASE if "i" in p.flags else 0) is not None
    return any(hit(p) for p in patterns if not p.negate) and not any(hit(p) for p in patterns if p.negate)


def _polarity(imp, source, data: _Data):
    clause, values = imp.clause, imp.rule_trigger.values
    split = data.preference_split.search(imp.quote) if clause.instead_of else None
    recommended_side = {v for v in values if split and f"`{v}`" in imp.quote[: split.start()]}
    if recommended_side:
        return (f"it would trigger on {_codes(sorted(recommended_side))}, which also stands in the form the sentence "
                "recommends"), None
    if same := _same_callee(values, _texts(clause.objects) + _texts(clause.alternatives)):
        value, other, callee = same
        return (f"`{value}` and `{other}` both call `{callee}` and differ only in their arguments, which the sentence "
                "judges and a literal pattern cannot see"), None
    allowed = next((v for v in values if _said(data, "allowed_phrase", v, imp.quote)), None)
    if allowed:  # "Prefer explicit typing over `any` (though `any` is allowed when needed)"
        return f"the sentence also says `{allowed}` is allowed, so when to use it is a judgement", None
    # the clause that gave the trigger has its own marker (the sentence's strongest grades the action)
    if load_ladder().classes[clause.marker_class].polarity == "positive":
        asked = set(values) & set(_texts(clause.objects))
        if asked:
            return f"it would trigger on {_codes(sorted(asked))}, which the sentence asks for", None
        return None
    # "use `vi.waitFor` instead" of `waitFor`: the recommended code is written with the forbidden name in it (a
    # recommended command is often a fragment, `cargo update --precise`, so only code is read this way)
    recommended = set(values) & set(_texts(clause.alternatives)) or {
        a for a in _texts(clause.alternatives)
        if tool_kind(imp.rule_trigger) == "content" and _pattern_fires(imp.rule_trigger.patterns, a)}
    if recommended:
        return f"it would trigger on {_codes(sorted(recommended))}, which the sentence recommends", None
    first = imp.quote.lstrip("-*+>#0123456789.) ").split(" ", 1)[0].lower()
    if clause.inherited and clause.alternatives and first in data.positive_openers:
        return (f"the item asks for something ('{imp.quote.split(' ', 1)[0]} …') with an alternative; the '{imp.marker}' "
                "it sits under does not forbid what it recommends"), None
    return None


def _object(imp, source, data: _Data):
    for value in imp.rule_trigger.values:
        if (allowed := _said(data, "exception_phrase", value, imp.quote)):
            return f"'{allowed.group(0)}' names what the sentence allows, not what it forbids", None
        if (first := _said(data, "precondition_phrase", value, imp.quote)):
            return f"'{first.group(0)}' names what must come first, not what the sentence forbids", None
        if (named := _said(data, "naming_phrase", value, imp.quote)):
            return f"'{named.group(0)}' gives something a name, and a rule on `{value}` would fire on every use of it", None
    if tool_kind(imp.rule_trigger) == "shell":
        # a placeholder argument (`git push --force origin <branch>`) matches any argument, but one where the
        # subcommand goes (`bun <file>`) matches every subcommand too: `bun run`, `bun test`, `bun install`
        for value in imp.rule_trigger.values:
            words = value.split()
            if len(words) > 1 and any(p.search(words[1]) for p in data.placeholders):
                return (f"`{value}`: the placeholder stands where a subcommand goes, so the rule would fire on every "
                        f"`{words[0]}` command"), None
        return None
    for value in imp.rule_trigger.values:
        if any(p.search(value) for p in data.placeholders):
            return f"`{value}` is a placeholder that stands for a name, not a name the agent would write", None
        if tool_kind(imp.rule_trigger) == "content" and (data.name_prefix.match(value)
                                                         or _said(data, "prefix_phrase", value, imp.quote)):
            return f"`{value}` is the start of a name, and a whole-word pattern never finds it inside one like `{value}name`", None
        if tool_kind(imp.rule_trigger) == "content" and data.code_placeholder.search(value) and not open_call(value):
            return (f"`{value}` is written with placeholders for its operands, an example of a form that only a reader "
                    "can match, never text the agent would write as it is"), None
        if tool_kind(imp.rule_trigger) == "content" and _said(data, "suffix_phrase", value, imp.quote):
            return f"`{value}` is the end of a name, and a whole-word pattern never finds it inside one like `name{value}`", None
    return None


_CALLEE = re.compile(r"\s*((?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$][\w$]*)\(")


def _same_callee(values, others) -> tuple[str, str, str] | None:
    """"Prefer `assert.Equal(t, expected, actual)` over `assert.Equal(t, expected, actual, "detailed explanation")`":
    a forbidden call and a recommended one of the same callee are about an argument form (a value, a name, the
    arguments' count), not the literal text written in the sentence, which code never holds."""
    for value in values:
        if (mine := _CALLEE.match(value)) is None:
            continue
        for other in others:
            if other != value and (theirs := _CALLEE.match(other)) is not None and theirs.group(1) == mine.group(1):
                return value, other, mine.group(1)
    return None


_MARK = "\ue000"  # (a private-use character no sentence holds) writes over the name a phrase is asked about


class _Said:
    """Where a phrase matched, read from the sentence itself (the marked copy keeps its offsets)."""

    __slots__ = ("_found", "_quote")

    def __init__(self, found: re.Match, quote: str) -> None:
        self._found, self._quote = found, quote

    def start(self, group: int | str = 0) -> int:
        return self._found.start(group)

    def group(self, group: int | str = 0) -> str | None:
        start, end = self._found.span(group)
        return None if start < 0 else self._quote[start:end]


def _said(data: _Data, phrase: str, value: str, quote: str) -> _Said | None:
    """Where `quote` says `value` in the shape of one of admission.yaml's phrases. Each phrase is compiled once, with
    a run of _MARK for the name, and searched in a copy of the sentence whose quoted name is written over with it:
    one regex per phrase, not one per phrase and name (thousands in a large run, most of admission's time)."""
    marked = _marked(quote, value)
    found = _phrase(data.phrases[phrase]).search(marked) if marked else None
    return _Said(found, quote) if found else None


@cache
def _phrase(shape: str) -> re.Pattern:
    return re.compile(shape.format(value=_MARK + "+"), re.IGNORECASE)


@lru_cache(maxsize=64)
def _marked(quote: str, value: str) -> str | None:
    """`quote` with every `value` in backticks (case aside) written over with _MARK, or None when it quotes none."""
    if quote.isascii() and value.isascii():
        lower, needle = quote.lower(), f"`{value}`".lower()
        starts = [at for at in range(len(lower)) if lower.startswith(needle, at)] if needle in lower else []
        spans = [(at + 1, at + len(needle) - 1) for at in starts]
    else:  # (case folding outside ASCII: what re.IGNORECASE compares)
        spans = [(m.start() + 1, m.end() - 1) for m in re.finditer(re.escape(f"`{value}`"), quote, re.IGNORECASE)]
    if not spans:
        return None
    chars = list(quote)
    for start, end in spans:
        chars[start:end] = _MARK * (end - start)
    return "".join(chars)


def _verb_after(words: list[str], data: _Data) -> str:
    """The verb right after a rule word, past adverbs ("never ever", "do not directly"), or "" when none stands there."""
    for word in (w.strip("*_,.").lower() for w in words):
        if word and not word.endswith("ly") and word not in ("ever", "be"):  # ("**NEVER** unwrap": past the emphasis)
            return word if word.replace("-", "").isalpha() and word not in data.not_verbs else ""
    return ""


def _quoted_verb(words: list[str], values) -> str:
    """'Do not "fix" a `Done` card': a word in quotes after the rule word, when the rule is on something else, is
    its verb ('Never "Netbox"' is the text itself)."""
    word = words[0].strip("*_,.") if words else ""
    quoted = word[1:-1].lower() if len(word) > 2 and word[0] in "\"“" and word[-1] in "\"”" else ""
    return quoted if quoted.isalpha() and quoted not in (v.lower() for v in values) else ""


def _verb_misfit(imp, kind: str, first: str, data: _Data) -> str:
    """Why the clause's verb (or `first`, the word after the rule word) is not what the rule would watch: a path rule
    needs a verb that changes the file, a content rule one that writes the name, and a verb that keeps its object
    ("skip", "disable") makes no rule on it. "" when it fits. (A lexicon entry reads its verb itself.)"""
    acts, values = imp.clause.verb or first, imp.rule_trigger.values
    named = f"`{values[0]}`" if values else "what it names"
    lexicon = load_lexicon()
    if kind == "path" and acts and acts not in data.path_verbs:
        return f"'{acts}' does not change a file, and this rule would stop edits and writes of {named}"
    if protected := sorted({acts, first} & lexicon.clause_words["protecting_verbs"]):
        return f"'{protected[0]}' asks for {named} to stay, run or be written, and this rule would stop exactly that"
    if kind != "content" or not acts:
        return ""
    if acts in data.not_writing_verbs:
        return (f"'{acts}' acts on {named} without writing it, and this rule would stop every edit that writes "
                f"{named}, including ones that keep it as it is")
    writes = data.writing_verbs | lexicon.content_verbs | lexicon.mock_verbs
    if acts not in writes and imp.rule_trigger.kind == TriggerKind.CONTENT and imp.polarity == "negative":
        return f"'{acts}' does something to {named} other than writing it, which is all this rule would watch"
    return ""


def _kind(imp, source, data: _Data):
    kind, values = tool_kind(imp.rule_trigger), imp.rule_trigger.values
    after = imp.quote.lower().split(imp.marker.lower(), 1)[-1].split() if imp.marker.lower() in imp.quote.lower() else []
    lead = (imp.context or {}).get("lead", "")
    if not after and not imp.clause.verb and imp.marker.lower() in lead.lower():
        # a list item with no verb of its own does what its lead line says ("These directories … should NOT be
        # included in migrations:" over "- `internal_docs/`"): the lead's verb, when it knew none, is read here
        after = lead.lower().split(imp.marker.lower(), 1)[-1].rstrip(":").split()
        if after and after[0].strip("*_`,.") in ("do", "does", "doing"):
            after = []  # ("Do not do:" over a fence: the lead names no act, the fence shows what not to write)
    verb = after[0].strip("*_`,.") if after else ""
    if verb in data.review_verbs and not data.review_places.match(" ".join(w.strip("*_`,.") for w in after[1:])):
        return (f"'{imp.marker} {after[0]}' tells a reviewer what not to comment on; it forbids no tool call"), None
    if verb in data.action_verbs and kind in ("content", "path"):
        return f"'{imp.marker} {verb}' forbids running something, and this rule would watch files", None
    if kind == "content" and data.removal_verbs & {verb, imp.clause.verb}:
        removal = verb if verb in data.removal_verbs else imp.clause.verb
        return (f"'{removal}' forbids taking it out of a file, and this rule would stop writing it"), None
    first = _verb_after(after, data) or _quoted_verb(after, values)
    if imp.rule_trigger.kind != TriggerKind.PROSE and (misfit := _verb_misfit(imp, kind, first, data)):
        return misfit, None
    for value in values:
        if kind != "mcp" and _said(data, "tool_mention", value, imp.quote):
            return f"`{value}` names a tool the agent calls, not text it writes or a command it runs", None
    if kind == "path":
        for value in values:
            if not surely_a_path(value):
                return (f"`{value}` is not surely a file path (a bare name without a known extension, or a shape like "
                        "`and/or`, an e-mail address, a URL or `console.log`), so no path rule is built on it"), None
    prose = [o.text for o in imp.clause.objects if o.kind == ClauseObjectKind.PATH and o.text in values]
    if kind == "content" and prose:
        return f"`{prose[0]}` is written without backticks: words of the sentence, not code", None
    if kind == "content" and data.command_qualifier.search(imp.quote):
        return "the sentence forbids it in commands, and this rule would watch file content", None
    if kind == "content":
        for value in values:
            if data.shell_token.match(value):
                return f"`{value}` is a command-line flag, which never appears in file content", None
            if data.quoted_text.match(value):
                return (f"`{value}` is a piece of text in quotes (a title, label or message), and this rule would fire "
                        "wherever that text is written, not only in the place the sentence means"), None
            if data.env_var.match(value) and data.command_context.search(imp.quote):
                return (f"`{value}` is named in a sentence about running commands; an environment variable "
                        "set on a command line is not file content"), None
    return None


def _scope(imp, source, data: _Data):
    clause, trigger = imp.clause, imp.rule_trigger
    if source is not None and source.subtree and tool_kind(trigger) not in ("path", "content"):
        # a nested or vendored file speaks for its folder only; path and content rules are scoped
        # to it at extraction, but a command or tool call carries no folder to scope by
        return (f"it comes from {source.file}, which applies only to work in {source.subtree}/, and a "
                f"{tool_kind(trigger)} rule cannot be limited to one folder"), None
    qualifiers = clause.qualifiers
    if tool_kind(trigger) == "shell":  # "never run `terraform destroy` here": a command runs in the project
        qualifiers = tuple(q for q in qualifiers if q not in load_lexicon().clause_words["place_adverbs"])
    if qualifiers:
        return f"'{qualifiers[0]}' narrows the rule, and no file scope says so", None
    if clause.purpose and (tool_kind(trigger) == "content" or trigger.kind == TriggerKind.COMMAND and not _restates(clause.purpose, trigger)):
        return f"'{clause.purpose}' narrows what the rule forbids, which a pattern cannot see", None
    if limited := data.purpose_limit.search(imp.quote):
        return f"'{limited.group(0)}' forbids the act for that purpose only, and a call does not say why it is made", None
    for value in trigger.values if trigger.kind in (TriggerKind.CONTENT, TriggerKind.COMMAND, TriggerKind.PATH) else ():
        if found := _said(data, "paired_with", value, imp.quote):
            return f"'{found.group(0)}' forbids the pair, and this rule would fire on `{value}` alone", None
        if trigger.kind != TriggerKind.PATH and _said(data, "contrast", value, imp.quote):
            return f"`{value}` is turned down for what the sentence's subject uses, and this rule would fire on every use", None
        if trigger.kind == TriggerKind.CONTENT and (found := _said(data, "narrowing_adjective", value, imp.quote)):
            return f"'{found.group(0)}' narrows which `{value}` the sentence forbids, which a pattern cannot see", None
    if trigger.kind == TriggerKind.PATH:
        for value in trigger.values:
            if found := _said(data, "file_part", value, imp.quote):
                return f"'{found.group(0)}' names a part of `{value}`, and this rule would stop every edit of it", None
        # "Never edit the … specs in spec/ by hand; they are synced … at the commits pinned in spec/infra-ref": the
        # sentence itself names a file inside the folder as something other than what it forbids (a pin to bump, a
        # README to read), so the folder as a whole is not what it forbids
        folders = [v for v in trigger.values if v.endswith("/") and "*" not in v]
        for other in (o.text for o in (*clause.alternatives, *clause.exceptions, *clause.examples)):
            inside = next((f for f in folders if other.startswith(f) and other != f or f"/{f}" in f"/{other}" and other.rstrip("/") != f.rstrip("/")), "")
            if inside and other not in trigger.values:
                return (f"the sentence names `{other}` inside `{inside}` as something other than what it forbids, "
                        f"and this rule would stop every edit under `{inside}`"), None
    if trigger.kind == TriggerKind.COMMAND:
        for value in trigger.values:
            if found := _said(data, "command_narrowing", value, imp.quote):
                start = found.start("words") if found.group("words") else found.start()
                words = re.split(r"[.;:,!?(]", imp.quote[start:])[0]
                phrase = " ".join(words.split()[:6])
                return f"'{phrase}' narrows when `{value}` is forbidden, which a pattern cannot see", None
    paths = set(trigger.tool_match) & _PATH_TOOLS
    if clause.file_scope and not paths:
        return "its qualifier names files, and a shell or tool call carries no file path", None
    if "file_scope" in imp.scope and not paths:
        # the harness tests file_scope against file_path: a shell or MCP call has
        # none, so the rule would stay dormant forever
        return "its source is scoped to files, and a shell or tool call carries no file path", None
    return None


def _restates(purpose: str, trigger) -> bool:
    """"NEVER use `npm run compile` to compile TypeScript files": the purpose is what the command does, no narrowing."""
    verb = purpose.split()[1] if purpose.startswith("to ") and len(purpose.split()) > 1 else ""
    return any(verb in re.split(r"[\s:/._-]+", value.lower()) for value in trigger.values)


def measure(imp: Imperative) -> Rate:
    """How often the proposed rule would act on the bundled ordinary tool calls, out of all the
    calls of its tools: a file-scoped rule is not judged on its few in-scope calls alone (a
    TypeScript-only rule on the sample's 47 TypeScript edits), but on everyday work as a whole."""
    rule = _rule(imp)
    everywhere = fire_rate(rule)
    if not imp.scope:
        return everywhere
    scoped = fire_rate({**rule, "active_when": imp.scope})
    return Rate(scoped.fired, everywhere.total, scoped.examples)


def _rule(imp: Imperative) -> dict:
    """The candidate as the GuardRule fields the harness matches on."""
    trigger = imp.rule_trigger
    rule = {"tool_match": list(trigger.tool_match), "patterns": trigger.patterns_json(), "action": imp.action}
    if trigger.keywords:
        rule["keywords"] = list(trigger.keywords)
    return rule


def prescribed_commands(imperatives, sources: dict) -> dict[str, list[tuple[int, str]]]:
    """What each file tells the agent to run: its commands in code spans, except on the lines of a prohibition and
    except what any of its sentences forbids (`npm install` in "use `pnpm install`, not `npm install`")."""
    forbidding: dict[str, set[int]] = defaultdict(set)
    forbidden: dict[str, set[str]] = defaultdict(set)
    for imp in imperatives:
        forbidden[imp.file].update(imp.trigger.values if imp.trigger else ())
        if imp.polarity == "negative":
            forbidding[imp.file].update(range(imp.lines[0], imp.lines[-1] + 1))
    return {file: [(number, span) for number, line in enumerate(source.text.splitlines(), 1) if number not in forbidding[file]
                   for span in _COMMAND_SPAN.findall(line) if span not in forbidden[file]]
            for file, source in sources.items()}


def _contradicts(imp, prescribed: list[tuple[int, str]]) -> str | None:
    """A shell rule that would stop a command its own file tells the agent to run (bun's `bun test` ban
    against its `USE_SYSTEM_BUN=1 bun test <file>`): the file does not forbid what it prescribes."""
    if tool_kind(imp.rule_trigger) != "shell":
        return None
    own = range(imp.lines[0], imp.lines[-1] + 1)
    rule = {**_rule(imp), "trigger": "PreToolUse"}
    for number, command in prescribed:
        if number not in own and rule_fires(rule, "Bash", {"command": command}):
            return f"line {number} of the same file tells the agent to run `{command}`, which this rule would stop"
    return None


def rate_words(rate: Rate, kind: str) -> str:
    """"fires on 3.1% of ordinary edits (5 of 172)"."""
    return f"fires on {rate.share:.1%} of ordinary {_KIND_WORDS[kind]} ({rate.fired} of {rate.total})"


def _rate_record(rate: Rate) -> AdmissionRate:
    return AdmissionRate(rate.fired, rate.total, round(rate.share, 4))


def _breadth(imp, source, data: _Data):
    kind = tool_kind(imp.rule_trigger)
    rate = measure(imp)
    if rate.share > data.thresholds[kind] and rate.fired >= data.min_fired:
        return (f"it {rate_words(rate, kind)}, above the {data.thresholds[kind] * 100:g}% "
                f"a deterministic rule may interrupt"), _rate_record(rate)
    common = [v for v in imp.rule_trigger.values if v in data.common_words] if kind == "content" else []
    if common:
        return f"`{common[0]}` is a common word in code, so the rule would fire on ordinary edits", _rate_record(rate)
    return None


def _loadable(imp, source, data: _Data):
    for pattern in imp.rule_trigger.patterns:
        problems = redos_reasons(pattern.regex) + syntax_problems(pattern.regex, pattern.flags)
        if problems:
            return f"its pattern {pattern.regex!r} cannot load in the harness ({problems[0]})", None
    return None


_CHECKS = {Gate.SOURCE: _source, Gate.POLARITY: _polarity, Gate.OBJECT: _object, Gate.KIND: _kind,
           Gate.SCOPE: _scope, Gate.BREADTH: _breadth, Gate.LOADABLE: _loadable}


def _unproposed(imp) -> Admission:
    """Why a sentence proposed no candidate: examples or asides only, or no concrete trigger."""
    clause = imp.clause
    if not clause.objects and (clause.examples or clause.asides):
        named = _texts(clause.examples + clause.asides)
        return Admission(Decision.DEMOTED, Gate.OBJECT, f"it names {_codes(named[:3])} only as examples or in an aside, "
                                              "not as what it forbids")
    return Admission(Decision.NO_CANDIDATE, Gate.NONE, imp.pass2_cause)


def _doubted(imp, source, gates) -> bool:
    """Run `gates` in order; the first that finds a reason to doubt the candidate demotes it."""
    data = load_admission()
    for gate in gates:
        found = _CHECKS[gate](imp, source, data)
        if found:
            _demote(imp, gate, *found)
            return True
    return False


def _demote(imp: Imperative, gate: Gate, reason: str, rate: AdmissionRate | None = None) -> None:
    imp.admission = Admission(Decision.DEMOTED, gate, reason, rate)
    imp.routes = demoted_routes(imp.routes)
    imp.action = Action.BLOCK if imp.marker_class == "block-direct" else Action.WARN  # as for any Pass 2 only rule
    imp.pass2_cause = reason
    imp.reasons.append(f"demoted by the {gate} gate: {reason} -> Pass 2")


def admit_all(imperatives, sources: dict) -> None:
    """Decide, for every imperative of a run (`sources`: file -> its SourceIR), whether its proposed
    rule enters Pass 1; a demoted one goes to Pass 2 with its reason. An imperative reused from an
    earlier run of this compiler keeps its decision.

    The gates that only read a candidate run first. Then every regex a remaining candidate has the
    harness run (patterns, file_scope, after_command) must be proven safe (compiler/regex_safety.py:
    a static analysis and one Node.js trial for the whole run); an unsafe one demotes its rule
    through the loadable gate and never stops the run. Only then does breadth replay the safe
    regexes over the ordinary-call sample.
    """
    # rules reused from the sealed IR of this same compiler were proven when they were compiled
    regex_safety.vouch([(regex, flags) for i in imperatives if i.admission is not None and "pass1" in i.routes
                        for _, regex, flags in regex_safety.rule_regexes(i.rule_trigger.patterns_json(), i.scope)])
    candidates = []
    prescribed = prescribed_commands(imperatives, sources)
    for imp in (i for i in imperatives if i.admission is None):
        if "pass1" not in imp.routes:
            imp.admission = _unproposed(imp)
            if imp.admission.decision == Decision.DEMOTED:
                imp.pass2_cause = imp.admission.reason
        elif not _doubted(imp, sources.get(imp.file), _BEFORE_BREADTH):
            candidates.append(imp)
    found = [regex_safety.rule_regexes(i.rule_trigger.patterns_json(), i.scope) for i in candidates]
    verdicts = iter(regex_safety.problems([(regex, flags) for regexes in found for _, regex, flags in regexes]))
    for imp, regexes in zip(candidates, found):
        problems = [(what, regex, problem) for (what, regex, _), problem in zip(regexes, verdicts) if problem]
        if problems:
            what, regex, problem = problems[0]
            _demote(imp, Gate.LOADABLE, f"its {what.replace('_', ' ')} {regex!r} is not safe to run in the harness ({problem})")
        elif contradiction := _contradicts(imp, prescribed.get(imp.file, [])):  # its regexes are proven safe by now
            _demote(imp, Gate.POLARITY, contradiction)
        elif not _doubted(imp, sources.get(imp.file), (Gate.BREADTH,)):
            rate = measure(imp)
            kind = tool_kind(imp.rule_trigger)
            imp.admission = Admission(Decision.ADMITTED, Gate.NONE, f"every gate admits it; it {rate_words(rate, kind)}{_asks(imp, sources.get(imp.file))}",
                                      _rate_record(rate))


def _asks(imp, source) -> str:
    """A block whose exception defers to a person ("unless asked", "without permission"; or, later in its
    paragraph, "Only amend if the user explicitly says so") becomes an ask: the harness asks the user
    before the call, which is what the exception leaves to them. Words for the reason."""
    data = load_admission()
    condition = imp.clause.condition
    if not condition and source is not None:
        paragraph = " ".join(source.text.split("\n")[imp.lines[0] - 1 : imp.lines[-1]])
        condition = found.group(0) if (found := data.only_if_person.search(paragraph)) else ""
    unasked = data.unprompted.search(imp.quote) if not condition else None
    if imp.action != "block" or not (unasked or load_lexicon().qualifiers["person"].search(condition)):
        return ""
    condition = unasked.group(0) if unasked else condition
    imp.action = Action.ASK
    imp.reasons.append(f"'{condition}' leaves the exception to a person -> ask instead of block")
    return f"; '{condition}' leaves the exception to a person, so the harness asks before the call"
