"""The shipped reading model (`index.reading`) and how the reader uses it, on the real model.

It loads from the package with nothing downloaded; its numpy and torch passes agree; its span lies
inside the window it read; on real documents it prefers the passage that answers over one that
restates the question; and the reader reads only the best candidates (every person's best for "who").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from index.reading import PACKAGED, PackagedReader, Read, ReadingModelError, best_span, reading_model

REPO = Path(__file__).resolve().parent.parent
NTSB = REPO.parent / "shared" / "eval" / "realdocs" / "docs" / "ntsb01_NYC08CA055.pdf"  # a real accident report


@pytest.fixture(scope="module")
def reader() -> PackagedReader:
    return PackagedReader()


def test_the_packaged_model_is_in_the_package_and_small() -> None:
    files = {p.name: p.stat().st_size for p in PACKAGED.iterdir()}
    assert {"model.safetensors", "reading.json", "MODEL_CARD.md"} <= set(files)
    assert files["model.safetensors"] < 30 * 2**20  # only what differs from the packaged MiniLM, in float16
    config = json.loads((PACKAGED / "reading.json").read_text())
    assert 0 < config["threshold"] < 1 and config["training"]["command"].startswith("python -m training.train")
    assert "SQuAD" in (PACKAGED / "MODEL_CARD.md").read_text()


@pytest.mark.slow
def test_it_loads_offline_without_torch(tmp_path: Path) -> None:
    """A fresh process with the hub offline loads it and reads with numpy: torch is never imported."""
    code = ("import sys, json; from index.reading import PackagedReader; r = PackagedReader(); "
            "out = r.read([('Who mapped the river?', 'The river was mapped in 1761 by Edith Crane.')]); "
            "print(json.dumps({'p': out[0].p, 'span': out[0].span, 'torch': 'torch' in sys.modules}))")
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONPATH=str(REPO))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120, check=True)
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["torch"] is False and 0.0 <= got["p"] <= 1.0
    assert "The river was mapped in 1761 by Edith Crane."[got["span"][0]:got["span"][1]].strip()


def test_a_folder_that_is_not_a_model_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ReadingModelError, match="No reading model at"):
        reading_model(str(tmp_path / "missing"))
    with pytest.raises(ReadingModelError, match="Cannot read the reading model"):
        PackagedReader(tmp_path)
    assert reading_model("none") is None


def test_a_model_trained_on_other_word_embeddings_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes((PACKAGED / "model.safetensors").read_bytes())
    config = json.loads((PACKAGED / "reading.json").read_text())
    (folder / "reading.json").write_text(json.dumps({**config, "base_check": "0" * 16}))
    with pytest.raises(ReadingModelError, match="other word embeddings"):
        PackagedReader(folder).read([("q?", "a passage")])


def test_best_span_keeps_order_length_and_allowed_tokens() -> None:
    start = np.array([9.0, 1.0, 0.0, 5.0, 0.0])
    end = np.array([9.0, 0.0, 4.0, 0.0, 3.0])
    allowed = np.array([False, True, True, True, True])
    assert best_span(start, end, allowed) == (3, 4)  # token 0 is not allowed, and an end never precedes its start
    assert best_span(start, end, allowed, longest=1) == (3, 3)
    assert best_span(start, end, np.zeros(5, bool)) == (-1, -1)


@pytest.mark.slow
def test_spans_lie_inside_their_windows_and_numpy_equals_torch(reader: PackagedReader, seed_index_dir: Path) -> None:
    from index import Store
    from index.reading import _torch_hidden

    store = Store.open(seed_index_dir)
    try:
        texts = [c.text[:300] for d in store.documents() for c in store.chunks_of(d.doc)][:24]
    finally:
        store.close()
    pairs = [("Where did he do his PhD?", t) for t in texts]
    reads = reader.read(pairs)
    assert all(isinstance(r, Read) and 0.0 <= r.p <= 1.0 for r in reads)
    for (_, text), r in zip(pairs, reads, strict=True):
        a, b = r.span
        assert (a, b) == (-1, -1) or 0 <= a < b <= len(text)
    bert = reader.load()
    encs = bert.tokenizer.encode_batch(pairs[:4])
    n = max(len(e.ids) for e in encs)
    ids = np.array([e.ids + [0] * (n - len(e.ids)) for e in encs])
    types = np.array([e.type_ids + [0] * (n - len(e.ids)) for e in encs])
    mask = np.array([[1.0] * len(e.ids) + [0.0] * (n - len(e.ids)) for e in encs], np.float32)
    a, b = bert.hidden(ids, types, mask), _torch_hidden(bert, ids, types, mask)
    assert np.abs(a - b)[mask > 0].max() < 1e-3


def _line(path: Path, holding: str) -> str:
    return next(line.strip(" •-\t") for line in path.read_text(encoding="utf-8").splitlines() if holding in line)


@pytest.mark.slow
def test_it_prefers_the_answer_to_the_line_that_restates_the_question(reader: PackagedReader, embedder) -> None:
    """On a real profile (examples/profiles): asked who advised his PhD, the degree line restates "PhD"
    and the bi-encoder's cosine prefers it; the reading model prefers the line that names the advisor."""
    profile = next((REPO / "examples" / "profiles").glob("000_*.txt"))
    header, answer = _line(profile, "Ph.D in Computational"), _line(profile, "advised by")
    question = "Who advised his PhD?"
    p_header, p_answer = (r.p for r in reader.read([(question, header), (question, answer)]))
    cos_header, cos_answer = np.asarray(embedder.embed_documents([header, answer])) @ np.asarray(embedder.embed_query(question))
    assert cos_header > cos_answer  # what the ranker's features see
    assert p_answer > reader.threshold > p_header


@pytest.mark.slow
@pytest.mark.skipif(not NTSB.is_file(), reason="../shared/eval/realdocs is not here")
def test_it_refuses_a_near_miss_and_reads_the_answer_of_the_asked_question(reader: PackagedReader) -> None:
    """An accident report (realdocs): its line on the pilot's flight time answers how many hours he had
    flown, above the threshold, and not what his age was, which it never says."""
    from ingest import load_document

    text = load_document(NTSB).text
    line = next(t.strip() for t in text.splitlines() if t.startswith("Flight Time:"))
    asked, near = reader.read([("How many hours of flight experience did the pilot have?", line),
                               ("What was the pilot's date of birth?", line)])
    assert asked.p > reader.threshold > near.p
    assert line[asked.span[0]:asked.span[1]].replace(",", "").isdigit()  # it points at a number of hours


@pytest.mark.slow
def test_a_users_local_cross_encoder_folder_is_a_reading_model(tmp_path: Path) -> None:
    """`answer.reading_model` may name a sentence-transformers cross-encoder folder: its score becomes the
    probability (no span). The folder here is the packaged MiniLM with a fresh one-score head, saved
    locally (a user's would be trained; nothing is downloaded either way)."""
    from sentence_transformers import CrossEncoder

    from index.embed import default_model_path
    from index.reading import CrossEncoderReader

    folder = tmp_path / "my-cross-encoder"
    CrossEncoder(default_model_path(), num_labels=1).save(str(folder))
    model = reading_model(str(folder))
    assert isinstance(model, CrossEncoderReader)
    reads = model.read([("Who mapped the river?", "Edith Crane mapped it in 1761."), ("Who?", "Nothing here.")])
    assert len(reads) == 2 and all(0.0 <= r.p <= 1.0 and r.span == (-1, -1) for r in reads)


@pytest.mark.slow
def test_the_reader_reads_only_the_best_candidates_and_every_persons_best_for_who(seed_index_dir: Path, embedder) -> None:
    """With the preset `reading`, the reading model reads `read_top` candidates of a fact question and
    each person's best for a "who" question; a candidate it did not read never outranks one it read;
    answers still quote their chunks exactly. By default it reads only fact questions about documents of no
    person: the sample profiles are people's, so the default reader reads none of their questions."""
    from assistant import Assistant, Settings
    from index import Store

    store = Store.open(seed_index_dir)
    try:
        default = Assistant(store, embedder)
        assert isinstance(default.reader.reading, PackagedReader) and default.reader.read_for == "unowned"
        hits, _ = default.retrieve_scoped("Which company did Baolin Li intern at in the summer of 2022?")
        assert not default.reader.reads(hits, who=False) and default.reader.read_model is not default.reader.model
        unowned = [replace(h, owner=None) for h in hits]
        assert default.reader.reads(unowned, who=False) and not default.reader.reads(unowned, who=True)
        r = default.reader.read("Which company did Baolin Li intern at?", unowned)
        assert r.model is default.reader.read_model and (~np.isnan(r.read)).sum() == min(6, len(r.cands))
        a = Assistant(store, embedder, settings=Settings(preset="reading"))
        assert isinstance(a.reader.reading, PackagedReader) and a.reader.model.r_coef is not None
        question = "Which company did Baolin Li intern at in the summer of 2022?"
        hits, _ = a.retrieve_scoped(question)
        r = a.reader.read(question, hits)
        read = ~np.isnan(r.read)
        assert read.sum() == min(a.reader.read_top, len(r.cands))
        assert r.p[~read].max() < r.p[read].min()
        answer = a.ask(question)
        assert not answer.abstained and "Bosch" in answer.answer
        assert all(c.quote == store.chunk(c.chunk_id).text[c.quote_start:c.quote_start + len(c.quote)]
                   for c in answer.citations)
        who = "Who has worked on graph neural networks?"
        hits, _ = a.retrieve_scoped(who)
        is_who, per_doc, _ = a.reader.prepare(who, hits)
        r = a.reader.read(who, per_doc, who=is_who)
        assert is_who and {r.hits[c.hit].doc for c, done in zip(r.cands, ~np.isnan(r.read), strict=True) if done} \
            == {h.doc for h in per_doc}
    finally:
        store.close()


ROE_CV = """# Jane Roe

Doctoral student in applied mathematics. jroe@example.edu

## Education

- PhD, Computing and Mathematical Sciences, California Institute of Technology, 2018 - present
  - Advised by Andrew Stuart
- BA in Biophysics, Columbia University, 2013

## Experience

- 2016 - 2018: Research analyst, Acme Health, New York. Built models of patient flow.
- 2014 - 2016: Data engineer, Bright Labs, Boston.

## Research interests

Data assimilation, dynamical systems and machine learning for physiology.
"""


@pytest.mark.slow
def test_a_cv_question_the_ranker_refuses_is_read_again_and_answered_only_when_the_model_is_sure(
        tmp_path: Path, embedder) -> None:
    """By default the reading model does not read a CV's questions (the ranker alone does better there). When the
    ranker alone abstains on one, the reading model reads it too, and its answer is given when it is at least
    `SECOND_SURE` likely right: "Advised by Andrew Stuart" answers "Who advises Jane Roe's doctoral work?", which
    the ranker cannot tell from the PhD line above it; "Who supervised her bachelor's thesis?" (the CV does not
    say) stays refused."""
    from assistant import Assistant, build_index
    from assistant.answer.fact import answer_fact
    from assistant.answer.reader import SECOND_SURE

    docs = tmp_path / "cvs"
    docs.mkdir()
    (docs / "roe_cv.md").write_text(ROE_CV, encoding="utf-8")
    (docs / "poe_cv.md").write_text("# Paul Poe\n\nEngineer at Delta Corp since 2019. paul.poe@example.org\n\n"
                                    "## Education\n\n- MSc in Physics, University of Leeds, 2017\n", encoding="utf-8")
    (docs / "lane_cv.md").write_text("# Lena Lane\n\nLecturer in statistics at the University of Bristol.\n\n"
                                     "## Education\n\n- PhD in Statistics, University of Oxford, 2015.\n", encoding="utf-8")
    store, _ = build_index([docs], tmp_path / "index", embedder=embedder)
    store.close()
    a = Assistant.open(tmp_path / "index")
    question = "Who advises Jane Roe's doctoral work?"
    hits, _ = a.retrieve_scoped(question)
    assert not a.reader.reads(hits, who=False)  # a person's document: the ranker alone reads it first
    assert answer_fact(a.reader, a.reader.read(question, hits)).abstained
    answer = a.ask(question)
    assert not answer.abstained and answer.fact == "Andrew Stuart", answer.answer
    assert (answer.confidence or 0) >= SECOND_SURE and any(n.startswith("read twice") for n in answer.notes)
    c = answer.citations[0]
    assert c.quote == a.store.chunk(c.chunk_id).text[c.quote_start:c.quote_start + len(c.quote)]
    assert a.ask("Who supervised Jane Roe's bachelor's thesis?").abstained
