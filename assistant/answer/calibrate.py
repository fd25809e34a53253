"""How sure an answer says it is: Platt scaling of the answerability logit, fitted on whether the answers
given to tune questions were right.

Answerability (`ReaderModel.answerable`) decides whether to answer at all: it was fitted to tell
answerable questions from unanswerable ones, and its threshold to keep false abstentions rare. As a
statement about an answer it runs high: on the tune splits of every set we have, answers given at 0.94
were right 0.73 of the time (the ranker's parameters) and 0.60 (the reading model's). Each parameter file
therefore also carries `calibration` (a, b), and an answer's `confidence` is `sigmoid(a logit(p) + b)`
(`ReaderModel.sure`), fitted here by logistic regression of "the answer was right" (concise, in
`evaluate`'s sense; any answer to an unanswerable question is wrong) on the answerability logit of each
fact answer that file scored. The transform is monotone: what is answered, and in which order, do not
change. "Who" answers keep their document model's probability (measured: no better calibrated this way).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from .model import PARAMS, READING_PARAMS, ReaderModel, logit, scaled, sigmoid

MIN_POINTS = 20  # fewer answers than this (or only right or only wrong ones) leave a file as it is


@dataclass(frozen=True)
class Point:
    """One fact answer to a tune question."""

    reading: bool  # scored by the reading model's parameters (`Reader.read_model`), else the ranker's
    p: float  # its answerability, before calibration
    right: bool  # concise and right; an answer to an unanswerable question is wrong


def raw(model: ReaderModel, confidence: float) -> float:
    """The answerability behind a calibrated `confidence` (the inverse of `ReaderModel.sure`)."""
    a, b = model.calibration
    return sigmoid((logit(confidence) - b) / a)


def fit(points: Sequence[Point], min_points: int = MIN_POINTS) -> tuple[float, float] | None:
    """(a, b) of `sigmoid(a logit(p) + b)` for P(right), or None when the points cannot say (fewer than
    `min_points`, all right or all wrong, or a slope that would reverse the order)."""
    y = np.array([pt.right for pt in points], int)
    if len(points) < max(min_points, 2) or y.min() == y.max():
        return None
    from sklearn.linear_model import LogisticRegression

    x = np.array([[logit(pt.p)] for pt in points])
    lr = LogisticRegression(C=1e4).fit(x, y)  # next to no penalty: two parameters, hundreds of points
    a, b = float(lr.coef_[0][0]), float(lr.intercept_[0])
    return (a, b) if a > 0 else None


def report(points: Sequence[Point], calibration: tuple[float, float]) -> dict[str, Any]:
    """Mean confidence against the share right, Brier score and expected calibration error (10 bins),
    before and after `calibration`."""
    y = np.array([pt.right for pt in points], float)
    before = np.array([pt.p for pt in points])
    after = np.array([scaled(calibration, pt.p) for pt in points])

    def ece(p: np.ndarray) -> float:
        bins = np.minimum((p * 10).astype(int), 9)
        return float(sum(abs(p[bins == k].mean() - y[bins == k].mean()) * (bins == k).sum()
                         for k in range(10) if (bins == k).any()) / len(y))

    return {"answers": len(points), "right": round(float(y.mean()), 3),
            "mean_confidence": [round(float(before.mean()), 3), round(float(after.mean()), 3)],
            "brier": [round(float(np.mean((before - y) ** 2)), 3), round(float(np.mean((after - y) ** 2)), 3)],
            "ece": [round(ece(before), 3), round(ece(after), 3)], "a": round(calibration[0], 4),
            "b": round(calibration[1], 4)}


def collect(sets: Sequence[tuple[str | Path, str | Path]], *, index_root: str | Path | None = None,
            embedder: Any = None) -> list[Point]:
    """Ask every tune question of each (QA file, documents) pair with the packaged parameters (the
    documents indexed as `samples.collect_files` does) and keep each fact answer's point."""
    from ..api import Assistant
    from .evaluate import score, split_of
    from .samples import indexed, read_records

    points: list[Point] = []
    for qa, store, emb in indexed(sets, index_root=index_root, embedder=embedder):
        assistant = Assistant(store, emb)
        reader = assistant.reader
        for record in read_records(qa):
            if split_of(record) != "tune":
                continue
            hits, _ = assistant.retrieve_scoped(record["q"])
            is_who, read, _people = reader.prepare(record["q"], hits)
            answer = assistant.ask(record["q"])
            if is_who or answer.abstained or answer.confidence is None or answer.kind == "people":
                continue
            reading = reader.reads(read, False)
            model = reader.read_model if reading else reader.model
            item = score(record, answer, partial(_text, store))
            points.append(Point(reading, raw(model, answer.confidence),
                                bool(item.concise) if item.score.answerable else False))
    return points


def _text(store: Any, chunk_id: str) -> str | None:
    chunk = store.chunk(chunk_id)
    return chunk.text if chunk is not None else None


def calibrate_files(sets: Sequence[tuple[str | Path, str | Path]], *, index_root: str | Path | None = None,
                    embedder: Any = None, ranker: str | Path = PARAMS,
                    reading: str | Path = READING_PARAMS, min_points: int = MIN_POINTS) -> dict[str, Any]:
    """Fit the calibration of the `ranker` and `reading` parameter files on the tune answers of `sets`
    and write it into them (a file whose answers cannot say is left as it is). Returns the report."""
    points = collect(sets, index_root=index_root, embedder=embedder)
    out: dict[str, Any] = {}
    for name, path, mine in (("ranker", ranker, [pt for pt in points if not pt.reading]),
                             ("reading", reading, [pt for pt in points if pt.reading])):
        model = ReaderModel.load(path)
        found = fit(mine, min_points)
        if found is None:
            out[name] = {"answers": len(mine), "written": False}
            continue
        replace(model, calibration=found).save(path)
        out[name] = {**report(mine, found), "written": str(path)}
    return out
