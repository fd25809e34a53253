"""Scale: the FAISS index kinds at 10k / 100k (/ 1M) vectors, and hybrid search latency at 100k chunks.

Part 1 builds, for synthetic clustered 384-d unit vectors (a mixture of 1,000 Gaussians, closer
to real embeddings than uniform noise), the exact index and the index citewise picks for that
size (`index.vectors`: exact below 20,000 vectors, IVF above), and reports build time, memory
(RSS growth and serialized size), recall@10 of the picked index against exact search, and the
per-query search time.

Part 2 fills a real store (SQLite + FTS5 + FAISS, one write) with 100k chunks of synthetic text
and vectors, then times `Searcher.search(mode="default")` (query embedding with the real model,
FTS5 BM25, FAISS, fusion, feedback, chunk fetch) against embedding the query alone.

    python bench/scale.py              # 10k and 100k vectors, 100k-chunk hybrid latency (a few minutes)
    python bench/scale.py --big        # also 1M vectors (several minutes more, ~3 GB RAM)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import faiss
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from index import Searcher, SentenceTransformerEmbedder, Store, vectors  # noqa: E402
from ingest import Document, chunk_document  # noqa: E402

DIM = 384


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def clustered(n: int, seed: int = 0, centers: int = 1000) -> np.ndarray:
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((centers, DIM)).astype(np.float32)
    x = c[rng.integers(0, centers, n)] + 0.6 * rng.standard_normal((n, DIM)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x


def part1(n: int, queries: int = 200) -> None:
    x = clustered(n)
    ids = np.arange(1, n + 1, dtype=np.int64)
    rng = np.random.default_rng(1)
    q = x[rng.integers(0, n, queries)] + 0.3 * rng.standard_normal((queries, DIM)).astype(np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    rows = []
    for kind in dict.fromkeys(["exact", vectors.kind_for(n)]):
        m0, t0 = rss_mb(), time.perf_counter()
        index = vectors.build(kind, DIM, ids, x)
        build = time.perf_counter() - t0
        mem = rss_mb() - m0
        size = len(faiss.serialize_index(index)) / 2**20
        t0 = time.perf_counter()
        _, found = index.search(q, 10)
        per_query = (time.perf_counter() - t0) / queries * 1000
        rows.append((kind, build, mem, size, found, per_query, index))
    exact = rows[0][4]
    print(f"\n{n:,} vectors x {DIM}-d (citewise picks: {vectors.kind_for(n)})")
    print(f"  {'index':<8}{'build s':>9}{'RSS +MB':>9}{'file MB':>9}{'recall@10':>11}{'ms/query':>10}")
    for kind, build, mem, size, found, per_query, index in rows:
        recall = np.mean([len(set(found[i]) & set(exact[i])) / 10 for i in range(queries)])
        extra = ""
        ivf = faiss.try_extract_index_ivf(index)
        if ivf is not None:
            extra = f"   nlist {ivf.nlist}, nprobe {ivf.nprobe}"
        print(f"  {kind:<8}{build:>9.2f}{mem:>9.0f}{size:>9.0f}{recall:>11.3f}{per_query:>10.2f}{extra}")
    if len(rows) > 1:
        print(f"  {rows[1][0]} vs exact: {rows[0][5] / rows[1][5]:.1f}x faster per query")


WORDS = np.array([f"{a}{b}{c}" for a in ("ka", "lo", "mi", "ne", "po", "ru", "si", "ta", "ve", "zo")
                  for b in ("bar", "den", "fol", "gim", "hus", "jat", "kel", "lum", "mor", "nip")
                  for c in ("a", "e", "i", "o", "u", "an", "en", "in", "on", "ur", "ax", "ex", "ix", "ox", "ux",
                            "al", "el", "il", "ol", "ul")])


def synthetic_docs(n_docs: int, seed: int = 2) -> list[Document]:
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, len(WORDS) + 1)  # Zipf-like word frequencies
    p /= p.sum()
    docs = []
    for i in range(n_docs):
        paras = [" ".join(rng.choice(WORDS, 100, p=p)) + "." for _ in range(10)]
        text = "\n\n".join(paras)
        docs.append(Document(path=f"/synthetic/doc{i:06d}.txt", sha256=f"{i:064x}", format="text",
                             title=f"Doc {i}", text=text, source=text))
    return docs


def part2(chunks_target: int, keep: Path | None) -> None:
    embedder = SentenceTransformerEmbedder()
    embedder.embed_query("warm up")
    with tempfile.TemporaryDirectory() as tmp:
        where = keep or Path(tmp) / "index"
        if not (where / "manifest.json").exists():
            t0 = time.perf_counter()
            docs = synthetic_docs(chunks_target // 10)
            store = Store.create(where, embedder.name, embedder.dim)
            with store.writer() as w:
                rng = np.random.default_rng(3)
                for doc in docs:
                    chunks = chunk_document(doc, 800, 0)
                    vecs = clustered(len(chunks), seed=int(rng.integers(1 << 30)))
                    w.add_document(doc, chunks, vecs, len(doc.text))
            print(f"\nbuilt a {store.vector_count:,}-chunk store in {time.perf_counter() - t0:.0f} s "
                  f"(synthetic text and vectors; FTS5 + {store.vector_index_kind} FAISS)")
        else:
            store = Store.open(where)
        searcher = Searcher(store, embedder)
        rng = np.random.default_rng(4)
        queries = [" ".join(rng.choice(WORDS[:300], rng.integers(3, 7))) for _ in range(60)]
        for qq in queries[:5]:  # warm caches
            searcher.search(qq)
        embed_t, search_t, lex_t, dense_t = [], [], [], []
        for qq in queries:
            t0 = time.perf_counter()
            vec = embedder.embed_query(qq + " ")  # a fresh string: no cache anywhere
            embed_t.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            searcher.search(qq, k=10)
            search_t.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            store.lexical_search(qq, 100)
            lex_t.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            store.dense_search(vec, 100)
            dense_t.append(time.perf_counter() - t0)
        ms = {name: np.percentile(t, [50, 95]) * 1000 for name, t in
              [("embed", embed_t), ("search", search_t), ("lexical", lex_t), ("dense", dense_t)]}
        print(f"hybrid search at {store.vector_count:,} chunks ({store.vector_index_kind} vectors), {len(queries)} queries:")
        print(f"  embed the query alone   p50 {ms['embed'][0]:7.1f} ms   p95 {ms['embed'][1]:7.1f} ms")
        print(f"  full default search     p50 {ms['search'][0]:7.1f} ms   p95 {ms['search'][1]:7.1f} ms")
        print(f"    of which FTS5 BM25    p50 {ms['lexical'][0]:7.1f} ms   p95 {ms['lexical'][1]:7.1f} ms  (runs while the query embeds)")
        print(f"    of which FAISS        p50 {ms['dense'][0]:7.1f} ms   p95 {ms['dense'][1]:7.1f} ms  (x2 with feedback)")
        r50, r95 = ms["search"][0] / ms["embed"][0], ms["search"][1] / ms["embed"][1]
        print(f"  ratio                   p50 {r50:7.2f} x   p95 {r95:7.2f} x   (target <= 1.5x)")
        store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--big", action="store_true", help="also 1M vectors")
    ap.add_argument("--chunks", type=int, default=100_000, help="chunks in the hybrid-latency store")
    ap.add_argument("--keep", type=Path, help="build the latency store here once and re-use it")
    ap.add_argument("--latency-only", action="store_true", help="skip the vector-index part")
    args = ap.parse_args()
    print(f"FAISS {faiss.__version__}, {faiss.omp_get_max_threads()} threads; exact below {vectors.EXACT_MAX:,} vectors")
    if not args.latency_only:
        for n in [10_000, 100_000] + ([1_000_000] if args.big else []):
            part1(n)
    part2(args.chunks, args.keep)


if __name__ == "__main__":
    main()
