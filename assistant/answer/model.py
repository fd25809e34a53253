"""The reader's fitted parameters and the question- and document-level features they read.

`ReaderModel` holds four small logistic regressions, fitted by `train` on a tune split and shipped as
`reader.json` in this package (numpy only at run time; no pickle):
- the candidate ranker over `features.NAMES` (`prob`: each candidate's probability of answering);
- the second stage over `RNAMES` (`second`): for the candidates the reading model read (`reread`), the
  ranker's logit, the reading model's logit and its span margin give the final probability; a
  candidate it did not read stays below every one it read;
- answerability over `QNAMES` (`answerable`: is the question answered by any candidate at all), from
  `question_features` of the best candidate;
- the "who" document model over `WNAMES` (`matches`: does a document's candidate make its person a
  match; `doc_matches`: the best of its few likeliest candidates), from `doc_rows`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .features import LATER, NAMES

if TYPE_CHECKING:
    from .reader import Reading

PARAMS = Path(__file__).with_name("reader.json")
# the parameters fitted beside the reading model (its second stage, and answerability and "who" on it):
# what a `Reader` with a reading model loads when it is given none
READING_PARAMS = Path(__file__).with_name("reader-reading.json")
QNAMES: tuple[str, ...] = ("max_p", "best_cos", "best_cos_piece", "best_unmatched", "best_read")
QLATER: tuple[str, ...] = ("best_read",)  # added after answerability files were first written
RNAMES: tuple[str, ...] = ("first_logit", "read_logit", "read_margin")
WNAMES: tuple[str, ...] = ("best_p", "best_p_rel", "best_cos_piece", "best_overlap", "log_doc_rank", "log_hit_rank")


@dataclass(frozen=True)
class ReaderModel:
    """Logistic regression over `NAMES`, standardised with (mean, scale); thresholds chosen on tune."""

    names: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    threshold: float  # a fact question is answered when its answerability reaches this
    who_threshold: float  # a document joins a "who" answer when its best candidate reaches this
    meta: dict[str, Any]
    # question-level answerability: logistic regression over `question_features` (QNAMES)
    q_mean: np.ndarray = field(default_factory=lambda: np.zeros(len(QNAMES), np.float32))
    q_scale: np.ndarray = field(default_factory=lambda: np.ones(len(QNAMES), np.float32))
    q_coef: np.ndarray = field(default_factory=lambda: np.eye(len(QNAMES), dtype=np.float32)[0] * 4)
    q_intercept: float = -2.0
    # "who" questions: does a document's best candidate make its person a match? (WNAMES, `doc_features`)
    w_mean: np.ndarray = field(default_factory=lambda: np.zeros(len(WNAMES), np.float32))
    w_scale: np.ndarray = field(default_factory=lambda: np.ones(len(WNAMES), np.float32))
    w_coef: np.ndarray = field(default_factory=lambda: np.eye(len(WNAMES), dtype=np.float32)[0] * 4)
    w_intercept: float = -2.0
    # the second stage over `RNAMES` (None: the reading model's scores are not used)
    r_mean: np.ndarray | None = None
    r_scale: np.ndarray | None = None
    r_coef: np.ndarray | None = None
    r_intercept: float = 0.0
    # how sure an answer is: (a, b) of `sure` (Platt scaling of the answerability logit), fitted by
    # `calibrate` on whether the answers to tune questions were right; (1, 0) leaves it as it is
    calibration: tuple[float, float] = (1.0, 0.0)

    def sure(self, p: float) -> float:
        """The probability that an answer given at answerability `p` is right (`scaled` by `calibration`).
        Answerability decides whether to answer (against `threshold`); this is what the answer says of
        itself. Monotone, so an answer is never shown as less sure than an abstention."""
        return scaled(self.calibration, p)

    def prob(self, x: np.ndarray) -> np.ndarray:
        z = ((x - self.mean) / self.scale) @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))

    def second(self, first: np.ndarray, read: np.ndarray, margin: np.ndarray) -> np.ndarray:
        """The final probability of each candidate from the ranker's (`first`) and, where the reading
        model read it (`read` not nan), its probability and span margin. Candidates it did not read keep
        the ranker's probability, capped below the least likely one it read."""
        if self.r_coef is None or self.r_mean is None or self.r_scale is None:
            return first
        return second_prob(first, read, margin, (self.r_mean, self.r_scale, self.r_coef, self.r_intercept))

    def answerable(self, p: np.ndarray, x: np.ndarray, unmatched: np.ndarray, read: np.ndarray | None = None) -> float:
        """The probability that the question is answered by one of these candidates at all."""
        z = float(((question_features(p, x, unmatched, read) - self.q_mean) / self.q_scale) @ self.q_coef
                  + self.q_intercept)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def matches(self, xd: np.ndarray) -> np.ndarray:
        """For each row of `WNAMES` (`doc_rows`: a candidate of a document of a "who" question), the
        probability that it makes its document a match."""
        z = ((xd - self.w_mean) / self.w_scale) @ self.w_coef + self.w_intercept
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))

    def doc_matches(self, r: Reading) -> tuple[list[str], np.ndarray, list[int]]:
        """For each document of a "who" question, the probability that it makes its person a match: the
        best `matches` among its `WHO_PASSAGES` likeliest candidates (the candidate ranker rates a "who"
        question's passages alike: a tutoring line as likely as the PhD line below it), and that candidate,
        the one its answer line quotes. Returns (documents, probabilities, each one's matching candidate)."""
        docs, rows, owner, cand = doc_rows(r)
        if not docs:
            return [], np.zeros(0), []
        pm = self.matches(rows)
        top = doc_best(pm, owner, len(docs))
        return docs, pm[top], cand[top].tolist()

    def to_dict(self) -> dict[str, Any]:
        return {"format": 1, "names": list(self.names), "mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "coef": self.coef.tolist(), "intercept": self.intercept, "threshold": self.threshold,
                "who_threshold": self.who_threshold, "meta": self.meta,
                "answerable": {"names": list(QNAMES), "mean": self.q_mean.tolist(), "scale": self.q_scale.tolist(),
                               "coef": self.q_coef.tolist(), "intercept": self.q_intercept},
                "who": {"names": list(WNAMES), "mean": self.w_mean.tolist(), "scale": self.w_scale.tolist(),
                        "coef": self.w_coef.tolist(), "intercept": self.w_intercept},
                **({"second": {"names": list(RNAMES), "mean": self.r_mean.tolist(), "scale": self.r_scale.tolist(),
                               "coef": self.r_coef.tolist(), "intercept": self.r_intercept}}
                   if self.r_coef is not None and self.r_mean is not None and self.r_scale is not None else {}),
                **({"calibration": {"a": self.calibration[0], "b": self.calibration[1]}}
                   if self.calibration != (1.0, 0.0) else {})}

    @classmethod
    def from_dict(cls, d: dict[str, Any], source: str = "reader parameters", answerability: bool = True) -> ReaderModel:
        """`answerability=False` reads the ranker and "who" parts only (to refit answerability on them)."""
        names = tuple(d.get("names") or ())
        if not names or set(names) - set(NAMES) or set(NAMES) - set(names) - set(LATER):
            raise ValueError(f"{source}: features {names} do not match this version's {NAMES}; refit with "
                             "`citewise train-reader`")
        meta = dict(d.get("meta") or {})
        if names != NAMES:  # an older file: the features it lacks weigh nothing until fitted (`train.add_features`)
            at = {n: i for i, n in enumerate(names)}
            d = {**d, **{k: [float(d[k][at[n]]) if n in at else default for n in NAMES]
                         for k, default in (("mean", 0.0), ("scale", 1.0), ("coef", 0.0))}}
            meta["unfitted"] = [n for n in NAMES if n not in at]
        arr = lambda k, src=d: np.asarray(src[k], dtype=np.float32)  # noqa: E731
        n = len(QNAMES)
        q = d.get("answerable") or {}
        if not answerability:
            q = {"names": list(QNAMES), "mean": [0.0] * n, "scale": [1.0] * n, "coef": [0.0] * n, "intercept": 0.0}
        qn = tuple(q.get("names") or ())
        if qn and qn != QNAMES and set(qn) <= set(QNAMES) and set(QNAMES) - set(qn) <= set(QLATER):
            # an older file: the question features it lacks weigh nothing (refit to use them)
            at = {n: i for i, n in enumerate(qn)}
            q = {**q, "names": list(QNAMES), **{k: [float(q[k][at[n]]) if n in at else default for n in QNAMES]
                                                 for k, default in (("mean", 0.0), ("scale", 1.0), ("coef", 0.0))}}
        if tuple(q.get("names") or ()) != QNAMES:
            raise ValueError(f"{source}: answerability features do not match {QNAMES}; refit with "
                             "`citewise train-reader`")
        w = d.get("who") or {}
        if tuple(w.get("names") or ()) != WNAMES:
            raise ValueError(f"{source}: 'who' features do not match {WNAMES}; refit with `citewise train-reader`")
        r = d.get("second")
        if r is not None and tuple(r.get("names") or ()) != RNAMES:
            raise ValueError(f"{source}: second-stage features do not match {RNAMES}; refit with `citewise train-reader`")
        second = (arr("mean", r), arr("scale", r), arr("coef", r), float(r["intercept"])) if r else (None, None, None, 0.0)
        cal = d.get("calibration") or {}
        try:
            calibration = (float(cal.get("a", 1.0)), float(cal.get("b", 0.0)))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{source}: calibration must be {{\"a\": number, \"b\": number}}, not {cal!r}") from exc
        if not calibration[0] > 0:  # a negative slope would turn the surest answers into the least sure
            raise ValueError(f"{source}: calibration slope a must be positive, not {calibration[0]}")
        return cls(NAMES, arr("mean"), arr("scale"), arr("coef"), float(d["intercept"]), float(d["threshold"]),
                   float(d["who_threshold"]), meta, arr("mean", q), arr("scale", q),
                   arr("coef", q), float(q["intercept"]), arr("mean", w), arr("scale", w), arr("coef", w),
                   float(w["intercept"]), r_mean=second[0], r_scale=second[1], r_coef=second[2],
                   r_intercept=second[3], calibration=calibration)

    @classmethod
    def load(cls, path: str | Path = PARAMS, answerability: bool = True) -> ReaderModel:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"cannot read reader parameters {str(path)!r}: {exc}") from exc
        return cls.from_dict(data, str(path), answerability)

    def save(self, path: str | Path = PARAMS) -> None:
        tmp = Path(path).with_suffix(".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)


def logit(p: float) -> float:
    """log(p / (1 - p)), with p kept inside (1e-6, 1 - 1e-6)."""
    q = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(q / (1 - q))


def sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def scaled(calibration: tuple[float, float], p: float) -> float:
    """`sigmoid(a logit(p) + b)` for `calibration` (a, b); `p` itself for (1, 0)."""
    a, b = calibration
    return p if (a, b) == (1.0, 0.0) else sigmoid(a * logit(p) + b)


def question_features(p: np.ndarray, x: np.ndarray, unmatched: np.ndarray, read: np.ndarray | None = None) -> np.ndarray:
    """Question-level evidence from its best candidate: its probability, its question cosine and its
    best piece's, the rarest question word it leaves unmatched (`features.unmatched`), and the reading
    model's probability that it answers (its final probability when it was not read, or no reading
    model ran).

    Chosen by grouped cross-validation on tune (`train`): the earlier nine-feature set (top-5
    no-answer score, margin, overlaps) separated unanswerable questions worse out of fold."""
    if not len(p):
        return np.zeros(len(QNAMES), np.float32)
    best = int(np.argmax(p))
    r = float(read[best]) if read is not None and not np.isnan(read[best]) else float(p[best])
    return np.array([p[best], x[best, NAMES.index("cos")], x[best, NAMES.index("cos_piece")], unmatched[best], r],
                    np.float32)


def second_prob(first: np.ndarray, read: np.ndarray, margin: np.ndarray,
                params: tuple[np.ndarray, np.ndarray, np.ndarray, float]) -> np.ndarray:
    """`ReaderModel.second` with the stage's (mean, scale, coef, intercept) given."""
    done = ~np.isnan(read)
    if not done.any():
        return first
    mean, scale, coef, intercept = params
    z = ((second_features(first[done], read[done], margin[done]) - mean) / scale) @ coef + intercept
    out = first.astype(np.float32, copy=True)
    out[done] = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
    out[~done] = np.minimum(first[~done], 0.99 * float(out[done].min()))
    return out


def second_features(first: np.ndarray, read: np.ndarray, margin: np.ndarray) -> np.ndarray:
    """`RNAMES` of read candidates: the ranker's logit, the reading model's logit and its span margin
    (0 when it gives none), clipped to +-10. Chosen by grouped cross-validation on tune: top-1 over all
    sets 0.818 against 0.794 with the reading model's probability and the margin's sigmoid instead
    (which weigh less the differences among passages it rates near zero), 0.771 for the ranker alone."""
    def logit(v: np.ndarray) -> np.ndarray:
        v = np.clip(v.astype(np.float64), 1e-6, 1 - 1e-6)
        return np.log(v / (1 - v))

    m = np.clip(np.nan_to_num(margin.astype(np.float64), nan=0.0, neginf=-10.0, posinf=10.0), -10, 10)
    return np.stack([logit(first), logit(read), m], axis=1).astype(np.float32)


WHO_PASSAGES = 4  # a document's "who" match: the best of its this many likeliest candidates (`doc_rows`)


def doc_rows(r: Reading, k: int = WHO_PASSAGES) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """For a "who" question, rows of `WNAMES` for each retrieved document's `k` likeliest candidates:
    each one's probability, that probability minus the best document's, its question cosine and evidence
    overlap, the document's place when documents are ordered by best probability, and its first search
    rank. Returns (documents, rows, each row's document number, each row's candidate index); each
    document's rows run from its likeliest candidate down."""
    per: dict[str, list[int]] = {}
    first: dict[str, int] = {}
    for c in r.cands:
        first.setdefault(r.hits[c.hit].doc, c.hit)
        per.setdefault(r.hits[c.hit].doc, [])
    for i in np.argsort(-r.p, kind="stable"):
        taken = per[r.hits[r.cands[int(i)].hit].doc]
        if len(taken) < k:
            taken.append(int(i))
    docs = sorted(per, key=lambda d: -r.p[per[d][0]])
    if not docs:
        return [], np.zeros((0, len(WNAMES)), np.float32), np.zeros(0, int), np.zeros(0, int)
    top = float(r.p[per[docs[0]][0]])
    cos, ov = NAMES.index("cos_piece"), NAMES.index("idf_overlap")
    rows = [[r.p[i], r.p[i] - top, r.x[i, cos], r.x[i, ov], math.log1p(n), math.log1p(first[d])]
            for n, d in enumerate(docs) for i in per[d]]
    owner = [n for n, d in enumerate(docs) for _ in per[d]]
    return docs, np.array(rows, np.float32), np.array(owner, int), np.array([i for d in docs for i in per[d]], int)


def doc_features(r: Reading) -> tuple[list[str], np.ndarray, list[int]]:
    """`doc_rows` of each document's likeliest candidate only: (documents, rows, that candidate's index)."""
    docs, rows, _owner, cand = doc_rows(r, 1)
    return docs, rows, cand.tolist()


def doc_best(p: np.ndarray, owner: np.ndarray, n: int) -> np.ndarray:
    """For each of `n` documents, the row with the highest probability `p` among its rows (`owner`: each
    row's document number, rows grouped by document)."""
    out = np.zeros(n, int)
    for d in range(n):
        rows = np.flatnonzero(owner == d)
        out[d] = rows[int(np.argmax(p[rows]))]
    return out


def untrained() -> ReaderModel:
    """Hand-set weights (cosine + IDF overlap) used only when no fitted parameters exist."""
    coef = np.zeros(len(NAMES), np.float32)
    coef[NAMES.index("cos")] = 1.0
    coef[NAMES.index("idf_overlap")] = 1.0
    n = len(NAMES)
    return ReaderModel(NAMES, np.zeros(n, np.float32), np.ones(n, np.float32), coef, -1.0, 0.3, 0.3, {})
