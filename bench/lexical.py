"""Lexical retrieval beside the textbook baseline: bm25s (English stopwords + Snowball stemmer)
against citewise's lexical search on BEIR collections (chunk BM25 alone, and with the default share of
its whole document's BM25 added), nDCG@10 side by side, and `--explain`:
which of tokenisation, BM25 k1/b, the `context` column weight and chunk-vs-document scoring
makes the difference (each factor switched on its own over the chunks of the same index).

    .venv/bin/python bench/lexical.py ../shared/eval/beir/cranfield --index /tmp/cranfield-index
    .venv/bin/python bench/lexical.py ../shared/eval/beir/cacm --index /tmp/cacm-index --explain

`--index` is an index `citewise eval beir DIR --index ...` built (the chunks and tokens are read
from it; nothing is embedded here). bm25s and PyStemmer are test/bench dependencies.
"""

from __future__ import annotations

import argparse
import math
import sqlite3
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from index import lexical, postings  # noqa: E402
from index.beir import BeirData, load_beir  # noqa: E402
from index.evaluate import beir_metrics  # noqa: E402


def bm25s_run(data: BeirData, depth: int = 100) -> dict[str, dict[str, float]]:
    """The textbook baseline: bm25s defaults (Lucene BM25, k1 1.5, b 0.75) over title + text."""
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    ids = list(data.corpus)
    texts = [f"{d.title}\n{d.text}" for d in data.corpus.values()]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
    qids = list(data.queries)
    qtok = bm25s.tokenize([data.queries[q] for q in qids], stopwords="en", stemmer=stemmer, show_progress=False)
    docs, scores = retriever.retrieve(qtok, k=min(depth, len(ids)), show_progress=False, n_threads=1)
    return {q: {ids[int(d)]: float(s) for d, s in zip(docs[n], scores[n], strict=True) if s > 0}
            for n, q in enumerate(qids)}


def _doc_of(db: sqlite3.Connection, data: BeirData) -> dict[int, str]:
    """chunk id -> BEIR doc id (`write_corpus` names the files by corpus position)."""
    order = list(data.corpus)
    return {i: order[int(Path(p).stem)] for i, p in db.execute(
        "SELECT c.id, d.path FROM chunks c JOIN documents d USING(doc_id)")}


def fold(ranked: list[tuple[int, float]], doc_of: dict[int, str], depth: int = 100) -> dict[str, float]:
    """Chunks to documents: a document ranks where its best chunk ranks."""
    out: dict[str, float] = {}
    for i, s in ranked:
        d = doc_of.get(i)
        if d is not None and d not in out:
            out[d] = s
            if len(out) == depth:
                break
    return out


def citewise_run(db: sqlite3.Connection, data: BeirData, context_weight: float,
                 doc_weight: float = 0.0) -> dict[str, dict[str, float]]:
    doc_of = _doc_of(db, data)
    cache = postings.Cache()
    return {q: fold(lexical.search(db, text, 300, context_weight=context_weight, doc_weight=doc_weight, cache=cache),
                    doc_of) for q, text in data.queries.items()}


# -- explain: one BM25 in Python, each factor switched on its own ------------------------------
Tokens = Callable[[str], list[str]]


def _porter(text: str) -> list[str]:
    return [s for t in lexical.terms(text) for s in postings.stems(t)]


def _snowball_ours() -> Tokens:
    import Stemmer

    stem = Stemmer.Stemmer("english").stemWord
    return lambda text: [stem(t) for t in lexical.terms(text)]


def _bm25s_tokens() -> Tokens:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")

    def tok(text: str) -> list[str]:
        out = bm25s.tokenize([text], stopwords="en", stemmer=stemmer, show_progress=False, return_ids=False)
        return list(out[0])
    return tok


def bm25(units: list[tuple[str, list[str], list[str]]], queries: dict[str, list[str]], *, k1: float, b: float,
         weight: float, idf: str) -> dict[str, dict[str, float]]:
    """BM25 over (doc id, text tokens, context tokens) units, best unit per document."""
    n = len(units)
    tf = [Counter(t) + Counter({k: v * weight for k, v in Counter(c).items()}) for _, t, c in units]
    length = [len(t) + len(c) for _, t, c in units]
    avg = sum(length) / n
    inv: dict[str, list[int]] = defaultdict(list)
    for j, f in enumerate(tf):
        for t in f:
            inv[t].append(j)
    run = {}
    for q, terms in queries.items():
        score: dict[int, float] = defaultdict(float)
        for t in dict.fromkeys(terms):
            post = inv.get(t, [])
            df = len(post)
            w = math.log(1 + (n - df + 0.5) / (df + 0.5)) if idf == "lucene" else max(math.log((n - df + 0.5) / (df + 0.5)), 1e-6)
            for j in post:
                f = tf[j][t]
                score[j] += w * f * (k1 + 1) / (f + k1 * (1 - b + b * length[j] / avg))
        best: dict[str, float] = {}
        for j, s in sorted(score.items(), key=lambda x: -x[1]):
            d = units[j][0]
            if d not in best:
                best[d] = s
            if len(best) == 100:
                break
        run[q] = best
    return run


def explain(db: sqlite3.Connection, data: BeirData) -> None:
    doc_of = _doc_of(db, data)
    rows = db.execute("SELECT id, text, context FROM chunks ORDER BY id").fetchall()
    toks = {"porter+ours": _porter, "snowball+ours": _snowball_ours(), "bm25s": _bm25s_tokens()}
    base = {"tok": "porter+ours", "unit": "chunk", "k1": 1.2, "b": 0.75, "w": 1.0, "idf": "fts5"}
    variants = [{}, {"w": 0.5}, {"w": 0.0}, {"k1": 1.5}, {"b": 0.5}, {"b": 0.9}, {"idf": "lucene"},
                {"tok": "snowball+ours"}, {"tok": "bm25s"}, {"unit": "doc"}, {"unit": "doc", "w": 0.0},
                {"unit": "doc", "w": 0.0, "tok": "bm25s", "k1": 1.5, "idf": "lucene"}]
    cache: dict[tuple[str, str], list] = {}
    for v in variants:
        cfg = {**base, **v}
        key = (cfg["tok"], cfg["unit"])
        if key not in cache:
            tok = toks[cfg["tok"]]
            if cfg["unit"] == "chunk":
                units = [(doc_of[i], tok(t), tok(c)) for i, t, c in rows]
            else:
                units = [(d, tok(f"{doc.title}\n{doc.text}"), []) for d, doc in data.corpus.items()]
            cache[key] = [units, {q: tok(t) for q, t in data.queries.items()}]
        units, queries = cache[key]
        run = bm25(units, queries, k1=cfg["k1"], b=cfg["b"], weight=cfg["w"], idf=cfg["idf"])
        print(f"{beir_metrics(data.qrels, run)['ndcg@10']:.4f}  {v or 'citewise as is'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", type=Path)
    ap.add_argument("--index", type=Path, required=True, help="the index of `citewise eval beir FOLDER --index`")
    ap.add_argument("--context-weight", type=float, default=None, help="default: DEFAULT_FUSION's")
    ap.add_argument("--explain", action="store_true", help="also switch each factor on its own")
    args = ap.parse_args()
    from index.search import DEFAULT_FUSION

    data = load_beir(args.folder)
    db = sqlite3.connect(args.index / "chunks.sqlite", isolation_level=None)
    w = DEFAULT_FUSION.context_weight if args.context_weight is None else args.context_weight
    print(f"{data.name}: nDCG@10 over {len(data.queries)} queries")
    print(f"  {'bm25s (stopwords en, Snowball)':<45} {beir_metrics(data.qrels, bm25s_run(data))['ndcg@10']:.4f}")
    dw = DEFAULT_FUSION.doc_weight
    for d in dict.fromkeys((0.0, dw)):
        label = f"citewise lexical (context {w:g}, document {d:g})"
        print(f"  {label:<45} {beir_metrics(data.qrels, citewise_run(db, data, w, d))['ndcg@10']:.4f}")
    if args.explain:
        explain(db, data)


if __name__ == "__main__":
    main()
