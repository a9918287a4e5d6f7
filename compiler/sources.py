"""Reading rule sources: bytes -> checked text, frontmatter, convention, scope."""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from ..grammar import read as read_grammar
from .regexes import any_of, glob_to_regex

MAX_BYTES = 2 * 1024 * 1024
MAX_FRONTMATTER_VALUES = 10_000  # values after YAML aliases are expanded: a billion-laughs block fails fast
_JSON_INT = 2**53  # the largest integer every JSON reader keeps exactly


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]  # libyaml's safe loader when PyYAML has it
    """The safe loader, with dates kept as the text they were written as (JSON has no date type)."""


_Loader.add_constructor("tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node))


class _NotJSON(Exception):
    """A frontmatter value JSON cannot hold: the field is left out with a warning."""


class _TooLarge(Exception):
    pass


def _as_json(value, budget: list[int]):
    """`value` as JSON data (str, number, bool, None, list, dict with str keys); _NotJSON when it is not.

    `budget` counts every value visited, aliases expanded: over the budget the
    whole frontmatter is refused (_TooLarge).
    """
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooLarge
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        if abs(value) > _JSON_INT:
            raise _NotJSON("an integer too large for JSON")
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise _NotJSON("a number JSON cannot hold")
        return value
    if isinstance(value, list):
        return [_as_json(v, budget) for v in value]
    if isinstance(value, dict):
        return {str(k) if not isinstance(k, (dict, list)) else json.dumps(_as_json(k, budget)): _as_json(v, budget) for k, v in value.items()}
    raise _NotJSON(f"a YAML {type(value).__name__} value (JSON has none)")
_FM_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:(.*)$")
_SKILL_NAME = re.compile(r"^\w[\w .:@+-]{0,99}$")
_ROLE_OPENING = re.compile(r"^\s*You are the ([A-Za-z][\w-]*)\b")


class SourceError(Exception):
    """A source that cannot be compiled; the message is one line naming the problem."""


@dataclass(frozen=True, slots=True)
class Convention:
    name: str
    kind: str
    precedence: int


@dataclass(frozen=True, slots=True)
class Conventions:
    table: tuple[tuple[str, Convention], ...]
    skip: frozenset[str]
    ignore_dirs: frozenset[str]
    roles: frozenset[str]
    vendored_dirs: frozenset[str] = frozenset()
    rank_offsets: tuple[tuple[str, int], ...] = ()

    def offset(self, origin: str) -> int:
        """How far below its convention a source of this origin ranks (home, vendored, remote)."""
        return dict(self.rank_offsets).get(origin, 0)

    def vendored(self, rel_path: str, submodules: tuple[str, ...] = ()) -> bool:
        """Whether a root-relative path lies in third-party code (a vendored folder or a submodule)."""
        folders = rel_path.split("/")[:-1]
        return bool(set(folders) & self.vendored_dirs) or any(rel_path.startswith(s + "/") for s in submodules)

    def is_rule_file(self, rel_path: str) -> bool:
        """Whether a project walk compiles this root-relative path (§2a, §2d, ignored folders)."""
        *folders, name = rel_path.split("/")
        return not set(folders) & self.ignore_dirs and name not in self.skip and self.match(rel_path) is not None

    def match(self, rel_path: str) -> Convention | None:
        for pattern, convention in self.table:
            if "/" in pattern:
                if fnmatch.fnmatchcase(rel_path, pattern) or fnmatch.fnmatchcase(rel_path, "*/" + pattern):
                    return convention
            elif fnmatch.fnmatchcase(rel_path.rsplit("/", 1)[-1], pattern):
                return convention
        return None


@lru_cache(maxsize=1)
def load_conventions() -> Conventions:
    data = yaml.load(read_grammar("conventions.yaml"), Loader=_Loader)  # libyaml: every verb reads this table
    table = tuple(
        (c["pattern"], Convention(c["name"], c["kind"], c["precedence"])) for c in data["conventions"]
    )
    return Conventions(table, frozenset(data["skip"]), frozenset(data["ignore_dirs"]), frozenset(data["roles"]),
                       frozenset(data["vendored_dirs"]), tuple(sorted(data["rank_offsets"].items())))


_SUBMODULE_PATH = re.compile(r"^\s*path\s*=\s*(.+?)\s*$", re.MULTILINE)


def submodules(root: Path) -> tuple[str, ...]:
    """Root-relative folders of the git submodules listed in `<root>/.gitmodules`."""
    try:
        text = (root / ".gitmodules").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ()
    return tuple(sorted({m.strip("/") for m in _SUBMODULE_PATH.findall(text) if m.strip("/")}))


@dataclass(slots=True)
class Source:
    """One rule file, read and checked, with its frontmatter and scope."""

    file: str  # root-relative path with / separators
    text: str
    sha256: str
    convention: Convention
    frontmatter: dict = field(default_factory=dict)
    body_start: int = 1  # 1-based line where the markdown body starts
    warnings: list[str] = field(default_factory=list)
    group_id: str = ""
    scope: dict = field(default_factory=dict)  # active_when axes
    role: str = ""
    subtree: str = ""  # folder of a nested AGENTS.md: its path rules apply below it
    precedence: int = 0  # §10, lower wins; the convention's, +10 for a home global

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")


def read_source(path: Path, root: Path, origin: str = "local") -> Source:
    """Read and check one file; raise SourceError with a one-line reason.

    `origin` "home" marks a §2b global: its label is `~/<path under $HOME>`,
    its group `home:<path>`, and it ranks below every project file.
    """
    rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix()
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise SourceError(f"{rel}: file is {size} bytes, over the 2 MB limit")
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"{rel}: cannot read: {exc.strerror or exc}") from None
    if origin == "home":
        return source_from_bytes("~/" + rel, data, group_id=f"home:{rel}")
    return source_from_bytes(rel, data, vendored=load_conventions().vendored(rel, submodules(root)))


REMOTE_GROUPS = ("gh:", "url:")


def source_from_bytes(rel: str, data: bytes, group_id: str = "", vendored: bool = False) -> Source:
    """A checked source from bytes; `group_id` replaces `local:<rel>` (home, gh:, url: sources).

    Precedence is earned from where the file is, never from its name alone: a
    home global ranks below the project, a vendored file (a vendored folder in
    its path, or `vendored`) speaks only for its folder and ranks below every
    project file, and a remote source ranks below every local one and keeps
    its own `gh:`/`url:` group, even when it is a SKILL.md.
    """
    if b"\x00" in data:
        raise SourceError(f"{rel}: binary file (NUL bytes), not a rule file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(f"{rel}: invalid UTF-8 at byte {exc.start}") from None
    if not text.strip():
        raise SourceError(f"{rel}: empty file, nothing to compile")
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    conventions = load_conventions()
    convention = conventions.match(rel) or Convention("markdown", "imperative", 8)
    source = Source(file=rel, text=text, sha256="sha256:" + hashlib.sha256(data).hexdigest(), convention=convention)
    _read_frontmatter(source)
    _derive_scope(source)
    remote = group_id.startswith(REMOTE_GROUPS)
    if group_id and (remote or not source.group_id.startswith("skill:")):
        source.group_id = group_id
        source.subtree = ""
    if remote:
        origin = "remote"
    elif group_id.startswith("home:"):
        origin = "home"
    else:
        origin = "vendored" if vendored or conventions.vendored(rel) else "local"
    if origin == "vendored" and not source.group_id.startswith("skill:"):
        source.subtree = source.subtree or rel.rsplit("/", 1)[0]
    source.precedence = convention.precedence + conventions.offset(origin)
    return source


_SUBTREE_CONVENTIONS = frozenset({"agents", "agents-override", "claude", "gemini", "warp", "local"})
_TDD_NAME = re.compile(r"^(?:tdd|tdd-.*|.*-tdd)$")


def skip_reason(source: Source) -> str:
    """Why §2d drops a source silently ('' when it does not): enforce itself, TDD skills."""
    if not source.group_id.startswith("skill:"):
        return ""
    name = source.group_id.removeprefix("skill:")
    parent = source.file.rsplit("/", 2)[-2] if source.file.count("/") else ""
    if name == "enforce":
        return "the enforce skill itself (§2d)"
    if _TDD_NAME.match(name) or _TDD_NAME.match(parent):
        return "a TDD skill: TDD is enforced by the harness's own primitives (§2d)"
    return ""


def _frontmatter_blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(first, last) 0-based line indexes of the YAML blocks at the top of a file.

    Some files carry two blocks in a row (Cursor rules edited by two tools);
    both are read and the later non-empty values win.
    """
    blocks: list[tuple[int, int]] = []
    i = 0
    while i < len(lines) and lines[i].strip() == "---":
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() in ("---", "...")), None)
        if end is None:
            break
        body = [line for line in lines[i + 1 : end] if line.strip()]
        if not any(_FM_KEY.match(line) for line in body) or not all(
            _FM_KEY.match(line) or line[:1] in " \t-#" for line in body
        ):
            break  # a thematic break followed by prose, not frontmatter
        blocks.append((i + 1, end - 1))
        i = end + 1
        while i < len(lines) and not lines[i].strip():
            i += 1
    return blocks


def _parse_yaml_block(source: Source, first: int, last: int) -> dict:
    block = "\n".join(source.lines[first : last + 1])
    try:
        data = yaml.load(block, Loader=_Loader) or {}
        if isinstance(data, dict):
            return _json_fields(source, data, first + 1)
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        mark = getattr(exc, "problem_mark", None)  # a YAMLError's, when it has one
        at = first + 1 + (mark.line if mark else 0)
        source.warnings.append(f"{source.file}:{at}: frontmatter is not valid YAML; read field by field")
    # field-by-field recovery (dsh-rules): each top-level `key: value` on its own
    data = {}
    for number, line in enumerate(source.lines[first : last + 1], first + 1):
        m = _FM_KEY.match(line)
        if not m:
            continue
        key, raw = m.group(1), m.group(2).strip()
        try:
            data[key] = yaml.load(f"v: {raw}", Loader=_Loader)["v"] if raw else None
        except (yaml.constructor.ConstructorError, ValueError, RecursionError) as exc:
            why = "a number too large for JSON" if isinstance(exc, ValueError) else str(exc).splitlines()[0]
            source.warnings.append(f"{source.file}:{number}: frontmatter field {key!r} cannot be read ({why}); left out")
        except yaml.YAMLError:
            data[key] = raw.strip("'\"")
    return _json_fields(source, data, first + 1)


def _json_fields(source: Source, data: dict, line: int) -> dict:
    """The fields as JSON data: a field JSON cannot hold is left out with a warning; an alias bomb fails the file."""
    budget = [MAX_FRONTMATTER_VALUES]
    fields = {}
    for key, value in data.items():
        try:
            fields[str(key)] = _as_json(value, budget)
        except _NotJSON as exc:
            source.warnings.append(f"{source.file}:{line}: frontmatter field {str(key)!r} is {exc}; left out")
        except _TooLarge:
            raise SourceError(f"{source.file}:{line}: frontmatter expands to over {MAX_FRONTMATTER_VALUES} values "
                              "(YAML aliases); not compiled") from None
        except RecursionError:
            source.warnings.append(f"{source.file}:{line}: frontmatter field {str(key)!r} is nested too deeply; left out")
    return fields


def _read_frontmatter(source: Source) -> None:
    blocks = _frontmatter_blocks(source.lines)
    merged: dict = {}
    for first, last in blocks:
        for key, value in _parse_yaml_block(source, first, last).items():
            if value not in (None, "", []) or key not in merged:
                merged[str(key)] = value
    source.frontmatter = merged
    if blocks:
        source.body_start = blocks[-1][1] + 3  # skip the closing --- line


def _as_globs(value) -> list[str]:
    """globs/applyTo written as a list, a comma list, or a JSON array in a string."""
    if value in (None, "", []):
        return []
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except ValueError:
                value = _TOP_COMMA.split(text.strip("[]"))
        else:
            value = _TOP_COMMA.split(text)
    if not isinstance(value, list):
        return []
    globs = [str(v).strip().strip("'\"") for v in value if str(v).strip().strip("'\"")]
    return [expanded for glob in globs for expanded in _expand_braces(glob)]


_TOP_COMMA = re.compile(r",(?![^{]*\})")  # a comma outside braces: `**/*.{ts,tsx}` is one glob
_BRACES = re.compile(r"\{([^{}]*)\}")


def _expand_braces(glob: str) -> list[str]:
    """`**/*.{ts,tsx}` -> `**/*.ts`, `**/*.tsx`."""
    m = _BRACES.search(glob)
    if m is None:
        return [glob]
    return [g for part in m.group(1).split(",") for g in _expand_braces(glob[: m.start()] + part + glob[m.end() :])]


def _derive_scope(source: Source) -> None:
    """group_id and the §7 active_when scope, from the path and frontmatter only."""
    fm = source.frontmatter
    name = source.file.rsplit("/", 1)[-1]
    if source.convention.name == "skill" or name == "SKILL.md":
        folder = Path(source.file).parent.name
        skill = str(fm.get("name") or folder or "skill").strip()
        if not _SKILL_NAME.match(skill):  # a name is a key the harness looks up, never markup
            source.warnings.append(f"{source.file}: skill name {json.dumps(skill)[:80]} is not a plain name; "
                                   f"the folder name is used instead")
            skill = folder if _SKILL_NAME.match(folder) else "skill"
        source.group_id = f"skill:{skill}"
        source.scope["skill"] = skill
    else:
        source.group_id = f"local:{source.file}"
        folders = source.file.split("/")[:-1]
        dotted = next((i for i, f in enumerate(folders) if f.startswith(".")), None)
        anchor = "/".join(folders[:dotted])  # the folder a `.cursor/rules/x.mdc` or nested AGENTS.md speaks for
        if anchor and (source.convention.name in _SUBTREE_CONVENTIONS or dotted is not None):
            source.subtree = anchor
    parts = source.file.split("/")
    if len(parts) >= 2 and parts[-2] == "model-overlays":
        source.scope["overlay"] = name.rsplit(".", 1)[0]
    always = fm.get("alwaysApply") is True or str(fm.get("trigger", "")).strip() == "always_on"
    globs = _as_globs(fm.get("applyTo")) or _as_globs(fm.get("globs")) or _as_globs(fm.get("paths"))
    if globs and not always and "**" not in globs and "**/*" not in globs:
        regexes = [glob_to_regex(g) for g in globs]
        source.scope["file_scope"] = any_of(regexes)
    role = ""
    if name.endswith(".prompt") or name.endswith(".agent.md"):
        role = name.split(".", 1)[0]
    else:
        body = source.lines[source.body_start - 1 :]
        first_text = next((line for line in body if line.strip() and not line.startswith("#")), "")
        if m := _ROLE_OPENING.match(first_text):
            role = m.group(1).lower()
    source.role = role
