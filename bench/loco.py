"""Fusion defaults chosen by leave-one-collection-out (LOCO) over Cranfield, CACM and realdocs.

Every candidate `Fusion` (RRF with k and weights, convex with norms and weights, the weight of
whole-document BM25 in the lexical side, feedback on or off, the rare-term promotion on or off) is scored on each collection
with the real `fused_search` over an index built once (`citewise eval beir DIR --index ...`,
`citewise eval qa FILE --docs DIR --index ...`): nDCG@10 of documents for the BEIR collections,
of chunks for realdocs as a retrieval set (a chunk is relevant when it is in a listed document and
holds a gold string; only `tune` items). Then, for each collection held out, the config best on
average over the other two is chosen and its held-out score reported; the shipped default is the
config best over all three. Query embeddings, dense/lexical candidate lists and chunks are cached
per query, so a config costs only its fusion.

    .venv/bin/python bench/loco.py --cranfield /tmp/cranfield-index --cacm /tmp/cacm-index \\
        --realdocs /tmp/realdocs-index [--top 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from index import Store  # noqa: E402
from index.beir import load_beir  # noqa: E402
from index.embed import SentenceTransformerEmbedder  # noqa: E402
from index.evaluate import QueryCache, beir_metrics, load_qa, supports  # noqa: E402
from index.search import DEFAULT_FUSION, HYBRID_RRF, Fusion, fused_search  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared" / "eval"


class Memo:
    """A `Store` whose searches and chunk reads are remembered (same answers, asked once)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.memo: dict[tuple, Any] = {}
        self.chunks: dict[int, Any] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def _get(self, key: tuple, make: Callable[[], Any]) -> Any:
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]

    def dense_search(self, q: np.ndarray, k: int) -> Any:
        return self._get(("d", q.tobytes(), k), lambda: self.store.dense_search(q, k))

    def dense_search_in(self, q: np.ndarray, docs: Any, k: int) -> Any:
        docs = tuple(docs)
        return self._get(("di", q.tobytes(), docs, k), lambda: self.store.dense_search_in(q, docs, k))

    def lexical_search(self, query: str, k: int, docs: Any = None, w: float = 0.5, dw: float = 0.0) -> Any:
        docs = None if docs is None else tuple(docs)
        return self._get(("l", query, k, docs, w, dw), lambda: self.store.lexical_search(query, k, docs, w, dw))

    def owner_docs(self) -> Any:
        return self._get(("o",), self.store.owner_docs)

    def doc_ids(self, docs: Any) -> Any:
        docs = tuple(docs)
        return self._get(("ids", docs), lambda: self.store.doc_ids(docs))

    def vectors(self, ids: Sequence[int]) -> Any:
        ids = tuple(ids)
        return self._get(("v", ids), lambda: self.store.vectors(list(ids)))

    def chunks_by_ids(self, ids: Any) -> dict[int, Any]:
        ids = list(ids)
        missing = [i for i in ids if i not in self.chunks]
        if missing:
            self.chunks.update(self.store.chunks_by_ids(missing))
        return {i: self.chunks[i] for i in ids if i in self.chunks}


def _ndcg10(rels: list[int], n_relevant: int) -> float:
    dcg = sum(r / math.log2(n + 2) for n, r in enumerate(rels[:10]))
    ideal = sum(1 / math.log2(n + 2) for n in range(min(n_relevant, 10)))
    return dcg / ideal if ideal else 0.0


class Beir:
    def __init__(self, folder: Path, index: Path, embedder: Any) -> None:
        self.data = load_beir(folder)
        self.store = Memo(Store.open(index))
        order = list(self.data.corpus)
        self.doc_of = {d.doc: order[int(Path(d.doc).stem)] for d in self.store.documents()}
        self.embedder = embedder
        self.name = self.data.name

    def score(self, fusion: Fusion) -> dict[str, float]:
        run = {}
        for qid, query in self.data.queries.items():
            ranked: dict[str, float] = {}
            for hit in fused_search(self.store, self.embedder, query, 200, None, fusion):
                d = self.doc_of.get(hit.doc)
                if d is not None and d not in ranked:
                    ranked[d] = 200.0 - len(ranked)
                if len(ranked) == 100:
                    break
            run[qid] = ranked
        return {"ndcg@10": beir_metrics(self.data.qrels, run)["ndcg@10"]}


class RealDocs:
    """realdocs as a retrieval set: `tune` items that list documents."""

    def __init__(self, qa: Path, index: Path, embedder: Any, split: str = "tune") -> None:
        self.items = [i for i in load_qa(qa) if i.docs and i.raw.get("split") == split]
        self.store = Memo(Store.open(index))
        self.embedder = embedder
        self.name = f"realdocs-{split}"
        self.n_relevant = {}
        docs = [d.doc for d in self.store.documents()]
        for item in self.items:
            n = 0
            for path in docs:
                if any(Path(path).name.startswith(p) for p in item.docs):
                    n += sum(1 for c in self.store.chunks_of(path) if supports(c, item))
            self.n_relevant[item.id] = n

    def score(self, fusion: Fusion) -> dict[str, float]:
        nd, r1, r4 = [], [], []
        for item in self.items:
            hits = fused_search(self.store, self.embedder, item.question, 10, None, fusion)
            sup = [supports(h, item) for h in hits]
            nd.append(_ndcg10([1 if s else 0 for s in sup], self.n_relevant[item.id]))
            for k, acc in ((1, r1), (4, r4)):
                acc.append(len(set().union(*sup[:k])) / len(item.docs) if sup[:k] else 0.0)
        return {"ndcg@10": float(np.mean(nd)), "recall@1": float(np.mean(r1)), "recall@4": float(np.mean(r4))}


def candidates() -> list[Fusion]:
    """The configs LOCO chooses among (named by `label`)."""
    out = []
    for w, doc, fb, rare in itertools.product((1.0,), (0.0, 0.5, 1.0), (0, 3), (0, 3)):
        base = replace(DEFAULT_FUSION, context_weight=w, doc_weight=doc, feedback=fb, rare_chunks=rare)
        for k, dw in itertools.product((10.0, 30.0, 60.0, 100.0), (0.3, 0.5, 0.7)):
            out.append(replace(base, method="rrf", rrf_k=k, dense_weight=dw))
        for norm, dw in itertools.product(("minmax", "z"), (0.3, 0.4, 0.5, 0.6, 0.7)):
            out.append(replace(base, method="convex", norm=norm, dense_weight=dw))
    return out


def label(f: Fusion) -> str:
    head = f"rrf k={f.rrf_k:g} dw={f.dense_weight:g}" if f.method == "rrf" else f"convex {f.norm} dw={f.dense_weight:g}"
    return f"{head} ctx={f.context_weight:g} doc={f.doc_weight:g} fb={f.feedback} rare={f.rare_chunks}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cranfield", type=Path, required=True, help="index dir of `citewise eval beir .../cranfield --index`")
    ap.add_argument("--cacm", type=Path, required=True, help="index dir of `citewise eval beir .../cacm --index`")
    ap.add_argument("--realdocs", type=Path, required=True, help="index dir of `citewise eval qa ... --docs realdocs/docs --index`")
    ap.add_argument("--shared", type=Path, default=SHARED, help="the shared eval folder")
    ap.add_argument("--top", type=int, default=5, help="configs to list per ranking")
    ap.add_argument("--json", type=Path, help="write every config's scores here")
    args = ap.parse_args()

    embedder = QueryCache(SentenceTransformerEmbedder(None))
    colls = [Beir(args.shared / "beir" / "cranfield", args.cranfield, embedder),
             Beir(args.shared / "beir" / "cacm", args.cacm, embedder),
             RealDocs(args.shared / "realdocs" / "qa.jsonl", args.realdocs, embedder)]
    configs = candidates()
    named = {"RRF(60) baseline": HYBRID_RRF, "current DEFAULT_FUSION": DEFAULT_FUSION}
    scores: dict[str, dict[str, dict[str, float]]] = {}
    t0 = time.time()
    for f in [*named.values(), *configs]:
        key = label(f)
        if key not in scores:
            scores[key] = {c.name: c.score(f) for c in colls}
    print(f"{len(scores)} configs x {len(colls)} collections in {time.time() - t0:.0f} s")
    by_label = {label(f): f for f in configs}
    names = [c.name for c in colls]

    def mean(key: str, over: Sequence[str]) -> float:
        return float(np.mean([scores[key][n]["ndcg@10"] for n in over]))

    def row(key: str) -> str:
        return "  ".join(f"{scores[key][n]['ndcg@10']:.4f}" for n in names)

    print(f"\nnDCG@10 per collection ({', '.join(names)})")
    for title, f in named.items():
        print(f"  {row(label(f))}  {title}: {label(f)}")
    print("\nleave-one-collection-out: chosen on the other two, scored on the held-out one")
    for held in names:
        others = [n for n in names if n != held]
        best = max(by_label, key=lambda k: mean(k, others))
        base = scores[label(HYBRID_RRF)][held]["ndcg@10"]
        print(f"  held out {held:<16} choice: {best:<48} held-out {scores[best][held]['ndcg@10']:.4f}"
              f" (RRF(60) {base:.4f}, train mean {mean(best, others):.4f})")
    # ties (rare-term promotion often changes no ranking here) go to the config that promotes
    ranked = sorted(by_label, key=lambda k: (-round(mean(k, names), 6), -by_label[k].rare_chunks))
    print(f"\nbest over all three (the shipped default is the first): top {args.top}")
    for key in ranked[: args.top]:
        extra = scores[key].get("realdocs-tune", {})
        print(f"  {row(key)}  mean {mean(key, names):.4f}  R@1 {extra.get('recall@1', 0):.3f}"
              f" R@4 {extra.get('recall@4', 0):.3f}  {key}")
    print(f"\nshipped: {asdict(by_label[ranked[0]])}")
    if args.json:
        args.json.write_text(json.dumps(scores, indent=1))


if __name__ == "__main__":
    main()
