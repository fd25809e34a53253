"""Retrieval quality, measured: BEIR datasets and the QA format of `seed_dev.jsonl`.

BEIR: each query is searched with every mode; chunks are folded into documents (a document
ranks where its first chunk ranks) and scored with `pytrec_eval` (nDCG@10, Recall@10/100,
MRR@10 as reciprocal rank over the top 10). QA: a hit is a chunk of a listed document that
contains a gold string (case and spacing ignored); a question about several documents scores the
fraction of them covered. Items without documents (unanswerable) are skipped here; answer quality
is measured in `assistant` on top of `evaluate_qa`'s per-item results.
"""

from __future__ import annotations

import json
import logging
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ingest.errors import CitewiseError

from .beir import BeirData, load_beir, write_corpus
from .build import index_paths
from .embed import Embedder
from .rerank import Reranker
from .search import DEFAULT_FUSION, MODES, Fusion, Hit, Searcher
from .store import Store
from .vector_store import VectorConfig

log = logging.getLogger(__name__)

EVAL_MODES = ("dense", "lexical", "hybrid", "default")
BEIR_METRICS = ("ndcg@10", "recall@10", "recall@100", "mrr@10")
QA_CUTOFFS = (1, 4, 10)


class EvalError(CitewiseError):
    """An evaluation input cannot be read."""


class QueryCache:
    """An embedder that remembers query vectors, so every mode of one evaluation embeds a query once."""

    def __init__(self, embedder: Embedder) -> None:
        self.inner = embedder
        self.name = embedder.name
        self.dim = embedder.dim
        self._query = lru_cache(maxsize=4096)(embedder.embed_query)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self._query(text)


# -- BEIR -----------------------------------------------------------------------------------------
def beir_run(searcher: Searcher, data: BeirData, doc_of: dict[str, str], mode: str,
             depth: int = 100) -> dict[str, dict[str, float]]:
    """query id -> doc id -> score (higher is better) for the top `depth` documents of `mode`."""
    run: dict[str, dict[str, float]] = {}
    for qid, query in data.queries.items():
        ranked: dict[str, float] = {}
        for hit in searcher.search(query, k=depth * 2, mode=mode):
            doc = doc_of.get(hit.doc)
            if doc is not None and doc not in ranked:
                ranked[doc] = float(depth * 2 - len(ranked))  # rank order, as pytrec_eval sorts by score
            if len(ranked) == depth:
                break
        run[qid] = ranked
    return run


def beir_metrics(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> dict[str, float]:
    """Mean nDCG@10, Recall@10, Recall@100 and MRR@10 over the judged queries (pytrec_eval)."""
    import pytrec_eval

    full = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.10,100"})
    top10 = {q: dict(sorted(d.items(), key=lambda t: -t[1])[:10]) for q, d in run.items()}
    rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"})
    # A query with no results still counts (as zeros): pytrec_eval leaves out queries absent from the run.
    run = {q: run.get(q) or {"__none__": 0.0} for q in qrels}
    top10 = {q: top10.get(q) or {"__none__": 0.0} for q in qrels}
    a, b = full.evaluate(run), rr.evaluate(top10)
    n = len(qrels)
    return {
        "ndcg@10": sum(m["ndcg_cut_10"] for m in a.values()) / n,
        "recall@10": sum(m["recall_10"] for m in a.values()) / n,
        "recall@100": sum(m["recall_100"] for m in a.values()) / n,
        "mrr@10": sum(m["recip_rank"] for m in b.values()) / n,
    }


def index_beir(data: BeirData, index_dir: Path, embedder: Embedder, vectors: VectorConfig | None = None,
               milvus_token: str | None = None) -> tuple[Store, dict[str, str]]:
    """Index the corpus with the real pipeline into `index_dir` (incremental: a re-run embeds nothing)."""
    store = Store.create(index_dir, embedder.name, embedder.dim, vectors=vectors, milvus_token=milvus_token)
    with tempfile.TemporaryDirectory(prefix="citewise-beir-") as tmp:
        doc_of = write_corpus(data, Path(tmp) / data.name)
        report = index_paths([Path(tmp) / data.name], store, embedder, prune=True)
        log.info("indexed %s: %s", data.name, report.summary(store))
    # Files were written to a temporary folder: map the stored paths (file names) back to doc ids.
    by_name = {Path(p).name: d for p, d in doc_of.items()}
    return store, {d.doc: by_name[Path(d.doc).name] for d in store.documents() if Path(d.doc).name in by_name}


def evaluate_beir(folder: str | Path, embedder: Embedder, *, index_dir: str | Path | None = None,
                  modes: Sequence[str] = EVAL_MODES, split: str = "test",
                  max_queries: int | None = None, vectors: VectorConfig | None = None,
                  milvus_token: str | None = None, fusion: Fusion | None = None,
                  reranker: Reranker | None = None, rerank_depth: int = 30) -> dict[str, dict[str, float]]:
    """Metrics per mode for the BEIR dataset at `folder`, indexed into `index_dir` (temporary if None)
    with the vector store `vectors` (default FAISS); `default` searches with `fusion` (default:
    `DEFAULT_FUSION`). Asking for `default` also measures `hybrid` (plain RRF, k = 60: the textbook
    baseline the default must beat) in the same run. With a `reranker`, `default+rerank` is `default`
    with its first `rerank_depth` documents re-ranked, measured beside it."""
    data = load_beir(folder, split)
    if "default" in modes and "hybrid" not in modes:  # the RRF(60) baseline is always printed beside it
        modes = [*modes, "hybrid"]
    if max_queries:
        keep = list(data.queries)[:max_queries]
        data = BeirData(data.name, data.corpus, {q: data.queries[q] for q in keep}, {q: data.qrels[q] for q in keep})
    cached = QueryCache(embedder)
    with tempfile.TemporaryDirectory(prefix="citewise-beir-index-") as tmp:
        store, doc_of = index_beir(data, Path(index_dir) if index_dir else Path(tmp), cached, vectors, milvus_token)
        try:
            searcher = Searcher(store, cached, fusion=fusion or DEFAULT_FUSION)
            results = {m: beir_metrics(data.qrels, beir_run(searcher, data, doc_of, m)) for m in modes}
            if reranker is not None:
                reranked = Searcher(store, cached, reranker=reranker, rerank_depth=rerank_depth,
                                    fusion=fusion or DEFAULT_FUSION)
                results["default+rerank"] = beir_metrics(data.qrels, beir_run(reranked, data, doc_of, "default"))
            return results
        finally:
            store.close()


# -- QA -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class QAItem:
    id: str
    question: str
    docs: tuple[str, ...]  # file-name prefixes of the documents that hold the answer
    gold: tuple[str, ...]  # strings a supporting chunk contains
    raw: dict[str, Any] = field(repr=False, default_factory=dict)  # the whole record, for answer metrics


@dataclass(frozen=True)
class QAResult:
    """Retrieval for one item: the hits and, per hit, the listed documents it supports."""

    item: QAItem
    hits: tuple[Hit, ...]
    supports: tuple[frozenset[str], ...]  # per hit: the item's doc prefixes it is a gold chunk of

    def recall(self, k: int) -> float:
        covered = set().union(*self.supports[:k]) if self.supports[:k] else set()
        return len(covered) / len(self.item.docs)

    def first_rank(self) -> int | None:
        return next((r for r, s in enumerate(self.supports, 1) if s), None)


def load_qa(path: str | Path) -> list[QAItem]:
    items = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                items.append(QAItem(str(r.get("id", n)), r["q"], tuple(r.get("docs") or ()), tuple(r.get("gold") or ()), r))
            except (ValueError, KeyError) as exc:
                raise EvalError(f"{path}:{n}: not a QA record with 'q', 'docs', 'gold' ({exc})") from exc
    return items


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def supports(hit: Hit, item: QAItem) -> frozenset[str]:
    """The item's doc prefixes that `hit` is a gold chunk of."""
    name = Path(hit.doc).name
    text = _norm(hit.text)
    if not any(_norm(g) in text for g in item.gold):
        return frozenset()
    return frozenset(p for p in item.docs if name.startswith(p))


def qa_results(search: Callable[[str], list[Hit]], items: Sequence[QAItem]) -> list[QAResult]:
    """Per-item retrieval results (every item, answerable or not) with `search(question)`."""
    out = []
    for item in items:
        hits = tuple(search(item.question))
        out.append(QAResult(item, hits, tuple(supports(h, item) for h in hits)))
    return out


def qa_metrics(results: Sequence[QAResult]) -> dict[str, float]:
    """Recall@1/4/10 and MRR@10 over the items that list documents."""
    scored = [r for r in results if r.item.docs]
    if not scored:
        return {}
    out = {f"recall@{k}": sum(r.recall(k) for r in scored) / len(scored) for k in QA_CUTOFFS}
    out["mrr@10"] = sum(1.0 / rank for r in scored if (rank := r.first_rank()) and rank <= 10) / len(scored)
    out["questions"] = len(scored)
    return out


def evaluate_qa(searcher: Searcher, items: Sequence[QAItem], mode: str = "default",
                k: int = 10) -> tuple[dict[str, float], list[QAResult]]:
    """Retrieval metrics of `mode` and the per-item results (for answer metrics computed elsewhere)."""
    if mode not in MODES:
        raise ValueError(f"unknown search mode {mode!r}; choose one of: {', '.join(sorted(MODES))}")
    results = qa_results(lambda q: searcher.search(q, k=k, mode=mode), items)
    return qa_metrics(results), results
