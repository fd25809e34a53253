"""Evidence units: the lines and sentences of retrieved chunks, scored by how well they support a question.

A unit is a line of a chunk (a long line is cut into sentences). Its *window* is the unit plus the
few lines just above it in the same chunk (a CV entry spreads an employer, a role and dates over
several short lines). A question's key-term group is supported
- by the unit itself (weight 1.0),
- by its window (0.8),
- by what locates the chunk: section heading, document title, owner (0.6),
and `support` is the mean over the groups (0 for a group nowhere to be found). This is the measured
rule behind abstention (see `abstain`): a missing key term cannot be made up by a high cosine.
Acronyms defined in the retrieved text ("International Conference on Machine Learning (ICML)") count
as their expansions. Left out: synonyms beyond `question.EQUIVALENT`, and units spanning two chunks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from index import Hit

from .question import Question, classes_of, keys_of, supports, term_key

IN_UNIT, IN_WINDOW, IN_CONTEXT = 1.0, 0.8, 0.6
# Section headings a question's words point to ("PhD" -> Education): they rank units, never decide.
SECTION_HINTS: dict[str, tuple[str, ...]] = {
    "education": ("phd", "degree", "university", "school", "college", "study", "gpa", "undergraduate", "bachelor",
                  "master", "graduate", "advisor", "major", "course"),
    "experience": ("employment", "company", "employer", "job", "intern", "internship", "position", "role"),
    "award": ("award", "prize", "honor", "honour", "fellowship", "win", "won"),
    "talk": ("talk", "present", "presentation", "seminar", "lecture", "keynote"),
    "publication": ("paper", "publication", "publish", "article", "venue", "journal", "conference"),
    "teaching": ("teach", "taught", "ta", "course", "lecture"),
    "skill": ("language", "skill", "tool", "technology", "programm"),
    "service": ("review", "reviewer", "committee", "service"),
}
WINDOW_LINES = 3
_BULLET = re.compile(r"^\s*(?:[-•·*○◦▪–]|\\bullet|\$\\bullet\$)\s*")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
_ACRONYM = re.compile(r"((?:[A-Z][\w&/-]*\s+(?:(?:on|of|for|and|in|the|&)\s+)*){2,9})\(([A-Z][A-Za-z0-9&-]{1,11})\)")


@dataclass(frozen=True)
class Unit:
    hit: int  # index into the hits
    start: int  # [start, end) in the hit's text
    end: int
    window_start: int  # where the window of lines above the unit begins
    line_end: int  # end of the unit's line (a sentence unit ends before it)
    is_bullet: bool
    is_header: bool  # a short line that is not a bullet (an entry's employer, role, date)
    below_end: int = 0  # a header's window also covers the short lines right under it
    header_start: int = 0  # a header's run of header lines starts here (the entry's first line)

    @property
    def window_end(self) -> int:
        return max(self.line_end, self.below_end)


@dataclass(frozen=True)
class Scored:
    unit: Unit
    support: float  # mean over the question's term groups of where each is found (see module doc)
    soft: float  # share of the question's framing words found (ranks, never decides)
    missing: tuple[str, ...]  # term groups found nowhere (as "a|b")

    def key(self) -> tuple[float, float]:
        return (self.support, self.soft)


def units(text: str, hit: int, max_line: int = 300) -> list[Unit]:
    """The lines (and sentences of long lines) of a chunk's `text`."""
    lines = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text) if m.group(0).strip()]
    kinds = [("bullet" if _BULLET.match(text[a:b]) else "header" if len(text[a:b].strip()) <= 90 else "body")
             for a, b in lines]
    out: list[Unit] = []
    for i, (a, b) in enumerate(lines):
        line = text[a:b]
        wstart = lines[max(0, i - WINDOW_LINES)][0]
        bullet, header = kinds[i] == "bullet", kinds[i] == "header"
        if len(line) <= max_line:
            below = b
            hstart = a
            if header:
                j = i
                while j > 0 and i - j < WINDOW_LINES and kinds[j - 1] == "header":
                    j -= 1
                hstart = lines[j][0]
                for j in range(i + 1, min(len(lines), i + 3)):
                    if kinds[j] != "header":
                        break
                    below = lines[j][1]
            out.append(Unit(hit, a, b, wstart, b, bullet, header, below, hstart))
            continue
        # Sentences of a paragraph: the window is the lines above and the sentences before, not after.
        pos = 0
        for s in _SENTENCE.finditer(line):
            out.append(Unit(hit, a + pos, a + s.start(), wstart, a + s.start(), bullet and pos == 0, False))
            pos = s.end()
        out.append(Unit(hit, a + pos, b, wstart, b, bullet and pos == 0, False))
    return [u for u in out if u.end - u.start >= 3]


def acronyms(texts: Sequence[str]) -> dict[str, set[str]]:
    """Acronym key -> term keys of its expansion, from "Long Name (LN)" in `texts`."""
    found: dict[str, set[str]] = {}
    for t in texts:
        for m in _ACRONYM.finditer(t):
            words = m.group(1).split()
            letters = "".join(w[0] for w in words if w[0].isupper()).lower()
            acro = m.group(2).lower()
            if len(acro) >= 2 and acro.rstrip("s") in letters:
                found.setdefault(term_key(acro), set()).update(keys_of(m.group(1)))
    return found


class Scorer:
    """Scores units of `hits` against a `Question`; caches the term keys of every text it reads."""

    def __init__(self, question: Question, hits: Sequence[Hit]) -> None:
        self.q = question
        self.hits = hits
        self._keys: dict[tuple[int, int, int], set[str]] = {}
        self.acronyms = acronyms([h.text for h in hits])
        self._context = [self._with_acronyms(keys_of(f"{h.section} {h.title} {h.owner or ''}")) for h in hits]
        self._name_keys = {k for n in question.other_names for k in keys_of(n)}
        asked = question.terms | question.soft
        hinted = {sec for sec, words in SECTION_HINTS.items() if asked & {term_key(w) for w in words}}
        self._hinted = [any(sec in h.section.lower() for sec in hinted) for h in hits]

    def _with_acronyms(self, keys: set[str]) -> set[str]:
        extra = {a for a, exp in self.acronyms.items() if len(exp) >= 2 and exp <= keys}
        return keys | extra

    def keys(self, hit: int, start: int, end: int) -> set[str]:
        k = (hit, start, end)
        if k not in self._keys:
            self._keys[k] = self._with_acronyms(keys_of(self.hits[hit].text[start:end]))
        return self._keys[k]

    def score(self, u: Unit) -> Scored:
        own = self.keys(u.hit, u.start, u.end)
        window = self.keys(u.hit, u.window_start, u.window_end) | own
        context = self._context[u.hit]
        own_c, win_c, ctx_c = classes_of(own), classes_of(window), classes_of(context)
        total = 0.0
        missing: list[str] = []
        for group in self.q.groups:
            if any(supports(t, own, own_c) for t in group):
                total += IN_UNIT
            elif any(supports(t, window, win_c) for t in group):
                total += IN_WINDOW
            elif any(supports(t, context, ctx_c) for t in group):
                # A name the question writes that is the document's title or owner locates the
                # document as fully as a named owner would; other words found only there count less.
                total += IN_UNIT if group <= self._name_keys else IN_CONTEXT
            else:
                missing.append("|".join(sorted(group)))
        support = total / len(self.q.groups) if self.q.groups else 0.0
        allk = window | context
        all_c = classes_of(allk)
        soft = (sum(supports(t, allk, all_c) for t in self.q.soft) / len(self.q.soft)) if self.q.soft else 0.0
        soft += 0.5 * self._hinted[u.hit]
        return Scored(u, support, soft, tuple(missing))

    def rank(self, hit_ids: Sequence[int] | None = None) -> list[Scored]:
        """Every unit of the chosen hits (all by default), best supported first, retrieval order breaking ties."""
        ids = range(len(self.hits)) if hit_ids is None else hit_ids
        scored = [(self.score(u), n) for n, i in enumerate(ids) for u in units(self.hits[i].text, i)]
        scored.sort(key=lambda x: (-x[0].support, -x[0].soft, x[1], x[0].unit.start))
        return [s for s, _ in scored]
