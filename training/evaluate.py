"""Reading figures: how well a scorer of (question, window) pairs reads.

On SQuAD-format questions (every window of each question's paragraph, cut as `windows.windows`):
- `right_first`: answerable questions whose best-scored window holds a whole answer;
- `auc`, `accuracy`: answerable against unanswerable questions, by the question's best window score
  (ROC AUC, and accuracy at `threshold`, chosen where it is best on the validation articles);
- `em`, `f1`: the answer phrase read from the best window against the gold answers (SQuAD's
  normalisation: lower case, no punctuation or articles), answerable questions only.
On WikiQA (question, sentence, label): MAP and MRR over the questions with a right sentence.

A scorer maps a list of (question, window) pairs to (probability, (start, end), margin) per pair: the
span in character offsets of the window ((-1, -1) when it gives none) and the span head's margin over
"no answer" (nan when there is no span head); the bi-encoder's cosine gives neither. `auc_margin` is
the AUC of the question's best window margin (SQuAD 2.0 readers' no-answer score), `auc_both` of the
mean of the probability and the margin's sigmoid.

Run `python -m training.evaluate` (with citewise installed) for the shipped model beside the
packaged bi-encoder; `training.train` calls `evaluate` with the model it has just trained.
"""

from __future__ import annotations

import argparse
import collections
import csv
import math
import re
import string
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .windows import Question, article_split, read_squad, windows

Scored = tuple[float, tuple[int, int], float]
Scorer = Callable[[Sequence[tuple[str, str]]], list[Scored]]


def _normal(text: str) -> str:
    text = "".join(c for c in text.lower() if c not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def f1(pred: str, gold: str) -> float:
    p, g = _normal(pred).split(), _normal(gold).split()
    common = collections.Counter(p) & collections.Counter(g)
    same = sum(common.values())
    if not p or not g:
        return float(p == g)
    if same == 0:
        return 0.0
    prec, rec = same / len(p), same / len(g)
    return 2 * prec * rec / (prec + rec)


def auc(pos: Sequence[float], neg: Sequence[float]) -> float:
    """ROC AUC by ranks (ties count half)."""
    if not pos or not neg:
        return float("nan")
    allv = sorted([(v, 1) for v in pos] + [(v, 0) for v in neg])
    ranks = [0.0] * len(allv)
    i = 0
    while i < len(allv):
        j = i
        while j + 1 < len(allv) and allv[j + 1][0] == allv[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2 + 1
        i = j + 1
    rpos = sum(r for r, (_, y) in zip(ranks, allv, strict=True) if y == 1)
    return (rpos - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def best_threshold(pos: Sequence[float], neg: Sequence[float]) -> float:
    """The threshold with the best accuracy (answer at or above it), midway between two scores."""
    vals = sorted(set(pos) | set(neg))
    cands = [vals[0] - 1e-6] + [(a + b) / 2 for a, b in zip(vals, vals[1:], strict=False)] + [vals[-1] + 1e-6]
    best, best_acc = 0.5, -1.0
    for t in cands:
        acc = sum(v >= t for v in pos) + sum(v < t for v in neg)
        if acc > best_acc:
            best, best_acc = t, acc
    return float(best)


def squad_figures(questions: Sequence[Question], scorer: Scorer, threshold: float | None = None,
                  progress: bool = True) -> dict[str, Any]:
    """Score every window of every question; the figures in the module docstring. With `threshold`
    None, the best one for these questions is chosen and reported."""
    pairs: list[tuple[str, str]] = []
    spans: list[tuple[int, int]] = []
    owner: list[int] = []
    for n, q in enumerate(questions):
        for a, b in windows(q.context):
            pairs.append((q.question, q.context[a:b]))
            spans.append((a, b))
            owner.append(n)
    scored = _in_batches(scorer, pairs, progress)
    best: dict[int, int] = {}
    for i, n in enumerate(owner):
        if n not in best or scored[i][0] > scored[best[n]][0]:
            best[n] = i
    margin: dict[int, float] = {}
    for i, n in enumerate(owner):
        margin[n] = max(margin.get(n, -math.inf), scored[i][2])
    pos, neg, right, ems, f1s = [], [], 0, [], []
    mpos, mneg, bpos, bneg = [], [], [], []
    for n, q in enumerate(questions):
        if n not in best:
            continue
        i = best[n]
        (a, b), (p, (s, e), _) = spans[i], scored[i]
        m = margin[n]
        both = (p + 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, m))))) / 2 if math.isfinite(m) else p
        (mpos if q.answers else mneg).append(m)
        (bpos if q.answers else bneg).append(both)
        if q.answers:
            pos.append(p)
            right += any(a <= x and y <= b for x, y in q.answers)
            pred = q.context[a + s:a + e] if s >= 0 else ""
            golds = [q.context[x:y] for x, y in q.answers]
            ems.append(max(float(_normal(pred) == _normal(g)) for g in golds))
            f1s.append(max(f1(pred, g) for g in golds))
        else:
            neg.append(p)
    if not any(sc[1][0] >= 0 for sc in scored):  # a scorer without a span head (the cosine) reads no phrase
        ems, f1s = [math.nan], [math.nan]
    chosen = best_threshold(pos, neg) if threshold is None and pos and neg else (threshold or 0.5)
    acc = (sum(v >= chosen for v in pos) + sum(v < chosen for v in neg)) / max(len(pos) + len(neg), 1)
    return {"questions": len(pos) + len(neg), "answerable": len(pos), "windows": len(pairs),
            "right_first": right / max(len(pos), 1), "auc": auc(pos, neg), "threshold": chosen,
            "auc_margin": auc(mpos, mneg) if all(map(math.isfinite, mpos + mneg)) else float("nan"),
            "auc_both": auc(bpos, bneg),
            "accuracy": acc, "em": 100 * sum(ems) / max(len(ems), 1), "f1": 100 * sum(f1s) / max(len(f1s), 1)}


def read_wikiqa(path: Path) -> dict[str, list[tuple[str, int]]]:
    out: dict[str, list[tuple[str, int]]] = {}
    with path.open(encoding="utf-8", newline="") as f:
        for row in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if len(row) >= 3:
                out.setdefault(row[0], []).append((row[1], int(row[2])))
    return out


def wikiqa_figures(groups: dict[str, list[tuple[str, int]]], scorer: Scorer, progress: bool = True) -> dict[str, Any]:
    """MAP and MRR over the questions with at least one right sentence."""
    kept = {q: s for q, s in groups.items() if any(y for _, y in s)}
    pairs = [(q, s) for q, sents in kept.items() for s, _ in sents]
    scored = iter(_in_batches(scorer, pairs, progress))
    aps, rrs = [], []
    for sents in kept.values():
        ps = [next(scored)[0] for _ in sents]
        order = sorted(range(len(sents)), key=lambda i: -ps[i])
        hits, prec = 0, []
        for rank, i in enumerate(order, 1):
            if sents[i][1]:
                hits += 1
                prec.append(hits / rank)
        aps.append(sum(prec) / len(prec))
        rrs.append(next(1 / r for r, i in enumerate(order, 1) if sents[i][1]))
    return {"questions": len(kept), "map": sum(aps) / max(len(aps), 1), "mrr": sum(rrs) / max(len(rrs), 1)}


def _in_batches(scorer: Scorer, pairs: Sequence[tuple[str, str]], progress: bool, size: int = 512) -> list[Scored]:
    out: list[Scored] = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(pairs), unit="pair", file=sys.stderr, leave=False)
    for i in range(0, len(pairs), size):
        out += scorer(pairs[i:i + size])
        if bar is not None:
            bar.update(min(size, len(pairs) - i))
    if bar is not None:
        bar.close()
    return out


def validation(data: Path, share: int) -> list[Question]:
    """The validation articles of SQuAD 2.0 dev-train (`windows.article_split`): thresholds are chosen here."""
    return [q for q in read_squad(data / "squad20-dev-train.json") if article_split(q.article, share)]


def report(scorers: dict[str, Scorer], data: Path, share: int, thresholds: dict[str, float] | None = None,
           limit: int | None = None, progress: bool = True) -> dict[str, dict[str, Any]]:
    """Every figure for every scorer: validation (threshold chosen there unless given), held-out SQuAD
    2.0 (at that threshold), WikiQA test."""
    valid = validation(data, share)[:limit]
    held = read_squad(data / "squad20-dev-heldout.json")[:limit]
    wiki_path = data / "wikiqa" / "test.tsv"
    wiki = read_wikiqa(wiki_path) if wiki_path.is_file() else {}
    if limit:
        wiki = dict(list(wiki.items())[:limit])
    out: dict[str, dict[str, Any]] = {}
    for name, scorer in scorers.items():
        t0 = time.time()
        v = squad_figures(valid, scorer, None if thresholds is None else thresholds.get(name), progress)
        h = squad_figures(held, scorer, v["threshold"], progress)
        w = wikiqa_figures(wiki, scorer, progress) if wiki else {}
        out[name] = {"validation": v, "heldout": h, "wikiqa": w, "seconds": round(time.time() - t0, 1)}
    return out


def table(figures: dict[str, dict[str, Any]]) -> str:
    """The figures as a Markdown table, a row per scorer and set."""
    rows = ["| scorer | set | questions | right window first | AUC | AUC margin / both | accuracy (threshold) | EM | F1 "
            "| WikiQA MAP | MRR |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, f in figures.items():
        for part in ("validation", "heldout"):
            s = f[part]
            w = f.get("wikiqa") or {}
            wiki = (f"{w['map']:.3f} | {w['mrr']:.3f}" if w and part == "heldout" else " | ")
            span = "- | -" if math.isnan(s["f1"]) else f"{s['em']:.1f} | {s['f1']:.1f}"
            by_margin = "-" if math.isnan(s["auc_margin"]) else f"{s['auc_margin']:.3f}"
            rows.append(f"| {name} | {part} | {s['questions']} | {s['right_first']:.3f} | {s['auc']:.3f} | "
                        f"{by_margin} / {s['auc_both']:.3f} | "
                        f"{s['accuracy']:.3f} ({s['threshold']:.3f}) | {span} | {wiki} |")
    return "\n".join(rows)


def _runtime_scorers() -> dict[str, Scorer]:
    """The shipped reading model and the packaged bi-encoder's cosine, as citewise runs them."""
    import numpy as np

    from index.embed import SentenceTransformerEmbedder
    from index.reading import PackagedReader

    model = PackagedReader()
    emb = SentenceTransformerEmbedder()

    def reading(pairs: Sequence[tuple[str, str]]) -> list[Scored]:
        return [(r.p, r.span, r.margin) for r in model.read(pairs)]

    def cosine(pairs: Sequence[tuple[str, str]]) -> list[Scored]:
        qs = list(dict.fromkeys(q for q, _ in pairs))
        qv = dict(zip(qs, np.asarray(emb.embed_documents(qs)), strict=True))
        wv = np.asarray(emb.embed_documents([w for _, w in pairs]))
        return [(float(qv[q] @ v), (-1, -1), math.nan) for (q, _), v in zip(pairs, wv, strict=True)]

    return {"reading model": reading, "bi-encoder cosine": cosine}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m training.evaluate",
        description="Reading figures of the shipped reading model beside the packaged bi-encoder's cosine, on "
                    "held-out SQuAD 2.0 articles and WikiQA test (thresholds chosen on the validation articles).\n\n"
                    "Example: python -m training.evaluate --data ../shared/train/reader",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("../shared/train/reader"), help="the reader training data folder")
    ap.add_argument("--valid-share", type=int, default=40, help="validation articles: sha256(title)[0] below this (of 256)")
    ap.add_argument("--limit", type=int, default=None, help="only the first N questions of each set (a quick look)")
    args = ap.parse_args(argv)
    if not (args.data / "squad20-dev-heldout.json").is_file():
        print(f"no reader data in {args.data}: expected squad20-dev-heldout.json there", file=sys.stderr)
        return 2
    figures = report(_runtime_scorers(), args.data, args.valid_share, limit=args.limit)
    print(table(figures))
    for name, f in figures.items():
        print(f"{name}: {f['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
