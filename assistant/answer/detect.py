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

from index.lexical import STOPWORDS
from ingest.addresses import shapes

from .addresses import SHAPED
from .asks import TOKENS
from .entities import MONTHS, entities, other
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
    return has_number(text) or bool(kind_spans("number", text, frozenset())) or re.search(r"(?i)\bone\b", text) is not None


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


def kind_spans(kind: str, text: str, exclude: frozenset[str]) -> list[tuple[int, int]]:
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


def in_date(text: str, a: int, b: int) -> bool:
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
    for a, b in kind_spans("number", text, frozenset()):
        if in_date(text, a, b):
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
