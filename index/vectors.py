"""Which FAISS index holds the vectors: exact below a size threshold, IVF above it.

Below `EXACT_MAX` vectors an exact `IndexIDMap2(IndexFlatIP)` is fast enough (a few ms per query)
and never misses. From `EXACT_MAX` on, an `IndexIVFFlat` (inner product, ids kept, removals
supported) is trained on a sample of the stored vectors; `nprobe` is set from `nlist` so recall@10
stays near exact (measured in bench/scale.py). The choice is automatic: a write that crosses the
threshold, or that grows an IVF index to `RETRAIN_GROWTH` times the size it was trained on,
rebuilds it from the vectors kept in SQLite. HNSW is left out: FAISS's HNSW cannot remove ids, and
an index that changes file by file needs removals.
"""

from __future__ import annotations

import logging
import math

import faiss
import numpy as np

log = logging.getLogger(__name__)

EXACT_MAX = 20_000  # vectors; at or above this an approximate (IVF) index is built
RETRAIN_GROWTH = 4.0  # retrain the IVF quantizer when the index has grown this much since training
KINDS = {"exact": "exact (IndexFlatIP)", "ivf": "approximate (IndexIVFFlat)"}


def new_exact(dim: int) -> faiss.Index:
    return faiss.IndexIDMap2(faiss.IndexFlatIP(dim))


def nlist_for(n: int) -> int:
    return int(min(65536, max(64, 2 * math.sqrt(n))))


def nprobe_for(nlist: int) -> int:
    return int(min(nlist, max(16, nlist // 6)))


def kind_of(index: faiss.Index) -> str:
    return "ivf" if faiss.try_extract_index_ivf(index) is not None else "exact"


def kind_for(n: int, current: str = "exact") -> str:
    """The kind `n` vectors should live in; hysteresis keeps an IVF index until n halves below the threshold."""
    if current == "ivf":
        return "ivf" if n >= EXACT_MAX // 2 else "exact"
    return "ivf" if n >= EXACT_MAX else "exact"


def tune(index: faiss.Index) -> faiss.Index:
    """Set search-time parameters that are not part of the saved file."""
    ivf = faiss.try_extract_index_ivf(index)
    if ivf is not None:
        ivf.nprobe = nprobe_for(ivf.nlist)
    return index


def search_one(index: faiss.Index, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """`index.search` of one query vector, on one OpenMP thread.

    A question's search follows its embedding, and torch's OpenMP workers are still spinning when FAISS
    wakes its own: on two cores, FAISS's second thread then waits for a core, and one query's search took
    7 ms instead of 0.5 ms on a 680-vector exact index, 23 ms instead of 2 ms on a 100k-vector IVF one
    (its inverted lists spread over the threads, `parallel_mode` 1), while the next query's embedding
    slowed beside FAISS's spinning threads. One query is too little work to share. The thread count is
    the calling thread's own (OpenMP keeps it per thread) and is put back after; index builds keep every
    core."""
    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        return index.search(query.reshape(1, -1), k)
    finally:
        faiss.omp_set_num_threads(before)


def build(kind: str, dim: int, ids: np.ndarray, vecs: np.ndarray, seed: int = 1234) -> faiss.Index:
    """A new index of `kind` holding `vecs` (n x dim, float32, normalised) under `ids` (int64)."""
    if kind == "exact":
        index = new_exact(dim)
    elif kind == "ivf":
        nlist = nlist_for(len(vecs))
        quantizer = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFFlat(quantizer, dim, nlist, faiss.METRIC_INNER_PRODUCT)
        rng = np.random.default_rng(seed)
        sample = vecs if len(vecs) <= 40 * nlist else vecs[rng.choice(len(vecs), 40 * nlist, replace=False)]
        index.cp.niter = 10
        index.train(np.ascontiguousarray(sample, dtype=np.float32))
        log.info("trained IVF index: nlist %d on %d of %d vectors", nlist, len(sample), len(vecs))
    else:
        raise ValueError(f"unknown vector index kind {kind!r}; choose one of: {', '.join(KINDS)}")
    if len(ids):
        index.add_with_ids(np.ascontiguousarray(vecs, dtype=np.float32), np.ascontiguousarray(ids, dtype=np.int64))
    return tune(index)


def needs_rebuild(index: faiss.Index, trained_on: int) -> str | None:
    """The kind to rebuild `index` as, or None when it is fine as it is."""
    n = int(index.ntotal)
    kind = kind_of(index)
    want = kind_for(n, kind)
    if want != kind:
        return want
    if kind == "ivf" and trained_on and n >= RETRAIN_GROWTH * trained_on:
        return "ivf"
    return None
