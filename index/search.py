"""Search over a `Store`: query in, ranked `Hit`s out.

`Searcher` is what the CLI, the API and the evaluator call; `mode` picks the retrieval method by
name from `MODES`, and "default" is what `citewise search` runs.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from .embed import Embedder
from .store import Store, StoredChunk


@dataclass(frozen=True)
class Hit:
    rank: int  # 1-based
    chunk_id: str
    doc: str
    page: int | None
    section: str
    text: str
    score: float
    owner: str | None = None
    title: str = ""
    start: int = 0
    end: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank, "chunk_id": self.chunk_id, "doc": self.doc, "page": self.page,
            "section": self.section, "text": self.text, "score": round(self.score, 6), "owner": self.owner,
        }

    @classmethod
    def from_chunk(cls, rank: int, chunk: StoredChunk, score: float) -> Hit:
        return cls(rank, chunk.chunk_id, chunk.doc, chunk.page, chunk.section, chunk.text, score,
                   chunk.owner, chunk.title, chunk.start, chunk.end)


def _to_hits(store: Store, scored: list[tuple[int, float]], k: int) -> list[Hit]:
    chunks = store.chunks_by_ids(i for i, _ in scored)
    hits: list[Hit] = []
    for i, score in scored:
        c = chunks.get(i)
        if c is not None:  # a chunk removed since the FAISS file was read is skipped
            hits.append(Hit.from_chunk(len(hits) + 1, c, score))
        if len(hits) == k:
            break
    return hits


def dense_search(store: Store, embedder: Embedder, query: str, k: int = 10,
                 docs: Collection[str] | None = None) -> list[Hit]:
    """Nearest chunks by cosine similarity of the query embedding (only in `docs` when given)."""
    q = embedder.embed_query(query)
    scored = store.dense_search(q, k) if docs is None else store.dense_search_in(q, docs, k)
    return _to_hits(store, scored, k)


# (store, embedder, query, k, docs) -> hits; `docs` restricts the search to those document paths.
SearchFn = Callable[[Store, Embedder, str, int, Collection[str] | None], list[Hit]]
MODES: dict[str, SearchFn] = {"dense": dense_search, "default": dense_search}


class Searcher:
    """A store and an embedder, searched by any mode in `MODES`."""

    def __init__(self, store: Store, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder

    def search(self, query: str, k: int = 10, mode: str = "default",
               docs: Collection[str] | None = None) -> list[Hit]:
        """The `k` best chunks for `query`; `docs` (document paths) restricts where to look."""
        try:
            fn = MODES[mode]
        except KeyError:
            raise ValueError(f"unknown search mode {mode!r}; choose one of: {', '.join(sorted(MODES))}") from None
        if not query.strip():
            return []
        return fn(self.store, self.embedder, query, k, docs)
