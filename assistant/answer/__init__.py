"""The cited `Answer`, its `Citation`s, and the `AnswerWriter` seam.

Whatever writes the answer, `verify_citations` runs before an answer is returned: a citation whose
quote is not an exact substring of its stored chunk, or whose chunk was not retrieved for this
question, is dropped, and `[n]` markers are renumbered to match what is left.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol

from index import Hit


@dataclass(frozen=True)
class Citation:
    n: int
    chunk_id: str
    doc: str
    page: int | None
    section: str
    quote: str  # an exact substring of the stored chunk text
    score: float
    owner: str | None = None
    quote_start: int = 0  # offset of the quote in the chunk text

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["score"] = round(self.score, 6)
        return d


@dataclass(frozen=True)
class PersonAnswer:
    """One matching person of a "who ..." answer: their evidence is `citations` (numbers into the answer's)."""

    name: str  # the document owner (or the document's title when no owner was detected)
    docs: tuple[str, ...]  # that person's documents that were searched
    citations: tuple[int, ...]
    owner_known: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "docs": list(self.docs), "citations": list(self.citations),
                "owner_known": self.owner_known}


@dataclass(frozen=True)
class Answer:
    question: str
    answer: str  # carries [n] markers that refer to `citations`
    abstained: bool
    citations: tuple[Citation, ...] = ()
    related: tuple[Citation, ...] = ()  # closest passages shown on abstention: related, not an answer
    notes: tuple[str, ...] = field(default=())  # e.g. coverage lines, flags on unsupported sentences
    kind: str = "fact"  # "fact" | "people" | "abstain"
    people: tuple[PersonAnswer, ...] = ()  # for "people" answers: every matching person, in answer order
    fact: str = ""  # the short fact the answer leads with, when there is one (an exact quote)
    searched: int = 0  # "people" answers: how many people (profiles) were searched
    resolved: str = ""  # the question as answered, after resolving a follow-up against the history
    confidence: float | None = None  # the reader's calibrated probability of its best candidate (None: no reader)

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.answer,
            "abstained": self.abstained,
            "citations": [c.to_dict() for c in self.citations],
            "related": [c.to_dict() for c in self.related],
            "notes": list(self.notes),
            "kind": self.kind,
            "people": [p.to_dict() for p in self.people],
            "fact": self.fact,
            "searched": self.searched,
            "resolved": self.resolved or self.question,
            "confidence": None if self.confidence is None else round(self.confidence, 4),
        }


class AnswerWriter(Protocol):
    """Writes an answer to `question` from retrieved `hits` only."""

    def write(self, question: str, hits: Sequence[Hit]) -> Answer: ...


_MARKER = re.compile(r"\[(\d+)\]")


def verify_citations(answer: Answer, hits: Sequence[Hit]) -> Answer:
    """Drop citations that are not exact quotes of retrieved chunks; renumber the markers."""
    retrieved = {h.chunk_id: h for h in hits}
    kept: list[Citation] = []
    renumber: dict[int, int] = {}
    for c in answer.citations:
        hit = retrieved.get(c.chunk_id)
        if hit is None or not c.quote or c.quote not in hit.text:
            continue
        start = c.quote_start if hit.text[c.quote_start : c.quote_start + len(c.quote)] == c.quote else hit.text.index(c.quote)
        renumber[c.n] = len(kept) + 1
        kept.append(replace(c, n=len(kept) + 1, quote_start=start))

    def fix(m: re.Match[str]) -> str:
        n = renumber.get(int(m.group(1)))
        return f"[{n}]" if n else ""

    text = _MARKER.sub(fix, answer.answer)
    related = tuple(c for c in answer.related if c.chunk_id in retrieved and c.quote in retrieved[c.chunk_id].text)
    people = tuple(
        replace(p, citations=tuple(renumber[n] for n in p.citations if n in renumber)) for p in answer.people
    )
    people = tuple(p for p in people if p.citations)
    fact = answer.fact if any(answer.fact and answer.fact in c.quote for c in kept) else ""
    return replace(answer, answer=re.sub(r"[ \t]+\n", "\n", text).strip(), citations=tuple(kept), related=related,
                   people=people, fact=fact)


def citation_from_hit(n: int, hit: Hit, start: int, end: int, score: float | None = None) -> Citation:
    return Citation(
        n=n, chunk_id=hit.chunk_id, doc=hit.doc, page=hit.page, section=hit.section,
        quote=hit.text[start:end], score=hit.score if score is None else score, owner=hit.owner, quote_start=start,
    )
