"""The phrase an answer leads with: of the passage it quotes, the verbatim phrase of the kind the question asks for
(`detect`'s spans: a date, a number, a person, a place) closest to the question's words (`phrase`), not one the
question already says, not a section's heading, widened over the people listed with it or a place's campus, and over
the phrase a second interrogative asks for when it lies beside it (`with_second`); and whether another reader's phrase
fits the question (`fits`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Collection

from index.doc_terms import key

from .asks import AUX, TOKENS, type_word
from .candidates import is_item
from .detect import SHAPED, in_date, kind_spans
from .entities import JOINERS, designated, is_title, kind_of, single_names


def _said(phrase: str, question: str) -> bool:
    """Does the question itself say `phrase` ("172" in "the Cessna 172 crash")?"""
    words = TOKENS.findall(phrase.casefold())
    return bool(words) and re.search(r"(?<![\w.-])" + r"\W+".join(map(re.escape, words)) + r"(?![\w-])",
                                     question.casefold()) is not None


def _glued(word: str) -> str:
    """A word compared across spellings: case- and accent-free, without its dots and quotes ("Ph.D." -> "phd")."""
    return key(word.strip("'’-"))


def _unsaid(text: str, a: int, b: int, said: set[str]) -> tuple[int, int] | None:
    """The name `text[a:b]` without the words the question says (`said`, `_glued`) at either end, or None when
    nothing is left: "ETH Zurich" of "ETH Zurich Ph.D." for "Where did she do her PhD?" ("Ph.D. Biostatistics"
    leaves "Biostatistics", which `phrase` then finds names no place)."""
    kept = [m for m in TOKENS.finditer(text, a, b) if _glued(m.group()) not in said and m.group().casefold() not in JOINERS]
    return (kept[0].start(), kept[-1].end()) if kept else None


def _role(span: str) -> bool:
    """Does `span` open on a title nameparser knows, as a job title does ("Senior Lecturer", "Director of ..."), or end
    on one, its head noun ("Machine Learning Scientist", "Innovation Research Associate": English puts a noun
    phrase's head last)?"""
    words = TOKENS.findall(span)
    return bool(words) and (is_title(words[0]) or is_title(words[-1]))


def phrase(kind: str, text: str, exclude: frozenset[str] = frozenset(),
           near: dict[str, float] | None = None, question: str = "",
           named: Callable[[str], bool] | None = None, headings: Collection[str] = ()) -> tuple[int, int] | None:
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
    With `headings` (the headings over `text`: its section path), a place phrase made only of common words on a
    line that is one of those headings names the section, not a place: "Where does he work now?" was answered
    "EXPERIENCE" from "## WORK EXPERIENCE" over "### Codemancers", "RESEARCH EXPERIENCE" over the running entry.
    """
    spans = kind_spans(kind, text, exclude)
    if question and spans:
        spans = [(a, b) for a, b in spans if not _said(text[a:b], question)]
        if kind == "number":
            spans = [(a, b) for a, b in spans if not in_date(text, a, b)]
            spans = [sp for sp in spans if _measures(text[sp[0]:sp[1]], question)] or spans
    if question and kind in ("person", "place"):
        # a name less the words the question says, when what is left still names one of the kind asked for;
        # the question's type noun is not restated by its answer ("Which university ...?": "University of Florida")
        said = {_glued(w) for w in TOKENS.findall(question)} - {"", _glued(type_word(question))}
        cut = [(sp, _unsaid(text, *sp, said)) for sp in spans]
        spans = [new for sp, new in cut if new == sp or new is not None and kind_of(text[new[0]:new[1]]) == kind]
    if kind == "place" and headings and named is not None:
        spans = [sp for sp in spans if names_body(kind, text[sp[0]:sp[1]], named) or not on_heading(text, *sp, headings)]
    if not spans and named is not None and kind == "place":
        spans = [sp for sp in single_names(text, named, exclude) if not _said(text[sp[0]:sp[1]], question)
                 and not on_heading(text, *sp, headings)]
    if kind == "place":
        # a line written all in capitals is a heading ("ACADEMIC POSITIONS"), not a place, when a place is left
        # (a person's name alone on a line in capitals is still a name: "JOHN SMITH" under "REFERENCES")
        spans = [sp for sp in spans if not _heading(text, *sp)] or spans
        # ... nor a role, which opens on a title nameparser knows ("Associate Professor of Sociology", "Director of
        # ..."), when a place is left: "Where does she work?" is answered by the employer on the same line
        spans = [sp for sp in spans if not _role(text[sp[0]:sp[1]])] or spans
    if named is not None and kind in ("person", "place"):
        # a phrase with a word the collection only ever capitalises names someone or somewhere;
        # "Assistant Professor of Political Science" or "Research Intern" is a title made of common words
        # (a place may instead carry an organisation's designator: "Royal Institute of Technology", `names_body`)
        spans = [sp for sp in spans if names_body(kind, text[sp[0]:sp[1]], named)] or spans
    if kind in SHAPED and spans:
        return spans[0]  # an address stands alone: the first one
    if not spans or not near or len(spans) == 1:
        return _with_coordinated(kind, text, spans, spans[0]) if spans else None
    from index.lemmas import lemma

    weight: dict[str, float] = {}  # by lemma: "reviewing" in the text meets "review" in the question
    for w, v in near.items():
        weight[lemma(w)] = max(v, weight.get(lemma(w), 0.0))
    starts: list[int] = []
    at: dict[str, list[int]] = {}  # question word -> its word positions in the text
    for n, m in enumerate(TOKENS.finditer(text)):
        starts.append(m.start())
        w = lemma(m.group(0).lower().strip(".,;:'’"))
        if w in weight:
            at.setdefault(w, []).append(n)
    # in a list of entries (two lines or more open with a list's marker: a CV's degrees or jobs), a line's words say
    # nothing of another line's phrase: "2022" ending "- PhD in Physics, 2022" is not the year of "- Masters in
    # Physics, 2015" for being three words before "Masters"
    breaks = [m.start() for m in re.finditer("\n", text)] if sum(map(is_item, text.splitlines())) >= 2 else []
    line = [bisect.bisect_right(breaks, p) for p in starts]

    def closeness(span: tuple[int, int]) -> float:
        # question words inside the phrase do not count: the phrase would only be restating the question.
        # Words a..b-1 are the phrase: the word just before it and the word just after it are both 1 away.
        a, b = bisect.bisect_left(starts, span[0]), bisect.bisect_left(starts, span[1])
        own = line[a] if a < len(line) else None
        return sum(weight[w] / (1 + min(a - j if j < a else j - b + 1 for j in out))
                   for w, js in at.items() if (out := [j for j in js if not a <= j < b and line[j] == own]))

    best = max(spans, key=closeness)  # the first on a tie
    if breaks and at and not closeness(best) and is_item(_line_at(text, best[0])):
        # the question's words are on lines of the list that give no phrase of the kind: another entry's phrase
        # does not answer it ("2020 - 2017" of the Master's line for the year of a PhD "- PhD in ..., Present");
        # a line that is no item may be the head of the entry below it ("University of Minnesota" over "- PhD, ...")
        return None
    if kind == "place" and not designated(text[best[0]:best[1]]):
        # a body with an organisation's designator on the same line goes before a name without one: the subject
        # of "PhD, Cognitive Psychology, University of Massachusetts" is nearer the question's "PhD"
        row = text.rfind("\n", 0, best[0])
        bodies = [sp for sp in spans if text.rfind("\n", 0, sp[0]) == row and designated(text[sp[0]:sp[1]])
                  and (named is None or any(named(w) for w in TOKENS.findall(text[sp[0]:sp[1]])))]
        best = max(bodies, key=closeness) if bodies else best
    return _with_coordinated(kind, text, spans, best)


def with_second(kind: str, text: str, span: tuple[int, int], question: str,
                exclude: frozenset[str] = frozenset(), near: dict[str, float] | None = None) -> tuple[int, int]:
    """`span` (the phrase answering a question's first interrogative) widened over the phrase of `kind` that its
    second asks for (`asks.also_asked`: "Where *and when* did he earn his B.S.?"), when one lies within
    `SECOND_GAP` characters of it, is not said by the question, and the two fit in `SECOND_CHARS`: "Georgia
    Institute of Technology, May 2013". Of several, the one `phrase` finds closest to the question's words (`near`)
    when it is among them ("... Senior Researcher 2010 - 2013" for "Where did he work as a Senior Researcher, and
    during which years?", not the years of the employer's line above), else the nearest. Else `span` as it was."""
    a, b = span
    close: dict[tuple[int, int], int] = {}
    for x, y in kind_spans(kind, text, exclude):
        if not (x < b and a < y or _said(text[x:y], question)) and (gap := x - b if x >= b else a - y) <= SECOND_GAP:
            close[(x, y)] = gap
    if not close:
        return span
    found = phrase(kind, text, exclude, near, question=question) if near else None
    x, y = found if found in close else min(close, key=close.__getitem__)
    lo, hi = min(a, x), max(b, y)
    return (lo, hi) if hi - lo <= SECOND_CHARS else span


# a second interrogative's phrase joins the first's lead when it lies this close (characters between them), and the two
# with what lies between make a lead of at most SECOND_CHARS: an entry's place and its dates, on its line or the next
SECOND_GAP = 80
SECOND_CHARS = 120


def _line_at(text: str, at: int, to: int | None = None) -> str:
    """The line of `text` that holds offset `at` (the lines through offset `to`, when given)."""
    end = text.find("\n", at if to is None else to)
    return text[text.rfind("\n", 0, at) + 1:len(text) if end < 0 else end]


def names_body(kind: str, phrase: str, named: Callable[[str], bool]) -> bool:
    """Does `phrase`, of `kind`, name someone or some body rather than a title or a subject: a word the collection
    only ever capitalises (`named`), or, for a place, an organisation's designator (`entities.designated`: "Royal
    Institute of Technology", not "Applied Physics")?"""
    if any(named(w) for w in TOKENS.findall(phrase)):
        return True
    return kind == "place" and designated(phrase)


def on_heading(text: str, a: int, b: int, headings: Collection[str]) -> bool:
    """Is text[a:b] on a line that is one of `headings` (as written, less Markdown's marks and a closing colon)?"""
    bare = lambda t: t.strip().strip("#*_:= \t").strip().casefold()  # noqa: E731
    return bare(_line_at(text, a, b)) in {bare(h) for h in headings}


def _heading(text: str, a: int, b: int) -> bool:
    """Is text[a:b] a whole line of its own written in capitals (a heading such as "ACADEMIC EMPLOYMENT")?"""
    return _line_at(text, a, b).strip() == text[a:b].strip() and text[a:b].isupper()


_COORDINATION = re.compile(r"[ \t]*(?:,|;|&|and|,[ \t]*and)[ \t]*", re.IGNORECASE)  # within one line


# "How long/far/high ...?" asks for a measure, which has a unit ("1,500-foot", "8 years"), not a bare count
_MEASURE = frozenset(["long", "far", "high", "tall", "large", "big", "deep", "wide", "heavy", "fast"])


def fits(kind: str, phrase: str, question: str) -> bool:
    """Does `phrase` (another reader's answer phrase) fit a question asking for a number: it holds one, written
    in figures or words, and for "How long/far/high ...?" with its unit ("1,500-foot", not "age 85")? For a
    person or a place: it holds a word, and is not a date ("October 26, 1947" for "Where was she born?").
    Other phrases are not checked: a name alone is too short for `entities` and `holds` to judge."""
    if kind in ("person", "place"):
        core = phrase.strip(" .,;:()")
        return bool(re.search(r"[^\W\d_]", core)) and not any(
            b - a >= len(core) for a, b in kind_spans("date", core, frozenset()))
    if kind != "number":
        return True
    if not kind_spans("number", phrase, frozenset()):
        return False
    words = [w.lower() for w in TOKENS.findall(question)]
    asks_measure = any(w == "how" and nxt in _MEASURE for w, nxt in zip(words, words[1:], strict=False))
    return not asks_measure or _measures(phrase, question)


def _measures(phrase: str, question: str) -> bool:
    """Does a number phrase measure what the question asks about? "How many (total flight) hours
    ...?" asks for a count of hours ("2,319 hours", not "12 months"); "How long ...?" for a quantity
    with a unit. False when the question says neither. A phrase that counts something else is not
    ruled out: it may name the same things another way ("3 passengers" for "How many people ...?")."""
    from index.lemmas import lemma

    from .words import common_words

    words = [w.lower() for w in TOKENS.findall(question)]
    unit = re.findall(r"[^\W\d_]+", phrase)[-1:] if re.search(r"[^\W\d_]$", phrase.strip()) else []
    unit = [u.lower() for u in unit if u.lower() not in common_words()]  # "40 with": no unit
    for i, w in enumerate(words[:-1]):
        if w != "how":
            continue
        nxt = words[i + 1]
        if nxt in ("many", "much") and unit:
            counted = []  # the words up to the verb: "How many total flight hours did ..."
            for x in words[i + 2:i + 6]:
                if x in AUX:
                    break
                counted.append(lemma(x))
            return lemma(unit[0]) in counted
        if nxt in _MEASURE:  # not "How old ...?": an age is written bare ("Age: 85")
            return bool(unit) or "%" in phrase
        return False
    return False


# an institution named "... of <Name>" and its campus after it on the same line: "at Austin", ", Los Angeles"
_CAMPUS = re.compile(r"(?:[ \t]+at|,)[ \t]+([A-Z][a-z][\w'’-]*(?:[ \t]+[A-Z][a-z][\w'’-]*){0,2})(?=[ \t]*(?:[,;|()*_]|$))", re.M)
_OF_NAME = re.compile(r"\bof[ \t]+[A-Z][\w'’-]*(?:[ \t]+[A-Z][\w'’-]*)?$")


def _with_campus(text: str, a: int, b: int) -> tuple[int, int]:
    """An institution's name of the form "<designator> of <Name>" ("University of California", `designated`) widened
    over the campus written after it on its line: "at Austin", ", Los Angeles", ", Berkeley" (one to three
    capitalised words, then a comma, a bracket, emphasis or the line's end), unless that names a body of its own
    ("University of Michigan, Department of Physics") or holds a code in capitals (", Gainesville FL": a city and
    its state). "University of California" alone does not say which."""
    name = text[a:b]
    m = _CAMPUS.match(text, b)
    if m is None or not _OF_NAME.search(name) or not designated(name) or designated(m.group(1)):
        return a, b
    return a, m.end()


def _with_coordinated(kind: str, text: str, spans: list[tuple[int, int]], chosen: tuple[int, int]) -> tuple[int, int]:
    """`chosen` widened over the people listed with it ("Advisors: Prof. Jenna Wiens, Prof. David
    Fouhey", "Prof. Ce Zhang & Prof. Martin Vechev"): one of two supervisors is half an answer; a place over its
    campus (`_with_campus`)."""
    if kind == "place":
        return _with_campus(text, *chosen)
    if kind != "person":
        return chosen
    i = spans.index(chosen)
    a, b = chosen
    j = i
    while j > 0 and _COORDINATION.fullmatch(text, spans[j - 1][1], a):
        j -= 1
        a = spans[j][0]
    j = i
    while j + 1 < len(spans) and _COORDINATION.fullmatch(text, b, spans[j + 1][0]):
        j += 1
        b = spans[j][1]
    return a, b
