"""Load on the served UI: concurrent `gradio_client` clients asking `/ask` on a local server.

One run, one server (the real `citewise serve` app, in this process, one shared embedding model):
1. a single client asks `--single` questions one after another: its median latency is the baseline;
2. `--clients` clients (threads, each with its own `gradio_client.Client`) ask `--questions` each at
   the same time.
Prints throughput, p50/p95/max latency, errors, and the loaded p50/p95 as multiples of the
single-client p50 (target on 2 cores: p50 under load <= 8x, 0 errors). Questions are built from the
index itself (templates over its document owners and section names), never from evaluation files.

    python bench/load.py                      # 8 clients x 50 questions over examples/profiles
    python bench/load.py --clients 4 --questions 10 --single 10
    python bench/load.py --index ~/.local/share/citewise/index --concurrency 2
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import socket
import statistics
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

TEMPLATES = [
    "Where did {name} study?", "What does {name} work on?", "Which company does {name} work for?",
    "What awards has {name} received?", "What did {name} publish?", "Where did {name} do the PhD?",
    "What programming languages does {name} know?", "What is the email address of {name}?",
]
TOPICS = ["Who has worked on {topic}?", "Which people mention {topic}?", "Tell me about {topic}."]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def questions_from(assistant, n: int, seed: int) -> list[str]:  # noqa: ANN001 - an Assistant
    docs = assistant.documents()
    names = sorted({d.owner or d.title for d in docs if d.owner or d.title}) or ["the author"]
    sections: set[str] = set()
    for d in docs[:50]:
        sections.update(c.section for c in assistant.store.chunks_of(d.doc) if c.section)
    topics = sorted(s for s in sections if 3 <= len(s) <= 40) or ["research"]
    pool = [t.format(name=x) for t in TEMPLATES for x in names] + [t.format(topic=x) for t in TOPICS for x in topics]
    rng = random.Random(seed)
    return [rng.choice(pool) for _ in range(n)]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def run_client(url: str, questions: list[str], latencies: list[float], errors: list[str]) -> None:
    from gradio_client import Client

    try:
        client = Client(url, verbose=False)
    except Exception as exc:  # counted, not fatal: the report shows it
        errors.extend([f"connect: {exc!r}"] * len(questions))
        return
    for q in questions:
        t0 = time.perf_counter()
        try:
            result = client.predict(q, api_name="/ask")
            if not isinstance(result, dict) or "answer" not in result:
                raise ValueError(f"unexpected result {str(result)[:80]}")
            latencies.append(time.perf_counter() - t0)
        except Exception as exc:
            errors.append(repr(exc)[:200])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index", type=Path, help="an existing index (default: examples/profiles indexed into --cache)")
    ap.add_argument("--cache", type=Path, default=REPO / "bench" / "results" / "load-index",
                    help="where the default index is built and reused")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--questions", type=int, default=50, help="questions per client")
    ap.add_argument("--single", type=int, default=20, help="questions for the single-client baseline")
    ap.add_argument("--concurrency", type=int, default=4, help="server queue concurrency (citewise serve's default)")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()

    from assistant import Assistant, build_index
    from assistant.ui import serve

    if args.index:
        assistant = Assistant.open(args.index)
    else:
        t0 = time.perf_counter()
        build_index([REPO / "examples" / "profiles"], args.cache)
        print(f"index: {args.cache} (built/updated in {time.perf_counter() - t0:.1f} s)")
        assistant = Assistant.open(args.cache)
    assistant.ask("warm up the model")  # the baseline must not include loading the model

    port = free_port()
    app = serve(assistant, port=port, block=False, concurrency=args.concurrency)
    url = f"http://127.0.0.1:{port}/"
    try:
        single_lat: list[float] = []
        single_err: list[str] = []
        t0 = time.perf_counter()
        run_client(url, questions_from(assistant, args.single, args.seed), single_lat, single_err)
        single_wall = time.perf_counter() - t0
        if not single_lat:
            sys.exit(f"the single client got no answers: {single_err[:3]}")
        base = statistics.median(single_lat)

        lat: list[float] = []
        errors: list[str] = []
        threads = [
            threading.Thread(target=run_client,
                             args=(url, questions_from(assistant, args.questions, args.seed + i + 1), lat, errors))
            for i in range(args.clients)
        ]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
    finally:
        app.close()

    total = args.clients * args.questions
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"server: 1 process, 1 shared model, queue concurrency {args.concurrency}; {os.cpu_count()} CPUs")
    print(f"single client : {len(single_lat)} asks, p50 {base * 1000:.0f} ms, p95 {pct(single_lat, .95) * 1000:.0f} ms, "
          f"{len(single_lat) / single_wall:.2f} asks/s, errors {len(single_err)}")
    if lat:
        p50, p95 = statistics.median(lat), pct(lat, .95)
        print(f"{args.clients} clients x {args.questions}: {len(lat)}/{total} answered in {wall:.1f} s = "
              f"{len(lat) / wall:.2f} asks/s; p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
              f"max {max(lat) * 1000:.0f} ms; errors {len(errors)}")
        print(f"under load / single p50: p50 {p50 / base:.1f}x, p95 {p95 / base:.1f}x (target p50 <= 8x); "
              f"throughput {len(lat) / wall / (len(single_lat) / single_wall):.2f}x the single client")
    print(f"peak RSS of this process (server + clients): {rss_mb:.0f} MB")
    for e in sorted(set(errors))[:5]:
        print("error:", e)
    if lat and statistics.median(lat) > 8 * base:
        print("ABOVE TARGET: p50 under load is more than 8x the single-client p50")
    sys.exit(1 if errors or not lat else 0)  # errors fail the run; latency is reported against its target


if __name__ == "__main__":
    main()
