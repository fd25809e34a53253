"""Short facts: the span of a supporting passage that answers a short factual question.

Given a question's `slot` and a unit of evidence (see `evidence`), `extract` returns the offsets of
the fact in the chunk text: a number, a date, an employer or school, a venue, a title, a degree, a
person's name, a definition or a list. The span is always a slice of the chunk, so the answer's lead
is itself a quote. When no pattern fits, None: the writer then shows the passage instead of guessing.
Left out: anything needing a parser or a model (dates are not normalised, names are not linked).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ingest.names import names_match
from ingest.publications import parse_publications

from .question import Question, keys_of, term_key

Span = tuple[int, int]

_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_DATE = re.compile(
    rf"(?:{_MONTH}\s*\d{{1,2}},?\s*)?(?:{_MONTH}\s*)?(?:19|20)\d\d(?:\s*[-–]\s*(?:(?:{_MONTH}\s*)?(?:19|20)\d\d|present|PRESENT|Present|now))?"
)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?(?:\s*/\s*\d+(?:\.\d+)?)?%?")
_VENUE = re.compile(
    r"(?:(?:[A-Z][\w&/-]*|IEEE|ACM)\s+(?:(?:on|of|for|and|in|the|&)\s+)*)*"
    r"(?:Journal|Transactions|Conference|Symposium|Workshop|Proceedings|Letters|Review|Magazine)\b"
    r"(?:\s+(?:(?:on|of|for|and|in|the|&)\s+)*[A-Z][\w&/-]*)*(?:\s*\([A-Z][\w&/-]*\))?"
)
_QUOTED = re.compile(r"[\"“]([^\"“”\n]{6,300}?)[,.]?[\"”]")
_DEGREE = re.compile(
    r"\b(?:Ph\.?\s?D\.?|D\.?Phil|B\.?\s?S\.?c?\.?|B\.?\s?Eng\.?|B\.?\s?A\.?|M\.?\s?S\.?c?\.?|M\.?\s?Eng\.?|M\.?\s?A\.?|"
    r"MBA|Bachelor(?:'s)?|Master(?:'s)?|Doctor(?:ate)?)(?=[\s,(]|$)[^\n]*",
)
_ORG_WORD = re.compile(
    r"\b(?:University|Institute|College|School|Laborator(?:y|ies)|Lab|Inc|Corp|Corporation|Company|Technologies|"
    r"Services|Research|Labs|Center|Centre|Foundation|Library|Google|Microsoft|Amazon|Meta|Apple|NVIDIA|IBM|Intel)\b"
)
_NAME = re.compile(r"(?:[A-Z]\.\s?){0,3}[A-Z][a-zà-ÿ'’-]+(?:\s+(?:[A-Z]\.\s?)?[A-Z][a-zà-ÿ'’-]+){1,3}")
_ALL_CAPS = re.compile(r"^[^a-z]*$")
_LOCATION_TAIL = re.compile(r",\s*[A-Z][^,]*$")
_YEAR_END = re.compile(r"(?:19|20)\d\d\.?\s*$")
_YEAR_ANY = re.compile(r"\b(?:19|20)\d\d\b")
_BULLETISH = re.compile(r"^\s*[-•·*○◦▪–]")


def _strip(text: str, a: int, b: int) -> Span:
    while a < b and text[a] in " \t-•·*,;:([\"“":
        a += 1
    while b > a and text[b - 1] in " \t,;:.)]\"”" and not (text[b - 1] == ")" and "(" in text[a:b]):
        b -= 1
    return a, b


def _lines(text: str, start: int, end: int) -> list[Span]:
    return [(start + m.start(), start + m.end()) for m in re.finditer(r"[^\n]+", text[start:end]) if m.group(0).strip()]


def _near_terms(text: str, a: int, b: int, q: Question, pattern: re.Pattern[str]) -> Span | None:
    """The match of `pattern` in text[a:b] closest to a word of the question."""
    matches = [(a + m.start(), a + m.end()) for m in pattern.finditer(text[a:b]) if m.group(0).strip()]
    if not matches:
        return None
    words = q.terms | q.soft
    anchors = [a + m.start() for m in re.finditer(r"[A-Za-z][A-Za-z-]+", text[a:b]) if term_key(m.group(0)) in words]
    if not anchors:
        return matches[0]
    return min(matches, key=lambda s: min(abs(s[0] - x) for x in anchors))


def number(text: str, a: int, b: int, q: Question, reach: int = 12) -> Span | None:
    """A number written next to a word of the question ("14 Papers", "GPA: 3.94/4.00", "h-index10")."""
    words = q.terms | q.soft
    anchors = [(a + m.start(), a + m.end()) for m in re.finditer(r"[A-Za-z][A-Za-z-]+", text[a:b])
               if term_key(m.group(0)) in words or any(term_key(p) in words for p in m.group(0).split("-"))]
    best: tuple[int, Span] | None = None
    for m in _NUMBER.finditer(text, a, b):
        for x, y in anchors:
            gap = max(x - m.end(), m.start() - y, 0)
            if gap <= reach and (best is None or gap < best[0]):
                best = (gap, (m.start(), m.end()))
    return best[1] if best else None


def date(text: str, a: int, b: int, q: Question) -> Span | None:
    return _near_terms(text, a, b, q, _DATE)


def org(text: str, a: int, b: int, window: Span, q: Question) -> Span | None:
    """The employer or school of an entry: the line above (or at) the unit naming an organisation."""
    lines = _lines(text, window[0], b)
    for la, lb in reversed(lines):
        m = _ORG_WORD.search(text, la, lb)
        if m:
            seg = text[la:lb]
            seg = re.sub(r"^\s*(?:(?:19|20)\d\d\s*)?[\t ]*", "", seg)
            start = lb - len(seg)
            cut = seg.find(",", m.end() - start)
            return _strip(text, start, start + cut if cut > 0 else lb)
    return None


def venue(text: str, a: int, b: int, q: Question) -> Span | None:
    return _near_terms(text, a, b, q, _VENUE)


def title(text: str, a: int, b: int, window: Span, q: Question) -> Span | None:
    """A quoted title, a parsed publication's title, or an all-caps title after "FOR"."""
    m = _QUOTED.search(text, a, b) or _QUOTED.search(text, window[0], b)
    if m:
        return m.start(1), m.end(1)
    for pub in parse_publications(text[window[0] : b]):
        i = text.find(pub.title, window[0], b)
        if i >= 0:
            return i, i + len(pub.title)
    m = re.search(r"\b(?:PRESENTER|SPEAKER|TALK)\s+(?:FOR|ON|OF)\s+([A-Z0-9][A-Z0-9 :,—–&-]{15,})$", text[a:b])
    if m:
        return _strip(text, a + m.start(1), a + m.end(1))
    return None


_LOCATION = re.compile(r"^[A-Z][\w .'-]+,\s*[A-Z][\w .'-]*(?:,\s*[A-Z][\w .'-]*)?$")


def title_after(text: str, a: int, b: int) -> Span | None:
    """A talk or paper listed as "Venue, 2023" with its title on the next line."""
    if _YEAR_END.search(text[a:b]):
        nxt = re.match(r"\n+\s*([^\n]{12,200})", text[b:])
        line = nxt.group(1).strip() if nxt else ""
        if (nxt and not _BULLETISH.match(line) and not _YEAR_ANY.search(line) and len(line.split()) >= 3
                and not _LOCATION.match(line)):
            return _strip(text, b + nxt.start(1), b + nxt.end(1))
    return None


def _real_degree(m: re.Match[str]) -> bool:
    """"MA" in "Boston, MA." is a state: a bare two-letter degree needs "in"/"of" after it."""
    token = re.match(r"[A-Za-z.'\s]+?(?=[\s,(]|$)", m.group(0))
    word = token.group(0) if token else m.group(0)
    if "." in word.strip().rstrip(".") or len(word.strip().rstrip(".")) > 3:
        return True
    return bool(re.match(r"\s+(?:in|of)\b", m.group(0)[len(word):]))


def degree(text: str, a: int, b: int, q: Question) -> Span | None:
    m = next((m for m in _DEGREE.finditer(text, a, b) if _real_degree(m)), None)
    if not m:
        return None
    seg = m.group(0)
    cut = re.search(r",?\s*(?:\(?GPA\b|\$GPA|\bGPA:|\t|\s{2,}|Graduate Teaching|(?<=[a-z]{2})\.\s+[A-Z])", seg)
    end = m.start() + (cut.start() if cut else len(seg))
    return _strip(text, m.start(), end)


_ROLE_BY = re.compile(
    r"\b(?:advis(?:ed|or|er)|supervis(?:ed|or)|mentor(?:ed)?|co-?advis(?:ed|or)|hosted|led)\s*(?:by|:|is|was)?\s*"
    r"(?:Prof(?:essor)?\.?\s+|Dr\.?\s+)?", re.I,
)
_NOT_PERSON = re.compile(
    r"\b(?:Performance|Computing|Learning|Machine|Science|Engineering|Systems?|Networks?|Data|Research|"
    r"Conference|Award|Graph|Neural|Language|Models?|Cloud|University|Institute|Technolog\w*|Intelligence)\b"
)


def person(text: str, a: int, b: int, q: Question, exclude: Iterable[str]) -> Span | None:
    """A person's name: after "advised by" / "advisor:" when written so, else the first name-like span."""
    exclude = [e for e in exclude if e]
    for m in _ROLE_BY.finditer(text, a, b):
        n = _NAME.match(text, m.end(), b)
        if n and not _NOT_PERSON.search(n.group(0)):
            return n.start(), n.end()
    for m in _NAME.finditer(text, a, b):
        if _NOT_PERSON.search(m.group(0)):
            continue
        name = m.group(0)
        if _ORG_WORD.search(name) or any(names_match(name, e) for e in exclude):
            continue
        if keys_of(name) & q.terms:
            continue
        return m.start(), m.end()
    return None


def define(text: str, a: int, b: int, q: Question) -> Span | None:
    """"X: what it is" (a titled entry) or the sentence naming X."""
    for t in q.terms:
        m = re.search(rf"\b{re.escape(t)}\w*\s*:\s*[^\n\"”]+", text[a:b], re.I)
        if m:
            return _strip(text, a + m.start(), a + m.end())
    return None


def listing(text: str, a: int, b: int, q: Question) -> Span | None:
    i = text.find(":", a, b)
    if i < 0 or b - i < 3:
        return None
    return _strip(text, i + 1, b)


def extract(slot: str, text: str, unit: Span, window: Span, q: Question, owner: str | None) -> Span | None:
    """The short fact for `slot` in `text` around `unit`: in the unit, then the lines of its `window`
    below it, then above it (offsets into `text`), or None."""
    a, b = unit
    for span in ((a, b), (b, window[1]), (window[0], a)):
        if span[1] - span[0] < 2:
            continue
        found = _extract(slot, text, span, (window[0], b), q, owner)
        if found:
            return found
    return title_after(text, a, b) if slot == "title" else None


def _extract(slot: str, text: str, unit: Span, window: Span, q: Question, owner: str | None) -> Span | None:
    a, b = unit
    if slot == "number":
        return number(text, a, b, q)
    if slot == "date":
        return date(text, a, b, q) or date(text, window[0], b, q)
    if slot == "org":
        return org(text, a, b, window, q)
    if slot == "venue":
        return venue(text, a, b, q)
    if slot == "title":
        return title(text, a, b, window, q)
    if slot == "degree":
        return degree(text, a, b, q)
    if slot == "person":
        return person(text, a, b, q, [owner or ""])
    if slot == "define":
        return define(text, a, b, q)
    if slot == "list":
        return listing(text, a, b, q)
    return None
