"""The reading model's training command (`python -m training.train`) on a small sample: it runs a few
steps on the CPU, writes weights the run-time reader loads (`index.reading.PackagedReader`), and the
run-time numpy forward pass equals the torch model it was trained as.

The sample is a few SQuAD-format paragraphs written here (the real data lives in ../shared/train,
which CI may not have); the figures it prints mean nothing at this size, only that every step runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from training.windows import (
    Question,
    build,
    fragments_of,
    labelled_windows,
    pieces,
    read_squad,
    swapped,
    windows,
)

REPO = Path(__file__).resolve().parent.parent

PARAGRAPHS = [
    ("Rivers", "The Aldermoor river rises in the northern hills. It flows south for 212 kilometres before it reaches "
     "the sea at Port Wenlock. The river was first mapped in 1761 by the surveyor Edith Crane. Its largest tributary "
     "is the Brisk, which joins it below the town of Hallow. Salmon return to its upper reaches every autumn, and "
     "the valley below the hills is farmed for barley and sheep.",
     [("How long is the Aldermoor river?", "212 kilometres"), ("Who first mapped the Aldermoor?", "Edith Crane"),
      ("What is the largest tributary of the Aldermoor?", "the Brisk"),
      ("When was the Aldermoor river first dammed?", None)]),
    ("Bridges", "The Kestrel Bridge was completed in 1932. Its main span is 340 metres long and it carries two "
     "railway tracks. The engineer in charge was Tomas Ferreira, who later designed the Lune viaduct. The bridge "
     "was painted grey in 1960 and red again in 1994, after a long public campaign by the people of the town.",
     [("When was the Kestrel Bridge completed?", "1932"), ("How long is the main span of the Kestrel Bridge?",
      "340 metres"), ("Who was the engineer of the Kestrel Bridge?", "Tomas Ferreira"),
      ("How many road lanes does the Kestrel Bridge carry?", None)]),
]


def squad(paragraphs: list, impossible: bool) -> dict:
    data = []
    for title, ctx, qas in paragraphs:
        rows = []
        for n, (q, a) in enumerate(qas):
            if a is None and not impossible:
                continue
            answers = [] if a is None else [{"text": a, "answer_start": ctx.index(a)}]
            rows.append({"id": f"{title}-{n}", "question": q, "answers": answers, "is_impossible": a is None})
        data.append({"title": title, "paragraphs": [{"context": ctx, "qas": rows}]})
    return {"version": "test", "data": data}


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    d = tmp_path / "reader"
    d.mkdir()
    (d / "squad11-train.json").write_text(json.dumps(squad(PARAGRAPHS, False)))
    (d / "squad20-dev-train.json").write_text(json.dumps(squad(PARAGRAPHS, True)))
    (d / "squad20-dev-heldout.json").write_text(json.dumps(squad(PARAGRAPHS[:1], True)))
    (d / "wikiqa").mkdir()
    (d / "wikiqa" / "test.tsv").write_text("Who mapped the river?\tEdith Crane mapped it in 1761 .\t1\n"
                                           "Who mapped the river?\tThe river rises in the hills .\t0\n")
    return d


def test_windows_are_cut_like_candidates_and_labelled_by_the_answer() -> None:
    text = PARAGRAPHS[0][1]
    ps = pieces(text, limit=80)
    assert all(b - a <= 80 for a, b in ps) and len(ps) >= 4  # sentences, each within the limit
    ws = windows(text, limit=80)
    assert all(b - a <= 80 for a, b in ws)
    q = Question("q", "Rivers", "How long is it?", text, ((text.index("212"), text.index("212") + 14),))
    labelled = labelled_windows(q)
    assert any(label == 1 and text[a + s:a + e] == "212 kilometres" for a, b, label, (s, e) in labelled)
    assert all(not (a <= q.answers[0][0] < b) for a, b, label, _ in labelled if label == 0)


def test_read_squad_and_build_give_positives_negatives_and_near_misses(data_dir: Path) -> None:
    qs = read_squad(data_dir / "squad20-dev-train.json")
    assert len(qs) == 8 and sum(not q.answers for q in qs) == 2
    ex = build(qs, seed=1, negatives=2, swap_share=1.0)
    kinds = {(e.kind, e.label) for e in ex}
    assert ("squad", 1) in kinds and ("squad", 0) in kinds and ("unanswerable", 0) in kinds
    for e in ex:
        if e.label:
            assert 0 <= e.span[0] < e.span[1] <= len(e.window)
    # a swapped near miss replaces a name the question shares with its paragraph by another article's
    q = next(q for q in qs if q.question.startswith("Who was the engineer"))
    s = swapped(q, ["Ravenhill", "Lune"], __import__("random").Random(0))
    assert s is not None and not s.answers and "Kestrel" not in s.question


def test_fragments_are_the_answers_clause_and_the_clause_that_restates_the_question() -> None:
    text = ("The bridge, which the town paid for, was opened in 1932 by the mayor; it carries two tracks. "
            "Its span is 340 metres, the longest in the county.")
    q = Question("q", "Bridges", "When was the bridge which the town paid for opened?", text,
                 ((text.index("1932"), text.index("1932") + 4),))
    got = []
    for seed in range(6):  # half the time the clause before the answer's comes with it
        got += fragments_of(q, __import__("random").Random(seed))
    pos = {e.window for e in got if e.label}
    neg = {e.window for e in got if not e.label}
    assert "was opened in 1932 by the mayor" in pos and "which the town paid for" in neg
    assert all(e.window[e.span[0]:e.span[1]] == "1932" for e in got if e.label)
    assert all("1932" not in w for w in neg)
    none = Question("u", "Bridges", "How many road lanes does the bridge carry?", text, ())
    assert [e.window for e in fragments_of(none, __import__("random").Random(0))] == ["The bridge"]


@pytest.mark.slow
def test_train_runs_a_few_steps_and_the_runtime_reads_what_it_wrote(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "model"
    run = subprocess.run([sys.executable, "-m", "training.train", "--data", str(data_dir), "--out", str(out),
                          "--max-steps", "3", "--batch", "4", "--threads", "2", "--squad11", "4"],
                         cwd=REPO, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert {"model.safetensors", "reading.json", "MODEL_CARD.md"} <= {p.name for p in out.iterdir()}
    config = json.loads((out / "reading.json").read_text())
    assert config["training"]["steps"] == 3 and 0 < config["threshold"] < 1
    assert "heldout" in config["figures"] and "SQuAD" in (out / "MODEL_CARD.md").read_text()

    from safetensors.torch import load_file

    from index.reading import PackagedReader
    from training.model import ReadingNet, TorchScorer, tokenizer_of
    from training.train import base_model_path

    pairs = [("Who first mapped the Aldermoor?", "The river was first mapped in 1761 by the surveyor Edith Crane."),
             ("How long is the span?", "Its main span is 340 metres long and it carries two railway tracks.")]
    runtime = PackagedReader(out).read(pairs)
    net = ReadingNet(base_model_path())
    net.load_state_dict({k: v.float() for k, v in load_file(str(out / "model.safetensors")).items()}, strict=False)
    torch_reads = TorchScorer(net, tokenizer_of(base_model_path(), 128), 128, "cpu")(pairs)
    for r, (p, span, _margin) in zip(runtime, torch_reads, strict=True):
        assert abs(r.p - p) < 1e-3  # float16 weights either way: the numpy pass equals torch's
        assert r.span == span and 0 <= r.span[0] < r.span[1]


def test_train_says_where_the_data_is_missing(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "training.train", "--data", str(tmp_path / "nowhere"), "--no-eval"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "no training data in" in run.stderr


def test_figures_score_spans_only_for_a_scorer_that_reads_them(data_dir: Path) -> None:
    from training.evaluate import squad_figures, table

    questions = [q for q in read_squad(data_dir / "squad20-dev-train.json")]
    answer = {q.question: q.context[q.answers[0][0]:q.answers[0][1]] for q in questions if q.answers}

    def reader(pairs):  # reads the gold phrase wherever a window holds it: every figure is perfect
        out = []
        for question, window in pairs:
            phrase = answer.get(question, "\0")
            at = window.find(phrase)
            out.append((1.0, (at, at + len(phrase)), 5.0) if at >= 0 else (0.0, (-1, -1), -5.0))
        return out

    def cosine(pairs):  # no span head: nothing to read, so no EM/F1 (not the 0 that "" against "the" gives)
        return [(float(len(set(q.split()) & set(w.split()))), (-1, -1), float("nan")) for q, w in pairs]

    read = squad_figures(questions, reader, progress=False)
    assert read["right_first"] == 1.0 and read["auc"] == 1.0 and read["em"] == 100.0 and read["f1"] == 100.0
    plain = squad_figures(questions, cosine, progress=False)
    assert 0.0 <= plain["auc"] <= 1.0 and plain["em"] != plain["em"] and plain["f1"] != plain["f1"]  # nan
    text = table({"reader": {"validation": read, "heldout": read},
                  "cosine": {"validation": plain, "heldout": plain, "wikiqa": {"map": 0.5, "mrr": 0.5}}})
    assert "| cosine | heldout | 8 |" in text and "| - | - | 0.500 | 0.500 |" in text and "nan" not in text
