"""Answer metrics for `citewise eval qa`: is the answer right, honest, and provably quoted?

For QA records `{"q", "docs", "gold", "answer": [[alternatives], ...]}` (see `index.evaluate.load_qa`):
- answer accuracy: answerable items (non-empty `answer`) not abstained on whose answer text contains,
  for every group, one of its alternatives (case and spacing ignored);
- abstention accuracy: unanswerable items (empty `answer`) abstained on; false abstentions and false
  answers are counted too;
- citation precision: cited chunks of answered, answerable items that come from a listed document;
  citation gold rate: those that also contain a gold string;
- quote validity: quotes (citations and related passages) that are exact substrings of the stored
  chunk; anything below 100 % is a bug;
- person coverage: for questions over several documents, or answered as a "people" list, the share
  of listed documents the answer cites.
Left out: judging paraphrases (an answer must contain the expected words) and answer fluency.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .answer import Answer


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def holds_answer(groups: Sequence[Sequence[str]], text: str) -> bool:
    """Does `text` hold an alternative of every answer group (case and spacing ignored)?"""
    norm = _norm(text)
    return bool(groups) and all(any(_norm(a) in norm for a in g) for g in groups)


@dataclass(frozen=True)
class AnswerScore:
    id: str
    question: str
    answerable: bool
    abstained: bool
    correct: bool  # answerable: all groups matched; unanswerable: abstained
    citations: int
    from_listed_doc: int
    with_gold: int
    quotes: int
    valid_quotes: int
    coverage: float | None  # None when the item is not a multi-person / people question

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def score_answer(record: dict[str, Any], answer: Answer, chunk_text: Callable[[str], str | None]) -> AnswerScore:
    """Score one `answer` to the QA `record`; `chunk_text(chunk_id)` reads the stored chunk."""
    groups: list[list[str]] = [list(g) for g in record.get("answer") or []]
    docs: list[str] = list(record.get("docs") or [])
    gold = [_norm(g) for g in record.get("gold") or []]
    answerable = bool(groups)
    # answerable: answered with every group; unanswerable: abstained
    correct = (not answer.abstained and holds_answer(groups, answer.answer)) if answerable else answer.abstained
    listed = with_gold = 0
    for c in answer.citations:
        name = Path(c.doc).name
        if any(name.startswith(p) for p in docs):
            listed += 1
            stored = chunk_text(c.chunk_id) or ""
            if any(g in _norm(stored) for g in gold):
                with_gold += 1
    quotes = [*answer.citations, *answer.related]
    valid = sum(1 for c in quotes if c.quote and c.quote in (chunk_text(c.chunk_id) or ""))
    coverage = None
    if answerable and (len(docs) >= 2 or answer.kind == "people"):
        cited = {Path(c.doc).name for c in answer.citations}
        coverage = sum(1 for p in docs if any(n.startswith(p) for n in cited)) / len(docs) if docs else 1.0
    return AnswerScore(
        str(record.get("id", "")), str(record.get("q", "")), answerable, answer.abstained, correct,
        len(answer.citations) if answerable and not answer.abstained else 0, listed, with_gold, len(quotes), valid,
        coverage,
    )


def answer_metrics(scores: Sequence[AnswerScore]) -> dict[str, float]:
    """Aggregate `AnswerScore`s (see the module docstring)."""
    answerable = [s for s in scores if s.answerable]
    unanswerable = [s for s in scores if not s.answerable]
    cited = sum(s.citations for s in answerable)
    quotes = sum(s.quotes for s in scores)
    covered = [s.coverage for s in scores if s.coverage is not None]
    return {
        "answer_accuracy": sum(s.correct for s in answerable) / len(answerable) if answerable else 0.0,
        "abstention_accuracy": sum(s.correct for s in unanswerable) / len(unanswerable) if unanswerable else 0.0,
        "false_abstentions": float(sum(s.abstained for s in answerable)),
        "false_answers": float(sum(not s.abstained for s in unanswerable)),
        "citation_precision": sum(s.from_listed_doc for s in answerable) / cited if cited else 0.0,
        "citation_gold_rate": sum(s.with_gold for s in answerable) / cited if cited else 0.0,
        "quote_validity": sum(s.valid_quotes for s in scores) / quotes if quotes else 1.0,
        "person_coverage": sum(covered) / len(covered) if covered else 1.0,
        "answerable": float(len(answerable)),
        "unanswerable": float(len(unanswerable)),
    }


def evaluate_answers(ask: Callable[[str], Answer], records: Iterable[dict[str, Any]],
                     chunk_text: Callable[[str], str | None]) -> tuple[dict[str, float], list[AnswerScore]]:
    """Ask every record's question with `ask` and score the answers."""
    scores = [score_answer(r, ask(str(r["q"])), chunk_text) for r in records]
    return answer_metrics(scores), scores
