"""Scale: the FAISS index kinds at 10k / 100k (/ 1M) vectors, and hybrid search latency at 100k chunks.

Part 1 builds, for synthetic clustered 384-d unit vectors (a mixture of 1,000 Gaussians, closer
to real embeddings than uniform noise), the exact index and the index citewise picks for that
size (`index.vectors`: exact below 20,000 vectors, IVF above), and reports build time, memory
(RSS growth and serialized size), recall@10 of the picked index against exact search, and the
per-query search time.

Part 2 fills a real store (SQLite + FTS5 + postings + FAISS, one write) with 100k chunks of
synthetic text and vectors, then times `Searcher.search(mode="default")` (query embedding with the
real model, BM25 from `index.postings`, FAISS, fusion, feedback, chunk fetch) against embedding the
query alone; the queries are 3-6 of the 300 most frequent words (the worst case for BM25). FTS5's
own `bm25()` is timed on the same queries for comparison, and FAISS right after an embedding on one
thread (as citewise searches) beside all of FAISS's threads (as it did before).

With `--store milvus` or `--store both`, part 1 also writes the same vectors into a temporary
milvus-lite collection through the store's own write path (`MilvusVectors.begin()`: add, prepare
= marker + upsert, finish = flush + the FLAT/HNSW switch at `vectors.EXACT_MAX`), and prints it
side by side with FAISS: write time and vectors/s, RSS growth of this process (milvus-lite runs
in-process), size on disk, recall@10 against exact search, single-query p50/p95 through each
store's `search`, and the cost of one more 1,000-vector write into the full index.

    python bench/scale.py              # 10k and 100k vectors, 100k-chunk hybrid latency (a few minutes)
    python bench/scale.py --big        # also 1M vectors (several minutes more, ~3 GB RAM)
    python bench/scale.py --store both --vectors-only --big   # FAISS and Milvus side by side, docs/scaling.md
"""

from __future__ import annotations

import argparse
import os
import resource
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import faiss
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from index import Searcher, SentenceTransformerEmbedder, Store, lexical, vectors  # noqa: E402
from index.search import DEFAULT_FUSION  # noqa: E402
from ingest import Document, chunk_document  # noqa: E402

DIM = 384
PAUSE = 0.05  # s before each timed query (see part2)


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def clustered(n: int, seed: int = 0, centers: int = 1000) -> np.ndarray:
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((centers, DIM)).astype(np.float32)
    x = c[rng.integers(0, centers, n)] + 0.6 * rng.standard_normal((n, DIM)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x


def part1(n: int, queries: int = 200, store: str = "faiss") -> None:
    x = clustered(n)
    ids = np.arange(1, n + 1, dtype=np.int64)
    rng = np.random.default_rng(1)
    q = x[rng.integers(0, n, queries)] + 0.3 * rng.standard_normal((queries, DIM)).astype(np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    if store != "faiss":
        side_by_side(n, x, ids, q, store)
        return
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


EXTRA = 1_000  # vectors of the "one more write" into the full index


def _timed_queries(search: Callable[[np.ndarray], list[int]], q: np.ndarray) -> tuple[list[list[int]], np.ndarray]:
    """(top-10 ids, ms) of each query, one query at a time."""
    found, ms = [], []
    for v in q:
        t0 = time.perf_counter()
        found.append(search(v))
        ms.append((time.perf_counter() - t0) * 1000)
    return found, np.array(ms)


def _recall(found: list[list[int]], exact: list[list[int]]) -> float:
    return float(np.mean([len(set(f) & set(e)) / 10 for f, e in zip(found, exact, strict=False)]))


def _meta_db() -> sqlite3.Connection:
    """The `meta` table a vector batch reads and writes inside the store's transaction."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")
    return db


def _extra(n: int) -> tuple[np.ndarray, np.ndarray]:
    x = clustered(EXTRA, seed=7)
    return np.arange(n + 1, n + EXTRA + 1, dtype=np.int64), x


def faiss_side(n: int, x: np.ndarray, ids: np.ndarray, q: np.ndarray, where: Path) -> list[dict[str, Any]]:
    """The exact FAISS index and the one the store picks: build + durable file, queries, one more write."""
    from index.faiss_store import FaissVectors

    rows = []
    for kind in dict.fromkeys(["exact", vectors.kind_for(n)]):
        m0, t0 = rss_mb(), time.perf_counter()
        index = vectors.build(kind, DIM, ids, x)
        path = where / "bench.faiss"
        faiss.write_index(index, str(path))  # durable, as a store write is
        with open(path, "rb+") as f:
            os.fsync(f.fileno())
        write = time.perf_counter() - t0
        row: dict[str, Any] = {"name": f"faiss {kind}", "write": write, "index": None, "mem": rss_mb() - m0,
                               "disk": path.stat().st_size / 2**20}
        path.unlink()
        owner = FaissVectors(where, DIM, lambda _: (np.zeros(0, np.int64), np.zeros((0, DIM), np.float32)))
        owner.index = index

        def search(v: np.ndarray, o: FaissVectors = owner) -> list[int]:
            return [i for i, _ in o.search(v, 10)]

        row["found"], row["ms"] = _timed_queries(search, q)
        threads = faiss.omp_get_max_threads()  # a busy box stalls OpenMP's threads on single queries
        faiss.omp_set_num_threads(1)
        row["ms1"] = _timed_queries(search, q)[1]
        faiss.omp_set_num_threads(threads)
        if kind == vectors.kind_for(n):  # the store's write path: copy the index, add, write the next file
            more_ids, more = _extra(n)
            t0 = time.perf_counter()
            batch = owner.begin()
            batch.add(more_ids, more, more_ids // 10)
            batch.prepare(_meta_db(), 2)
            batch.finish()
            row["more"] = time.perf_counter() - t0
            del batch
            for written in where.glob("vectors-*.faiss*"):
                written.unlink()
        rows.append(row)
        del index, owner
    return rows


def milvus_side(n: int, x: np.ndarray, ids: np.ndarray, q: np.ndarray, where: Path) -> dict[str, Any]:
    """The same vectors through the Milvus store's write path into a fresh milvus-lite collection."""
    from index.milvus_store import MilvusVectors
    from index.vector_store import VectorConfig

    db = _meta_db()
    m0 = rss_mb()
    t0 = time.perf_counter()
    mv = MilvusVectors(VectorConfig("milvus"), where, DIM)
    t_open = time.perf_counter() - t0
    t0 = time.perf_counter()
    batch = mv.begin()
    batch.add(ids, x, ids // 10)  # 10 chunks per document
    batch.prepare(db, 1)  # the marker, then the upsert (before the SQLite commit)
    t_upsert = time.perf_counter() - t0
    t0 = time.perf_counter()
    batch.finish()  # no deletes; flush, count, FLAT -> HNSW at EXACT_MAX
    t_index = time.perf_counter() - t0
    del batch
    row: dict[str, Any] = {"name": f"milvus {mv.describe()['vector_index']}", "write": t_upsert + t_index,
                           "index": t_index, "mem": rss_mb() - m0,
                           "disk": sum(f.stat().st_size for f in (where / "milvus.db").rglob("*") if f.is_file()) / 2**20,
                           "open": t_open}
    print(f"  (milvus: upsert {n:,} vectors {t_upsert:.0f} s, index {t_index:.0f} s)", flush=True)
    row["found"], row["ms"] = _timed_queries(lambda v: [i for i, _ in mv.search(v, 10)], q)
    if mv.describe()["vector_index"] == "hnsw":  # recall is a search-time knob: HNSW's ef
        from index import milvus_store

        store_ef, row["ef"] = milvus_store.HNSW_EF, {}
        for ef in sorted({128, 256, 512} - {store_ef}):
            milvus_store.HNSW_EF = ef
            row["ef"][ef] = _timed_queries(lambda v: [i for i, _ in mv.search(v, 10)], q)
        milvus_store.HNSW_EF = store_ef
        row["name"] += f" ef{store_ef}"
    more_ids, more = _extra(n)
    t0 = time.perf_counter()
    batch = mv.begin()
    batch.add(more_ids, more, more_ids // 10)
    batch.prepare(db, 2)
    batch.finish()
    row["more"] = time.perf_counter() - t0
    mv.close()
    return row


def side_by_side(n: int, x: np.ndarray, ids: np.ndarray, q: np.ndarray, store: str) -> None:
    """Part 1 for `--store milvus|both`: one table per size, FAISS and Milvus on the same vectors and queries."""
    # Single queries through milvus-lite cost far more at 1M; fewer of them keep the run in minutes.
    mq = len(q) if n <= 100_000 else min(len(q), 50)
    with tempfile.TemporaryDirectory(prefix="scale-") as tmp:
        rows = faiss_side(n, x, ids, q, Path(tmp))
        if store == "milvus":
            rows = rows[:1]  # exact FAISS stays: it is the ground truth
        rows.append(milvus_side(n, x, ids, q[:mq], Path(tmp)))
    exact = rows[0]["found"]
    print(f"\n{n:,} vectors x {DIM}-d; {len(q)} single queries ({mq} for Milvus); recall@10 vs exact FAISS")
    print(f"  {'store/index':<15}{'write s':>9}{'vec/s':>9}{'index s':>9}{'RSS +MB':>9}{'disk MB':>9}"
          f"{'recall@10':>11}{'p50 ms':>9}{'p95 ms':>9}{f'+{EXTRA:,} s':>10}")
    for r in rows:
        p50, p95 = np.percentile(r["ms"], [50, 95])
        index_s = "" if r["index"] is None else f"{r['index']:.1f}"
        more = f"{r['more']:.2f}" if "more" in r else ""
        print(f"  {r['name']:<15}{r['write']:>9.1f}{n / r['write']:>9,.0f}{index_s:>9}{r['mem']:>9,.0f}"
              f"{r['disk']:>9,.0f}{_recall(r['found'], exact):>11.3f}{p50:>9.2f}{p95:>9.2f}{more:>10}")
    for r in rows:
        for ef, (found, ms) in r.get("ef", {}).items():
            p50, p95 = np.percentile(ms, [50, 95])
            print(f"  {r['name'].split(' ef')[0]} searched with ef {ef}: recall@10 {_recall(found, exact):.3f}, "
                  f"p50 {p50:.2f} ms, p95 {p95:.2f} ms")
        if "ms1" in r:
            p50, p95 = np.percentile(r["ms1"], [50, 95])
            print(f"  {r['name']} with 1 OpenMP thread: p50 {p50:.2f} ms, p95 {p95:.2f} ms")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"  milvus-lite opened in {rows[-1]['open']:.1f} s; Milvus write = upsert + index s (flush, FLAT/HNSW "
          f"build); peak RSS so far {peak:,.0f} MB; load average {load} on {os.cpu_count()} cores")


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
        embed_t, search_t, lex_t, dense_t, fts5_t = [], [], [], [], []
        after_one: list[float] = []
        after_all: list[float] = []
        lex_db, _ = store._lexical_db()
        for qq in queries:
            # Each timed call starts after a pause, as a user's queries do: OpenMP workers (torch's,
            # FAISS's) spin for a few ms after their work and would slow whatever is timed next.
            time.sleep(PAUSE)
            t0 = time.perf_counter()
            vec = embedder.embed_query(qq + " ")  # a fresh string: no cache anywhere
            embed_t.append(time.perf_counter() - t0)
            time.sleep(PAUSE)
            t0 = time.perf_counter()
            searcher.search(qq, k=10)
            search_t.append(time.perf_counter() - t0)
            time.sleep(PAUSE)
            t0 = time.perf_counter()
            store.lexical_search(qq, 100, None, DEFAULT_FUSION.context_weight, DEFAULT_FUSION.doc_weight)
            lex_t.append(time.perf_counter() - t0)
            time.sleep(PAUSE)
            t0 = time.perf_counter()
            store.dense_search(vec, 100)
            dense_t.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            lexical.fts5_search(lex_db, qq, 100, context_weight=DEFAULT_FUSION.context_weight)
            fts5_t.append(time.perf_counter() - t0)
            # FAISS right after an embedding, as in a search: on one thread (what citewise does,
            # `vectors.search_one`) and on all of FAISS's threads (what it did before), in turn
            for name, where in (("one", after_one), ("all", after_all))[:: 1 if len(embed_t) % 2 else -1]:
                time.sleep(PAUSE)
                v = embedder.embed_query(qq + f" {name}")
                index = store._vectors.index
                ivf = faiss.try_extract_index_ivf(index)
                if name == "all" and ivf is not None:
                    ivf.parallel_mode = 1  # one query's inverted lists spread over the threads, as before
                t0 = time.perf_counter()
                if name == "one":
                    store.dense_search(v, 100)
                else:
                    index.search(np.asarray(v, np.float32).reshape(1, -1), 100)
                where.append(time.perf_counter() - t0)
                if ivf is not None:
                    ivf.parallel_mode = 0
        ms = {name: np.percentile(t, [50, 95]) * 1000 for name, t in
              [("embed", embed_t), ("search", search_t), ("lexical", lex_t), ("dense", dense_t), ("fts5", fts5_t),
               ("one", after_one), ("all", after_all)]}
        import torch

        print(f"hybrid search at {store.vector_count:,} chunks ({store.vector_index_kind} vectors), {len(queries)} queries "
              f"(torch {torch.get_num_threads()} threads, OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', 'unset')}, "
              f"load {os.getloadavg()[0]:.1f}):")
        print(f"  embed the query alone   p50 {ms['embed'][0]:7.1f} ms   p95 {ms['embed'][1]:7.1f} ms")
        print(f"  full default search     p50 {ms['search'][0]:7.1f} ms   p95 {ms['search'][1]:7.1f} ms")
        print(f"    of which BM25         p50 {ms['lexical'][0]:7.1f} ms   p95 {ms['lexical'][1]:7.1f} ms  "
              "(index.postings, cache warm for this query's terms)")
        print(f"    (FTS5's own bm25()    p50 {ms['fts5'][0]:7.1f} ms   p95 {ms['fts5'][1]:7.1f} ms  "
              "the same ranking, for comparison; not used)")
        print(f"    of which FAISS        p50 {ms['dense'][0]:7.1f} ms   p95 {ms['dense'][1]:7.1f} ms  (x2 with feedback)")
        print(f"  FAISS right after embedding the query: one thread p50 {ms['one'][0]:.1f} ms, p95 {ms['one'][1]:.1f} ms "
              f"(citewise); on FAISS's {faiss.omp_get_max_threads()} threads, as before, p50 {ms['all'][0]:.1f} ms, p95 {ms['all'][1]:.1f} ms "
              f"(x{ms['all'][0] / ms['one'][0]:.1f} / x{ms['all'][1] / ms['one'][1]:.1f})")
        r50, r95 = ms["search"][0] / ms["embed"][0], ms["search"][1] / ms["embed"][1]
        print(f"  ratio                   p50 {r50:7.2f} x   p95 {r95:7.2f} x   (target <= 1.5x)")
        first_question(store)
        store.close()


def first_question(store: Store) -> None:
    """What the reader computes once per index generation before its first answer: the collection's
    lemma statistics (IDF, words written in lower case), loaded from the counts kept at index time
    (`index.lemmas`) beside reading and lemmatising every chunk as it did before; and the resolver's
    lookup of which documents hold a question's rare words (`assistant.answer.resolve.holding`, from
    the terms `index.doc_terms` keeps) beside tokenising every document as it did before."""
    from assistant.answer.features import Idf
    from assistant.answer.resolve import holding
    from index import doc_terms

    class Chunks:  # the same store without its counts: Idf.of_store reads every chunk
        documents, chunks_of = store.documents, store.chunks_of

    t0 = time.perf_counter()
    kept = Idf.of_store(store)
    t_kept = time.perf_counter() - t0
    t0 = time.perf_counter()
    read = Idf.of_store(Chunks())
    t_read = time.perf_counter() - t0
    assert (kept.n, kept.df, kept.lower) == (read.n, read.df, read.lower), "kept lemma counts differ from a recount"
    wanted = [doc_terms.key(w) for w in WORDS[-5:]]
    t0 = time.perf_counter()
    held, _ = holding(store, wanted)
    t_kept_terms = time.perf_counter() - t0
    t0 = time.perf_counter()
    sets = {d.doc: doc_terms.of_document(d.doc, d.title, store.document_text(d.doc) or "") for d in store.documents()}
    t_terms = time.perf_counter() - t0
    assert all(sorted(held.get(w, [])) == sorted(d for d, s in sets.items() if w in s) for w in wanted)
    print(f"first question at {kept.n:,} chunks (once per index generation):")
    print(f"  reader's lemma statistics, kept at index time   {t_kept:7.2f} s   ({len(kept.df):,} lemmas)")
    print(f"  the same, reading and lemmatising every chunk   {t_read:7.2f} s   ratio {t_read / max(t_kept, 1e-9):.0f}x")
    print(f"  resolver's documents holding 5 words, kept      {t_kept_terms:7.2f} s")
    print(f"  the same, tokenising every document             {t_terms:7.2f} s   ratio {t_terms / max(t_kept_terms, 1e-9):.0f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--big", action="store_true", help="also 1M vectors")
    ap.add_argument("--chunks", type=int, default=100_000, help="chunks in the hybrid-latency store")
    ap.add_argument("--keep", type=Path, help="build the latency store here once and re-use it")
    ap.add_argument("--latency-only", action="store_true", help="skip the vector-index part")
    ap.add_argument("--store", choices=("faiss", "milvus", "both"), default="faiss",
                    help="vector-index part: FAISS only (default), or Milvus (milvus-lite) beside exact FAISS, or both")
    ap.add_argument("--sizes", help="vector-index part: comma-separated sizes instead of 10k,100k(,1M)")
    ap.add_argument("--vectors-only", action="store_true", help="skip the hybrid-latency part")
    args = ap.parse_args()
    print(f"FAISS {faiss.__version__}, {faiss.omp_get_max_threads()} threads; exact below {vectors.EXACT_MAX:,} vectors")
    if not args.latency_only:
        sizes = [10_000, 100_000] + ([1_000_000] if args.big else [])
        if args.sizes:
            sizes = [int(v) for v in args.sizes.split(",")]
        for n in sizes:
            part1(n, store=args.store)
    if not args.vectors_only:
        part2(args.chunks, args.keep)


if __name__ == "__main__":
    main()
