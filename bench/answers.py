"""Answer latency beside search latency, in one run: `Assistant.ask` vs `Searcher.search` per question.

Indexes DOCS (default: realdocs' documents and questions when ../shared is here, else examples/profiles/
and a fixed mix) into --index (reused when it exists), loads the model, then for each question measures
the search alone (k=10) and the whole ask (retrieve + reader). The reader embeds each line of a chunk
the first time it reads it and keeps the vectors (also on disk, beside the index, for the next run;
this bench starts without them): the first pass over the questions is "cold" (lines not seen yet), the
second "warm", which is also what a later run on the same index gets. Three readers are measured side by
side: the ranker alone (`answer.reading_model = "none"`), the default one (the reading model, `index.reading`,
reads the best candidates of fact questions about documents of no person) and the preset `reading` (it reads
every question), with the part of each ask the reading model spends and each one's ratio to the ranker alone. Also printed: the reading
model's load time (numpy, as a one-shot `citewise ask` loads it), the peak RSS and the load average
(the machine may be shared). Questions: --qa FILE (its "q" fields, every split: latency only, nothing
is scored) or a fixed mix written for the bench.

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
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from assistant import Assistant, Settings, build_index  # noqa: E402
from assistant.answer.features import VectorCache  # noqa: E402
from index import SentenceTransformerEmbedder, Store  # noqa: E402

REALDOCS = Path(__file__).resolve().parents[2] / "shared" / "eval" / "realdocs"

QUESTIONS = [
    "Where did Muhammed Fatih Balin do his PhD?",
    "Which researchers have worked on GPU training?",
    "What is Baolin Li's favourite programming language?",
    "What is Moccasin?",
]


def pct(xs: list[float]) -> str:
    return f"p50 {np.percentile(xs, 50):6.0f} ms   p95 {np.percentile(xs, 95):6.0f} ms"


def measure(assistant: Assistant, questions: list[str]) -> tuple[list[float], ...]:
    """Search, ask with every line new, ask again, and the reading model's part of each first ask (ms)."""
    # "first seen" means first seen: not the line vectors an earlier run kept beside the index
    assistant.reader.vectors = VectorCache(assistant.reader.vectors.embedder)
    assistant.reader.vector_file = None
    assistant.warm().join()  # as `citewise serve` does: torch loaded, so new lines embed at its speed
    assistant.ask("warm up the model and the collection statistics")
    reading = assistant.reader.reading
    spent: list[float] = []
    if reading is not None:  # time the reading model's part of each ask
        inner = reading.read

        def timed(pairs: Any, **kw: Any) -> Any:
            t0 = time.perf_counter()
            out = inner(pairs, **kw)
            spent.append((time.perf_counter() - t0) * 1000)
            return out

        reading.read = timed  # type: ignore[method-assign]
    search, cold, warm, read_cold = [], [], [], []
    for q in questions:
        t0 = time.perf_counter()
        assistant.searcher.search(q, 10)
        assistant.searcher.embedder._cache.clear()  # ask embeds the question again
        t1 = time.perf_counter()
        spent.clear()
        assistant.ask(q)
        t2 = time.perf_counter()
        search.append((t1 - t0) * 1000)
        cold.append((t2 - t1) * 1000)
        if reading is not None:
            read_cold.append(sum(spent))
    for q in questions:
        assistant.searcher.embedder._cache.clear()
        t0 = time.perf_counter()
        assistant.ask(q)
        warm.append((time.perf_counter() - t0) * 1000)
    return search, cold, warm, read_cold


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=Path, default=None, help="documents (default: realdocs, else examples/profiles)")
    ap.add_argument("--index", type=Path, help="reuse (or build) the index here")
    ap.add_argument("--qa", type=Path, help="take the questions from this QA file")
    ap.add_argument("--limit", type=int, default=200, help="at most this many questions")
    args = ap.parse_args()
    if args.docs is None:
        if (REALDOCS / "qa.jsonl").is_file():
            args.docs, args.qa = REALDOCS / "docs", args.qa or REALDOCS / "qa.jsonl"
        else:
            print(f"{REALDOCS} is not here: timing examples/profiles/ and a fixed mix of questions")
            args.docs = Path(__file__).resolve().parent.parent / "examples" / "profiles"
    from index.reading import PackagedReader

    t = time.perf_counter()
    PackagedReader().load()
    load_s = time.perf_counter() - t
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
        store = Store.open(directory)
        rows: dict[str, tuple[list[float], ...]] = {}
        for name, settings in (("ranker", Settings(answer={"reading_model": "none"})), ("default", Settings()),
                               ("reading", Settings(preset="reading"))):
            rows[name] = measure(Assistant(store, embedder, settings=settings), questions)
        print(f"{len(questions)} questions; each reader starts with no line seen")
        for name, (search, cold, warm, read_cold) in rows.items():
            print(f"[{name}] search (k=10)          {pct(search)}")
            print(f"[{name}] ask, lines first seen  {pct(cold)}")
            print(f"[{name}] ask, lines seen before {pct(warm)}")
            if read_cold:
                share = sum(read_cold) / max(sum(cold), 1e-9)
                print(f"[{name}]   of which the reading model {pct(read_cold)}   ({share:.0%} of ask)")
        base = rows["ranker"][1]
        for name in ("default", "reading"):
            other = rows[name][1]
            print(f"{name} / ranker alone, ask first seen: p50 x{np.percentile(other, 50) / np.percentile(base, 50):.2f}, "
                  f"p95 x{np.percentile(other, 95) / np.percentile(base, 95):.2f}")
        print(f"reading model load (numpy) {load_s:.2f} s")
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS {rss:.0f} MB; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
