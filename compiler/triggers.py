"""§6 trigger inference: a read clause -> the observable trigger of a rule.

Driven by grammar/lexicon.yaml. A clause whose objects cannot be turned into
a concrete trigger gets none: the caller routes it to Pass 2 or the skipped
list, never to a block or ask rule (§6).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from ..grammar import load as load_grammar
from .clauses import MCP_TOOL, Clause
from .ir import ClauseObject, ClauseObjectKind, Pattern, SequenceRecord, TriggerKind, TriggerRecord, kind_label
from .ladder import load_ladder
from .ordinary import required_literals
from .regexes import (
    BARE_START,
    COMMAND_START,
    POSITION,
    any_of,
    command_regex,
    glob_to_regex,
    identifier_regex,
    js_escape,
    lexicon_regex,
    mcp_tools,
    missing_flags_regex,
    open_call,
)

_JOINED_TOPICS = re.compile(r"\s(?:&|and)\s|,")  # a heading about more than one thing ("Testing & Quality")
_PATHLIKE = re.compile(r"/|^\.|[*?]|\.[A-Za-z0-9]{1,6}$")
# an import path that opens with a domain (`github.com/stretchr/testify/assert`, `golang.org/x/sync`): code, not a file
_MODULE_PATH = re.compile(r"^(?:[a-z0-9-]+\.)+(?:com|org|io|net|dev|in|me|co|sh)/[\w.~/-]+$")
# a type's member (`Thread.sleep`): a capitalised name, a dot and a name
_MEMBER = re.compile(r"^[A-Z][A-Za-z0-9]*\.[A-Za-z_]\w*$")
_KEYWORD_SAFE = re.compile(r"^[a-z0-9][a-z0-9._+-]*$")
ObjectKind = Literal["command", "path", "content", "mcp"]  # the trigger a clause object gives


@dataclass(frozen=True, slots=True)
class Lexicon:
    tools: dict
    run_verbs: frozenset[str]
    edit_verbs: frozenset[str]
    content_verbs: frozenset[str]
    unobservable_verbs: frozenset[str]
    remove_verbs: frozenset[str]
    create_verbs: frozenset[str]
    mock_verbs: frozenset[str]
    construct_verbs: frozenset[str]
    script_runners: tuple[str, ...]
    script_names: frozenset[str]
    programs: frozenset[str]
    identifiers: dict[str, str]
    prose: tuple[dict, ...]
    prose_literals: frozenset[str]  # every `literals` of the prose entries
    verbs: frozenset[str]  # every verb of the kinds above
    versioned: frozenset[str]
    families: tuple[tuple[str, ...], ...]
    placeholders: frozenset[str]
    exception_scopes: tuple[dict, ...]
    not_identifiers: frozenset[str]
    events: tuple[dict, ...]
    required: tuple[dict, ...]
    token_languages: tuple[tuple[re.Pattern, tuple[str, ...]], ...]
    clause_words: dict[str, frozenset[str]]
    qualifiers: dict

    @property
    def family_tools(self) -> frozenset[str]:
        """Every member of a tool family (npm, pnpm, pip, uv, ...)."""
        return frozenset(tool for family in self.families for tool in family)

    def section_scope(self, titles: list[str]) -> str:
        """The file scope regex the headings above a rule give its file rules ("" for none):
        each heading that names tests or a language narrows it."""
        regexes = []
        for k, title in enumerate(titles):
            lower = title.lower()
            scope = next((e for e in self.qualifiers["sections"] if e["when"].search(lower)
                          and not (e["own_or_title_heading_only"] and (0 < k < len(titles) - 1 or _JOINED_TOPICS.search(lower)))), None)
            if scope is not None:
                regex = any_of([glob_to_regex(g) for g in scope["globs"]])
                if regex not in regexes:
                    regexes.append(regex)
        if len(regexes) < 2:
            return "".join(regexes)
        return "^" + "".join(f"(?=.*{r})" for r in regexes)  # every heading's scope must hold

    def qualifier_scope(self, text: str, objects: list[ClauseObject]) -> list[str] | None:
        """The globs a qualifier narrows a rule to: [] when it does not narrow it
        ("on the host"), None when it narrows it in a way no glob can say ("in screens")."""
        if any(pattern.search(text) for pattern in self.qualifiers["harmless"]):
            return []
        for scope in self.qualifiers["scopes"]:
            if scope["when"].search(text):
                return list(scope["globs"])
        if folder := self.qualifiers["folders"].search(text):
            return [name + "/" for name in re.split(r" (?:and|or) ", folder.group(1))]
        paths = [o.text for o in objects if o.kind == ClauseObjectKind.PATH or _PATHLIKE.search(o.text)]
        if paths and len(paths) == len(objects) and self.qualifiers["paths"].search(text):
            return paths
        return None


@lru_cache(maxsize=1)
def _forbidding_words() -> str:
    """A `when`'s {FORBIDS}: the rule words that forbid what follows them ("never", "do not", "avoid"), the ladder's
    negative markers, with an optional "you" before and "ever" after."""
    ladder = load_ladder()
    phrases = {" ".join(words) for options in ladder.phrases.values() for words, cls in options
               if ladder.classes[cls].polarity == "negative"}
    phrases |= {p for p, cls in ladder.form_phrases.items() if ladder.classes[cls].polarity == "negative"}  # ("only", "not to")
    spelled = (re.escape(p).replace(r"\ ", r"\s+") for p in sorted(phrases, key=lambda p: (-len(p), p)))
    return r"(?:you\s+)?(?:" + "|".join(spelled) + r")\s+(?:ever\s+)?"


_OWN_ACT = r"(?:\s+(?:directly|yourself|on\s+your\s+own))?"  # a `when`'s {OWN}: "Do not create GitHub Issues directly"


def _entry(entry: dict) -> dict:
    """A prose or event entry: its `when` compiled, the placeholders of its regexes filled."""
    when = entry["when"].replace("{FORBIDS}", _forbidding_words()).replace("{OWN}", _OWN_ACT)
    entry = {**entry, "when_re": re.compile(when)} | ({"regex": lexicon_regex(entry["regex"])} if "regex" in entry else {})
    if "spares" in entry:
        entry["spares"] = {**entry["spares"], "regex": lexicon_regex(entry["spares"]["regex"])}
    return entry


@lru_cache(maxsize=1)
def load_lexicon() -> Lexicon:
    data = load_grammar("lexicon.yaml")
    # each prose entry's `literals`: lower-case words one of which every match of its `when` holds (None: not known)
    prose = tuple({**entry, "literals": required_literals(entry["when_re"].pattern)} for entry in map(_entry, data["prose"]))
    verbs = {kind: frozenset(words) for kind, words in data["verbs"].items()}
    return Lexicon(
        tools=data["tools"],
        run_verbs=verbs["run"],
        edit_verbs=verbs["edit"],
        content_verbs=verbs["content"],
        unobservable_verbs=verbs["unobservable"],
        remove_verbs=verbs["remove"],
        create_verbs=verbs["create"],
        mock_verbs=verbs["mock"],
        construct_verbs=verbs["construct"],
        script_runners=tuple(data["script_runners"]),
        script_names=frozenset(data["script_names"]),
        programs=frozenset(data["programs"]),
        identifiers=dict(data["identifiers"]),
        prose=prose,
        prose_literals=frozenset().union(*(entry["literals"] or () for entry in prose)),
        verbs=verbs["run"] | verbs["edit"] | verbs["content"] | verbs["unobservable"] | verbs["mock"] | verbs["remove"]
        | verbs["create"] | verbs["construct"],
        versioned=frozenset(data["versioned"]),
        families=tuple(tuple(f) for f in data["families"]),
        placeholders=frozenset(data["placeholders"]),
        exception_scopes=tuple({**e, "when_re": re.compile(e["when"])} for e in data["exception_scopes"]),
        not_identifiers=frozenset(str(w) for w in data["not_identifiers"]),
        events=tuple(map(_entry, data["events"])),
        required=tuple({**_entry(e), "words": re.compile(e["words"]), "code": re.compile(e.get("code", "(?!)"))}
                       for e in data["required"]),
        token_languages=tuple((re.compile(e["when"]), tuple(e["globs"])) for e in data["token_languages"]),
        clause_words={k: frozenset(v) for k, v in data["clause_words"].items()},
        qualifiers={
            "harmless": tuple(re.compile(p) for p in data["qualifiers"]["harmless"]),
            "scopes": tuple({"when": re.compile(e["when"]), "globs": tuple(e["globs"])} for e in data["qualifiers"]["scopes"]),
            "paths": re.compile(data["qualifiers"]["paths"]),
            "folders": re.compile(data["qualifiers"]["folders"]),
            "person": re.compile(data["qualifiers"]["person"], re.IGNORECASE),
            "agent_made": re.compile(data["qualifiers"]["agent_made"]),
            "reason_tail": re.compile(data["qualifiers"]["reason_tail"]),
            "sections": tuple({"when": re.compile(e["when"]), "globs": tuple(e["globs"]),
                               "own_or_title_heading_only": e.get("own_or_title_heading_only", False)}
                              for e in data["qualifiers"]["sections"]),
        },
    )


@dataclass(slots=True)
class Trigger:
    """A trigger while extraction builds it (a section or subtree may still narrow its file scope)."""

    kind: TriggerKind
    tool_match: list[str]
    patterns: list[Pattern]
    keywords: list[str] = field(default_factory=list)
    summary: str = ""  # words for the rule id
    suggestion: str = ""
    interpreted: bool = False  # the trigger needed interpretation (confidence 0.7)
    file_scope: str = ""
    values: list[str] = field(default_factory=list)  # the commands, globs or identifiers it was built from
    lexicon: str = ""  # a prose trigger's lexicon entry id

    @property
    def label(self) -> str:
        return kind_label(self.kind, self.lexicon)

    def record(self) -> TriggerRecord:
        """The IR's record of it."""
        return TriggerRecord(self.kind, tuple(self.tool_match), tuple(self.patterns), self.lexicon, tuple(self.values),
                             tuple(self.keywords), self.summary, self.suggestion, self.interpreted, self.file_scope)


def object_kind(obj: ClauseObject, verb: str, lex: Lexicon) -> ObjectKind:
    """What a named object is to its verb: a command, a path, file content or an MCP tool."""
    text = obj.text
    first = text.removeprefix("$ ").split()[0] if text.split() else ""
    if obj.kind == ClauseObjectKind.WORD:
        return "command"
    if MCP_TOOL.match(text):
        return "mcp"
    if text.endswith("/") and " " not in text:  # a folder: only paths end in /
        return "path"
    if verb in lex.run_verbs - lex.content_verbs and (obj.kind == ClauseObjectKind.PATH or _PATHLIKE.search(text)) \
            and " " not in text and not re.search(r"[*?\[{]", text.removesuffix("/*")):
        return "command"  # "Never run `scripts/deploy.sh`", "… through `./node_modules/.bin/*`": the program run
    if verb in lex.run_verbs and is_script(text, lex):
        return "command"  # "Never use `script/tag-release`": a script is used by running it
    if _MODULE_PATH.match(text):
        return "content"
    if obj.kind == ClauseObjectKind.PATH:  # (a glob names files whatever the verb: "use the `*.test_slow` extension")
        return "content" if verb in lex.content_verbs - lex.edit_verbs and "*" not in text else "path"
    if first in lex.programs or first.rsplit("/", 1)[-1] in lex.programs:
        return "command"
    if (_PATHLIKE.search(text) or _known_file_name(text)) and " " not in text and "=" not in text and "(" not in text:
        if verb in lex.content_verbs - lex.edit_verbs:
            return "content"
        if verb in lex.edit_verbs or _surely_a_path(text) or not _MEMBER.match(text):
            return "path"
        # ("Avoid `Thread.sleep`": a type's member, which no file is named, with no verb that edits it: code)
    if verb in lex.run_verbs - lex.content_verbs and re.match(r"^[a-z][\w.-]*(?:\s+\S+)*$", text):
        return "command"
    return "content"


def is_script(text: str, lex: Lexicon) -> bool:
    """A relative path to a script: in a scripts folder (`script/tag-release`) or with a shell ending (`deploy.sh`)."""
    path = text.removeprefix("./")
    if not path or re.search(r"[\s*?\[{=(]", path) or path.startswith("/"):
        return False
    words = lex.clause_words
    return ("/" in path and path.split("/", 1)[0] in words["script_folders"]) or path.endswith(tuple(words["script_endings"]))


def _keywords(commands: list[str], versioned: frozenset[str]) -> list[str]:
    """Whole-token quick-reject keywords; empty unless they cover every alternative.

    A versioned program (pip, python) has no keyword: `pip3` is another token.
    """
    keys = []
    for command in commands:
        first = command.removeprefix("$ ").split()[0].lower().rsplit("/", 1)[-1]
        if not _KEYWORD_SAFE.match(first) or first in versioned:
            return []
        if first not in keys:
            keys.append(first)
    return keys


def _recommended(clause: Clause) -> list[str]:
    """What the source says to use instead."""
    if clause.marker.marker_class in ("block-positive", "advisory") and clause.instead_of:
        return [o.text for o in clause.objects]
    return [o.text for o in clause.alternatives]


def _suggestion(clause: Clause) -> str:
    alternatives = _recommended(clause)
    if not alternatives:
        return ""
    return "Use " + " or ".join(f"`{a}`" for a in alternatives) + " instead."


def _slug_words(texts: list[str]) -> str:
    words = re.findall(r"[a-z0-9]+", " ".join(texts).lower())
    return " ".join(words[:5])


def infer_trigger(clause: Clause, polarity: str, lex: Lexicon | None = None) -> Trigger | None:
    """The concrete trigger of a clause, or None when it has none."""
    lex = lex or load_lexicon()
    trigger = _infer_trigger(clause, polarity, lex)
    if trigger is not None and trigger.kind == TriggerKind.CONTENT:
        # "Never import `ipcRenderer` directly … - use `…` (app/src/lib/ipc-renderer.ts)": the file the sentence
        # recommends instead is the wrapper, which must do what everyone else must not
        wrappers = [o.text for o in clause.alternatives
                    if (o.kind == ClauseObjectKind.PATH or _surely_a_path(o.text)) and _A_FILE.search(o.text)]
        if not trigger.file_scope and not clause.quoted_words:  # (a quoted word is text, which prose files hold too)
            trigger.file_scope = _code_scope(["!" + w for w in wrappers], lex)
        elif wrappers:
            trigger.file_scope = f"^(?!.*{any_of([glob_to_regex(w) for w in wrappers])})(?=.*(?:{trigger.file_scope}))"
    return trigger


_A_FILE = re.compile(r"[^/]\.\w+$")  # a file, not a folder: `app/src/lib/ipc-renderer.ts`
COMMIT_VERBS = frozenset({"commit", "commits", "committing"})  # what a commit carries is a file, staged by `git add`


def _with_option(command: str, clause: Clause) -> str:
    """"Never use `git push` with `--force`": the option written in its own code span belongs to the command."""
    found = re.search("`" + re.escape(command.lower()) + r"`\s+(?:with|using)\s+(?:the\s+)?`(-[^`\s]+)`", clause.scope_text)
    if found is None:
        return command
    option = next((o.text for o in clause.objects if o.text.lower() == found.group(1)), found.group(1))
    return f"{command} {option}"


def _code_scope(globs: list[str], lex: Lexicon) -> str:
    """A rule on code's files: the clause's own scope, and unless it names the files, none of the prose files that
    only talk about the code ("Never use `console.log`" is about code, not the AGENTS.md line or the CHANGELOG entry
    that names it)."""
    if any(not g.startswith("!") for g in globs):
        return scope_regex(globs)
    return scope_regex([*globs, *("!" + g for g in lex.tools["prose_files"])])


_MODIFIED_CLASSES = re.compile(r"((?:`[a-z]+`\s+(?:(?:or|and|nor)\s+)?)+)classes\b")


def _class_modifiers(clause: Clause, objects: list[ClauseObject]) -> list[str]:
    """The keywords named right before "classes" ("`final` or `readonly` classes"), when they are every object."""
    found = _MODIFIED_CLASSES.search(clause.scope_text)
    named = re.findall(r"`([a-z]+)`", found.group(1)) if found else []
    return named if named and sorted(o.text for o in objects) == sorted(named) else []


_CLASS_NAME = re.compile(r"^[A-Z][A-Za-z0-9_]*$")  # a type's name: `SentryOptions`, `HttpClient`
_ELIDED_IMPORT = re.compile(r"^import\s+(?:\.\.\.|…|\{\s*(?:\.\.\.|…)\s*\}|\*\s+as\s+(?:\.\.\.|…))\s+from\s+(['\"])([^'\"\s]+)\1;?$")


def _infer_trigger(clause: Clause, polarity: str, lex: Lexicon) -> Trigger | None:
    objects = clause.instead_of if polarity == "positive" else clause.objects
    if polarity == "positive" and not clause.instead_of:
        # a positive rule needs an observable inverse
        return (_required_form(clause, lex) or _required_prose(clause, lex) or _required_wrapper(clause, lex) or _family_trigger(clause, lex)
                or _prose_trigger(clause, lex, polarity))
    verb = clause.verb
    if polarity == "negative" and (pushed := _PUSH_TO_URL.match(clause.scope_text)):
        return _push_url_trigger(pushed.group(1), pushed.group(2), lex)  # "Never push branches to `https://github.com/o/r`"
    if objects and polarity == "negative" and (modifiers := _class_modifiers(clause, objects)):
        # "Do not use `final` or `readonly` classes": a class declared with those modifiers, not every use of the words
        # (a `readonly` property is no readonly class)
        regex = r"\b(?:" + any_of([js_escape(m) for m in modifiers]) + r")\s+(?:[a-z]+\s+){0,3}class\s+[A-Za-z_$]"
        declared = Trigger(TriggerKind.CONTENT, list(lex.tools["content"]),
                           [Pattern(field=f, regex=regex, flags="") for f in lex.tools["content_fields"]],
                           summary=_slug_words([*modifiers, "classes"]), interpreted=True, values=modifiers)
        declared.file_scope = _code_scope(clause.file_scope, lex)
        return declared
    if objects and all(_ELIDED_IMPORT.match(o.text) for o in objects):
        # "Never `import ... from 'path'`": an import statement whose names are elided is any import of that module alone
        anything = _module_trigger([_ELIDED_IMPORT.match(o.text).group(2) for o in objects], lex, exact=True)  # type: ignore[union-attr]
        anything.file_scope = _code_scope(clause.file_scope, lex)
        return anything
    if verb in lex.unobservable_verbs:
        # "do not post `@claude review`": a message, not a file's content; "never reply to an issue" is a command
        return None if objects else _prose_trigger(clause, lex, polarity)
    if verb in COMMIT_VERBS:
        # ("Never commit `.env` files, API keys, or credentials": the concepts outnumber the names, so the clause
        # keeps no object, but a named file is still what a commit must not carry)
        files = [o.text for o in objects] or _named_files(clause)
        if files and all(map(_committable, files)):
            return _commit_trigger(files, lex)
    if objects and (verb in ("import", "imports", "importing") and _IMPORT_FROM.search(clause.scope_text)
                    or verb in ("use", "using") and _USE_FROM.search(clause.scope_text)
                    and all(object_kind(o, verb, lex) == "content" for o in objects)):
        # "import `X` from Y" forbids that import only; "from a barrel file" names no module. "use `expect` from
        # Vitest" is an import when the module ends the clause ("use the tool from agent sessions" is not one)
        if verb.startswith("import") and re.search(r"\bimport\s+from\s", clause.scope_text):
            if any(re.search(r"\s", o.text) for o in objects):
                # "Import from internal paths: `import { Widget } from '@lumino/widgets/lib/widget'`": a statement that
                # shows the kind of path meant, no module to name
                return None
            # "NEVER import from `@trpc/*/src`", "must not import from `vitest` or `vitest/node`": every object is a module
            anything = _module_trigger([o.text for o in objects], lex, exact=bool(_ENTRY_POINT.search(clause.scope_text)))
            anything.file_scope = _code_scope(clause.file_scope, lex)
            return anything
        modules = _import_sources(clause, objects, lex)
        names = [o.text for o in objects if o.text not in modules]
        # (a name with a slash is itself a module, "never import `k8s.io/kubernetes` from staging": "from" names
        # a place, which the gate cannot see)
        return _import_trigger(names, modules, lex) if modules and names and not any("/" in n for n in names) else None
    if polarity == "negative" and objects and verb in lex.construct_verbs and all(_CLASS_NAME.match(o.text) for o in objects):
        # "never construct `SentryOptions` directly": a call of its constructor (`SentryOptions(…)`, `new
        # SentryOptions(…)`), not every mention of the type (`final SentryOptions options = defaultTestOptions();`)
        typed = any_of([js_escape(o.text) for o in objects])
        regex = rf"\bnew\s+{typed}\b|(?<![\w.$])(?<!class\s){typed}\s*\("
        built = Trigger(TriggerKind.CONTENT, list(lex.tools["content"]),
                        [Pattern(field=f, regex=regex, flags="") for f in lex.tools["content_fields"]],
                        summary=_slug_words([o.text for o in objects]), interpreted=True, values=[o.text for o in objects])
        built.file_scope = _code_scope(clause.file_scope, lex)
        return built
    if verb in lex.mock_verbs and (objects or re.search(r"\b(?:anything|everything)$", clause.scope_text)):
        return _mock_trigger([o.text for o in objects], lex)  # "Never mock anything": every mock call
    if objects and verb in lex.run_verbs and all(_URL.match(o.text) for o in objects):
        return _url_trigger([o.text for o in objects], lex)  # "do not use the archived `https://…/engine.git` mirror"
    if polarity == "negative" and objects and verb in _FLAG_VERBS and all(_LONG_FLAG.match(o.text) for o in objects):
        # "Do not use `--skip-provision-check`" (what a prose entry reads first: `--no-verify` skips git hooks)
        return _prose_trigger(clause, lex, polarity) or _flag_trigger([o.text for o in objects], lex)
    kinds = [(object_kind(o, verb, lex), o) for o in objects]
    if verb in lex.edit_verbs - lex.run_verbs - lex.content_verbs:
        # "Don't edit directly, regenerate with `./bin/brew …`": a command is not what an edit acts on
        kinds = [(k, o) for k, o in kinds if k != "command"]
    if kinds and kinds[0][0] == "content" and (prose := _prose_trigger(clause, lex, polarity)):
        return prose  # "push to `main`": the prose verb beats reading `main` as an identifier
    paths = [o.text for k, o in kinds if k == "path"]
    if verb in lex.remove_verbs and re.search(r"\bfrom\s+(?:the\s+|a\s+)?`[^`/]+`(?!\s+(?:directory|folder|dir)\b)",
                                              clause.scope_text):
        return None  # "Never remove `dist/` from `.gitignore`": an edit of that file, not a deletion on disk
    if verb in lex.remove_verbs and paths and kinds[0][0] == "path" and all(map(_surely_a_path, paths)):
        # a glob names no single argument a command shows: the LLM gate judges it
        return None if any(re.search(r"[\s*?\[{]", p) for p in paths) else _remove_trigger(paths, lex)
    if kinds:
        kind = kinds[0][0]
        named = [o for k, o in kinds if k == kind and len(o.text) > 1]
        texts = [t for o in named for t in (_scripts(o, lex) if kind == "command" else [o.text])]
        if kind == "command":
            texts = [_with_option(t, clause) for t in texts]
        trigger = _build(kind, texts, clause, lex) if texts else None
        if trigger and kind == "command":  # a script's name, not each runner's spelling of it, names the rule
            trigger.summary = _slug_words([o.text for o in named])
        if trigger:
            trigger.suggestion = _suggestion(clause)
            if clause.file_scope and kind == "path":
                trigger.file_scope = scope_regex(clause.file_scope)
            elif clause.file_scope and kind == "content":
                trigger.file_scope = scope_regex(clause.file_scope) if clause.quoted_words else _code_scope(clause.file_scope, lex)
            return trigger
    return _prose_trigger(clause, lex, polarity)


def scope_regex(globs: list[str]) -> str:
    """A file_scope regex from globs; "!glob" excludes ("in production code": not tests)."""
    included = [glob_to_regex(g) for g in globs if not g.startswith("!")]
    excluded = [glob_to_regex(g[1:]) for g in globs if g.startswith("!")]
    if not excluded:
        return any_of(included)
    return "^(?!.*" + any_of(excluded) + ")" + (f"(?=.*{any_of(included)})" if included else "")


# "use pnpm", "prefer `uv`", "only pnpm is supported", "pnpm only", "uv exclusively": the tool a family rule requires
_USE_X = re.compile(r"\b(?:use|prefer|only)\s+`?([\w.-]+)`?|^`?([\w.-]+)`?\s+(?:only|exclusively)\b")


def _required_form(clause: Clause, lex: Lexicon) -> Trigger | None:
    """"Always run pytest with `pytest --reuse-db`": a run without those flags."""
    if clause.marker.marker_class != "block-positive" or " with " not in f" {clause.scope_text} ":
        return None
    for obj in clause.objects:
        if obj.kind == ClauseObjectKind.CODE and object_kind(obj, clause.verb, lex) == "command":
            regex = missing_flags_regex(obj.text)
            if regex:
                program = obj.text.split()[0].rsplit("/", 1)[-1]
                pattern = Pattern(field="command", regex=regex, flags="")
                return Trigger(TriggerKind.REQUIRED_FORM, list(lex.tools["shell"]), [pattern], keywords=_keywords([program], lex.versioned),
                               summary=f"{program} without required flags", suggestion=f"Run `{obj.text}`.", interpreted=True)
    return None


def _required_prose(clause: Clause, lex: Lexicon) -> Trigger | None:
    """"Always commit with `-s`": a lexicon `required` entry's command without what the clause requires."""
    advised = clause.marker.marker_class == "advisory"
    if clause.marker.marker_class != "block-positive" and not advised:
        return None
    text = " ".join([clause.scope_text, *clause.qualifiers]).replace("`", "")  # "All commits MUST use `-s`"
    codes = [o.text for o in clause.objects if o.kind == ClauseObjectKind.CODE]
    def reads(e: dict) -> bool:
        if e.get("prefixes"):  # "must start with `feat:` or `fix:`": the prefixes it lists, all of them shaped so
            return bool(codes and e["words"].search(text)) and all(e["code"].search(c) for c in codes)
        return bool(e["words"].search(text) or any(e["code"].search(c) for c in codes))

    found = [e for e in lex.required if e["when_re"].search(text) and reads(e)]
    if advised:
        # "Prefer Conventional Commits", "You should sign off your commits": the advice names the form or a verb that
        # asks for it right after its rule word; "Consider reading the Conventional Commits spec" asks for no call
        rest = _after_marker(clause, lex)
        found = [e for e in found if rest.split()[:1] and (rest.split()[0] in lex.clause_words["requiring_verbs"]
                                                           or e["words"].match(rest))]
    if not found:
        return None
    prefixes = "(?:" + "|".join(js_escape(c) for c in codes) + ")"
    entry = found[0]
    # "All commit messages and PR titles MUST follow conventional commit format": each form the sentence names, when
    # all are commands (a commit's message and a PR's title)
    joined = [e for e in found if e["tool"] == "shell"] if entry["tool"] == "shell" else [entry]
    # "all commits", "DCO sign-off": what the entry reads, not a narrowing ("on the release branch" still is)
    clause.qualifiers = [q for q in clause.qualifiers
                         if not any(e["when_re"].search(q) or e["words"].search(q) for e in joined)]
    if entry["tool"] == "content":  # a file written without it
        patterns = [Pattern(field=f, regex=entry["regex"], flags=entry.get("flags", "")) for f in lex.tools["content_fields"]]
        return Trigger(TriggerKind.CONTENT, list(lex.tools["content"]), patterns, summary=entry["summary"],
                       suggestion=entry["suggestion"], interpreted=True, file_scope=scope_regex(list(entry["globs"])))
    patterns = [Pattern(field="command", regex=e["regex"].replace("{PREFIXES}", prefixes), flags=e.get("flags", "")) for e in joined]
    return Trigger(TriggerKind.REQUIRED_FORM, list(lex.tools["shell"]), patterns,
                   keywords=sorted({k for e in joined for k in e["keywords"]}),
                   summary=" or ".join(e["summary"] for e in joined), suggestion=" ".join(e["suggestion"] for e in joined),
                   interpreted=True)


def _after_marker(clause: Clause, lex: Lexicon) -> str:
    """The words of the clause after its rule word ("should ideally have a scope": "have a scope"), without code quotes."""
    words = clause.scope_text.replace("`", "").split()
    marker = clause.marker.text.lower().split()
    at = next((k + len(marker) for k in range(len(words)) if words[k : k + len(marker)] == marker), 0)
    while at < len(words) and words[at] in lex.clause_words["advice_adverbs"]:
        at += 1
    return " ".join(words[at:])


_WRAPPER = re.compile(r"^([\w.-]+) (?:run|exec)$")  # `uv run`, `poetry run`, `bundle exec`
_TO_RUN = re.compile(r"^(?:to|for) (?:run|running|execute|executing|invoke|invoking) ")


def _required_wrapper(clause: Clause, lex: Lexicon) -> Trigger | None:
    """"Always use `uv run` to run any Python command (e.g. `uv run pytest`, `uv run ruff`)": the programs the
    examples run through the wrapper, run bare at a command position (and Python itself when the sentence says its
    commands are Python's). Only known programs, each example the wrapper and one program: anything else is left to
    the gate."""
    if clause.marker.marker_class != "block-positive" or clause.verb not in ("use", "using") \
            or not _TO_RUN.match(clause.purpose) or clause.instead_of or clause.exceptions:
        return None
    codes = [o.text.strip() for o in clause.objects if o.kind == ClauseObjectKind.CODE]
    if len(clause.objects) != 1 or len(codes) != 1 or not (m := _WRAPPER.match(codes[0])) or m.group(1) not in lex.programs:
        return None
    programs: list[str] = []
    for example in clause.examples:
        words = example.text.strip("`").split()
        if len(words) < 3 or words[:2] != codes[0].split() or words[2] not in lex.programs or words[2] == m.group(1):
            return None
        programs += [words[2]] if words[2] not in programs else []
    if not programs:
        return None
    if re.search(r"\bpython\b", clause.purpose) and "python" not in programs:
        programs.append("python")
    names = [js_escape(p) + ("[0-9.]*" if p in lex.versioned else "") for p in programs]
    # the program itself at a command position: through the wrapper (or any other) it stands after it, not there
    pattern = Pattern(field="command", regex=POSITION + "(?:" + "|".join(names) + r")(?![\w.-])", flags="")
    return Trigger(TriggerKind.REQUIRED_FORM, list(lex.tools["shell"]), [pattern], keywords=_keywords(programs, lex.versioned),
                   summary=f"{' '.join(programs)} without {codes[0]}", suggestion=f"Run it through `{codes[0]}`.",
                   interpreted=True)


def _family_trigger(clause: Clause, lex: Lexicon) -> Trigger | None:
    """"Always use pnpm", "prefer uv": the other members of the tool's family are the inverse
    trigger; only those the clause names when it names some ("use pnpm, not npm")."""
    m = _USE_X.search(clause.scope_text)
    chosen = (m.group(1) or m.group(2)) if m else ""
    family = next((f for f in lex.families if chosen in f), None)
    if m is None or family is None:
        return None
    if any(o.kind == ClauseObjectKind.CODE and o.text.split()[:1] == [chosen] and " " in o.text.strip() for o in clause.objects):
        return None  # "use `npm run preflight`" asks for a script of npm, not for npm over pnpm, yarn and bun
    named = set(re.findall(r"[\w.-]+", clause.scope_text[m.end():]))
    others = [tool for tool in family if tool != chosen and tool in named] or [tool for tool in family if tool != chosen]
    pattern = Pattern(field="command", regex=command_regex(others, lex.versioned), flags="")
    return Trigger(TriggerKind.COMMAND, list(lex.tools["shell"]), [pattern], keywords=_keywords(others, lex.versioned),
                   summary=" ".join(others), suggestion=f"Use `{chosen}` instead.", interpreted=True, values=others)


def _exception_patterns(kind: ObjectKind, texts: list[str], clause: Clause, lex: Lexicon) -> list[Pattern]:
    """Negated patterns for "unless/except X": concrete X of the same kind, or a prose scope."""
    patterns: list[Pattern] = []
    if kind == "command":
        same = [o.text for o in clause.exceptions if o.kind == ClauseObjectKind.CODE and o.text not in texts]
        # the recommended form stays allowed when it runs the forbidden program behind a wrapper (`uv run pytest`)
        forbidden = re.compile(command_regex(texts, lex.versioned))
        same += [t for t in _recommended(clause) if forbidden.search(t) and t not in same + texts]
        if same:
            patterns.append(Pattern(field="command", regex=command_regex(same, lex.versioned), flags="", negate=True))
        # "Never use `pip` directly - always use `pipenv`": a command that names the recommended
        # program (`pip install pipenv`, `pipenv run pip …`) is the way the sentence asks for
        banned = {t.split()[0] for t in texts if t.split()}
        named = sorted({o.text.split()[0] for o in clause.alternatives if o.text.split()} & lex.programs - banned)
        if named:
            regex = r"(?:^|[\s/])" + any_of([js_escape(n) for n in named]) + r"(?![\w-])"
            patterns.append(Pattern(field="command", regex=regex, flags="", negate=True))
    elif kind in ("path", "content") and clause.condition:
        for scope in lex.exception_scopes:
            if scope["when_re"].search(clause.condition):
                patterns.extend(Pattern(field=f, regex=scope["regex"], flags="", negate=True) for f in lex.tools["path_fields"])
                break
    return patterns


def _language_scope(texts: list[str], lex: Lexicon) -> str:
    """The files of the one language every token belongs to (`.unwrap()`: Rust files), or ''."""
    for when, globs in lex.token_languages:
        if texts and all(when.match(text) for text in texts):
            return any_of([glob_to_regex(g) for g in globs])
    return ""


def _build(kind: ObjectKind, texts: list[str], clause: Clause, lex: Lexicon) -> Trigger | None:
    tools = lex.tools
    if kind == "mcp":
        tool_match, patterns = mcp_tools(texts)
        return Trigger(TriggerKind.MCP, tool_match, patterns, summary=_slug_words(texts), values=texts)
    if kind == "command":
        return _command_trigger(texts, clause, lex)
    exceptions = _exception_patterns(kind, texts, clause, lex)
    if kind == "path":
        # in prose, "`generated/*`" names the folder's contents, not only its top level
        regex = any_of([_sibling_of_dot_folders(glob_to_regex(t.removesuffix("*") if t.endswith("/*") else t), t, texts)
                        for t in texts])
        patterns = [Pattern(field=f, regex=regex, flags="") for f in tools["path_fields"]]
        writes = ["Write"] if clause.verb in lex.create_verbs else list(tools["path"])  # a new file is a Write
        return Trigger(TriggerKind.PATH, writes, patterns + exceptions, summary=_slug_words(texts),
                       interpreted=any(o.kind == ClauseObjectKind.WORD for o in clause.objects), values=texts)
    # content; an operator (`==`, `!=`) is in every file, never a name; `client.request(...)` is a shape, not a literal
    # (`WriteString(fmt.Sprintf(...))`: `...` as a call's arguments is any arguments)
    texts = [t for t in texts if t not in lex.not_identifiers and re.search(r"\w", t) and (not re.search(r"\.\.\.|…", t) or open_call(t))]
    if not texts:
        return None
    # "never use `waitFor` … - use `vi.waitFor` instead": the bare name, not the member the sentence recommends
    members = frozenset(t for t in texts if any(a.text.endswith("." + t) for a in clause.alternatives + clause.exceptions))
    regex = identifier_regex(texts, lex.identifiers, lex.placeholders, members)
    patterns = [Pattern(field=f, regex=regex, flags="") for f in tools["content_fields"]]
    return Trigger(TriggerKind.CONTENT, list(tools["content"]), patterns + exceptions, summary=_slug_words(texts),
                   interpreted=True, values=texts,
                   # ("Use `globalThis`, never `global` or `self`": the language of the name it recommends)
                   file_scope=_language_scope(texts, lex) or _language_scope(_recommended(clause), lex))


def _sibling_of_dot_folders(regex: str, text: str, texts: list[str]) -> str:
    """"Do NOT update `rules/` or `.claude/skills/x/`": a bare folder named beside a path in a dot folder is not the
    one inside that dot folder (`.claude/rules/`), which the sentence would have spelled out as it did the other."""
    dots = sorted({t.split("/", 1)[0] for t in texts if t.startswith(".") and "/" in t.strip("/")} - {".", ".."})
    if not dots or text.startswith((".", "/", "*")) or "/" in text.rstrip("/") or not regex.startswith("(?:^|/)"):
        return regex
    return "(?:^|/)" + "".join(f"(?<!{js_escape(d)}/)" for d in dots) + regex.removeprefix("(?:^|/)")


def _surely_a_path(text: str) -> bool:
    """A file or folder name (or a glob), not a shape: `docs/images/`, not `console.log` or `theme.extend.colors`."""
    from .admission import surely_a_path  # (admission reads the lexicon: imported here, not at load)

    return surely_a_path(text)


def _known_file_name(text: str) -> bool:
    from .admission import known_file_name  # (admission reads the lexicon: imported here, not at load)

    return known_file_name(text)


def _named_files(clause: Clause) -> list[str]:
    """The code spans of a clause's own words, not its examples or asides."""
    aside = {o.text for o in (*clause.examples, *clause.asides)}
    return [name for name in re.findall(r"`([^`]+)`", clause.scope_text) if name not in aside]


def _committable(text: str) -> bool:
    """A name a commit can carry: surely a file path (not `console.log`, not `it.only`), and no glob but a `*` in its
    last part (`*.log`, `secrets/*.pem`)."""
    folder = text.rstrip("/").rpartition("/")[0].removeprefix("**")
    return _surely_a_path(text) and not re.search(r"[\s?\[{]", text) and "*" not in folder


def _commit_trigger(paths: list[str], lex: Lexicon) -> Trigger:
    """"Never commit `.env` files": staging or committing a path of that name (`git add .env`, `git commit web/.env`),
    not writing the name into a file (`process.env`) and not `.env.example`."""
    # (a `*` is any characters of one path part: `*.log` is `app.log`, not `logs/app.log` after a space)
    names = any_of([js_escape(p.strip("/").removeprefix("./").removeprefix("**/")).replace(r"\*", r"[^\s/;&|\"']*")
                    for p in paths])
    # (the path stands outside any quoted text: `git commit -m "stop tracking .env"` names no file, while
    # `git commit -m "update codes" codes.json` names it after the message)
    outside = r"[^;&|\n\"']*"  # (one quoted message at most, the harness refusing a quantified group)
    regex = lexicon_regex((r"{git}\s+(?:add|commit)\b(?:{o}|{o}\"[^\"\n]*\"{o}|{o}'[^'\n]*'{o})[\s/](?:"
                           .replace("{o}", outside)) + names + r")(?![\w.-])")
    return Trigger(TriggerKind.COMMAND, list(lex.tools["shell"]), [Pattern(field="command", regex=regex, flags="")],
                   keywords=["git"], summary="commit " + _slug_words(paths), values=paths)


_URL = re.compile(r"^[a-z][a-z0-9+.-]*://\S+$")
# "Do not use `--skip-provision-check`", "never pass `--no-build`": a long option alone is a command's argument, never
# file content; whatever program takes it
_FLAG_VERBS = frozenset({"use", "using", "pass", "passing", "add", "adding", "set", "setting"})
_LONG_FLAG = re.compile(r"^--[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")


def _flag_trigger(flags: list[str], lex: Lexicon) -> Trigger:
    """A command that carries one of the options as an argument of its own (`x --flag`, `x --flag=1`)."""
    regex = r"(?:^|\s)(?:" + any_of([js_escape(f) for f in flags]) + r")(?![\w-])"
    return Trigger(TriggerKind.COMMAND, list(lex.tools["shell"]), [Pattern(field="command", regex=regex, flags="")],
                   keywords=[], summary=_slug_words(flags), values=flags)


def _url_trigger(urls: list[str], lex: Lexicon) -> Trigger:
    """"Do not use the archived `https://github.com/flutter/engine.git` mirror": a command that names it (a clone, a
    remote, a fetch), with or without its `.git` and a trailing slash."""
    names = any_of([js_escape(u.removesuffix("/").removesuffix(".git")) for u in urls])
    regex = names + r"(?:\.git)?/?(?![\w./-])"
    return Trigger(TriggerKind.COMMAND, list(lex.tools["shell"]), [Pattern(field="command", regex=regex, flags="")],
                   summary=_slug_words(urls), values=urls)


# the whole clause: a push of the work to one repository's URL ("never push branches directly to `https://host/o/r`");
# anything after it narrows the rule
_PUSH_TO_URL = re.compile(r"^(?:[a-z']+\s+){0,3}?push(?:es|ing)?(?:\s+(?:any|your|the|a|branch|branches|commits?|changes|code|work))*"
                          r"(?:\s+directly)?\s+to\s+(?:the\s+)?`https://([\w.-]+\.[a-z]{2,})/([\w.-]+/[\w.-]+?)(?:\.git)?/?`"
                          r"(?:\s+directly)?$")


def _push_url_trigger(host: str, repository: str, lex: Lexicon) -> Trigger:
    """"Never push branches directly to `https://github.com/NVIDIA/Megatron-LM`": a `git push` whose remote is that
    repository's URL, over HTTPS or SSH (with or without `.git`); a push to a remote's name shows no URL, and another
    owner's fork is another repository. Hosts and paths are read without case, as the hosts read them."""
    url = r"(?:https://|ssh://|git@)(?:git@)?" + js_escape(host) + "[:/]" + js_escape(repository)
    regex = lexicon_regex(r"{git}\s+push\b[^;&|\n]*\s" + url + r"(?:\.git)?/?(?=[\s;&|]|$)")
    return Trigger(TriggerKind.COMMAND, list(lex.tools["shell"]), [Pattern(field="command", regex=regex, flags="i")],
                   keywords=["git"], summary=f"push to {repository}", values=[f"https://{host}/{repository}"])


def _remove_trigger(paths: list[str], lex: Lexicon) -> Trigger:
    """"Do not delete or rename files under `docs/images/`": a command that deletes it (`rm`, `git rm`) or moves it
    away (`mv`, `git mv` with it as the source), not an edit of a file there and not a move into the folder."""
    # (a `*` is any characters of one path part: `*.log` is `app.log`, not `logs/app.log` after a space)
    names = any_of([js_escape(p.strip("/").removeprefix("./").removeprefix("**/")).replace(r"\*", r"[^\s/;&|\"']*")
                    for p in paths]) + r"(?![\w.-])"
    deleted = r"(?:{git}\s+rm|{cmd}(?:rm|unlink|rmdir|trash))\b[^;&|\n]*[\s\"'/]" + names
    # a source of `mv` is any argument but the last, so the path must have another argument after it
    moved = r"(?:{git}\s+mv|{cmd}mv)\b[^;&|\n]*[\s\"'/]" + names + r"[^\s;&|]*\s+[^\s;&|]"
    regex = lexicon_regex(f"{deleted}|{moved}")
    return Trigger(TriggerKind.COMMAND, list(lex.tools["shell"]), [Pattern(field="command", regex=regex, flags="")],
                   summary="delete " + _slug_words(paths), values=paths)


_IMPORT_FROM = re.compile(r"\bfrom\s+`?([@\w][\w@./*-]*)`?")
_USE_FROM = re.compile(r"\bfrom\s+`?[@\w][\w@./*-]*`?$")


def _import_sources(clause: Clause, objects, lex: Lexicon) -> list[str]:
    """The modules of "import `X` from Y": the named object right after "from" in its own spelling, or a bare
    package name, and the named objects after it ("from `electron` or `electron/renderer`"); none for "from a
    barrel file"."""
    found = _IMPORT_FROM.search(clause.scope_text)
    if found is None or found.group(1) in lex.clause_words["determiners"]:
        return []
    first = next((o.text for o in objects if o.text.lower() == found.group(1)), found.group(1))
    after = clause.scope_text[found.end():]
    return [first, *(o.text for o in objects if o.text != first and re.search(rf"(?<![\w@./-]){re.escape(o.text.lower())}(?![\w@./-])", after))]


def _import_trigger(names: list[str], modules: list[str], lex: Lexicon) -> Trigger:
    """"Never import `expect` from vitest": an import of those names from those modules (JavaScript or Python), not
    every use of the name (`({ expect }) => …`, or `expect` imported from another module)."""
    named, source = any_of([js_escape(n) for n in names]), any_of([js_escape(m) for m in modules])
    regex = (r"\bimport\b[^;\n]*\b(?:" + named + r")\b[^;\n]*\bfrom\s*[\"']" + source + r"[\"']"
             + r"|\bfrom\s+" + source + r"\s+import\b[^\n]*\b(?:" + named + r")\b")
    patterns = [Pattern(field=f, regex=regex, flags="") for f in lex.tools["content_fields"]]
    return Trigger(TriggerKind.CONTENT, list(lex.tools["content"]), patterns, summary=_slug_words([*names, *modules]),
                   values=names)


# "Never import from `@vitest/utils` main entry point": the module itself, not what lies below it
_ENTRY_POINT = re.compile(r"\b(?:main|root|top-level)\s+(?:entry(?:\s*point)?|module|export|index)\b|\bentry\s*point\b")


def _module_trigger(modules: list[str], lex: Lexicon, exact: bool = False) -> Trigger:
    """"Never import from `@trpc/*/src`": an import of anything from those modules or below them (`from`, `import`,
    `require` and `import()` with the module quoted), or of the modules alone (`exact`); a `*` stands for one path segment."""
    named = any_of([js_escape(m).replace(r"\*", r"[^\"'/\s]+") for m in modules])
    source = named + (r"[\"']" if exact else r"(?=[/\"'])[^\"'\s]*[\"']")
    regex = r"\b(?:from|import)\s*\(?\s*[\"']" + source + r"|\brequire\(\s*[\"']" + source
    patterns = [Pattern(field=f, regex=regex, flags="") for f in lex.tools["content_fields"]]
    return Trigger(TriggerKind.CONTENT, list(lex.tools["content"]), patterns, summary="import from " + _slug_words(modules),
                   values=modules)


def _mock_trigger(modules: list[str], lex: Lexicon) -> Trigger:
    """"Do not mock `@/utils/logger`": a test's mock call naming the module (vi.mock, jest.mock, mock.patch);
    with no module named, any mock call."""
    named = any_of([js_escape(m) for m in modules]) if modules else r"[^\"'`\s]+"
    regex = r"(?:\b(?:vi|jest)\.(?:mock|doMock|unstable_mockModule)|\bpatch(?:\.object)?)\(\s*[\"'`]" + named + r"[\"'`.]"
    patterns = [Pattern(field=f, regex=regex, flags="") for f in lex.tools["content_fields"]]
    return Trigger(TriggerKind.CONTENT, list(lex.tools["content"]), patterns, summary="mock " + (_slug_words(modules) or "anything"),
                   values=modules)


def _scripts(obj: ClauseObject, lex: Lexicon) -> list[str]:
    """A backticked script name ("`dev`") is that project script: each runner's way of running it. (A bare
    word is a program: "run pytest, python, or airflow commands".)"""
    if obj.kind != ClauseObjectKind.CODE or obj.text not in lex.script_names:
        return [obj.text]
    return [f"{runner} {obj.text}" for runner in lex.script_runners]


_BARE = re.compile(r"\b(?:bare|plain|raw)\s+`")


def _command_trigger(texts: list[str], clause: Clause, lex: Lexicon) -> Trigger:
    regex = command_regex(texts, lex.versioned)
    if (bare := _BARE.search(clause.scope_text)) and clause.scope_text.find("`", bare.start()) == clause.scope_text.find("`"):
        # "Use `uv` for everything — never bare `python`": the program run directly, not through `uv run` or `python -m`
        regex = regex.replace(COMMAND_START, BARE_START)
    pattern = Pattern(field="command", regex=regex, flags="")
    return Trigger(TriggerKind.COMMAND, list(lex.tools["shell"]), [pattern, *_exception_patterns("command", texts, clause, lex)],
                   keywords=_keywords(texts, lex.versioned), summary=_slug_words(texts),
                   interpreted=any(o.kind == ClauseObjectKind.WORD for o in clause.objects), values=texts)


def _prose_trigger(clause: Clause, lex: Lexicon, polarity: str = "negative") -> Trigger | None:
    """The first prose entry the clause matches, joined by the entries of the operations it coordinates with
    ("Never amend commits or force push": both). A positive clause recommends what it names, so only its
    rejected side can give the trigger ("push to `origin`, not to `upstream`": a push to upstream; "prefer
    GORM over raw SQL": raw SQL): an entry's names must stand there, or, without names, its whole match."""
    positive = polarity == "positive"
    if positive and not clause.rejected:
        return None
    # an entry reads words, so code spans are unquoted ("bare `except`" is a bare except); examples are not what the
    # clause names ("unix-only commands like `rm -rf`" is no deletion), while a parenthesis may restate it
    # ("pipe a remote script into a shell (`curl ... | bash`)")
    scope_text, rejected = clause.scope_text.replace("`", ""), clause.rejected.replace("`", "")
    scope_text = lex.qualifiers["reason_tail"].sub("", scope_text)  # ("… as it is against the rules"): why, not what
    for example in clause.examples:
        if example.text.strip("`"):
            scope_text = re.sub(rf"(?<![\w-]){re.escape(example.text.strip('`').lower())}(?![\w-])", " ", scope_text)
    text = f"{scope_text} {rejected}" if positive else scope_text
    named_in = rejected if positive else scope_text
    found: list[tuple[dict, re.Match]] = []
    for entry in _may_match(lex, text):
        matched = entry["when_re"].search(text)
        if not matched:
            continue
        if positive and not (re.search(entry["names"], named_in) if "names" in entry else entry["when_re"].search(named_in)):
            continue  # the entry matched the side the sentence asks for
        if not found:
            found.append((entry, matched))
            if "command" in entry:
                break
        elif "command" not in entry and entry["tool"] == found[0][0].get("tool") == "shell" \
                and entry.get("flags", "") == found[0][0].get("flags", "") \
                and all(_coordinated(text, m, matched, clause.commas) for _, m in found) \
                and not ("narrowed_by" in entry and re.search(entry["narrowed_by"], scope_text)):
            # (a joined operation the words narrow, "amend pushed commits", is left to the gate that reads them)
            found.append((entry, matched))
    if not found:
        return None if positive else _coordinated_commands(text, clause, lex)
    entry, matched = found[0]
    # "in release mode", "in a single command": what the entry matched, not a narrowing
    clause.qualifiers = [q for q in clause.qualifiers if not any(q in m.group(0) for _, m in found)]
    if "command" in entry:  # built like a code span, so §10 can compare it
        commands = entry["command"] if isinstance(entry["command"], list) else [entry["command"]]
        trigger = _command_trigger(commands, clause, lex)  # ("comment on issues or PRs": both commands)
        trigger.summary, trigger.interpreted, trigger.suggestion = entry["summary"], True, _suggestion(clause)
        return trigger
    built = [_entry_trigger(e, clause, lex, named_in) for e, _ in found]
    trigger = built[0]
    if len(built) > 1:
        trigger.patterns = [Pattern(field="command", regex=any_of([t.patterns[0].regex for t in built]), flags=entry.get("flags", ""))]
        trigger.keywords = sorted({k for t in built for k in t.keywords}) if all(t.keywords for t in built) else []
        trigger.summary = " or ".join(t.summary for t in built)
    return trigger


@lru_cache(maxsize=1)
def _forbids_prefix() -> re.Pattern:
    return re.compile("^" + _forbidding_words())


def _coordinated_commands(text: str, clause: Clause, lex: Lexicon) -> Trigger | None:
    """"NEVER create a release, comment on an issue, or open a PR": operations the one rule word governs alike, each
    a whole clause of a command entry ("never comment on an issue" is `gh issue comment`), joined by commas, "or",
    "and" or "nor". Every part must be one: a part no entry reads ("or run tests") leaves the sentence to the gate."""
    prefix = _forbids_prefix().match(text)
    if not prefix:
        return None
    words = text.split()
    parts: list[list[str]] = [[]]
    for i in range(len(text[: prefix.end()].split()), len(words)):
        if words[i] in ("or", "and", "nor"):
            parts.append([])
            continue
        parts[-1].append(words[i])
        if i in clause.commas:
            parts.append([])
    parts = [p for p in parts if p]
    if len(parts) < 2:
        return None
    entries = []
    for part in parts:
        said = prefix.group(0) + " ".join(part)
        entry = next((e for e in _may_match(lex, said) if "command" in e and e["when_re"].fullmatch(said)), None)
        if entry is None:
            return None
        entries.append(entry) if entry not in entries else None
    commands = [c for e in entries for c in (e["command"] if isinstance(e["command"], list) else [e["command"]])]
    clause.qualifiers = [q for q in clause.qualifiers if q not in text]  # ("comment on an issue": the entry's words)
    trigger = _command_trigger(list(dict.fromkeys(commands)), clause, lex)
    trigger.summary, trigger.interpreted, trigger.suggestion = " or ".join(e["summary"] for e in entries), True, _suggestion(clause)
    return trigger


def _may_match(lex: Lexicon, text: str) -> list[dict]:
    """The prose entries whose `when` may match the text: those it holds one of the `literals` of (a quick
    `in` test per word instead of a regex search per entry)."""
    lowered = text.lower()
    present = {literal for literal in lex.prose_literals if literal in lowered}
    return [entry for entry in lex.prose if entry["literals"] is None or not entry["literals"].isdisjoint(present)]


_COORDINATED = re.compile(r"^(?:(?!\b(?:instead|rather|but|then|unless|except|before|after|until|use|prefer)\b)[^;.:])*"
                          r"(?:\bor\b|\band\b|\bnor\b|,)(?:(?!\b(?:instead|rather|but|then|unless|except|before|after|until|use|prefer)\b)[^;.:])*$")


def _coordinated(text: str, one: re.Match, other: re.Match, commas: frozenset[int]) -> bool:
    """Two entries' matches name two operations the rule word governs alike: apart, and joined by "or", "and"
    or a comma ("amend commits or force push", "rebase, amend"), not by "instead" or a time ("force push, then
    amend"). `commas` are the words of the clause a comma follows, which its text leaves out."""
    first, second = sorted((one, other), key=lambda m: m.start())
    between = text[first.end() : second.start()]
    if first.end() > second.start():
        return False
    return bool(_COORDINATED.match(between)) or not between.strip() and len(text[: first.end()].split()) - 1 in commas


def _entry_trigger(entry: dict, clause: Clause, lex: Lexicon, named_in: str) -> Trigger:
    """The trigger of one regex prose entry: its qualifiers read, its spared form when the sentence spares it, and
    only the names the sentence names."""
    _read_entry_qualifiers(clause, entry)
    tool = entry["tool"]
    fields = {"shell": ["command"], "path": lex.tools["path_fields"]}.get(tool, lex.tools["content_fields"])
    regex = entry["regex"]
    spared = [o.text for o in clause.alternatives + clause.exceptions]
    if "spares" in entry and any(re.search(entry["spares"]["when"], text) for text in spared):
        regex = entry["spares"]["regex"]  # "never force push; use `--force-with-lease`": the named form stays allowed
    summary = entry["summary"]
    if "names" in entry:  # the regex, and the summary the id comes from, name only what the sentence names
        named = sorted(set(re.findall(entry["names"], named_in)))
        regex = regex.replace("{NAMES}", "|".join(named))
        summary = summary.replace("{NAMES}", " ".join(named))
    patterns = [Pattern(field=f, regex=regex, flags=entry.get("flags", "")) for f in fields]
    return Trigger(
        kind=TriggerKind.PROSE,
        lexicon=entry["id"],
        tool_match=list(lex.tools[tool]),
        patterns=patterns,
        keywords=list(entry.get("keywords", [])),
        summary=summary,
        interpreted=True,
        suggestion=_suggestion(clause),
        file_scope=_prose_scope(entry, clause) if tool == "content" else "",
    )


def _prose_scope(entry: dict, clause: Clause) -> str:
    """The files a content entry is about (its `globs`: `except:` is Python) and those the
    sentence's qualifier names ("in tests"): both must hold."""
    scopes = [scope_regex(list(globs)) for globs in (entry.get("globs"), clause.file_scope) if globs]
    if len(scopes) < 2:
        return "".join(scopes)
    return "^" + "".join(f"(?=.*{s})" for s in scopes)


def _read_entry_qualifiers(clause: Clause, entry: dict) -> None:
    """An entry's own reading of the clause's qualifiers: those its pattern encodes
    ("in release mode", "at once") no longer narrow the rule; words that narrow it
    in a way no pattern sees ("a pushed commit") do, and admission sends it to Pass 2."""
    if "encodes" in entry:
        clause.qualifiers = [q for q in clause.qualifiers if not re.search(entry["encodes"], q)]
    if "narrowed_by" in entry and (found := re.search(entry["narrowed_by"], clause.scope_text)):
        clause.qualifiers.append(found.group(0))


def infer_sequence(clause: Clause, lex: Lexicon | None = None) -> SequenceRecord | None:
    """A sequential precondition's closing event and the commands that must come first.

    "Always run `npm test` before committing" -> event "git commit", its regex, requires ("npm test",); None when either side is not concrete.
    """
    lex = lex or load_lexicon()
    event = next((e for e in lex.events if e["when_re"].search(clause.sequence)), None)
    requires = [o.text for o in clause.objects if object_kind(o, clause.verb, lex) == "command"]
    if event is None or not requires:
        return None
    return SequenceRecord(event["name"], event["regex"], tuple(requires))


_OMP_SCOPE = re.compile(r"^tool:(\w+)(?:\(([^)]*)\))?$")
_OMP_TOOLS = {"bash": (["Bash"], ["command"]), "edit": (["Edit", "MultiEdit"], ["new_string"]),
              "write": (["Write"], ["content"]), "read": (["Read"], ["file_path"])}


def omp_trigger(frontmatter: dict, lex: Lexicon | None = None) -> tuple[Trigger | None, str]:
    """An OMP rule's own trigger: its `condition` regexes on the tools of its `scope`.

    Returns (trigger, why not): text and thinking scopes watch the model's
    prose, which no tool call carries, so they give no trigger.
    """
    lex = lex or load_lexicon()
    conditions = frontmatter.get("condition") or frontmatter.get("ttsr_trigger")
    conditions = [conditions] if isinstance(conditions, str) else [str(c) for c in conditions or []]
    scopes = [s.strip() for s in str(frontmatter.get("scope") or "tool").split(",") if s.strip()]
    if not conditions:
        return None, ""
    tools, fields, globs = [], [], []
    for scope in scopes:
        m = _OMP_SCOPE.match(scope)
        if scope == "tool":
            m = _OMP_SCOPE.match("tool:bash")
        if not m or m.group(1) not in _OMP_TOOLS:
            return None, f"OMP scope {scope!r} watches the model's text, which no tool call carries"
        names, names_fields = _OMP_TOOLS[m.group(1)]
        tools += [t for t in names if t not in tools]
        fields += [f for f in names_fields if f not in fields]
        globs += [g.strip() for g in (m.group(2) or "").split(",") if g.strip() and g.strip() not in globs]
    patterns: list[Pattern] = []
    for condition in conditions:
        flags = ""
        if condition.startswith("(?i)"):  # Python/PCRE inline flag -> the JavaScript flag
            condition, flags = condition[4:], "i"
        patterns += [Pattern(field=f, regex=condition, flags=flags) for f in fields]
    scope = ""
    if globs:
        regexes = [glob_to_regex(g) for g in globs]
        scope = any_of(regexes)
    return Trigger(TriggerKind.OMP_CONDITION, tools, patterns, summary="condition", values=conditions, file_scope=scope), ""
