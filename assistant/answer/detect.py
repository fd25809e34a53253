"""General detectors: where a text holds the kind of thing a question asks for (`asks.asked`).

What a text holds comes from general libraries and shapes: dateparser for dates (on
the chosen candidate only; it is slow), year-like numbers, digits and currency signs,
probablepeople's person / corporation tagging of capitalised runs (`entities`), and the shapes of
e-mail and web addresses (`addresses`). No domain words.
"""

from __future__ import annotations

import bisect
import calendar
import re
from collections.abc import Callable, Collection

from index.doc_terms import key
from index.lexical import STOPWORDS
from ingest.addresses import shapes

from .addresses import SHAPED
from .asks import AUX, TOKENS, type_word
from .candidates import is_item
from .entities import JOINERS, MONTHS, designated, entities, is_title, kind_of, other, single_names
from .present import DASH, OPEN_END

KINDS = ("date", "number", "person", "place", *SHAPED)
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")
# a number glued to a word by a hyphen ("COVID-19", "model-3") is part of a name, not a quantity;
# a unit may follow after a space or a hyphen ("2-week", "30 mL")
_NUMBER = re.compile(r"(?<![\w.\-])[$€£¥]?\d(?:[\d,.]*\d)?(?:[ \t](?:hundred|thousand|million|billion|trillion)\b)?"
                     r"(?:[ \t]?%|[ \t-]?[A-Za-z]+)?", re.IGNORECASE)  # the unit on the same line
# English cardinals written out ("as long as eight years", "twenty-five patients"), with the unit that
# follows; "one" is left out, being as often a pronoun ("one of the reports")
_CARDINAL = (r"(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
             r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|"
             r"thousand|million|billion|dozen)")
_NUMBER_WORDS = re.compile(rf"\b{_CARDINAL}(?:[ \t-](?:one|{_CARDINAL}))*(?:[ \t-][A-Za-z]+)?\b", re.IGNORECASE)
# a list's enumerator ("19. Patients with ...", "3) Dose"): a number that counts nothing
# a clock time: hours and minutes, perhaps seconds ("20:09", "9:30:15"); no amount
_CLOCK = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?::\d{2})?(?![\d:])")
_ENUM = re.compile(r"(?:^|(?<=[.;:!?]\s)|(?<=\n))\s*\(?\d{1,3}[.)](?=\s+\S)")
# numbers that point rather than count, by the conventions of written documents: a reference list in
# brackets ("studies [7, 9, 10]", "[3-5]"), a heading's section number ("2.2 Cohort selection") and a
# footnote mark a PDF's text glued to its note ("2One update is ...")
_POINTERS = re.compile(r"\[\d{1,3}(?:[ \t]*[,;–-][ \t]*\d{1,3})*\]"
                       r"|(?:^|(?<=\n))[ \t]*\d{1,2}(?:\.\d{1,2})+\.?(?=[ \t]+[A-Z])"
                       r"|(?:^|(?<=\n))\d{1,2}(?=[A-Z][a-z]{2,})")



def has_year(text: str) -> bool:
    return bool(_YEAR.search(text))


def is_year(text: str) -> bool:
    """Is `text` a year and nothing else ("2018", not "12018" or "2018a")?"""
    return _YEAR.fullmatch(text) is not None


def says_when(text: str) -> bool:
    """Could `text` say when something happened: does it hold a number (a year, a date, "within 30
    days"), a month's or a weekday's name, or a period left open ("- present")? A passage with none of
    these cannot answer "When ...?"."""
    words = {w.casefold().strip(".") for w in TOKENS.findall(text)}
    words |= {w[:-1] for w in words if w.endswith("s")}  # "on Tuesdays"
    return has_number(text) or bool(words & (MONTHS | _WEEKDAYS)) or bool(OPEN_END.search(text))


def counts_something(text: str) -> bool:
    """Could `text` give an amount: does it hold a number, in digits or in words ("two", "a dozen", and
    "one", which `phrase` leaves out as often a pronoun: "more than one petabyte")? A clock time ("20:09 UTC")
    counts nothing."""
    text = _CLOCK.sub(" ", text)
    return has_number(text) or bool(_spans("number", text, frozenset())) or re.search(r"(?i)\bone\b", text) is not None


def has_number(text: str) -> bool:
    """Does `text` hold a number other than a list's enumerators, references, section numbers and
    footnote marks (`_POINTERS`)?"""
    return any(c.isdigit() for c in _POINTERS.sub(" ", _ENUM.sub(" ", text)))


def _enumerators(text: str) -> set[int]:
    """Where the digits of each enumerator and pointer (`_POINTERS`) of `text` start: numbers that
    count nothing."""
    out = {m.end() - len(m.group().strip().lstrip("(")) for m in _ENUM.finditer(text)}
    for m in _POINTERS.finditer(text):
        out.update(i for i in range(m.start(), m.end()) if text[i].isdigit() and (i == 0 or not text[i - 1].isdigit()))
    return out


def holds(kind: str, text: str, exclude: frozenset[str] = frozenset()) -> bool:
    """Does `text` hold a thing of `kind`? Persons/places whose words are in `exclude` do not count."""
    if kind == "date":
        return has_year(text)
    if kind == "number":
        return has_number(text)
    if kind in ("person", "place"):
        return any(k == kind and other(text, a, b, exclude) for k, a, b in entities(text))
    return bool(shapes(kind, text))


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
                out.append(_trimmed(text, i, i + len(s.strip())))
                at = i + len(s)
        # a year the date parser passed over ("December 2023" before "| Zurich") is a date too
        out += [(m.start(), m.end()) for m in _YEAR.finditer(text) if not any(a <= m.start() < b for a, b in out)]
        return _ranges(text, [_with_season(text, a, b) for a, b in sorted(out)])
    if kind == "number":
        enum = _enumerators(text)
        digits = [(m.start(), m.end()) for m in _NUMBER.finditer(text) if m.start() not in enum]
        # "million pages" inside "500 million pages" is part of that number, not one of its own
        words = [(m.start(), m.end()) for m in _NUMBER_WORDS.finditer(text)
                 if not any(a <= m.start() < b for a, b in digits)]
        return sorted(digits + words)
    if kind in ("person", "place"):
        return [(a, b) for k, a, b in entities(text) if k == kind and other(text, a, b, exclude)]
    return shapes(kind, text)


# what joins the two ends of a period ("August 2006–October 2010", "2019 to 2021"); the open end of one
# that has not ended ("Sep 2019 - present") is `present.OPEN_END`
_RANGE_JOIN = re.compile(rf"\s*(?:{DASH}|to|until|till|through|thru)\s*", re.IGNORECASE)


# the word before a year that is part of its date: a month, or a season (a closed class of English as the
# months are): "December 2023", "Summer 2023", "Fall 2020 - Spring 2022"
_MONTH_BEFORE = re.compile(r"\b([^\W\d_]+)\.?,?[ \t]+$")
_SEASONS = frozenset(["spring", "summer", "fall", "autumn", "winter"])
_EDGE_WORD = re.compile(r"^([^\W\d_]+)\s+|\s+([^\W\d_]+)$")  # a date span's first or last word


def _trimmed(text: str, a: int, b: int) -> tuple[int, int]:
    """text[a:b] without the function words the date parser takes in at its ends ("on 4 May 1980 in" ->
    "4 May 1980"); a month's name stays ("May")."""
    while (m := _EDGE_WORD.search(text[a:b])) and (w := (m.group(1) or m.group(2))).casefold() in STOPWORDS \
            and w.casefold() not in MONTHS:
        a, b = (a + m.end(), b) if m.group(1) else (a, a + m.start())
    return a, b


def _with_season(text: str, a: int, b: int) -> tuple[int, int]:
    """The date span text[a:b] with the month or season written right before it ("Summer 2023", not "2023")."""
    m = _MONTH_BEFORE.search(text, max(0, a - 12), a)
    return (m.start(), b) if m and m.group(1).casefold() in _SEASONS | MONTHS else (a, b)


def _ranges(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Date spans with the two ends of a period joined into one span, and a period left open
    ("- present") kept whole: "When was she a lecturer?" is answered by the period, not its start."""
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if out and _RANGE_JOIN.fullmatch(text, out[-1][1], a):
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return [(a, m.end() if (m := OPEN_END.match(text, b)) else b) for a, b in out]


_WEEKDAYS = frozenset(d.casefold() for d in (*calendar.day_name, *calendar.day_abbr))
_NUMERAL = re.compile(r"[$€£¥]?\d(?:[\d,.]*\d)?")
_WORD_BEFORE = re.compile(r"([^\W\d_]+)\.?\s+$")
_WORD_AFTER = re.compile(r"[\s,]*([^\W\d_]+)")


def _in_date(text: str, a: int, b: int) -> bool:
    """Is the number at text[a:b] part of a date or a time: a year ("2024", "2012 NSERC"), a day beside a
    month's name ("December 23, 2007"), or a clock time ("20:09 UTC")? A number asked for is a quantity."""
    if any(m.start() <= a < m.end() for m in _CLOCK.finditer(text, max(0, a - 3), min(len(text), b + 6))):
        return True
    numeral = _NUMERAL.match(text, a)
    if numeral and _YEAR.fullmatch(numeral.group(0)):
        return True
    before = _WORD_BEFORE.search(text, max(0, a - 12), a)  # "December 23", "Dec. 23"
    after = _WORD_AFTER.match(text, numeral.end() if numeral else b)  # "23 December", "5 May 2019"
    return any(m is not None and m.group(1).casefold() in MONTHS for m in (before, after))


def counts_near(text: str, counted: frozenset[str], reach: int = 2) -> bool:
    """Does `text` give a count of what a question counts (`counted`, lemmas of "How many *unique
    patients* ...?")? A number (not a date, an enumerator or a pointer) whose unit is one of them ("34925
    unique patients"), or a bare one within `reach` words of one ("Samples total 581012", "Enrollment:
    40 patients"). A number with another unit counts that ("Each sample has 54 features"): a passage that
    restates the question holds its words without the count, one that counts something else a number
    without them."""
    if not counted:
        return False
    from index.lemmas import lemma

    from .words import common_words

    words = [(m.start(), lemma(m.group(0).lower().strip(".,;:'’"))) for m in TOKENS.finditer(text)]
    starts = [w[0] for w in words]
    near = [n for n, w in enumerate(words) if w[1] in counted]
    for a, b in _spans("number", text, frozenset()):
        if _in_date(text, a, b):
            continue
        unit = re.findall(r"[^\W\d_]+", text[a:b])[-1:]
        if unit and unit[0].lower() not in common_words():
            if lemma(unit[0].lower()) in counted:
                return True
            continue
        i, j = bisect.bisect_left(starts, a), bisect.bisect_left(starts, b)  # the phrase's words i..j-1
        if any(i - reach <= n < j + reach for n in near):
            return True
    return False


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
    """Does `span` open on a title nameparser knows, as a job title does ("Senior Lecturer", "Director of ...")?"""
    first = TOKENS.findall(span)[:1]
    return bool(first) and is_title(first[0])


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
    spans = _spans(kind, text, exclude)
    if question and spans:
        spans = [(a, b) for a, b in spans if not _said(text[a:b], question)]
        if kind == "number":
            spans = [(a, b) for a, b in spans if not _in_date(text, a, b)]
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
    return _with_coordinated(kind, text, spans, best)


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
            b - a >= len(core) for a, b in _spans("date", core, frozenset()))
    if kind != "number":
        return True
    if not _spans("number", phrase, frozenset()):
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
