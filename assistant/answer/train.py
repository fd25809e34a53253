"""Fit the reader (`citewise train-reader`): a listwise ranker of the candidates of tune questions.

The tune questions are read and their candidates labelled by `samples` (unanswerable questions give
only 0s, which is what calibrates the no-answer side).

Candidates are ranked by a conditional logit (`_fit_ranker`: which candidate of a question answers
it), whose score is then Platt-scaled into a probability. Its penalty is chosen by cross-validation
grouped by document (a document's questions never
sit on both sides), by how often the best candidate of an answerable question is a right one. The
thresholds come from the same out-of-fold probabilities: the fact threshold is the highest value
that leaves at most `max_false_abstain` of answerable fact questions below it; "who" questions get
a document-level model (`fit_who`) whose threshold maximises F2 over (question, document) pairs.
scikit-learn and scipy are imported here only; `reader.json` is read with numpy at run time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from .features import NAMES
from .model import (
    RNAMES,
    WNAMES,
    ReaderModel,
    doc_best,
    doc_rows,
    question_features,
    second_features,
    second_prob,
)
from .reader import Reading
from .samples import Sample, collect_files

LAMBDAS = (0.001, 0.01, 0.03, 0.1, 0.3)


def _fit(x: np.ndarray, y: np.ndarray, c: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Plain logistic regression on standardised features (used for question answerability)."""
    from sklearn.linear_model import LogisticRegression

    mean, scale = _standard([x])
    m = LogisticRegression(C=c, max_iter=2000)
    m.fit((x - mean) / scale, y)
    return mean, scale, m.coef_[0].astype(np.float32), float(m.intercept_[0])


def _standard(xs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    x = np.concatenate(xs)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    return mean, scale


def _fit_ranker(samples: Sequence[Sample], lam: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Listwise (conditional logit) ranking, then Platt scaling to a probability per candidate.

    Within each answerable fact question, the softmax of `w . x` over its candidates is pushed onto
    the right ones (`-log sum_{right} softmax`, L2 penalty `lam |w|^2`): what is learnt is which
    candidate of a question answers it, not how answers differ from non-answers across questions.
    A one-feature logistic regression of the labels on `w . x` over all candidates (unanswerable
    questions too) then turns the score into a calibrated probability `sigmoid(a w . x + b)`.
    """
    from sklearn.linear_model import LogisticRegression

    mean, scale = _standard([s.reading.x for s in samples])
    lists = [(np.zeros(len(s.labels)), (s.reading.x - mean) / scale, s.labels > 0) for s in samples
             if not s.who and s.labels.sum() > 0 and len(s.labels) > 1]
    w = _listwise(lists, lam, len(mean))
    z = np.concatenate([((s.reading.x - mean) / scale) @ w for s in samples])
    y = np.concatenate([s.labels for s in samples])
    platt = LogisticRegression(C=1.0, max_iter=1000).fit(z[:, None], y)
    a = float(platt.coef_[0][0])
    return mean, scale, (a * w).astype(np.float32), float(platt.intercept_[0])


def _listwise(lists: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]], lam: float, dim: int) -> np.ndarray:
    """The weights `w` minimising, over questions given as (offset, standardised features, right ones),
    `-log sum_{right} softmax(offset + xs w)` on average, plus `lam |w|^2`."""
    from scipy.optimize import minimize

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        total, grad = lam * float(w @ w) * len(lists), 2 * lam * w * len(lists)
        for z0, xs, pos in lists:
            z = z0 + xs @ w
            p = np.exp(z - _logsumexp(z))  # softmax over the question's candidates
            q = np.exp(z[pos] - _logsumexp(z[pos]))  # ... and over its right ones
            total -= _logsumexp(z[pos]) - _logsumexp(z)
            grad -= q @ xs[pos] - p @ xs
        n = max(len(lists), 1)
        return total / n, grad / n

    return minimize(loss, np.zeros(dim), jac=True, method="L-BFGS-B").x if lists else np.zeros(dim)


def _logsumexp(z: np.ndarray) -> float:
    top = float(z.max())
    return top + float(np.log(np.exp(z - top).sum()))


def _prob(x: np.ndarray, mean: np.ndarray, scale: np.ndarray, coef: np.ndarray, b: float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(((x - mean) / scale) @ coef + b, -30, 30)))


def _oof(samples: Sequence[Sample], c: float, folds: int) -> list[np.ndarray]:
    from sklearn.model_selection import GroupKFold

    groups = np.array([s.group for s in samples])
    out: list[np.ndarray] = [np.zeros(0)] * len(samples)
    for train_idx, test_idx in GroupKFold(n_splits=min(folds, len(set(groups)))).split(samples, groups=groups):
        tr = [samples[i] for i in train_idx if len(samples[i].labels)]
        params = _fit_ranker(tr, c)
        for i in test_idx:
            out[i] = _prob(samples[i].reading.x, *params) if len(samples[i].labels) else np.zeros(0)
    return out


def _top1(samples: Sequence[Sample], probs: Sequence[np.ndarray]) -> float:
    ok = [float(s.labels[int(np.argmax(p))]) for s, p in zip(samples, probs, strict=True)
          if s.record.get("answer") and not s.who and len(p)]
    return sum(ok) / len(ok) if ok else 0.0


def fact_threshold(samples: Sequence[Sample], probs: Sequence[np.ndarray], max_false_abstain: float) -> float:
    best = sorted(float(p.max()) if len(p) else 0.0 for s, p in zip(samples, probs, strict=True)
                  if s.record.get("answer") and not s.who)
    if not best:
        return 0.5
    allowed = int(np.floor(max_false_abstain * len(best)))
    return best[allowed] - 1e-6  # at most `allowed` answerable questions fall below it


def _who_pairs(samples: Sequence[Sample], probs: Sequence[np.ndarray]
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Over the "who" questions: the rows of `doc_rows` (every document's likeliest candidates), each
    row's document number (numbered across the questions), whether it is a document's likeliest candidate,
    and per document its label and question number."""
    xs: list[np.ndarray] = []
    owners: list[np.ndarray] = []
    ys: list[float] = []
    qs: list[int] = []
    for n, (s, p) in enumerate(zip(samples, probs, strict=True)):
        if not s.who or not len(p):
            continue
        listed = list(s.record.get("docs") or [])
        docs, rows, owner, _ = doc_rows(replace(s.reading, p=p))
        xs.append(rows)
        owners.append(owner + len(ys))
        ys += [1.0 if any(Path(d).name.startswith(x) for x in listed) else 0.0 for d in docs]
        qs += [n] * len(docs)
    if not xs:
        return np.zeros((0, len(WNAMES)), np.float32), np.zeros(0, int), np.zeros(0, bool), np.zeros(0), np.zeros(0)
    owner = np.concatenate(owners)
    first = np.r_[True, owner[1:] != owner[:-1]]  # each document's rows start with its likeliest candidate's
    return np.concatenate(xs), owner, first, np.array(ys), np.array(qs)


Second = tuple[np.ndarray, np.ndarray, np.ndarray, float]


def _second_lists(samples: Sequence[Sample], firsts: Sequence[np.ndarray]) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(read candidate indices, their `RNAMES` rows, labels) of each sample."""
    out = []
    for s, first in zip(samples, firsts, strict=True):
        read = s.reading.read
        idx = np.flatnonzero(~np.isnan(read)) if read is not None and len(read) else np.zeros(0, int)
        rr = s.reading.rr
        x = second_features(first[idx], read[idx], rr.margin[idx]) if len(idx) and rr is not None and read is not None \
            else np.zeros((0, len(RNAMES)), np.float32)
        out.append((idx, x, s.labels[idx] if len(idx) else np.zeros(0)))
    return out


def fit_second(samples: Sequence[Sample], firsts: Sequence[np.ndarray], lam: float = 0.01) -> Second:
    """The second stage: which read candidate answers (the listwise objective of `_fit_ranker` over the
    read candidates of answerable fact questions, on `RNAMES`), Platt-scaled over every read candidate."""
    from sklearn.linear_model import LogisticRegression

    lists = _second_lists(samples, firsts)
    xs = [x for _, x, _ in lists if len(x)]
    if not xs:
        n = len(RNAMES)
        return np.zeros(n, np.float32), np.ones(n, np.float32), np.eye(n, dtype=np.float32)[0], 0.0
    mean, scale = _standard(xs)
    train = [(np.zeros(len(y)), (x - mean) / scale, y > 0) for s, (_, x, y) in zip(samples, lists, strict=True)
             if not s.who and len(y) > 1 and y.sum() > 0]
    w = _listwise(train, lam, len(mean))
    z = np.concatenate([((x - mean) / scale) @ w for _, x, _ in lists if len(x)])
    y = np.concatenate([y for _, x, y in lists if len(x)])
    if y.min() == y.max():
        return mean.astype(np.float32), scale.astype(np.float32), w.astype(np.float32), 0.0
    platt = LogisticRegression(C=1.0, max_iter=1000).fit(z[:, None], y)
    return (mean.astype(np.float32), scale.astype(np.float32), (float(platt.coef_[0][0]) * w).astype(np.float32),
            float(platt.intercept_[0]))


def _apply_second(first: np.ndarray, reading: Reading, params: Second) -> np.ndarray:
    read = reading.read
    if read is None or reading.rr is None or not len(first):
        return first
    return second_prob(first, read, reading.rr.margin, params)


def second_stage(samples: Sequence[Sample], firsts: Sequence[np.ndarray], folds: int = 5,
                 lam: float = 0.01) -> tuple[Second, list[np.ndarray], dict[str, Any]]:
    """Fit the second stage on all samples, and the final probabilities out of fold (folds grouped by
    document, as the ranker's): what answerability, the thresholds and the "who" model are fitted on."""
    from sklearn.model_selection import GroupKFold

    groups = np.array([s.group for s in samples])
    oof: list[np.ndarray] = [f for f in firsts]
    for tr, te in GroupKFold(n_splits=min(folds, len(set(groups)))).split(samples, groups=groups):
        params = fit_second([samples[i] for i in tr], [firsts[i] for i in tr], lam)
        for i in te:
            oof[i] = _apply_second(firsts[i], samples[i].reading, params)
    params = fit_second(samples, firsts, lam)
    report = {"second_cv_top1": round(_top1(samples, oof), 4), "first_cv_top1": round(_top1(samples, firsts), 4),
              "second_coef": dict(zip(RNAMES, [round(float(c), 4) for c in params[2] / params[1]], strict=True))}
    return params, oof, report


def fit_who(samples: Sequence[Sample], probs: Sequence[np.ndarray], beta: float = 2.0,
            folds: int = 5) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray, float], float, dict[str, Any]]:
    """The "who" document model (logistic regression over `WNAMES`, fitted on each document's best
    candidate) and its threshold on a document's probability (`ReaderModel.doc_matches`: the best of its
    likeliest candidates).

    The threshold maximises F-beta over (question, document) pairs, from probabilities out of fold
    (folds group the questions). beta = 2 weighs a missed person four times a wrong one: a "who"
    question asks for every matching person, and a wrong one is shown with the passage to check.
    """
    from sklearn.model_selection import GroupKFold

    rows, owner, first, y, q = _who_pairs(samples, probs)
    if not len(y) or y.min() == y.max():
        n = len(WNAMES)
        return (np.zeros(n, np.float32), np.ones(n, np.float32), np.eye(n, dtype=np.float32)[0] * 4, -2.0), 0.5, {}
    x = rows[first]  # the model is fitted on each document's best candidate (one row per document)
    oof = np.zeros(len(y))
    for tr, te in GroupKFold(n_splits=min(folds, len(set(q)))).split(x, y, groups=q):
        held = np.isin(owner, te)
        if y[tr].min() == y[tr].max():
            oof[te] = y[tr].mean()
            continue
        # a document's probability is its best row's, as `ReaderModel.doc_matches` takes it
        p = np.zeros(len(rows))
        p[held] = _prob(rows[held], *_fit(x[tr], y[tr], 1.0))
        oof[te] = p[doc_best(p, owner, len(y))][te]
    b2 = beta * beta
    scores = []
    for t in sorted(set(oof.tolist())):
        tp = float(((oof >= t) & (y > 0)).sum())
        fp = float(((oof >= t) & (y == 0)).sum())
        fn = float(((oof < t) & (y > 0)).sum())
        scores.append(((1 + b2) * tp / ((1 + b2) * tp + b2 * fn + fp) if tp else 0.0, t))
    f, t = max(scores)
    hit = oof >= t
    report = {"who_pairs": int(len(y)), "who_recall": round(float((hit & (y > 0)).sum() / max(y.sum(), 1)), 4),
              "who_precision": round(float((hit & (y > 0)).sum() / max(hit.sum(), 1)), 4), "who_f": round(f, 4)}
    mean, scale, coef, b = _fit(x, y, 1.0)
    return (mean.astype(np.float32), scale.astype(np.float32), coef, b), t - 1e-6, report


def add_features(samples: Sequence[Sample], keep: ReaderModel) -> tuple[ReaderModel, dict[str, float]]:
    """`keep` with the weights of the features its file lacked (`meta["unfitted"]`, a file written before
    they existed) fitted beside its own, which stay: the same listwise objective as `_fit_ranker`, with
    the kept ranker's score (in logits) as a fixed offset and its penalty on the new standardised weights.
    A candidate whose new features are 0 keeps its probability exactly."""
    names = [n for n in keep.meta.get("unfitted", []) if n in NAMES]
    if not names:
        return keep, {}
    cols = [NAMES.index(n) for n in names]
    usable = [s for s in samples if len(s.labels)]
    mean, scale = _standard([s.reading.x[:, cols] for s in usable])
    lists = [(((s.reading.x - keep.mean) / keep.scale) @ keep.coef + keep.intercept,
              (s.reading.x[:, cols] - mean) / scale, s.labels > 0)
             for s in usable if not s.who and s.labels.sum() > 0 and len(s.labels) > 1]
    v = _listwise(lists, float(keep.meta.get("penalty") or 0.03), len(cols))
    m, sc, coef = keep.mean.copy(), keep.scale.copy(), keep.coef.copy()
    m[cols], sc[cols], coef[cols] = mean, scale, v
    meta = {k: val for k, val in keep.meta.items() if k != "unfitted"}
    added = {n: round(float(c), 4) for n, c in zip(names, v, strict=True)}
    meta["added_beside_kept_ranker"] = {**meta.get("added_beside_kept_ranker", {}), **added}
    # A feature at 0 adds nothing: the intercept takes back what standardising subtracts.
    intercept = keep.intercept + float(v @ (mean / scale))
    return replace(keep, mean=m.astype(np.float32), scale=sc.astype(np.float32), coef=coef.astype(np.float32),
                   intercept=intercept, meta=meta), added


def train(samples: Sequence[Sample], cs: Sequence[float] = LAMBDAS, folds: int = 5,
          max_false_abstain: float = 0.05, keep: ReaderModel | None = None,
          refit_answerability: bool = True) -> tuple[ReaderModel, dict[str, Any]]:
    """Choose C by grouped cross-validation, fit on all samples, set thresholds out of fold.

    With `keep`, its candidate ranker and "who" model stay as they are (the weights of features its
    file lacked are fitted beside them, `add_features`) and only the answerability model and threshold
    are fitted, on the probabilities that ranker gives (what runs at ask time); with
    `refit_answerability=False` those stay too."""
    usable = [s for s in samples if len(s.labels)]
    report: dict[str, Any] = {"questions": len(usable), "candidates": int(sum(len(s.labels) for s in usable)),
                              "positives": int(sum(s.labels.sum() for s in usable)), "cv_top1": {}}
    best_probs: list[np.ndarray] | None = None
    reads = any(s.reading.read is not None and (~np.isnan(s.reading.read)).any() for s in usable)
    if keep is not None:
        keep, report["added"] = add_features(usable, keep)
        if not refit_answerability:
            report.update(kept_ranker=True, penalty=keep.meta.get("penalty"), threshold=keep.threshold,
                          who_threshold=keep.who_threshold)
            report["cv_top1"][str(keep.meta.get("penalty"))] = keep.meta.get("cv_top1")
            return keep, report
        best_probs = [keep.prob(s.reading.x) for s in usable]
        best_c, best_score = keep.meta.get("penalty"), keep.meta.get("cv_top1")
        mean, scale, coef, b, tw = keep.mean, keep.scale, keep.coef, keep.intercept, keep.who_threshold
        who = (keep.w_mean, keep.w_scale, keep.w_coef, keep.w_intercept)
        report["cv_top1"][str(best_c)] = best_score
        report["kept_ranker"] = True
    else:
        best_c, best_score = cs[0], -1.0
        for c in cs:
            probs = _oof(usable, c, folds)
            score = _top1(usable, probs)
            report["cv_top1"][str(c)] = round(score, 4)
            if score > best_score:
                best_c, best_score, best_probs = c, score, probs
        assert best_probs is not None
        mean, scale, coef, b = _fit_ranker(usable, best_c)
        if not reads:  # else fitted below, on the second stage's probabilities
            who, tw, who_report = fit_who(usable, best_probs)
            report.update(who_report)
    assert best_probs is not None
    second: Second | None = None
    if reads:
        # The second stage is fitted on the ranker's out-of-fold probabilities (a new document's are
        # not the in-sample ones of a tune question); the "who" model and answerability are then refitted
        # on its out-of-fold probabilities.
        firsts = best_probs if keep is None else _oof(usable, float(best_c or 0.03), folds)
        second, best_probs, second_report = second_stage(usable, firsts, folds)
        report.update(second_report)
        who, tw, who_report = fit_who(usable, best_probs)
        report.update(who_report)
    # Answerability: fact questions (answerable or not), features from out-of-fold candidate p's
    # (the kept ranker's own p's with `keep` and no reading model).
    facts = [(s, p) for s, p in zip(usable, best_probs, strict=True) if not s.who]
    qx = np.stack([question_features(p, s.reading.x, s.reading.unmatched, s.reading.read) for s, p in facts])
    qy = np.array([1.0 if s.record.get("answer") else 0.0 for s, _ in facts])
    q_mean, q_scale, q_coef, q_b = _fit(qx, qy, 1.0)
    qp = _prob(qx, q_mean, q_scale, q_coef, q_b)
    answerable = sorted(float(v) for v, y in zip(qp, qy, strict=True) if y)
    allowed = int(np.floor(max_false_abstain * len(answerable)))
    t = answerable[allowed] - 1e-6 if answerable else 0.5
    unans = [float(v) for v, y in zip(qp, qy, strict=True) if not y]
    report.update(penalty=best_c, threshold=round(t, 4), who_threshold=round(tw, 4),
                  unanswerable_below=f"{sum(v < t for v in unans)}/{len(unans)}")
    model = ReaderModel(NAMES, mean.astype(np.float32), scale.astype(np.float32), coef, b, t, tw,
                        {**(keep.meta if keep is not None else {}), "penalty": best_c, "ranker": "listwise+platt",
                         "cv_top1": best_score, "questions": len(usable), "max_false_abstain": max_false_abstain,
                         **({"answerability_refitted_on_kept_ranker": True} if keep is not None else {})},
                        q_mean, q_scale, q_coef, q_b, *who, *(second or (None, None, None, 0.0)))
    return model, report


def train_files(sets: Sequence[tuple[str | Path, str | Path]], *, index_root: str | Path | None = None,
                out: str | Path | None = None, embedder: Any = None, max_false_abstain: float = 0.05,
                keep_ranker: str | Path | None = None, keep_answerability: bool = False,
                reading: str | None = None) -> tuple[ReaderModel, dict[str, Any]]:
    """Fit the reader on the tune records of each (QA file, documents folder) pair and save it to `out`.

    The records are read by `collect_files`, with the reading model `reading` reading the best
    candidates when given (then the second stage is fitted too). With `keep_ranker` (a parameters
    file), its candidate ranker is kept and only what reads its probabilities is refitted (`train`);
    with `keep_answerability` too, its answerability model and thresholds are kept as well, and only
    the weights of features the file lacks are fitted.
    """
    keep = ReaderModel.load(keep_ranker, answerability=keep_answerability) if keep_ranker else None
    samples = collect_files(sets, index_root=index_root, embedder=embedder, model=keep, reading=reading)
    model, report = train(samples, max_false_abstain=max_false_abstain, keep=keep,
                          refit_answerability=not keep_answerability)
    if out:
        model.save(out)
    return model, report
