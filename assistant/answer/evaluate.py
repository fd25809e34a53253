"""`citewise eval qa` answer metrics per split and question type, beside a rule-free baseline.

For QA records `{"q", "docs", "gold", "answer", "split"?, "type"?}`:
- split: the record's `split` ("tune" when absent);
- type: the record's `type`, else derived from the record alone: "unanswerable" (no answer groups),
  "who" (several documents hold the answer), else "fact";
- accuracy: answered, and every answer group has an alternative in the text (`answer_eval`);
- concise accuracy: right and, `[n]` markers removed, at most 300 characters (a "who" answer: at
  most 120 per expected person);
- false abstentions, unanswerables abstained, who coverage (share of listed documents cited) and
  quote validity (quotes that are exact substrings of their stored chunk);
- lead: of the fact answers that lead with a phrase (a date, number, name or place; `Answer.fact`),
  how many phrases hold every answer group themselves ("k/n"; the rest of the answer may still be
  right).

The baseline answers from the top-4 search hits with the window (whole lines, at most 300
characters) whose MiniLM cosine to the question + 0.5 x question-word overlap - 0.05 x hit rank is
highest; it never abstains. It is computed in the same run so every change is seen against it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from index import Embedder, Hit, Searcher

from ..answer_eval import AnswerScore, holds_answer, score_answer
from . import Answer, citation_from_hit

CONCISE = 300
CONCISE_PER_PERSON = 120
_MARK = re.compile(r"\s*\[\d+\]")
_WORD = re.compile(r"\w+")


def split_of(record: dict[str, Any]) -> str:
    return str(record.get("split") or "tune")


def type_of(record: dict[str, Any]) -> str:
    if record.get("type"):
        return str(record["type"])
    if not record.get("answer"):
        return "unanswerable"
    return "who" if len(record.get("docs") or []) >= 2 else "fact"


def is_concise(record: dict[str, Any], answer: Answer) -> bool:
    text = _MARK.sub("", answer.answer).strip()
    if type_of(record) == "who" or answer.kind == "people":
        people = max(len(record.get("answer") or []), len(record.get("docs") or []), len(answer.people), 1)
        return len(text) <= CONCISE_PER_PERSON * people
    return len(text) <= CONCISE


@dataclass(frozen=True)
class Scored:
    record: dict[str, Any]
    score: AnswerScore
    concise: bool
    answer: Answer


def score(record: dict[str, Any], answer: Answer, chunk_text: Callable[[str], str | None]) -> Scored:
    s = score_answer(record, answer, chunk_text)
    return Scored(record, s, s.correct and s.answerable and is_concise(record, answer), answer)


def metrics(items: Sequence[Scored]) -> dict[str, float]:
    answerable = [i for i in items if i.score.answerable]
    unanswerable = [i for i in items if not i.score.answerable]
    cov = [i.score.coverage for i in items if i.score.coverage is not None and type_of(i.record) == "who"]
    quotes = sum(i.score.quotes for i in items)
    n = len(answerable)
    return {
        "questions": float(len(items)),
        "accuracy": sum(i.score.correct for i in answerable) / n if n else float("nan"),
        "concise": sum(i.concise for i in answerable) / n if n else float("nan"),
        "false_abst": float(sum(i.score.abstained for i in answerable)),
        "answerable": float(n),
        "unans_abst": float(sum(i.score.abstained for i in unanswerable)),
        "unanswerable": float(len(unanswerable)),
        "who_cov": sum(cov) / len(cov) if cov else float("nan"),
        "quotes_ok": sum(i.score.valid_quotes for i in items) / quotes if quotes else 1.0,
        "leads": float(len(leads := [i for i in answerable if i.answer.fact and not i.answer.abstained])),
        "leads_ok": float(sum(holds_answer(i.record.get("answer") or [], i.answer.fact) for i in leads)),
    }


def breakdown(items: Sequence[Scored]) -> dict[str, dict[str, float]]:
    """Metrics per split, per split/type, and overall."""
    out: dict[str, dict[str, float]] = {}
    for split in sorted({split_of(i.record) for i in items}, key=lambda s: (s != "tune", s)):
        in_split = [i for i in items if split_of(i.record) == split]
        out[split] = metrics(in_split)
        for t in sorted({type_of(i.record) for i in in_split}):
            out[f"{split}/{t}"] = metrics([i for i in in_split if type_of(i.record) == t])
    return out


def table(results: dict[str, dict[str, dict[str, float]]]) -> str:
    """One row per (split or split/type, system): accuracy, concise, abstentions, coverage, quotes, leads."""
    lines = [f"{'split/type':<22}{'system':<10}{'n':>4}{'acc':>7}{'concise':>9}{'false-abst':>12}"
             f"{'unans-abst':>12}{'who-cov':>9}{'quotes':>8}{'lead':>8}"]
    systems = list(results)
    rows = list(next(iter(results.values())).keys()) if results else []
    for row in rows:
        for system in systems:
            m = results[system].get(row)
            if m is None:
                continue
            fa = f"{m['false_abst']:.0f}/{m['answerable']:.0f}"
            ua = f"{m['unans_abst']:.0f}/{m['unanswerable']:.0f}"
            cov = "-" if np.isnan(m["who_cov"]) else f"{m['who_cov']:.2f}"
            acc = "-" if np.isnan(m["accuracy"]) else f"{m['accuracy']:.3f}"
            con = "-" if np.isnan(m["concise"]) else f"{m['concise']:.3f}"
            lead = f"{m['leads_ok']:.0f}/{m['leads']:.0f}" if m.get("leads") else "-"
            lines.append(f"{row:<22}{system:<10}{m['questions']:>4.0f}{acc:>7}{con:>9}{fa:>12}{ua:>12}{cov:>9}"
                         f"{m['quotes_ok']:>8.2f}{lead:>8}")
    return "\n".join(lines)


# -- the rule-free baseline ----------------------------------------------------------------------
def line_windows(text: str, limit: int = CONCISE) -> list[tuple[int, int]]:
    """Consecutive whole lines packed into windows of at most `limit` characters (a longer line alone)."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text) if m.group(0).strip()]
    out: list[tuple[int, int]] = []
    cur: tuple[int, int] | None = None
    for a, b in spans:
        if cur is None:
            cur = (a, b)
        elif b - cur[0] <= limit:
            cur = (cur[0], b)
        else:
            out.append(cur)
            cur = (a, b)
    if cur is not None:
        out.append(cur)
    return out


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def baseline_answer(question: str, searcher: Searcher, embedder: Embedder, k: int = 4) -> Answer:
    """The rule-free window baseline (see the module docstring); never abstains."""
    hits: list[Hit] = searcher.search(question, k)
    cands = [(i, a, b) for i, h in enumerate(hits) for a, b in line_windows(h.text)]
    if not cands:
        return Answer(question, "", True, kind="abstain")
    qv = embedder.embed_query(question)
    vecs = embedder.embed_documents([" ".join(hits[i].text[a:b].split()) for i, a, b in cands])
    qw = _words(question)
    best, best_score = cands[0], -1e9
    for (i, a, b), v in zip(cands, vecs, strict=True):
        overlap = len(qw & _words(hits[i].text[a:b])) / len(qw) if qw else 0.0
        s = float(np.dot(qv, v)) + 0.5 * overlap - 0.05 * i
        if s > best_score:
            best, best_score = (i, a, b), s
    i, a, b = best
    c = citation_from_hit(1, hits[i], a, b, score=best_score)
    return Answer(question, f"{' '.join(c.quote.split())} [1]", False, (c,))


def run(ask: Callable[[str], Answer], records: Iterable[dict[str, Any]],
        chunk_text: Callable[[str], str | None]) -> list[Scored]:
    return [score(r, ask(str(r["q"])), chunk_text) for r in records]


def evaluate_index(store: Any, embedder: Embedder, records: Sequence[dict[str, Any]], *,
                   writer: Any = None, baseline: bool = True, assistant: Any = None,
                   ) -> tuple[dict[str, dict[str, dict[str, float]]], dict[str, list[Scored]]]:
    """Answer every record with the assistant (and the baseline) over `store`; metrics per system."""
    from ..api import Assistant

    assistant = assistant or Assistant(store, embedder, writer)

    def chunk_text(chunk_id: str) -> str | None:
        chunk = store.chunk(chunk_id)
        return chunk.text if chunk else None

    scored = {"reader": run(assistant.ask, records, chunk_text)}
    if baseline:
        scored["baseline"] = run(lambda q: baseline_answer(q, assistant.searcher, assistant.embedder), records,
                                 chunk_text)
    return {name: breakdown(items) for name, items in scored.items()}, scored
