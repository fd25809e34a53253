"""Resolve and scoped retrieval, measured on a QA file (realdocs by default; tune split unless told).

    .venv/bin/python bench/resolve.py --index /tmp/r16_realdocs            # builds the index if absent
    .venv/bin/python bench/resolve.py --index /tmp/r16_realdocs --split heldout --quiet

Prints, over the answerable non-"who" questions: resolution recall (the resolved documents hold
every listed document), wrong scopes (resolved, but a listed document is outside the scope),
unscoped; over the unanswerable ones how many were scoped; and retrieval R@1 / R@4 of the hits the
answer path gets, with the scope (resolve + scoped_retrieve) and without it (the plain search over every
document). `--quiet` prints aggregates only (use it for heldout: never read heldout items).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from assistant import Assistant  # noqa: E402
from assistant.answer.asks import asks_who  # noqa: E402
from assistant.answer.resolve import resolve, scoped_retrieve  # noqa: E402
from assistant.api import build_index  # noqa: E402
from index.evaluate import load_qa, qa_metrics, qa_results  # noqa: E402

REALDOCS = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "realdocs"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--qa", default=str(REALDOCS / "qa.jsonl"))
    ap.add_argument("--docs", default=str(REALDOCS / "docs"))
    ap.add_argument("--index", default="/tmp/r16_realdocs")
    ap.add_argument("--split", default="tune")
    ap.add_argument("--quiet", action="store_true", help="aggregates only")
    args = ap.parse_args()
    if not (Path(args.index) / "manifest.json").exists():
        build_index([args.docs], args.index)[0].close()
    a = Assistant.open(args.index)
    items = [i for i in load_qa(args.qa) if i.raw.get("split", args.split) == args.split]
    # question types by id, as the realdocs README lists them ("who": d084-d110); other QA files: as the reader reads them
    def is_who(i) -> bool:
        if "realdocs" in args.qa and i.id[:1] == "d" and i.id[1:].isdigit():
            return 84 <= int(i.id[1:]) <= 110
        return asks_who(i.question) and not a.people.find(i.question)

    fact = [i for i in items if i.docs and not is_who(i)]
    who = [i for i in items if i.docs and i not in fact]
    unans = [i for i in items if not i.docs]

    def listed_in(item, docs) -> bool:
        base = {Path(d).name for d in docs}
        return all(any(b.startswith(p) for b in base) for p in item.docs)

    t0 = time.perf_counter()
    res = {i.id: resolve(i.question, a.people, a.store) for i in items}
    per_q = (time.perf_counter() - t0) / max(len(items), 1) * 1000
    right = sum(1 for i in fact if res[i.id].docs and listed_in(i, res[i.id].docs))
    wrong = [i for i in fact if res[i.id].docs and not listed_in(i, res[i.id].docs)]
    unscoped = [i for i in fact if not res[i.id].docs]
    print(f"{args.split}: {len(fact)} answerable fact questions, {len(who)} who, {len(unans)} unanswerable;"
          f" resolve {per_q:.1f} ms/question")
    print(f"resolution recall {right / len(fact):.3f} ({right}/{len(fact)}), wrong scope {len(wrong)},"
          f" unscoped {len(unscoped)}; unanswerables scoped {sum(1 for i in unans if res[i.id].docs)}/{len(unans)}")
    if not args.quiet:
        for i in wrong:
            print("  WRONG", i.id, i.question, "->", [Path(d).name for d in res[i.id].docs], res[i.id].note)
        for i in unscoped:
            print("  UNSCOPED", i.id, i.question)

    k = a.settings.k
    old = qa_metrics(qa_results(lambda q: a.searcher.search(q, k), fact))
    new = qa_metrics(qa_results(lambda q: scoped_retrieve(a.searcher, a.people, resolve(q, a.people, a.store), q, k,
                                                          who=False)[0], fact))
    print(f"fact questions, the plain search:                R@1 {old['recall@1']:.3f} R@4 {old['recall@4']:.3f}"
          f" R@10 {old['recall@10']:.3f}")
    print(f"fact questions, resolve + scoped_retrieve:       R@1 {new['recall@1']:.3f} R@4 {new['recall@4']:.3f}"
          f" R@10 {new['recall@10']:.3f}")
    print(json.dumps({"split": args.split, "recall": right / len(fact), "wrong": len(wrong), "unscoped": len(unscoped),
                      "plain": old, "scoped": new}))


if __name__ == "__main__":
    main()
