"""The FAISS index kinds (`index.vectors`): exact below the threshold, IVF above, tuned for one query at a time.

Real FAISS on synthetic clustered unit vectors (as bench/scale.py uses; no model needed).
"""

from __future__ import annotations

import faiss
import numpy as np

from index import vectors


def _clustered(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((200, 384)).astype(np.float32)
    x = centers[rng.integers(0, 200, n)] + 0.6 * rng.standard_normal((n, 384)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_the_kind_follows_the_size_with_hysteresis() -> None:
    assert vectors.kind_for(vectors.EXACT_MAX - 1) == "exact"
    assert vectors.kind_for(vectors.EXACT_MAX) == "ivf"
    assert vectors.kind_for(vectors.EXACT_MAX // 2, "ivf") == "ivf"  # no flapping around the threshold
    assert vectors.kind_for(vectors.EXACT_MAX // 2 - 1, "ivf") == "exact"


def test_ivf_finds_what_exact_search_finds_one_query_at_a_time() -> None:
    n = vectors.EXACT_MAX + 5_000
    x = _clustered(n, 1)
    ids = np.arange(10, 10 + n, dtype=np.int64)
    exact = vectors.build("exact", 384, ids, x)
    ivf = vectors.build("ivf", 384, ids, x)
    assert vectors.kind_of(ivf) == "ivf" and vectors.kind_of(exact) == "exact"
    inner = faiss.extract_index_ivf(ivf)
    assert inner.nprobe == vectors.nprobe_for(inner.nlist)
    q = _clustered(100, 2)
    recall, same = 0.0, 0
    threads = faiss.omp_get_max_threads()
    for v in q:
        _, want = exact.search(v[None], 10)
        _, got = vectors.search_one(ivf, v, 10)
        assert faiss.omp_get_max_threads() == threads  # one thread for the search only, then as it was
        recall += len(set(want[0]) & set(got[0])) / 10
        _, batch = ivf.search(np.stack([v, v]), 10)  # FAISS's own threads, as a batch gets them
        same += bool((batch[0] == got[0]).all())
    assert recall / len(q) >= 0.9
    assert same == len(q)  # one thread changes nothing but the time
