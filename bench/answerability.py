"""How well the reader's answerability model tells unanswerable questions apart, out of fold.

The one #16 criterion still open is abstention on near-miss unanswerable questions at a false-abstention
rate of at most 5 %. This measures it on the tune split only, the way a new feature should be judged
before it is wired in:
- every (QA file, documents folder) pair is indexed (kept under --index-root, so a re-run embeds nothing)
  and each tune fact question is read as `ask` reads it (`answer.samples.collect`);
- the answerability features (`model.question_features`, from the packaged ranker's probabilities) are
  fitted with logistic regression in 5 folds grouped by document, over --draws shuffles of the groups;
- for each draw the threshold leaves 5 % of the answerable questions below it, and the unanswerable ones
  below it are counted ("caught"). Also printed: the out-of-fold AUC, and the same count in sample.

`--list N` prints the N questions the model rates least answerable (tune only; never heldout).

    python bench/answerability.py                      # realdocs + seed questions, when ../shared is here
    python bench/answerability.py --own --list 30      # also our own question sets in bench/questions/
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

SHARED = ROOT.parent / "shared" / "eval"
REALDOCS = SHARED / "realdocs"
OWN_ON_REALDOCS = ("own_cvs", "own_reports", "own_long")
# the two manuals of bench/questions/own_manuals.jsonl, where Debian's packages put them
MANUALS = (Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"), Path("/usr/share/doc/libtasn1-doc/libtasn1.pdf"))


def sets(own: bool) -> list[tuple[Path, tuple[Path, ...]]]:
    """(QA file, the documents it is about) pairs; our own sets only with `own`, each when its documents are here."""
    out = [(REALDOCS / "qa.jsonl", (REALDOCS / "docs",)), (SHARED / "seed_dev.jsonl", (ROOT / "examples" / "profiles",))]
    if not own:
        return out
    questions = ROOT / "bench" / "questions"
    out += [(questions / f"{name}.jsonl", (REALDOCS / "docs",)) for name in OWN_ON_REALDOCS]
    try:
        import sklearn

        out.append((questions / "own_datasets.jsonl", (Path(sklearn.__file__).parent / "datasets" / "descr",)))
    except ImportError:
        print("own_datasets left out: scikit-learn is not installed")
    if all(m.exists() for m in MANUALS):
        out.append((questions / "own_manuals.jsonl", MANUALS))
    else:
        print("own_manuals left out: the manuals are not in /usr/share/doc (Debian: shared-mime-info, libtasn1-doc)")
    return out


def caught(samples: list, draws: int, c: float = 1.0) -> tuple[list[int], list[float], int, np.ndarray]:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold

    from assistant.answer.model import question_features

    facts = [s for s in samples if not s.who and len(s.labels)]
    x = np.stack([question_features(s.reading.p, s.reading.x, s.reading.unmatched) for s in facts])
    y = np.array([1.0 if s.record.get("answer") else 0.0 for s in facts])
    groups = np.array([s.group for s in facts])

    def fit(tr: np.ndarray) -> tuple[np.ndarray, np.ndarray, LogisticRegression]:
        mu, sd = x[tr].mean(0), x[tr].std(0) + 1e-9
        return mu, sd, LogisticRegression(C=c, max_iter=5000).fit((x[tr] - mu) / sd, y[tr])

    def count(p: np.ndarray) -> int:
        answerable = np.sort(p[y == 1])
        t = answerable[int(np.floor(0.05 * len(answerable)))] - 1e-9
        return int((p[y == 0] < t).sum())

    counts, aucs, mean_oof = [], [], np.zeros(len(y))
    names = np.unique(groups)
    for seed in range(draws):
        perm = dict(zip(names, np.random.RandomState(seed).permutation(len(names)), strict=True))
        oof = np.zeros(len(y))
        for tr, te in GroupKFold(5).split(x, y, np.array([perm[g] for g in groups])):
            mu, sd, m = fit(tr)
            oof[te] = m.predict_proba((x[te] - mu) / sd)[:, 1]
        counts.append(count(oof))
        aucs.append(float(roc_auc_score(y, oof)))
        mean_oof += oof / draws
    mu, sd, m = fit(np.arange(len(y)))
    return counts, aucs, count(m.predict_proba((x - mu) / sd)[:, 1]), mean_oof


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--own", action="store_true", help="also our own question sets on the realdocs documents")
    ap.add_argument("--index-root", type=Path, default=Path("/tmp/citewise-answerability"),
                    help="keep the indexes here (a re-run embeds nothing)")
    ap.add_argument("--draws", type=int, default=5, help="shuffles of the document groups into folds")
    ap.add_argument("--list", type=int, default=0, help="print the N tune questions rated least answerable")
    args = ap.parse_args()
    if not (REALDOCS / "qa.jsonl").exists():
        print(f"skipped: {REALDOCS} is not here (the development data lives in ../shared/eval)")
        return
    from assistant.answer.samples import collect_files

    samples = collect_files(sets(args.own), index_root=args.index_root)
    counts, aucs, in_sample, oof = caught(samples, args.draws)
    facts = [s for s in samples if not s.who and len(s.labels)]
    unanswerable = sum(not s.record.get("answer") for s in facts)
    print(f"{len(facts)} tune fact questions, {unanswerable} unanswerable; at 5 % false abstentions, out of fold "
          f"(5 folds by document, {args.draws} draws): caught {np.mean(counts):.1f}/{unanswerable} {counts}, "
          f"AUC {np.mean(aucs):.3f}; in sample: {in_sample}/{unanswerable}")
    for i in np.argsort(oof)[:args.list]:
        s = facts[i]
        kind = "answerable  " if s.record.get("answer") else "unanswerable"
        print(f"  {oof[i]:.2f}  {kind}  {s.record.get('id', '')}  {s.record['q']}")


if __name__ == "__main__":
    main()
