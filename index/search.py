"""Search over a `Store`: query in, ranked `Hit`s out.

`Searcher` is what the CLI, the API and the evaluator call; `mode` picks the retrieval method by
name from `MODES`:

- `dense`: cosine of the query embedding (FAISS, or the stored vectors of `docs`);
- `lexical`: FTS5 BM25 over chunk text and context with our tokenizer (`index.lexical`);
- `hybrid`: both, fused by plain reciprocal rank fusion (k=60), the textbook baseline;
- `default`: both, fused as measured best (`DEFAULT_FUSION`, chosen leave-one-collection-out by
  bench/loco.py); what `citewise search` runs. A chunk holding a query term that at most
  `rare_chunks` chunks hold (an identifier: a registration, a trial id, a course code) is never
  ranked below a chunk only the dense side found (`promote_rare`).

One step at a time, in one thread: embed the query, BM25 (`index.postings`: exact FTS5
ranking from cached term impacts, ~1.5 ms at 100k chunks), FAISS, fusion, feedback (off by default). On two cores
nothing gains from overlapping them: torch and FAISS spread their work over every core with
spinning OpenMP workers, and a second thread beside them slowed both more than it saved
(bench/scale.py, 100k chunks). Fused candidates are deduplicated (identical chunk text, as from a
file indexed under two paths, is shown once). An optional `Reranker` re-scores the top candidates.
Query expansion with an LLM is left out: nothing here may call a model that is not local and small.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from . import fuse, lexical
from .embed import Embedder
from .lexical import terms
from .rerank import Reranker
from .scope import find_scope
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
    ord: int = -1  # the chunk's place in its document (0: where it opens); -1 unknown

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank, "chunk_id": self.chunk_id, "doc": self.doc, "page": self.page,
            "section": self.section, "text": self.text, "score": round(self.score, 6), "owner": self.owner,
        }

    @classmethod
    def from_chunk(cls, rank: int, chunk: StoredChunk, score: float) -> Hit:
        return cls(rank, chunk.chunk_id, chunk.doc, chunk.page, chunk.section, chunk.text, score,
                   chunk.owner, chunk.title, chunk.start, chunk.end, chunk.ord)


@dataclass(frozen=True)
class Fusion:
    """How `default` fuses dense and lexical candidates.

    The defaults were chosen by leave-one-collection-out over Cranfield, CACM and realdocs (tune)
    among 264 configs (RRF k 10-100 and weights, convex min-max/z with weights, whole-document
    BM25 weight 0/0.5/1, feedback on/off, rare-term promotion on/off): `bench/loco.py`. Held out
    in turn, each collection's choice (chosen on the other two) was a convex fusion with document
    weight 0.5 and beat RRF(60) on it: Cranfield 0.424 vs 0.413, CACM 0.557 vs 0.537, realdocs
    0.775 vs 0.628 nDCG@10. Best over all three (shipped): convex min-max, dense 0.4, document
    weight 0.5, no feedback: 0.424 / 0.577 / 0.775; rare-term promotion scores the same on all
    three and is kept on for what it guarantees.
    """

    method: str = "convex"  # "convex" (normalised scores) or "rrf"
    norm: str = "minmax"  # convex: how scores are normalised (fuse.NORMS)
    dense_weight: float = 0.4  # weight of the dense list, lexical gets 1 - this (rrf: 0.5 = equal weights)
    rrf_k: float = 60.0
    depth: int = 100  # candidates taken from each list (at least 2k)
    context_weight: float = 1.0  # BM25 weight of the context column (title, owner, section)
    doc_weight: float = 0.5  # lexical: this much of the chunk's whole document's BM25 is added (postings.search)
    feedback: int = 0  # pseudo-relevance feedback: the query vector moves towards the top fused chunks
    feedback_weight: float = 1.0  # ... by this much of their mean vector (0 or feedback=0: off)
    scope_owners: bool = True  # a query naming a document owner searches their documents (index.scope)
    rare_chunks: int = 3  # a chunk holding a query term no more than this many chunks hold ranks
    # above every chunk only the dense side found (0: off); see `promote_rare`


DEFAULT_FUSION = Fusion()
HYBRID_RRF = Fusion(method="rrf", dense_weight=0.5, rrf_k=60.0, context_weight=0.5, doc_weight=0.0, feedback=0,
                    scope_owners=False, rare_chunks=0)


def _to_hits(store: Store, scored: list[tuple[int, float]], k: int) -> list[Hit]:
    """The first `k` stored chunks of `scored`, dropping ids gone since and repeated texts."""
    hits: list[Hit] = []
    seen: set[str] = set()
    for start in range(0, len(scored), max(k * 2, 20)):
        part = scored[start : start + max(k * 2, 20)]
        chunks = store.chunks_by_ids(i for i, _ in part)
        for i, score in part:
            c = chunks.get(i)
            if c is None or c.text in seen:  # removed since the FAISS file was read, or a duplicate
                continue
            seen.add(c.text)
            hits.append(Hit.from_chunk(len(hits) + 1, c, score))
            if len(hits) == k:
                return hits
    return hits


def _dense_vec(store: Store, q: np.ndarray, depth: int, docs: Collection[str] | None) -> list[tuple[int, float]]:
    return store.dense_search(q, depth) if docs is None else store.dense_search_in(q, docs, depth)


def _dense(store: Store, embedder: Embedder, query: str, depth: int,
           docs: Collection[str] | None) -> list[tuple[int, float]]:
    return _dense_vec(store, embedder.embed_query(query), depth, docs)


def dense_search(store: Store, embedder: Embedder, query: str, k: int = 10,
                 docs: Collection[str] | None = None) -> list[Hit]:
    """Nearest chunks by cosine similarity of the query embedding (only in `docs` when given)."""
    return _to_hits(store, _dense(store, embedder, query, k * 2, docs), k)


def lexical_search(store: Store, embedder: Embedder, query: str, k: int = 10,
                   docs: Collection[str] | None = None, fusion: Fusion = DEFAULT_FUSION) -> list[Hit]:
    """Chunks ranked by FTS5 BM25 of the query's terms (only in `docs` when given)."""
    return _to_hits(store, store.lexical_search(query, k * 2, docs, fusion.context_weight, fusion.doc_weight), k)


def fused_candidates(store: Store, embedder: Embedder, query: str, k: int,
                     docs: Collection[str] | None, fusion: Fusion) -> list[tuple[int, float]]:
    """Dense and lexical candidates fused by `fusion`, best first (ids, not yet hits)."""
    depth = max(fusion.depth, 2 * k)
    q = embedder.embed_query(query)  # one step at a time: see the module docstring
    lex = store.lexical_search(query, depth, docs, fusion.context_weight, fusion.doc_weight)
    dense = _dense_vec(store, q, depth, docs)
    fused = _fuse(dense, lex, fusion)
    if fusion.feedback > 0 and fusion.feedback_weight > 0 and fused:
        # Rocchio on the query vector: the top fused chunks (agreed on by both signals) pull it
        # towards the vocabulary of relevant passages; +0.02 nDCG@10 on Cranfield but -0.02 on CACM
        # and realdocs (bench/loco.py), so off by default.
        fb = store.vectors([i for i, _ in fused[: fusion.feedback]])
        if len(fb):
            q2 = q + fusion.feedback_weight * fb.mean(axis=0)
            q2 /= max(float(np.linalg.norm(q2)), 1e-12)
            fused = _fuse(_dense_vec(store, q2, depth, docs), lex, fusion)
    if fusion.rare_chunks > 0 and fused:
        fused = promote_rare(fused, lex, _rare(store, query, fusion.rare_chunks, docs))
    return fused


def _rare(store: Store, query: str, max_chunks: int, docs: Collection[str] | None) -> set[int]:
    db, lock = store._lexical_db()  # the lexical search's own read connection (Store.lexical_search)
    doc_ids = None if docs is None else store.doc_ids(docs)
    with lock:
        return lexical.rare_matches(db, query, max_chunks, doc_ids)


def promote_rare(fused: list[tuple[int, float]], lex: list[tuple[int, float]],
                 rare: set[int]) -> list[tuple[int, float]]:
    """`fused` with the `rare` chunks (holding a query term few chunks hold: an identifier, a code)
    moved up, in their order, to just above the first chunk that matched no query term at all.

    A dense neighbour can be close in meaning and still be about another aircraft or another
    trial; the chunk that names the identifier the question names must not rank below it. Chunks
    that matched some query term keep their fused order; scores are lifted to stay decreasing."""
    if not rare:
        return fused
    matched = {i for i, _ in lex}
    first_dense_only = next((n for n, (i, _) in enumerate(fused) if i not in matched), len(fused))
    late = [(i, s) for i, s in fused[first_dense_only:] if i in rare]
    if not late:
        return fused
    moved = {i for i, _ in late}
    out = fused[:first_dense_only] + late + [(i, s) for i, s in fused[first_dense_only:] if i not in moved]
    scores = [s for _, s in out]
    for n in range(len(scores) - 2, -1, -1):
        scores[n] = max(scores[n], scores[n + 1])
    return [(i, sc) for (i, _), sc in zip(out, scores, strict=True)]


def _fuse(dense: list[tuple[int, float]], lex: list[tuple[int, float]], fusion: Fusion) -> list[tuple[int, float]]:
    if fusion.method == "rrf":
        return fuse.rrf([dense, lex], k=fusion.rrf_k, weights=[2 * fusion.dense_weight, 2 * (1.0 - fusion.dense_weight)])
    if fusion.method == "convex":
        # An id missing from the lexical list matched no query term: BM25 0, not "just below the last".
        return fuse.convex([dense, lex], [fusion.dense_weight, 1.0 - fusion.dense_weight], fusion.norm,
                           floors=[None, 0.0])
    raise ValueError(f"unknown fusion method {fusion.method!r}; choose convex or rrf")


def fused_search(store: Store, embedder: Embedder, query: str, k: int = 10,
                 docs: Collection[str] | None = None, fusion: Fusion = DEFAULT_FUSION) -> list[Hit]:
    """Fused dense + lexical hits; a query naming document owners is answered from their documents first."""
    scope = find_scope(query, store.owner_docs(), docs) if fusion.scope_owners else None
    if scope is None:
        return _to_hits(store, fused_candidates(store, embedder, query, k, docs, fusion), k)
    inner = scope.query if terms(scope.query) else query
    scoped = fused_candidates(store, embedder, inner, k, scope.docs, fusion)
    if len(scope.owners) > 1:  # several people named: take turns, so each of them is in the top k
        owner_of = {d: o for o, ds in store.owner_docs().items() if o in scope.owners for d in ds}
        doc_of = {i: c.doc for i, c in store.chunks_by_ids(i for i, _ in scoped).items()}
        scoped = fuse.interleave(scoped, {i: owner_of.get(d, "") for i, d in doc_of.items()})
    if len(scoped) >= k:
        return _to_hits(store, scoped, k)
    # Fewer chunks than asked for in the named people's documents: the rest come from everywhere.
    top = max((s for _, s in scoped), default=0.0)
    rest = [(i, s - top - 1.0) for i, s in fused_candidates(store, embedder, query, k, docs, fusion)]
    taken = {i for i, _ in scoped}
    return _to_hits(store, scoped + [(i, s) for i, s in rest if i not in taken], k)


def hybrid_search(store: Store, embedder: Embedder, query: str, k: int = 10,
                  docs: Collection[str] | None = None) -> list[Hit]:
    """Dense + lexical by plain reciprocal rank fusion (k=60): the baseline `default` must beat."""
    return fused_search(store, embedder, query, k, docs, HYBRID_RRF)


def default_search(store: Store, embedder: Embedder, query: str, k: int = 10,
                   docs: Collection[str] | None = None) -> list[Hit]:
    """Dense + lexical fused by `DEFAULT_FUSION`, the best measured."""
    return fused_search(store, embedder, query, k, docs, DEFAULT_FUSION)


# (store, embedder, query, k, docs) -> hits; `docs` restricts the search to those document paths.
SearchFn = Callable[[Store, Embedder, str, int, Collection[str] | None], list[Hit]]
MODES: dict[str, SearchFn] = {
    "dense": dense_search,
    "lexical": lexical_search,
    "hybrid": hybrid_search,
    "default": default_search,
}


class Searcher:
    """A store and an embedder, searched by any mode in `MODES`; optionally reranked."""

    def __init__(self, store: Store, embedder: Embedder, reranker: Reranker | None = None,
                 rerank_depth: int = 30, fusion: Fusion = DEFAULT_FUSION) -> None:
        self.store = store
        self.embedder = embedder
        self.reranker = reranker
        self.rerank_depth = rerank_depth
        self.fusion = fusion  # how "default" fuses (and "lexical" weights the context column)

    def search(self, query: str, k: int = 10, mode: str = "default",
               docs: Collection[str] | None = None) -> list[Hit]:
        """The `k` best chunks for `query`; `docs` (document paths) restricts where to look."""
        try:
            fn = MODES[mode]
        except KeyError:
            raise ValueError(f"unknown search mode {mode!r}; choose one of: {', '.join(sorted(MODES))}") from None
        if mode == "default" and self.fusion != DEFAULT_FUSION:
            fn = partial(fused_search, fusion=self.fusion)
        elif mode == "lexical" and self.fusion != DEFAULT_FUSION:
            fn = partial(lexical_search, fusion=self.fusion)
        if not query.strip():
            return []
        if self.reranker is None:
            return fn(self.store, self.embedder, query, k, docs)
        candidates = fn(self.store, self.embedder, query, max(k, self.rerank_depth), docs)
        head = self.reranker.rerank(query, candidates[: self.rerank_depth])
        rest = [dataclasses.replace(h, rank=r) for r, h in enumerate(candidates[self.rerank_depth:], len(head) + 1)]
        return (head + rest)[:k]  # past the reranked depth: the first stage's order (and scores)
