"""Reading models judged on citewise's own candidates: which run reads the passages of our questions best.

SQuAD's figures (`python -m training.evaluate`) say how a run reads Wikipedia prose; this says how it reads
the candidates citewise itself reads: CV lines, report fields, paper sections. Two steps, so the second can run
where the models are (a GPU machine without citewise's dependencies needs only torch, transformers and this
repository's `training/`):

1. `dump OUT.json --set QA DOCS [--set QA DOCS ...]`: every tune fact question of each QA file (records without
   a split count as tune), its documents indexed with the real pipeline and read as `ask` reads them
   (`answer.samples.collect`); written: the question as the reading model reads it (`reread`: without the
   names that located its documents), the ranker's 12 best candidates with their probability and label (it
   holds a gold string), and whether a person owns one of the six best.
2. `score DUMP.json MODEL_DIR...`: each model (a folder `python -m training.train` wrote) reads the six best
   candidates of every question, beside the ranker's own order. Printed per model, for all questions, those
   about a person's documents ("owned") and the rest: top-1 among the answerable questions whose six hold a
   right one, read alone and beside the ranker (its logit plus a weight times the reading logit, the best of
   four weights), and the AUC of the best read probability, answerable against unanswerable.

    python bench/read_candidates.py dump /tmp/dump.json --set ../shared/eval/realdocs/qa.jsonl ../shared/eval/realdocs/docs
    python bench/read_candidates.py score /tmp/dump.json index/models/reading /tmp/run2
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from functools import partial
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TOP, READ = 12, 6
WEIGHTS = (0.25, 0.5, 1.0, 2.0)


def dump(sets: list[tuple[str, str]], index_root: Path | None) -> list[dict[str, Any]]:
    import numpy as np

    from assistant.answer.features import focus, without_names
    from assistant.answer.reader import Reader
    from assistant.answer.resolve import located
    from assistant.answer.samples import _search_order, collect, indexed, read_records
    from assistant.api import Assistant

    out = []
    for qa, store, embedder in indexed(sets, index_root=index_root):
        assistant = Assistant(store, embedder)
        reader = Reader(embedder, store=store)
        for s in collect(reader, partial(_search_order, assistant), read_records(qa), tag=Path(qa).stem):
            r = s.reading
            if s.who or not len(r.cands) or r.first is None:
                continue
            order = [int(i) for i in np.argsort(-r.first, kind="stable")][:TOP]
            question = without_names(focus(r.question, r.hits), sorted(located(r.question, r.hits, store)))
            out.append({"set": Path(qa).stem, "id": s.record.get("id"), "q": r.question, "qr": question,
                        "answerable": bool(s.record.get("docs")),
                        "owned": any(r.hits[r.cands[i].hit].owner for i in order[:READ]),
                        "cands": [{"text": r.text(i), "first": float(r.first[i]), "label": int(s.labels[i])}
                                  for i in order]})
        print(f"{qa}: {sum(d['set'] == Path(qa).stem for d in out)} fact questions", file=sys.stderr)
    return out


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def figures(questions: list[dict[str, Any]], probs: list[list[float]]) -> dict[str, dict[str, float]]:
    """Top-1 read alone and beside the ranker, and the AUC of the best read, per group of questions."""
    from training.evaluate import auc

    out = {}
    for group in ("all", "owned", "unowned"):
        right = dict.fromkeys((None, *WEIGHTS), 0)
        n, pos, neg = 0, [], []
        for d, ps in zip(questions, probs, strict=True):
            if group != "all" and (group == "owned") != d["owned"]:
                continue
            cs = d["cands"][:READ]
            if not d["answerable"]:
                neg.append(max(ps))
                continue
            if not any(c["label"] for c in cs):
                continue
            n += 1
            pos.append(max(ps))
            for w in right:
                score = ps if w is None else [_logit(c["first"]) + w * _logit(p) for c, p in zip(cs, ps, strict=True)]
                right[w] += cs[max(range(len(cs)), key=score.__getitem__)]["label"]
        out[group] = {"answerable": n, "unanswerable": len(neg), "alone": right[None] / max(n, 1),
                      "beside": max(right[w] for w in WEIGHTS) / max(n, 1), "auc": auc(pos, neg)}
    return out


def read_with(model_dir: Path, pairs: list[tuple[str, str]], base: Path | None) -> list[float]:
    """The probability that each window answers its question, by the model in `model_dir` (torch)."""
    import torch
    from safetensors.torch import load_file

    from training.model import ReadingNet, TorchScorer, tokenizer_of
    from training.train import base_model_path

    base = base or base_model_path()
    meta = json.loads((model_dir / "reading.json").read_text(encoding="utf-8"))
    net = ReadingNet(base)
    state = {k: v.float() for k, v in load_file(str(model_dir / "model.safetensors")).items()}
    net.load_state_dict(state, strict=False)  # the word embeddings are the base model's
    device = "cuda" if torch.cuda.is_available() else "cpu"
    scorer = TorchScorer(net.to(device), tokenizer_of(base, meta["max_tokens"]), meta["max_tokens"], device)
    return [p for p, _, _ in scorer(pairs)]


def score(path: Path, models: list[Path], base: Path | None) -> dict[str, Any]:
    questions = json.loads(path.read_text(encoding="utf-8"))
    sizes = [len(d["cands"][:READ]) for d in questions]
    res = {"ranker": figures(questions, [[c["first"] for c in d["cands"][:READ]] for d in questions])}
    for m in models:
        flat = read_with(m, [(d["qr"], c["text"]) for d in questions for c in d["cands"][:READ]], base)
        probs, at = [], 0
        for k in sizes:
            probs.append(flat[at:at + k])
            at += k
        res[str(m)] = figures(questions, probs)
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python bench/read_candidates.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump", help="read the tune questions and write their candidates")
    d.add_argument("out", type=Path)
    d.add_argument("--set", nargs=2, action="append", required=True, metavar=("QA", "DOCS"),
                   help="a QA file and the folder (or file) of its documents; repeatable")
    d.add_argument("--index-root", type=Path, help="keep the indexes here (a re-run embeds nothing)")
    s = sub.add_parser("score", help="read a dump's candidates with each model")
    s.add_argument("dump", type=Path)
    s.add_argument("models", type=Path, nargs="+", help="folders written by python -m training.train")
    s.add_argument("--base", type=Path, help="the base model folder (default: the packaged MiniLM)")
    args = ap.parse_args(argv)
    if args.cmd == "dump":
        missing = [p for pair in args.set for p in pair if not Path(p).exists()]
        if missing:
            print(f"not found: {', '.join(missing)}", file=sys.stderr)
            return 2
        got = dump([(qa, docs) for qa, docs in args.set], args.index_root)
        args.out.write_text(json.dumps(got), encoding="utf-8")
        print(f"{len(got)} fact questions written to {args.out}", file=sys.stderr)
        return 0
    res = score(args.dump, args.models, args.base)
    print(f"{'model':32} {'group':8} {'answerable':>10} {'unans.':>6} {'alone':>6} {'beside':>6} {'AUC':>6}")
    for name, groups in res.items():
        for g, f in groups.items():
            print(f"{Path(name).name[:32]:32} {g:8} {f['answerable']:10d} {f['unanswerable']:6d} {f['alone']:6.3f} "
                  f"{f['beside']:6.3f} {f['auc']:6.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
