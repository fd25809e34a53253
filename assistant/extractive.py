"""The default answer writer: extractive, offline, no LLM.

Retrieved chunks are cut into passages (lines, and sentences of long lines); each passage is scored
by the cosine of its embedding with the question's plus the share of the question's key terms it
contains. The best passage, widened to the short lines of its entry (a CV entry spreads an
institution, a place and a degree over several lines), is the answer; close runners-up from other
chunks are added as further cited points. Every quote is a slice of the chunk text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from index import Embedder, Hit

from .answer import Answer, Citation, citation_from_hit

STOPWORDS = frozenset(
    """a an the of in on at to for from by with and or is are was were be been being do does did done has have
    had what which who whom whose where when why how that this these those it its as into about their his her
    they them he she i you we our your my me any some all can could would should will shall may might than
    then there here not no yes so such also just only more most very de la""".split()
)
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+#-]*[A-Za-z0-9+#]|[A-Za-z0-9]")


def key_terms(text: str) -> set[str]:
    """Lower-cased content words; dots dropped so "Ph.D" and "PhD" meet."""
    return {t.lower().replace(".", "") for t in _TOKEN.findall(text) if t.lower() not in STOPWORDS and len(t) > 1}


@dataclass(frozen=True)
class Passage:
    hit: int  # index into hits
    start: int  # offsets in the hit's text
    end: int


def passages(text: str, hit: int, max_len: int = 300) -> list[Passage]:
    """Lines of `text`; long lines split into sentences."""
    out: list[Passage] = []
    for m in re.finditer(r"[^\n]+", text):
        line_start, line = m.start(), m.group(0)
        if len(line.strip()) < 3:
            continue
        if len(line) <= max_len:
            out.append(Passage(hit, line_start, m.end()))
            continue
        pos = 0
        for s in re.finditer(r"(?<=[.!?])\s+(?=[A-Z0-9(\"])", line):
            out.append(Passage(hit, line_start + pos, line_start + s.start()))
            pos = s.end()
        out.append(Passage(hit, line_start + pos, m.end()))
    return [p for p in out if p.end - p.start >= 3]


def widen(text: str, start: int, end: int, limit: int = 320) -> tuple[int, int]:
    """Grow a one-line passage over the neighbouring short lines of the same entry."""
    lines = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text)]
    idx = next((i for i, (a, b) in enumerate(lines) if a <= start < b or a >= start), None)
    if idx is None:
        return start, end
    lo, hi = start, end
    i = idx - 1
    while i >= 0 and i >= idx - 2 and (lines[i][1] - lines[i][0]) <= 80 and hi - lines[i][0] <= limit:
        if lines[i][1] - lines[i][0] < 3 or text[lines[i][0]] == "-":
            break
        lo = lines[i][0]
        i -= 1
    return lo, hi


class ExtractiveWriter:
    """Answers with exact passages of the retrieved chunks."""

    def __init__(self, embedder: Embedder, max_points: int = 3, relative_cutoff: float = 0.85) -> None:
        self.embedder = embedder
        self.max_points = max_points
        self.relative_cutoff = relative_cutoff

    def score(self, question: str, hits: Sequence[Hit]) -> list[tuple[float, Passage]]:
        cands = [p for i, h in enumerate(hits) for p in passages(h.text, i)]
        if not cands:
            return []
        terms = key_terms(question)
        texts = [hits[p.hit].text[p.start : p.end] for p in cands]
        q = self.embedder.embed_query(question)
        sims = self.embedder.embed_documents(texts) @ q
        scored = []
        for p, t, sim in zip(cands, texts, sims, strict=True):
            # Words naming the document's person or title locate the document; they do not answer.
            context = key_terms(f"{hits[p.hit].owner or ''} {hits[p.hit].title}")
            asked = terms - context or terms
            overlap = len(asked & key_terms(t)) / len(asked) if asked else 0.0
            scored.append((float(sim) + 0.5 * overlap, p))
        scored.sort(key=lambda x: -x[0])
        return scored

    def write(self, question: str, hits: Sequence[Hit]) -> Answer:
        if not hits:
            return Answer(question, "Your documents don't say: nothing in the index matches this question.", True)
        scored = self.score(question, hits)
        if not scored:
            return Answer(question, "Your documents don't say: the retrieved passages hold no text.", True)
        best = scored[0][0]
        chosen: list[tuple[float, Passage]] = []
        used_hits: set[int] = set()
        for s, p in scored:
            if len(chosen) >= self.max_points or s < best * self.relative_cutoff:
                break
            if p.hit in used_hits:
                continue
            used_hits.add(p.hit)
            chosen.append((s, p))
        citations: list[Citation] = []
        lines: list[str] = []
        for s, p in chosen:
            hit = hits[p.hit]
            start, end = widen(hit.text, p.start, p.end)
            n = len(citations) + 1
            citations.append(citation_from_hit(n, hit, start, end, score=s))
            quote = " ".join(hit.text[start:end].split())
            lines.append(f"{quote} [{n}]" if len(chosen) == 1 else f"- {quote} [{n}]")
        return Answer(question, "\n".join(lines), False, tuple(citations))
