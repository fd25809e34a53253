"""Wall time of the people table (`Assistant.table`, what `citewise table` runs) on realdocs' 17 CVs with
the default fields (preset cv): 17 people x 6 fields = 102 questions, each answered from one person's
documents. Target: <= 30 s on 2 cores.

The CVs are indexed into a fresh temporary index (or --index DIR, reused when it exists), the model and
the answer path's libraries are loaded first (`Assistant.warm`, as a server does), then the table is
built twice in the same process: the first time the reader embeds each line of a chunk it reads for
the first time (what a first `citewise table` after indexing costs), the second time it has them
(what a later run costs: `citewise table` keeps the line vectors beside the index). Prints the cells,
the wall time and ms per cell of each, the CPU time of all the process's threads, and the load average
(the machine may be shared: on a busy one the wall time says more about the others than about the
table). Quality is measured by `citewise eval table bench/questions/table.jsonl`, not here.

    python bench/table.py [--docs DIR] [--index DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REALDOCS = Path(__file__).resolve().parents[2] / "shared" / "eval" / "realdocs" / "docs"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=Path, default=REALDOCS, help="the folder of the CVs (its cv* files are indexed)")
    ap.add_argument("--index", type=Path, help="reuse (or build) the index here; default: a fresh temporary one")
    args = ap.parse_args()
    cvs = sorted(args.docs.glob("cv*")) if args.docs.is_dir() else []
    if not cvs:
        print(f"skipped: no CVs in {args.docs} (the development data lives in ../shared/eval)")
        return
    from assistant import Assistant, build_index
    from index import SentenceTransformerEmbedder, Store

    embedder = SentenceTransformerEmbedder()
    with tempfile.TemporaryDirectory(prefix="citewise-table-bench-") as tmp:
        directory = args.index or Path(tmp) / "index"
        t = time.perf_counter()
        build_index(cvs, directory, embedder=embedder)
        print(f"index of {len(cvs)} CVs ready in {time.perf_counter() - t:.1f} s")
        assistant = Assistant(Store.open(directory), embedder)
        t = time.perf_counter()
        assistant.warm().join()
        print(f"model and libraries loaded in {time.perf_counter() - t:.1f} s")
        for run in ("lines first seen", "lines seen before"):
            t, cpu = time.perf_counter(), time.process_time()
            table = assistant.table()
            seconds, cpu = time.perf_counter() - t, time.process_time() - cpu
            cells = len(table.rows) * len(table.fields)
            filled = sum(1 for r in table.rows for c in r.cells if c.citation)
            print(f"table ({run}): {len(table.rows)} people x {len(table.fields)} fields = {cells} cells "
                  f"({filled} filled) in {seconds:.1f} s, {1000 * seconds / max(cells, 1):.0f} ms per cell, "
                  f"{cpu:.1f} s of CPU in all threads (target <= 30 s on 2 cores)")
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
