"""The numpy BERT encoder (`index.bert_numpy`): the packaged MiniLM's vectors without importing torch.

Real model weights, real sentence-transformers for the reference vectors, and a real one-shot
process over a real index to check that a question is answered without torch being imported.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import PROFILES, REPO

from index.bert_numpy import NumpyBert, supported
from index.embed import SentenceTransformerEmbedder, default_model_path


def _texts() -> list[str]:
    profile = sorted(PROFILES.glob("*"))[0].read_text(encoding="utf-8")
    return [
        "Where did Fatih Balin do his PhD?",
        "",
        "Zürich, École polytechnique — naïve café; 3.5 GPA (2019–2023)",
        profile[:400],
        profile,  # thousands of tokens: cut at the model's 256, as sentence-transformers cuts it
        "GPU",
    ]


def test_numpy_encoder_gives_sentence_transformers_vectors() -> None:
    from sentence_transformers import SentenceTransformer

    texts = _texts()
    reference = SentenceTransformer(default_model_path(), device="cpu").encode(
        texts, normalize_embeddings=True, convert_to_numpy=True)
    encoder = NumpyBert.load(default_model_path())
    assert encoder is not None and encoder.dim == 384 and encoder.max_tokens == 256
    got = encoder.encode(texts, batch_size=4)  # batches of mixed lengths: padding must not leak in
    assert got.shape == reference.shape and got.dtype == np.float32
    assert np.abs(got - reference).max() < 1e-5
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    # one at a time gives the same vectors as in a batch (no dependence on the batch's padding)
    alone = np.stack([encoder.encode([t])[0] for t in texts])
    assert np.abs(alone - got).max() < 1e-5


def test_only_bert_with_mean_pooling_runs_in_numpy(tmp_path: Path) -> None:
    source = Path(default_model_path())
    assert supported(source)
    other = tmp_path / "cls-pooled"
    other.mkdir()
    for item in source.iterdir():
        if item.is_file():
            (other / item.name).symlink_to(item)
    (other / "1_Pooling").mkdir()
    pooling = json.loads((source / "1_Pooling" / "config.json").read_text())
    pooling.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    (other / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    assert not supported(other) and NumpyBert.load(other) is None
    embedder = SentenceTransformerEmbedder(str(other))
    assert embedder.numpy_encoder() is None  # sentence-transformers embeds this one
    from sentence_transformers import SentenceTransformer

    want = SentenceTransformer(str(other), device="cpu").encode(["a query"], normalize_embeddings=True)[0]
    assert np.abs(embedder.embed_query("a query") - want).max() < 1e-5
    assert not supported(tmp_path / "missing")


def test_the_numpy_path_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_NUMPY_ENCODER", "0")
    assert SentenceTransformerEmbedder().numpy_encoder() is None


CHILD = r"""
import json, sys
import index.embed
from assistant.api import Assistant
index.embed.NUMPY_TEXTS = int(sys.argv[2])
a = Assistant.open(sys.argv[1])
answer = a.ask(sys.argv[3])
before = "torch" in sys.modules or "sentence_transformers" in sys.modules
few = a.embedder.embed_documents(["one line", "another line"])
many = a.embedder.embed_documents(["line %d" % i for i in range(int(sys.argv[2]))])  # past the budget: torch
print(json.dumps({"answer": answer.answer, "torch_at_answer": before,
                  "torch_after_budget": "sentence_transformers" in sys.modules,
                  "numpy_freed": a.embedder.numpy_encoder() is None,
                  "few": few.tolist(), "many0": many[0].tolist()}))
"""


def test_a_one_shot_question_is_answered_without_importing_torch(seed_index_dir: Path, embedder, tmp_path: Path) -> None:
    from assistant.api import Assistant
    from index import Store

    question = "Where did Muhammed Fatih Balin do his PhD?"
    index = tmp_path / "index"
    shutil.copytree(seed_index_dir, index)
    (index / "reader-vectors.npz").unlink(missing_ok=True)  # its lines are embedded afresh, in numpy
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("CITEWISE_NUMPY_ENCODER", None)
    out = subprocess.run([sys.executable, "-c", CHILD, str(index), "2000", question], capture_output=True, text=True,
                         env=env, check=True, timeout=300)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["torch_at_answer"] is False
    assert got["torch_after_budget"] is True  # bulk work loads torch once numpy has had its share
    assert got["numpy_freed"] is True  # ... which then embeds everything: numpy's weights are let go
    # the same answer as a process that embeds everything with sentence-transformers
    want = Assistant(Store.open(seed_index_dir), embedder).ask(question)
    assert got["answer"] == want.answer and "Georgia" in got["answer"]
    reference = embedder.model().encode(["one line", "another line", "line 0"], normalize_embeddings=True)
    assert np.abs(np.array(got["few"]) - reference[:2]).max() < 1e-5
    assert np.abs(np.array(got["many0"]) - reference[2]).max() < 1e-5
