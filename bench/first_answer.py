"""The first answer of a fresh process, with and without the warm-up a server does (`Assistant.warm`).

Each run is a new Python process over the same index (DOCS, default examples/profiles/, indexed into
--index once). It launches the chat UI (`assistant.ui.serve`, not blocking), waits --wait seconds as
a person opening the page and typing would, then times its first question and a second one:

- `warm=False`: the model and the answer path's libraries load at the first question (what
  citewise did before `Assistant.warm`);
- `warm=True` (the default of `serve`): they load in the background while the page opens.

Also printed: a fresh process's time from start to its first answer without a UI (what one
`citewise ask` costs before it prints), with the numpy query encoder (`index.bert_numpy`, the default)
and with torch only (`CITEWISE_NUMPY_ENCODER=0`, what citewise did before: the imports of torch and
transformers dominate it), side by side.

    python bench/first_answer.py [--docs DIR] [--index DIR] [--runs N] [--wait S]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "When did Muhammed Fatih Balin start his PhD?"
SECOND = "Which researchers have worked on GPU training?"

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from index import Store
from assistant.api import Assistant, make_embedder
mode, index, wait, port = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
store = Store.open(index)
a = Assistant(store, make_embedder(store.manifest.embedder))
app = None
if not mode.startswith("cli"):
    from assistant.ui import serve
    app = serve(a, port=port, block=False, warm=mode == "warm")
    time.sleep(wait)
t1 = time.perf_counter()
a.ask(QUESTION)
t2 = time.perf_counter()
a.ask(SECOND)
t3 = time.perf_counter()
if app is not None:
    app.close()
print(json.dumps({"start_to_first": t2 - t0, "first": t2 - t1, "second": t3 - t2}))
"""


def run(mode: str, index: Path, wait: float, port: int) -> dict[str, float]:
    code = f"QUESTION = {QUESTION!r}\nSECOND = {SECOND!r}\n" + CHILD
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", GRADIO_ANALYTICS_ENABLED="False",
               PYTHONPATH=str(ROOT), CITEWISE_NUMPY_ENCODER="0" if mode == "cli_torch" else "1")
    out = subprocess.run([sys.executable, "-c", code, mode, str(index), str(wait), str(port)], capture_output=True,
                         text=True, env=env, check=True, timeout=600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=Path, default=ROOT / "examples" / "profiles")
    ap.add_argument("--index", type=Path, help="index directory (built once; default: a temporary one)")
    ap.add_argument("--runs", type=int, default=3, help="processes per variant (alternated)")
    ap.add_argument("--wait", type=float, default=12.0, help="seconds between launch and the first question")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        index = args.index or Path(tmp) / "index"
        if not (index / "manifest.json").exists():
            sys.path.insert(0, str(ROOT))
            from assistant import build_index

            build_index([args.docs], index)
        got: dict[str, list[dict[str, float]]] = {"cold": [], "warm": [], "cli": [], "cli_torch": []}
        for i in range(args.runs):
            for mode in got:
                got[mode].append(run(mode, index, args.wait, 7870 + i))
    med = {m: {k: float(np.median([r[k] for r in rs])) for k in rs[0]} for m, rs in got.items()}
    print(f"first answer of a fresh process, median of {args.runs} (load {os.getloadavg()[0]:.1f}):")
    print(f"  UI, first question {args.wait:.0f} s after launch, warm=False   {med['cold']['first']:6.2f} s   "
          f"(second question {med['cold']['second']:.2f} s)")
    print(f"  UI, first question {args.wait:.0f} s after launch, warm=True    {med['warm']['first']:6.2f} s   "
          f"(second question {med['warm']['second']:.2f} s)   ratio {med['cold']['first'] / med['warm']['first']:.0f}x")
    print(f"  no UI: process start to first answer, torch only  {med['cli_torch']['start_to_first']:6.2f} s   "
          f"(of which the question itself {med['cli_torch']['first']:.2f} s)")
    print(f"  no UI: process start to first answer, numpy query {med['cli']['start_to_first']:6.2f} s   "
          f"(of which the question itself {med['cli']['first']:.2f} s)   ratio "
          f"{med['cli_torch']['start_to_first'] / med['cli']['start_to_first']:.1f}x")


if __name__ == "__main__":
    main()
