"""The §5 lexical ladder, loaded from grammar/ladder.yaml."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..grammar import load as load_grammar
from .regexes import any_of


@dataclass(frozen=True, slots=True)
class MarkerClass:
    name: str
    action: str  # block | ask | warn | skip
    severity: str
    polarity: str  # negative | positive | hedged
    rank: int  # 0 is strongest
    critical: frozenset[str]


@dataclass(frozen=True, slots=True)
class Ladder:
    classes: dict[str, MarkerClass]
    phrases: dict[str, list[tuple[tuple[str, ...], str]]]  # first word -> [(words, class)], longest first
    headers: dict[str, str]  # header label -> its class, or "label": the sentence's own polarity
    caps_strengthen: dict[str, str]
    negators: frozenset[str]
    frequency_words: frozenset[str]
    candidates: re.Pattern  # any marker phrase or header: a cheap pre-filter for text with none
    purpose_word: str
    modals_before_to: frozenset[str]
    list_openers_before_to: frozenset[str]
    descriptive_subjects: frozenset[str]
    relative_pronouns: frozenset[str]
    possessive_relatives: frozenset[str]
    copulas: frozenset[str]
    attributive_markers: frozenset[str]
    predicate_followers: frozenset[str]
    condition_words: frozenset[str]
    inverting_verbs: frozenset[str]
    inverted_classes: dict[str, str]
    permission_verbs: frozenset[str]
    filler_words: frozenset[str]
    forms: tuple[tuple[re.Pattern, str], ...]  # (pattern over a sentence's words, its marker's class)
    form_phrases: dict[str, str]  # each sentence form's rule words -> their class

    def form_markers(self, words: list[str]) -> list[tuple[int, int, str, int]]:
        """The sentence forms the words open with: (word index, length, class, exception word index or -1)."""
        text = " ".join(words)
        found = []
        for pattern, cls in self.forms:
            m = pattern.match(text)
            if m is None:
                continue
            first = text.count(" ", 0, m.start("marker"))
            length = m.group("marker").count(" ") + 1
            exception = text.count(" ", 0, m.start("exception")) if "exception" in pattern.groupindex and m.group("exception") else -1
            found.append((first, length, cls, exception))
        return found

    def may_have_marker(self, text: str) -> bool:
        return self.candidates.search(text.lower()) is not None

    def is_void(self, words: list[str], i: int, cls: str, next_word: str = "") -> bool:
        """A marker phrase at word i that is not an instruction (purpose clause, description); `next_word`: the word
        right after a one-word phrase, with nothing between them ("" when a mark or the sentence's end follows)."""
        before = words[i - 1] if i else ""
        if next_word and words[i] in self.attributive_markers and next_word not in self.predicate_followers:
            return True
        if before in self.frequency_words:
            return True
        if before == self.purpose_word and (i < 2 or words[i - 2] not in self.modals_before_to) \
                and not (i == 2 and words[0] in self.list_openers_before_to):
            return True
        if i >= 2 and words[i - 2] in self.possessive_relatives:
            return True
        if before in self.relative_pronouns and self.classes[cls].polarity == "positive":
            return True
        if words[i] == "always" and before in self.copulas:
            return True
        return words[i] == "never" and before in self.descriptive_subjects

    def read_after(self, words: list[str], end: int, cls: str) -> str | None:
        """The class a negative marker ending before word `end` really has: its positive counterpart before a
        double negative ("don't forget to run"), None before leave ("you don't need to"), else its own."""
        if self.classes[cls].polarity != "negative":
            return cls
        at = next((k for k in range(end, len(words)) if words[k] not in self.filler_words), len(words))
        verb = words[at] if at < len(words) else ""
        if verb in self.permission_verbs or " ".join(words[at : at + 2]) in self.permission_verbs:
            return None
        return self.inverted_classes.get(cls, cls) if verb in self.inverting_verbs else cls

    def marked_lines(self, text: str) -> list[int]:
        """Sorted 1-based numbers of the lines where a marker phrase may start."""
        lower = text.lower()
        starts = [m.start() for m in self.candidates.finditer(lower)]
        lines: list[int] = []
        line, pos = 1, 0
        for start in starts:
            line += lower.count("\n", pos, start)
            pos = start
            if not lines or lines[-1] != line:
                lines.append(line)
        return lines

    def match_at(self, words: list[str], i: int) -> tuple[int, str] | None:
        """The longest marker phrase starting at word i: (length, class name)."""
        for phrase, cls in self.phrases.get(words[i], ()):
            if tuple(words[i : i + len(phrase)]) == phrase:
                return len(phrase), cls
        return None


def _trie_regex(phrases: list[str]) -> str:
    """One regex for a set of literal phrases, with shared prefixes factored out.

    Python's `re` tries alternatives one by one; a trie-shaped pattern makes it
    test each character once, several times faster than a flat alternation.
    """
    trie: dict = {}
    for phrase in phrases:
        node = trie
        for char in phrase:
            node = node.setdefault(char, {})
        node[""] = {}

    def pattern(node: dict) -> str:
        ends = "" in node
        branches = [re.escape(c) + pattern(child) for c, child in sorted(node.items()) if c]
        if not branches:
            return ""
        body = any_of(branches)
        return f"(?:{body})?" if ends else body

    return pattern(trie)


def normalise_word(word: str) -> str:
    lowered = word.lower()
    return lowered.replace("’", "'") if "’" in lowered else lowered


@lru_cache(maxsize=1)
def load_ladder() -> Ladder:
    data = load_grammar("ladder.yaml")
    classes: dict[str, MarkerClass] = {}
    phrases: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for rank, entry in enumerate(data["classes"]):
        cls = MarkerClass(
            name=entry["name"],
            action=entry["action"],
            severity=entry.get("severity", "low"),
            polarity=entry["polarity"],
            rank=rank,
            critical=frozenset(entry.get("critical", ())),
        )
        classes[cls.name] = cls
        for marker in entry["markers"]:
            words = tuple(normalise_word(marker).split())
            phrases.setdefault(words[0], []).append((words, cls.name))
    for options in phrases.values():
        options.sort(key=lambda option: -len(option[0]))
    spelled = {" ".join(words) for options in phrases.values() for words, _ in options}
    spelled |= {phrase.replace("'", "’") for phrase in spelled}
    # a single space stands for any run of white space in the text being filtered, and for emphasis
    # inside the phrase ("do **not**"), which the inline grammar reads as its own token between the words
    # ((?:\s|\*)+, never (?:\s|\*{1,3})+: that one splits a run of stars in exponentially many ways)
    trie = _trie_regex(sorted(spelled)).replace(r"\ ", r"(?:\s|\*)+")
    headers = [re.escape(h.lower()) for h in data["headers"]]
    forms = tuple((re.compile(form["pattern"].replace("{MARKER}", "(?P<marker>" + "|".join(
        re.escape(m) for m in sorted(form["markers"], key=lambda m: (-len(m), m))) + ")")), form["class"]) for form in data.get("forms", ()))
    form_phrases: dict[str, str] = {}
    for form in data.get("forms", ()):  # (a phrase two forms share keeps the first one's class: "only" asks)
        for m in form["markers"]:
            form_phrases.setdefault(m, form["class"])
    prefilters = [form["prefilter"].removeprefix(r"\b") for form in data.get("forms", ())]  # (each starts at a word)
    # one alternation behind one word boundary: the engine tests a position's first character once for all of them
    candidates = re.compile(r"\b(?:(?:" + trie + r")\b|" + "|".join(headers + prefilters) + ")")
    return Ladder(
        classes=classes,
        phrases=phrases,
        headers=dict(data["headers"]),
        caps_strengthen=dict(data["caps_strengthen"]),
        negators=frozenset(normalise_word(w) for w in data["negators"]),
        frequency_words=frozenset(data["frequency_words"]),
        candidates=candidates,
        purpose_word=data["purpose_word"],
        modals_before_to=frozenset(data["modals_before_to"]),
        list_openers_before_to=frozenset(data["list_openers_before_to"]),
        descriptive_subjects=frozenset(data["descriptive_subjects"]),
        relative_pronouns=frozenset(data["relative_pronouns"]),
        possessive_relatives=frozenset(data["possessive_relatives"]),
        copulas=frozenset(data["copulas"]),
        attributive_markers=frozenset(data["attributive_markers"]),
        predicate_followers=frozenset(data["predicate_followers"]),
        condition_words=frozenset(data["condition_words"]),
        inverting_verbs=frozenset(data["inverting_verbs"]),
        inverted_classes=dict(data["inverted_classes"]),
        permission_verbs=frozenset(data["permission_verbs"]),
        filler_words=frozenset(data["filler_words"]),
        forms=forms,
        form_phrases=form_phrases,
    )
