"""Answer latency beside search latency, in one run: `Assistant.ask` vs `Searcher.search` per question.

Indexes DOCS (default examples/profiles/) into --index (reused when it exists), loads the model, then
for each question measures the search alone (k=10) and the whole ask (retrieve + reader). The reader
embeds each line of a chunk the first time it reads it and keeps the vectors (also on disk, beside the
index, for the next run; this bench starts without them): the first pass over the questions is "cold"
(lines not seen yet), the second "warm", which is also what a later run on the same index gets. Prints p50 / p95 of each, the peak
RSS and the load average (the machine may be shared). Questions: --qa FILE (its "q" fields, every
split: latency only, nothing is scored) or a fixed mix written for the bench.

    python bench/answers.py [--docs DIR] [--index DIR] [--qa FILE] [--limit N]
    python bench/answers.py --docs ../shared/eval/realdocs/docs --index /tmp/rd-index --qa ../shared/eval/realdocs/qa.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from assistant import Assistant, build_index  # noqa: E402
from assistant.answer.features import VectorCache  # noqa: E402
from index import SentenceTransformerEmbedder, Store  # noqa: E402

QUESTIONS = [
    "Where did Muhammed Fatih Balin do his PhD?",
    "Which researchers have worked on GPU training?",
    "What is Baolin Li's favourite programming language?",
    "What is Moccasin?",
]


def pct(xs: list[float]) -> str:
    return f"p50 {np.percentile(xs, 50):6.0f} ms   p95 {np.percentile(xs, 95):6.0f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=Path, default=Path(__file__).resolve().parent.parent / "examples" / "profiles")
    ap.add_argument("--index", type=Path, help="reuse (or build) the index here")
    ap.add_argument("--qa", type=Path, help="take the questions from this QA file")
    ap.add_argument("--limit", type=int, default=60, help="at most this many questions")
    args = ap.parse_args()
    questions = QUESTIONS
    if args.qa:
        questions = [json.loads(line)["q"] for line in args.qa.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = questions[: args.limit]
    embedder = SentenceTransformerEmbedder()
    with tempfile.TemporaryDirectory() as tmp:
        directory = args.index or Path(tmp) / "index"
        t = time.perf_counter()
        build_index([args.docs], directory, embedder=embedder)
        print(f"index of {args.docs} ready in {time.perf_counter() - t:.1f} s")
        assistant = Assistant(Store.open(directory), embedder)
        # "first seen" means first seen: not the line vectors an earlier run kept beside the index
        assistant.reader.vectors = VectorCache(assistant.reader.vectors.embedder)
        assistant.reader.vector_file = None
        assistant.warm().join()  # as `citewise serve` does: torch loaded, so new lines embed at its speed
        assistant.ask("warm up the model and the collection statistics")
        search, cold, warm = [], [], []
        for q in questions:
            t0 = time.perf_counter()
            assistant.searcher.search(q, 10)
            assistant.searcher.embedder._cache.clear()  # ask embeds the question again
            t1 = time.perf_counter()
            assistant.ask(q)
            t2 = time.perf_counter()
            search.append((t1 - t0) * 1000)
            cold.append((t2 - t1) * 1000)
        for q in questions:
            assistant.searcher.embedder._cache.clear()
            t0 = time.perf_counter()
            assistant.ask(q)
            warm.append((time.perf_counter() - t0) * 1000)
        print(f"{len(questions)} questions")
        print(f"search (k=10)          {pct(search)}")
        print(f"ask, lines first seen  {pct(cold)}")
        print(f"ask, lines seen before {pct(warm)}")
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS {rss:.0f} MB; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
