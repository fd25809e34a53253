"""Step 4 of the reader: the reading model reads the best candidates against the question.

The candidate ranker (`features` + `model.ReaderModel.prob`) sees cosines and word overlaps: it cannot
tell the passage that answers from the one that restates the question. The reading model
(`index.reading`, a cross-encoder trained by `python -m training.train`) reads the question against
each passage, but costs about 20 ms a window on two cores, so it reads only the `k` best candidates
by the ranker's probability (and, for a "who" question, every document's best one, so each person is
judged on a read passage). It reads the question without the names that located the documents
(`features.focus`) and without the name-like words that located the one document a question named by a
fact (`resolve.located`: "Kenai", "03/14/2009"), as the ranker's overlaps leave them out: the window of a
CV seldom repeats its owner's name, and a report's header block repeats its place and date, but neither
says what was asked.

Returned per candidate (`Reread`): the reading model's probability that it answers (nan where it was
not read), its span head's margin over "no answer", and the answer phrase it points at (offsets in
the chunk text, inside the candidate) or (-1, -1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from index import Hit
from index.reading import ReadingModel

from .candidates import Candidate
from .features import focus, without_names


@dataclass(frozen=True)
class Reread:
    p: np.ndarray  # (len(cands),): probability from the reading model, nan when not read
    margin: np.ndarray  # (len(cands),): span margin over "no answer", nan when not read
    span: tuple[tuple[int, int], ...]  # answer phrase in the chunk text, (-1, -1) when none


def unread(n: int) -> Reread:
    return Reread(np.full(n, np.nan, np.float32), np.full(n, np.nan, np.float32), ((-1, -1),) * n)


def chosen(hits: Sequence[Hit], cands: Sequence[Candidate], p: np.ndarray, k: int, per_doc: bool) -> list[int]:
    """The candidates to read: the `k` most likely by `p`, and with `per_doc` each document's most likely."""
    order = [int(i) for i in np.argsort(-p, kind="stable")]
    out = dict.fromkeys(order[:k])
    if per_doc:
        seen: set[str] = set()
        for i in order:
            d = hits[cands[i].hit].doc
            if d not in seen:
                seen.add(d)
                out.setdefault(i)
    return list(out)


def reread(model: ReadingModel | None, question: str, hits: Sequence[Hit], cands: Sequence[Candidate],
           p: np.ndarray, k: int, per_doc: bool = False, located: frozenset[str] = frozenset()) -> Reread:
    """Read the chosen candidates (`chosen`) of `question` with `model` (None: nothing is read), the
    question without the words that `located` its document."""
    out = unread(len(cands))
    if model is None or not len(cands) or k <= 0:
        return out
    idx = chosen(hits, cands, p, k, per_doc)
    q = without_names(focus(question, hits), sorted(located))
    texts = [hits[cands[i].hit].text[cands[i].start:cands[i].end] for i in idx]
    reads = model.read([(q, t) for t in texts])
    span = list(out.span)
    for i, r in zip(idx, reads, strict=True):
        out.p[i] = r.p
        out.margin[i] = r.margin if np.isfinite(r.margin) else np.nan
        a, b = r.span
        if 0 <= a < b:
            span[i] = (cands[i].start + a, cands[i].start + b)
    return Reread(out.p, out.margin, tuple(span))
