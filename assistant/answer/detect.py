"""General detectors: what kind of thing a question asks for, and where a text holds one.

The kind asked comes from English interrogative syntax only ("when" / "what year" -> date,
"how" + an adjective or adverb -> number, "who" / "whom" / "whose" -> person, "where" -> place or
organisation). What a text holds comes from general libraries and shapes: dateparser for dates (on
the chosen candidate only; it is slow), year-like numbers, digits and currency signs, and
probablepeople's person / corporation tagging of capitalised runs. No domain words.
"""

from __future__ import annotations

import bisect
import calendar
import re
from collections.abc import Callable
from functools import lru_cache

KINDS = ("date", "number", "person", "place")
_AUX = frozenset(["do", "does", "did", "is", "are", "was", "were", "am", "be", "been", "can", "could", "would", "should", "will", "shall", "has", "have", "had", "may", "might", "must"])
_TOKENS = re.compile(r"[\w'’.-]+")
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")
# a number glued to a word by a hyphen ("COVID-19", "model-3") is part of a name, not a quantity;
# a unit may follow after a space or a hyphen ("2-week", "30 mL")
_NUMBER = re.compile(r"(?<![\w.\-])[$€£¥]?\d(?:[\d,.]*\d)?(?:\s?%|[\s-]?[A-Za-z]+)?")
_CAPRUN = re.compile(r"(?:[A-Z][\w'’.-]*|of|the|de|for|and|&)(?:[ \t]+(?:[A-Z][\w'’.-]*|of|the|de|for|and|&))*")


def asked(question: str) -> str:
    """The kind of thing `question` asks for: one of `KINDS`, or "" (a passage).

    The first interrogative decides; a later one opens a clause ("What was the pilot doing *when* the
    airplane crashed?" asks for an activity, not a date)."""
    words = [w.lower() for w in _TOKENS.findall(question)]
    for i, w in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w == "when":
            return "date"
        if w in ("what", "which"):
            return "date" if nxt in ("year", "date", "month", "day") else ""
        if w == "how":
            return "number" if nxt and nxt not in _AUX else ""
        if w in ("who", "whom", "whose"):
            return "person"
        if w == "where":
            return "place"
    return ""


def type_word(question: str) -> str:
    """The noun a "what"/"which" question names as the type of its answer ("Which *company* does she
    work for?", "At what *venue* was it published?"): the last word of the phrase between the
    interrogative and its auxiliary verb, when that phrase is one to three words. The answer is an
    instance of the type (a company's name), so a passage need not contain the word itself. "" when
    there is none ("What is ...", "Which of ...")."""
    words = [w.lower() for w in _TOKENS.findall(question)]
    for i, w in enumerate(words):
        if w not in ("what", "which"):
            continue
        for j in range(i + 1, min(i + 5, len(words))):
            if words[j] in _AUX:
                return words[j - 1] if 1 <= j - i - 1 <= 3 and words[i + 1] not in ("of", "the", "a", "an") else ""
        return ""
    return ""


def has_year(text: str) -> bool:
    return bool(_YEAR.search(text))


def has_number(text: str) -> bool:
    return any(c.isdigit() for c in text)


@lru_cache(maxsize=65536)
def _tag(run: str) -> str:
    import probablepeople

    try:
        parts, kind = probablepeople.tag(run)
    except Exception:  # probablepeople raises RepeatedLabelError on odd strings: no verdict
        return ""
    # its verdict must agree with its own parse: "Computer Science" comes back a "Person" made of
    # one CorporationNameOrganization part
    corporate = any(label.startswith("Corporation") for label in parts)
    if (kind == "Person" and corporate) or (kind == "Corporation" and not corporate):
        return ""
    return str(kind)


def _runs(text: str) -> list[tuple[int, int]]:
    out = []
    for m in _CAPRUN.finditer(text):
        s = m.group(0).strip()
        words = s.split()
        while words and not words[-1][:1].isupper():
            words.pop()
        while words and not words[0][:1].isupper():
            words.pop(0)
        if len(words) >= 2:
            a = text.index(words[0], m.start())
            b = text.index(words[-1], a) + len(words[-1])
            out.append((a, b))
    return out


@lru_cache(maxsize=4096)
def _is_title(word: str) -> bool:
    """Is `word` a title before a name ("Prof.", "Dr")? nameparser's list of titles decides."""
    from nameparser.config import CONSTANTS

    return word.rstrip(".").casefold() in CONSTANTS.titles


def _name_shape(run: str) -> bool:
    """A given name, a middle initial and a surname ("Umit V. Catalyurek"): the shape of a person's name."""
    words = run.rstrip(".,").split()
    return 3 <= len(words) <= 4 and all(w[:1].isupper() for w in words) and any(
        len(w.rstrip(".")) == 1 for w in words[1:-1]) and len(words[0]) > 2 and len(words[-1]) > 2


@lru_cache(maxsize=65536)
def entities(text: str) -> tuple[tuple[str, int, int], ...]:
    """(kind, start, end) of persons and organisations/places in `text` (capitalised runs). A run right
    before a colon is a form's label ("Defining Event: ...", "Registered Owner: ..."), not a name; a run
    opening with a title (nameparser's list: "Prof.", "Dr") is a person when the rest of it is one."""
    out = []
    for a, b in _runs(text):
        if text[b:b + 3].lstrip(" \t").startswith(":"):
            continue
        kind = _tag(text[a:b].rstrip(".,"))
        title, _, rest = text[a:b].partition(" ")
        if kind != "Person" and " " in rest.strip() and _is_title(title) and _tag(rest.rstrip(".,")) == "Person":
            kind = "Person"  # "Prof. Volker Bormuth": probablepeople reads the title as a company's name
        if kind == "Person" or _name_shape(text[a:b]):
            out.append(("person", a, b))
        elif kind == "Corporation":
            out.append(("place", a, b))
    return tuple(out)


def _other(text: str, a: int, b: int, exclude: frozenset[str]) -> bool:
    """Is text[a:b] not (part of) an excluded name, such as the document owner's own?"""
    return not exclude or not ({w.lower().strip(".,") for w in text[a:b].split()} & exclude)


def holds(kind: str, text: str, exclude: frozenset[str] = frozenset()) -> bool:
    """Does `text` hold a thing of `kind`? Persons/places whose words are in `exclude` do not count."""
    if kind == "date":
        return has_year(text)
    if kind == "number":
        return has_number(text)
    if kind in ("person", "place"):
        return any(k == kind and _other(text, a, b, exclude) for k, a, b in entities(text))
    return False


def asks_one(question: str) -> bool:
    """"Who is/was the/a <singular> ...?" asks whom one role names (a fact question), unlike "Who has
    ...?" or "Who are the ...?", which ask for every match."""
    words = [w.lower() for w in _TOKENS.findall(question)]
    return words[:1] in (["who"], ["whom"]) and words[1:2] in (["is"], ["was"]) and words[2:3] in (["the"], ["a"], ["an"])


def asks_who(question: str, people_kind: bool) -> bool:
    """The one test the search and the reader share: does a question that names nobody ask for every
    matching person? `people_kind` is `question.analyze`'s verdict ("Is there anyone who ...")."""
    return (people_kind or is_list(question, False)) and not asks_one(question)


def is_list(question: str, names_someone: bool) -> bool:
    """Does `question` ask for every matching person or document ("Who has ...?", "Which reports ...?")?

    Syntax only: "who"/"whose" opening a question that names nobody (but not "Who is/was the/a
    <singular> ...?", which asks for one role's holder), or "which"/"what" followed
    (within three words, or "which of") by a plural noun: a word ending in "s" whose lemma is shorter,
    or "people", English's plural of "person" ("Which two people ...?"). Other irregular plurals are
    not told apart from irregular past tenses ("men" / "won") without a tagger, so they are left out.
    A plural followed by "of" names parts of one thing ("Which parts of N1181Y were damaged?"): a
    fact about it, not a list of people or documents.
    """
    from index.lemmas import lemma

    if names_someone:
        return False
    words = [w.lower() for w in _TOKENS.findall(question)]
    if words and words[0] in ("who", "whose", "whom"):
        return not asks_one(question)
    for i, w in enumerate(words[:4]):
        if w not in ("which", "what"):
            continue
        nxt = words[i + 1:i + 4]
        if nxt[:1] == ["of"]:
            return True
        for j, x in enumerate(nxt):
            if x in _AUX:
                break
            plural = x == "people" or (len(x) > 3 and x.endswith("s") and not x.endswith("ss") and lemma(x) != x)
            if plural:
                return nxt[j + 1:j + 2] != ["of"]
    return False


def warm() -> None:
    """Load what the first answer would otherwise wait for: dateparser's search (a second of imports
    and pattern compilation) and simplemma's English dictionary (half a second)."""
    try:
        from dateparser.search import search_dates

        from index.lemmas import lemma

        lemma("warming")

        search_dates("from May 2019 to 2021", languages=["en"])
    except Exception:  # noqa: BLE001 - a failed warm-up only leaves the cost to the first question
        pass


def _spans(kind: str, text: str, exclude: frozenset[str]) -> list[tuple[int, int]]:
    """Every verbatim phrase of `kind` in `text`, in order."""
    if kind == "date":
        try:
            from dateparser.search import search_dates

            found = search_dates(text, languages=["en"]) or []
        except Exception:  # dateparser fails on some inputs: fall back to years
            found = []
        out: list[tuple[int, int]] = []
        at = 0
        for s, _ in found:
            i = text.find(s, at)
            if has_year(s) and i >= 0:
                out.append((i, i + len(s.strip())))
                at = i + len(s)
        return out or [(m.start(), m.end()) for m in _YEAR.finditer(text)]
    if kind == "number":
        return [(m.start(), m.end()) for m in _NUMBER.finditer(text)]
    if kind in ("person", "place"):
        return [(a, b) for k, a, b in entities(text) if k == kind and _other(text, a, b, exclude)]
    return []


_MONTHS = frozenset(m.casefold() for m in (*calendar.month_name[1:], *calendar.month_abbr[1:]))
_NUMERAL = re.compile(r"[$€£¥]?\d(?:[\d,.]*\d)?")
_WORD_BEFORE = re.compile(r"([^\W\d_]+)\.?\s+$")
_WORD_AFTER = re.compile(r"[\s,]*([^\W\d_]+)")


def _in_date(text: str, a: int, b: int) -> bool:
    """Is the number at text[a:b] part of a date: a year ("2024", "2012 NSERC") or a day beside a
    month's name ("December 23, 2007")? A number asked for is a quantity."""
    numeral = _NUMERAL.match(text, a)
    if numeral and _YEAR.fullmatch(numeral.group(0)):
        return True
    before = _WORD_BEFORE.search(text, max(0, a - 12), a)  # "December 23", "Dec. 23"
    after = _WORD_AFTER.match(text, numeral.end() if numeral else b)  # "23 December", "5 May 2019"
    return any(m is not None and m.group(1).casefold() in _MONTHS for m in (before, after))


def _said(phrase: str, question: str) -> bool:
    """Does the question itself say `phrase` ("172" in "the Cessna 172 crash")?"""
    words = _TOKENS.findall(phrase.casefold())
    return bool(words) and re.search(r"(?<![\w.-])" + r"\W+".join(map(re.escape, words)) + r"(?![\w-])",
                                     question.casefold()) is not None


def phrase(kind: str, text: str, exclude: frozenset[str] = frozenset(),
           near: dict[str, float] | None = None, question: str = "",
           named: Callable[[str], bool] | None = None) -> tuple[int, int] | None:
    """Offsets of a verbatim phrase of `kind` in `text`, or None.

    With `near` (question words -> weight, e.g. IDF), the phrase closest to the question's words
    wins: each word found in the text adds weight / (1 + its distance in words to the phrase), so
    "3 days" beats "2019" in "Since 2019 the office keeps records for 3 days after a request is
    closed" for "How long are records kept after a request is closed?"; question words inside a
    phrase do not bring it closer. Without `near`, the first one.

    With `question`, a phrase the question already says is no answer to it ("172" for "How many
    people died in the Cessna 172 crash?"), and a number asked for is a quantity, not part of a date
    ("23" or "2007" in "December 23, 2007"). When no phrase is left there is none to lead with.
    With `named` (is this word a name? e.g. `features.Idf.proper`), a person or place phrase holding a
    name is preferred to one made only of common words.
    """
    spans = _spans(kind, text, exclude)
    if question and spans:
        spans = [(a, b) for a, b in spans if not _said(text[a:b], question)]
        if kind == "number":
            spans = [(a, b) for a, b in spans if not _in_date(text, a, b)]
    if named is not None and kind in ("person", "place"):
        # a phrase with a word the collection only ever capitalises names someone or somewhere;
        # "Assistant Professor of Political Science" or "Research Intern" is a title made of common words
        spans = [sp for sp in spans if any(named(w) for w in _TOKENS.findall(text[sp[0]:sp[1]]))] or spans
    if not spans or not near or len(spans) == 1:
        return spans[0] if spans else None
    starts: list[int] = []
    at: dict[str, list[int]] = {}  # question word -> its word positions in the text
    for n, m in enumerate(_TOKENS.finditer(text)):
        starts.append(m.start())
        w = m.group(0).lower().strip(".,;:'’")
        if w in near:
            at.setdefault(w, []).append(n)

    def closeness(span: tuple[int, int]) -> float:
        # question words inside the phrase do not count: the phrase would only be restating the question.
        # Words a..b-1 are the phrase: the word just before it and the word just after it are both 1 away.
        a, b = bisect.bisect_left(starts, span[0]), bisect.bisect_left(starts, span[1])
        return sum(near[w] / (1 + min(a - j if j < a else j - b + 1 for j in out))
                   for w, js in at.items() if (out := [j for j in js if not a <= j < b]))

    return max(spans, key=closeness)  # the first on a tie
