"""The present: does a question ask about it, and does a passage speak of it?

"Where does she work now?" is answered by the entry still running ("2021 - present"), not by the
latest one that ended. English's words for the time of speaking are a closed class of the language,
like stop words or prepositions, not a list fitted to any document. "present" is left out of what a
question asks with: it is as often the verb ("Which paper did he present?").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from index import Hit, Store

_NOW_WORDS = ("now", "current", "currently", "presently", "nowadays")
_NOW_ASKED = re.compile(rf"\b(?:{'|'.join(_NOW_WORDS)})\b", re.IGNORECASE)
_NOW_SAID = re.compile(rf"\b(?:{'|'.join((*_NOW_WORDS, 'present', 'today'))})\b", re.IGNORECASE)
# the open end of a period that has not ended ("Sep 2019 - present"); `detect` keeps it with the period
OPEN_END = re.compile(r"\s*[-‐‑‒–—]\s*(?:present|now|today|current|ongoing)\b", re.IGNORECASE)
_MONTH_YEAR = r"(?:(?:[A-Z][a-z]{2,8}\.?,?[ \t]+)?(?:1[5-9]\d\d|20\d\d))"
_OPEN_RANGE = re.compile(rf"{_MONTH_YEAR}{OPEN_END.pattern}|\bsince[ \t]+{_MONTH_YEAR}", re.IGNORECASE)
# or by leaving its end blank: "(August 2026– )", "2021 -" ending its line, unless the next line starts with
# the end date ("2019 -\n2021", a range wrapped by the layout)
_BLANK_END = re.compile(rf"{_MONTH_YEAR}[ \t]*[-‐‑‒–—][ \t]*(?:[)\]]|$(?![\r\n]+[ \t]*(?:[A-Za-z]{{3,9}}\.?,?[ \t]+)?\d))",
                        re.MULTILINE)


def asks_now(question: str) -> bool:
    """Does `question` ask about the present ("now", "current", "currently", ...)?"""
    return bool(_NOW_ASKED.search(question))


def open_range(text: str) -> bool:
    """Does `text` hold a date range still running: "2021 - present", "June 2011-present", "Oct. 2024 -
    PRESENT", "since 2025", "(August 2026– )"? What a CV, a report or a plan writes of what holds today."""
    return bool(_OPEN_RANGE.search(text) or _BLANK_END.search(text))


def says_now(text: str) -> bool:
    """Does `text` speak of the present: a date range still running (`open_range`) or one of English's
    words for the time of speaking ("I am currently ...", a heading "Current Research")?"""
    return bool(_NOW_SAID.search(text)) or open_range(text)


PRESENT_CHUNKS = 3  # chunks still running added per document of a person (see `with_present`)
PRESENT_HITS = 12  # and in all


def with_present(store: Store, hits: list[Hit], docs: Sequence[str]) -> list[Hit]:
    """`hits` and, after them, the first `PRESENT_CHUNKS` chunks of each of `docs` (in document order;
    `PRESENT_HITS` in all) holding a date range still running (`open_range`) that the search did not
    return: "Where does Jane Roe work now?" shares no word with "2021 - present  Senior analyst, Acme",
    while a person's documents are few enough to look through."""
    seen = {h.chunk_id for h in hits}
    out = list(hits)
    for doc in docs:
        room = min(PRESENT_CHUNKS, len(hits) + PRESENT_HITS - len(out))
        if room <= 0:
            break
        found = [c for c in store.chunks_of(doc) if c.chunk_id not in seen and open_range(c.text)]
        out.extend(Hit.from_chunk(len(out) + 1, c, 0.0) for c in found[:room])
    return out
