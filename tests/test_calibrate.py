"""How sure an answer says it is (`assistant.answer.calibrate`, `ReaderModel.sure`): the packaged parameter
files carry a calibration fitted on whether tune answers were right, answers on a real index show it, and the
fitting recovers a known law and writes only the files it is given."""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from assistant.answer.calibrate import Point, calibrate_files, fit, raw
from assistant.answer.model import PARAMS, READING_PARAMS, ReaderModel
from tests.conftest import PROFILES, SEED_DEV, require_shared
from tests.test_cli_errors import one_line_error, run


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


@pytest.mark.parametrize("path", [PARAMS, READING_PARAMS], ids=["ranker", "reading"])
def test_the_packaged_files_say_less_than_answerability_and_keep_its_order(path: Path) -> None:
    model = ReaderModel.load(path)
    a, b = model.calibration
    assert 0 < a < 1 and b < 0  # fitted: answers at answerability 0.94 were right far less often than 94 %
    ps = np.linspace(0.01, 0.99, 99)
    shown = [model.sure(float(p)) for p in ps]
    assert all(x < y for x, y in zip(shown, shown[1:], strict=False))  # monotone: nothing is reordered
    assert model.sure(0.99) < 0.97 and model.sure(model.threshold) < model.threshold
    assert raw(model, model.sure(0.8)) == pytest.approx(0.8, abs=1e-6)


def test_an_answer_on_a_real_index_shows_the_calibrated_answerability(seed_assistant) -> None:
    reader = seed_assistant.writer
    question = "What is Moccasin?"
    answer = seed_assistant.ask(question)
    hits, _ = seed_assistant.retrieve_scoped(question)
    r = reader.read(question, hits)
    m = r.model or reader.model
    p = m.answerable(r.p, r.x, r.unmatched, r.read)
    assert not answer.abstained and p >= m.threshold
    assert answer.confidence == pytest.approx(m.sure(p)) and answer.confidence < p


def test_fit_recovers_a_known_law_and_refuses_what_cannot_say() -> None:
    rng = np.random.default_rng(3)
    p = rng.uniform(0.3, 0.999, 4000)
    truth = [_sigmoid(0.5 * math.log(q / (1 - q)) - 0.5) for q in p]
    points = [Point(False, float(q), bool(rng.random() < t)) for q, t in zip(p, truth, strict=True)]
    a, b = fit(points) or (0.0, 0.0)
    assert a == pytest.approx(0.5, abs=0.1) and b == pytest.approx(-0.5, abs=0.2)
    assert fit(points[:10]) is None  # too few
    assert fit([replace(pt, right=True) for pt in points]) is None  # all right: nothing to scale


def test_a_calibration_that_would_reverse_confidence_is_refused(tmp_path: Path) -> None:
    data = json.loads(PARAMS.read_text(encoding="utf-8"))
    bad = tmp_path / "reader.json"
    bad.write_text(json.dumps({**data, "calibration": {"a": -0.5, "b": 0.0}}), encoding="utf-8")
    with pytest.raises(ValueError, match="calibration slope"):
        ReaderModel.load(bad)
    bad.write_text(json.dumps({**data, "calibration": {"a": "steep"}}), encoding="utf-8")
    with pytest.raises(ValueError, match="calibration must be"):
        ReaderModel.load(bad)
    plain = {k: v for k, v in data.items() if k != "calibration"}
    bad.write_text(json.dumps(plain), encoding="utf-8")
    assert ReaderModel.load(bad).sure(0.9) == 0.9  # a file without one says what answerability says


def test_calibrate_files_fits_and_writes_only_the_files_it_is_given(tmp_path: Path, embedder) -> None:
    require_shared(SEED_DEV)
    ranker, reading = tmp_path / "reader.json", tmp_path / "reader-reading.json"
    shutil.copy(PARAMS, ranker)
    shutil.copy(READING_PARAMS, reading)
    before = PARAMS.read_bytes(), READING_PARAMS.read_bytes()
    # the seed questions, every other one given an answer no passage holds: a mix of right and wrong answers
    records = [json.loads(line) for line in SEED_DEV.read_text(encoding="utf-8").splitlines() if line.strip()]
    qa = tmp_path / "qa.jsonl"
    qa.write_text("".join(json.dumps({**r, "answer": [["no passage says this"]]} if i % 2 and r.get("answer") else r) + "\n"
                          for i, r in enumerate(records)), encoding="utf-8")
    found = calibrate_files([(qa, PROFILES)], index_root=tmp_path / "idx", embedder=embedder,
                            ranker=ranker, reading=reading, min_points=5)
    assert (PARAMS.read_bytes(), READING_PARAMS.read_bytes()) == before  # the packaged files untouched
    r = found["ranker"]  # the profiles belong to people: their fact questions are the ranker's
    assert r["written"] == str(ranker) and r["answers"] >= 5 and 0 < r["right"] < 1
    fitted = ReaderModel.load(ranker)
    assert fitted.calibration == pytest.approx((r["a"], r["b"]), abs=1e-4)
    old = json.loads(PARAMS.read_text(encoding="utf-8"))
    new = json.loads(ranker.read_text(encoding="utf-8"))
    assert {k: v for k, v in new.items() if k != "calibration"} == {k: v for k, v in old.items() if k != "calibration"}
    assert r["ece"][1] <= r["ece"][0] + 1e-9 or r["brier"][1] <= r["brier"][0] + 1e-9
    assert found["reading"] == {"answers": 0, "written": False}


def test_calibrate_fits_the_packaged_files_only(tmp_path: Path) -> None:
    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps({"q": "What is Moccasin?", "docs": [], "answer": []}) + "\n")
    one_line_error(run(["train-reader", str(qa), "--docs", str(PROFILES), "--calibrate", "--out", str(tmp_path / "x.json")]),
                   "--calibrate fits the packaged parameter files in place")
