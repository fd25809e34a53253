"""The pieces a text is read in: its non-empty lines, a line longer than `limit` characters cut into its
sentences, and a sentence still longer cut at a word boundary; (start, end) offsets, never copies.

`candidates` cuts every retrieved chunk this way, and the reading model's training examples
(`training/windows.py`) are cut by this very module, loaded there by its path: the model is trained on
windows exactly like the candidates it reads. So this module imports nothing but `re`."""

from __future__ import annotations

import re

LIMIT = 300
_LINE = re.compile(r"[^\n]+")
# a sentence ends at a run of stops followed by a space or the end; a stop inside a word ("1.32.0",
# "Node.js", "3.5 GB") ends nothing, and neither does the stop of an abbreviation (`_abbreviated`)
_STOPS = re.compile(r"[.!?]+(?=\s|$)")
_VOWELS = frozenset("aeiouyAEIOUY")


def sentences(text: str, a: int, b: int, limit: int = LIMIT) -> list[tuple[int, int]]:
    """(start, end) of the sentences of text[a:b], each cut to at most `limit` characters."""
    out: list[tuple[int, int]] = []
    ends = [m.end() for m in _STOPS.finditer(text, a, b) if not _abbreviated(text, m.start(), m.end(), b)]
    for s, e in zip([a, *ends], [*ends, b], strict=True):
        while s < e and text[s].isspace():
            s += 1
        while e - s > limit:
            cut = text.rfind(" ", s, s + limit)
            cut = cut if cut > s else s + limit
            out.append((s, cut))
            s = cut + 1
        if e > s:
            out.append((s, e))
    return out


def sentence_end(text: str, a: int, b: int) -> int | None:
    """Where the first sentence ending in text[a:b] ends (after its stops), or None."""
    for m in _STOPS.finditer(text, a, b):
        if not _abbreviated(text, m.start(), m.end(), b):
            return m.end()
    return None


def _abbreviated(text: str, stop: int, after: int, b: int) -> bool:
    """Is the single stop text[stop:after] an abbreviation's rather than a sentence's end? It is when the
    sentence goes on in lower case ("approx. five", "e.g. this"), or it closes an initial ("J. Smith",
    "U.S. Army") or a capitalised word with no vowel ("St. Johns River", "Dr. Roe", "Mrs. Doe"): English
    writes no word without one, so such a word is shortened. Orthography only: no list of abbreviations."""
    if after - stop != 1 or text[stop] != ".":
        return False  # "?", "!" and "..." end a sentence
    rest = text[after:b].lstrip()
    if rest[:1].islower():
        return True
    start = stop
    while start > 0 and stop - start < 4 and text[start - 1].isalpha():
        start -= 1
    last = text[start:stop] if start == 0 or not text[start - 1].isalnum() else ""  # the whole word, or none
    if len(last) == 1:
        return last.isalpha() and last.isupper()
    return 2 <= len(last) <= 3 and last[0].isupper() and last.isalpha() and not _VOWELS & set(last)


def pieces(text: str, limit: int = LIMIT) -> list[tuple[int, int, int]]:
    """(start, end, line number) of the pieces of `text`."""
    out: list[tuple[int, int, int]] = []
    for n, m in enumerate(_LINE.finditer(text)):
        a, b = m.start(), m.end()
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b <= a:
            continue
        spans = [(a, b)] if b - a <= limit else sentences(text, a, b, limit)
        out.extend((s, e, n) for s, e in spans)
    return out
