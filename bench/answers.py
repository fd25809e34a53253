"""Answer latency: how long does `Assistant.ask` take once the model is loaded, and where does it go?

Indexes examples/profiles/ (or reuses --index), then asks a fixed mix of question kinds several times
each: a named-person fact, a "who" question (one retrieval per person), an abstention, a global
question. Prints, per kind, the median total time and its split into retrieval and answer writing,
and the writer's share. Also the peak RSS of the process. Questions are written for the bench, not
taken from the evaluation set.

    python bench/answers.py [--index DIR] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from assistant import Assistant, build_index  # noqa: E402
from index import SentenceTransformerEmbedder, Store  # noqa: E402

QUESTIONS = {
    "named-person fact": "Where did Muhammed Fatih Balin do his PhD?",
    "who (per person)": "Which researchers have worked on GPU training?",
    "abstention": "What is Baolin Li's favourite programming language?",
    "global": "What is Moccasin?",
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index", type=Path, help="reuse (or build) the seed index here")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    embedder = SentenceTransformerEmbedder()
    with tempfile.TemporaryDirectory() as tmp:
        directory = args.index or Path(tmp) / "index"
        if not (directory / "manifest.json").exists():
            t = time.perf_counter()
            build_index([Path(__file__).resolve().parent.parent / "examples" / "profiles"], directory, embedder=embedder)
            print(f"indexed examples/profiles in {time.perf_counter() - t:.1f} s")
        assistant = Assistant(Store.open(directory), embedder)
        assistant.ask("warm up the model")
        print(f"{'question kind':<20}{'total ms':>10}{'retrieve ms':>13}{'write ms':>10}{'writer share':>14}")
        for kind, q in QUESTIONS.items():
            totals, retrieves, writes = [], [], []
            for _ in range(args.repeat):
                assistant.searcher.embedder._cache.clear()  # every run embeds the question again
                question = q
                t0 = time.perf_counter()
                hits = assistant.retrieve(question)
                t1 = time.perf_counter()
                assistant.writer.write(question, hits)
                t2 = time.perf_counter()
                retrieves.append((t1 - t0) * 1000)
                writes.append((t2 - t1) * 1000)
                totals.append((t2 - t0) * 1000)
            tot, ret, wri = (statistics.median(x) for x in (totals, retrieves, writes))
            print(f"{kind:<20}{tot:>10.0f}{ret:>13.0f}{wri:>10.0f}{wri / tot:>13.0%}")
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS {rss:.0f} MB (model, index and Python)")
        print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
