"""Rerankers: a query and candidate `Hit`s in, the same hits re-scored and re-ranked out.

`Reranker` is the seam; `CrossEncoderReranker` wraps a sentence-transformers `CrossEncoder` from a
local path the user gives; `ReadingReranker` re-scores with citewise's own reading model
(`index.reading`; `retrieval.reranker = "reading"`). Reranking is off by default: the reading model,
trained to tell whether a short passage answers a question, re-ranked BEIR chunks worse than the
fused search (docs/reading-model.md). Blending the reranker's score with the first-stage score is
left out: a cross-encoder that is worth loading is better on its own.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .embed import quiet_loading
from .errors import IndexError_

if TYPE_CHECKING:
    from .search import Hit

log = logging.getLogger(__name__)


class RerankerError(IndexError_):
    """A reranker model could not be loaded."""


@runtime_checkable
class Reranker(Protocol):
    def rerank(self, query: str, hits: Sequence[Hit]) -> list[Hit]:
        """`hits` re-ranked for `query`: best first, ranks renumbered from 1, scores replaced."""
        ...


def reorder(hits: Sequence[Hit], scores: Sequence[float]) -> list[Hit]:
    """`hits` sorted by `scores` (stable for ties), with new ranks and scores."""
    order = sorted(range(len(hits)), key=lambda i: -scores[i])
    return [dataclasses.replace(hits[i], rank=r, score=float(scores[i])) for r, i in enumerate(order, 1)]


class CrossEncoderReranker:
    """A local sentence-transformers cross-encoder (a directory with its weights), loaded lazily."""

    def __init__(self, path: str, batch_size: int = 16, device: str = "cpu", max_chars: int = 2000) -> None:
        self.path = os.path.expanduser(path)
        self.batch_size = batch_size
        self.device = device
        self.max_chars = max_chars
        self._model: Any = None
        self._lock = threading.Lock()

    def model(self) -> Any:
        with self._lock:
            if self._model is None:
                if not os.path.isdir(self.path):
                    raise RerankerError(f"No cross-encoder at {self.path}: give the directory of a local model.")
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                from sentence_transformers import CrossEncoder

                try:
                    with quiet_loading():
                        self._model = CrossEncoder(self.path, device=self.device)
                except Exception as exc:
                    raise RerankerError(f"Cannot load the cross-encoder at {self.path}: {exc}") from exc
                log.info("loaded cross-encoder %s", self.path)
            return self._model

    def rerank(self, query: str, hits: Sequence[Hit]) -> list[Hit]:
        if not hits:
            return []
        pairs = [(query, f"{h.title} | {h.section}\n{h.text}"[: self.max_chars]) for h in hits]
        scores = self.model().predict(pairs, batch_size=self.batch_size, show_progress_bar=False)
        return reorder(hits, [float(s) for s in scores])


class ReadingReranker:
    """The reading model (`index.reading`) as a reranker: each hit's probability of answering the query
    (its first `max_tokens` tokens are read, beside the query)."""

    def __init__(self, model: Any = None, max_chars: int = 2000) -> None:
        from .reading import PackagedReader

        self.model = model or PackagedReader()
        self.max_chars = max_chars

    def rerank(self, query: str, hits: Sequence[Hit]) -> list[Hit]:
        if not hits:
            return []
        reads = self.model.read([(query, h.text[: self.max_chars]) for h in hits])
        return reorder(hits, [r.p for r in reads])
