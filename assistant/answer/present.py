"""The present: does a question ask about it, and does a passage speak of it?

"Where does she work now?" is answered by the entry still running ("2021 - present"), not by the
latest one that ended. English's words for the time of speaking are a closed class of the language,
like stop words or prepositions, not a list fitted to any document. "present" is left out of what a
question asks with: it is as often the verb ("Which paper did he present?").
"""

from __future__ import annotations

import re

from index.lexical import STOPWORDS

from .entities import JOINERS

_NOW_WORDS = ("now", "current", "currently", "presently", "nowadays")
_NOW_ASKED = re.compile(rf"\b(?:{'|'.join(_NOW_WORDS)})\b", re.IGNORECASE)
_NOW_SAID = re.compile(rf"\b(?:{'|'.join((*_NOW_WORDS, 'today'))})\b", re.IGNORECASE)
# what a person is: the first person of "be" in the present ("I am a postdoctoral researcher at ...", "I'm a
# software engineer"), or its third person before an article ("Jane Roe is an Assistant Professor at ...", "She
# is the director of ..."); a biography of someone no longer living says "was"
_I_AM = re.compile(r"\bI(?:[ \t]+am|['’]m)\b|\b([Hh]e|[Ss]he|[A-Z][a-z]+)[ \t]+is[ \t]+(?:an?|the)[ \t]")
_PRESENT = re.compile(r"(\w*)\W*\bpresent\b", re.IGNORECASE)  # with the word before it
# "present" after a subject or an auxiliary is the verb ("We present a framework", "will present"), after a
# form of "be" the adjective ("He was present at the test"): closed classes of English, like the words for now
_BEFORE_VERB = frozenset(["we", "i", "they", "you", "he", "she", "also", "here", "will", "can", "shall", "may", "then",
                          "is", "are", "was", "were", "be", "been", "being"])
# a dash between a period's ends: a hyphen, an en or em dash, or what TeX and Pandoc's Markdown type for them
# ("2021--present", "Aug. 2021 -- today")
DASH = r"(?:-{1,3}|[‐‑‒–—])"
# the open end of a period that has not ended ("Sep 2019 - present"); `detect` keeps it with the period
OPEN_END = re.compile(rf"\s*{DASH}\s*(?:present|now|today|current|ongoing)\b", re.IGNORECASE)
# a month and a year: "Sep 2019", "September, 2019", or in digits "2019.09", "2019-09", "09/2019"
_MONTH_YEAR = r"(?:(?:[A-Z][a-z]{2,8}\.?,?[ \t]+|(?<!\d)\d{1,2}[./])?(?:1[5-9]\d\d|20\d\d)(?:[./-](?:0?[1-9]|1[0-2])(?!\d))?)"
_OPEN_RANGE = re.compile(rf"{_MONTH_YEAR}{OPEN_END.pattern}|\bsince[ \t]+{_MONTH_YEAR}", re.IGNORECASE)
# or by leaving its end blank: "(August 2026– )", "2021 -" ending its line or before a separator ("2014- :
# Associate Professor", a definition list's term and its definition), unless the next line starts with the end
# date ("2019 -\n2021", a range wrapped by the layout)
# ... or by a dash written against the year, then the entry ("2024-        ACME, Senior engineer": a plain-text
# résumé's columns, the end column left blank; the cleaner keeps one of the spaces; "2020-,     Assistant Professor",
# the column's comma after it); "2019 – PhD", with a space before the dash, is a date and a separator
_BLANK_END = re.compile(rf"{_MONTH_YEAR}[ \t]*{DASH}[ \t]*(?:[)\]:|]|$(?![\r\n]+[ \t]*(?:[A-Za-z]{{3,9}}\.?,?[ \t]+)?\d))"
                        rf"|\b{_MONTH_YEAR}{DASH},?[ \t]+(?=[^\W\d_])", re.MULTILINE)


# a period with both ends written: "September 2020 - November 2020", "2016 – 2020"
_CLOSED_RANGE = re.compile(rf"{_MONTH_YEAR}[ \t]*{DASH}[ \t]*{_MONTH_YEAR}", re.IGNORECASE)


def asks_now(question: str) -> bool:
    """Does `question` ask about the present ("now", "current", "currently", ...)?"""
    return bool(_NOW_ASKED.search(question))


def open_range(text: str) -> bool:
    """Does `text` hold a date range still running: "2021 - present", "June 2011-present", "Oct. 2024 -
    PRESENT", "since 2025", "(August 2026– )"? What a CV, a report or a plan writes of what holds today."""
    return bool(_OPEN_RANGE.search(text) or _BLANK_END.search(text))


def first_open(text: str) -> int | None:
    """Where the first date range still running in `text` begins (`open_range`), or None."""
    found = [m.start() for m in (_OPEN_RANGE.search(text), _BLANK_END.search(text)) if m]
    return min(found) if found else None


def _in_name(text: str, start: int, end: int) -> bool:
    """Is the capitalised word text[start:end] part of a name written inside a line: a word before it on its
    line and a capitalised word after it ("the Management Committee for the Current Index to Statistics"),
    or, after one of the small words a name joins by, a capitalised word before it that does not open its
    line ("a talk on NPR Here and Now")? A heading opens its line ("Current Research"), and a lower-case word
    is no name."""
    word = text[start:end]
    if not word[:1].isupper() or word.isupper():
        return False
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start].split()
    after = text[end:end + 40].lstrip(" \t")
    if before and after[:1].isupper():
        return True
    # "Here and Now": a joiner, and a capitalised word before it that is not the line's first word
    return (len(before) >= 3 and before[-1] in JOINERS and before[-2][:1].isupper()
            and before[-2].isalpha())


def says_now(text: str) -> bool:
    """Does `text` speak of the present: a date range still running (`open_range`), one of English's
    words for the time of speaking ("I am currently ...", a heading "Current Research"), not as part of a
    name ("... for the Current Index to Statistics"), or what someone is ("I am a ...", "Jane Roe is an ...")?"""
    return (any(not _in_name(text, m.start(), m.end()) for m in _NOW_SAID.finditer(text))
            or any(not m.group(1) or m.group(1).lower() in ("he", "she") or m.group(1).lower() not in STOPWORDS
                   for m in _I_AM.finditer(text))  # "This is a ...", "It is the ..." say nothing of a person
            or any(m.group(1).casefold() not in _BEFORE_VERB and not _in_name(text, m.end() - len("present"), m.end())
                   for m in _PRESENT.finditer(text))
            or open_range(text))


def ended(text: str) -> bool:
    """Does `text` date itself to a period that is over ("Research Engineer, September 2020 - November
    2020") and hold no period still running (`open_range`)? Such an entry is past, whatever its section's
    heading, the entry above it or a word of its own description ("Currently the manuscripts are under
    review") says of the present: the dates say when the entry held."""
    return bool(_CLOSED_RANGE.search(text)) and not open_range(text)
