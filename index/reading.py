"""Reading models: (question, passage) pairs in, "does this passage answer it, and where" out.

`ReadingModel` is the seam; `PackagedReader` the default: citewise's own cross-encoder, trained from
the packaged all-MiniLM-L6-v2 on public QA data by `python -m training.train` (its model card is
`models/reading/MODEL_CARD.md`). It reads `[CLS] question [SEP] passage [SEP]` and gives
- `p`: the probability that the passage answers the question (a head on [CLS]);
- `span`: where the answer phrase is in the passage (start and end heads, best span of at most 30
  tokens), or (-1, -1).
It runs with numpy (`index.bert_numpy`): no torch import, loaded in well under a second; in a
process that has already imported torch (a server, a long batch: the embedder loads it for bulk work)
the same weights run through torch, about twice as fast on two cores (oneDNN's fused kernels against
numpy's separate passes), with the same probabilities to float32 rounding. The shipped
file holds only what differs from the packaged MiniLM, in float16; the word embeddings are the
packaged model's (rounded to float16, as in training), checked against the checksum it was trained on.

`CrossEncoderReader` runs a user's local sentence-transformers cross-encoder folder instead (its
score through a sigmoid; no span). `reading_model(name_or_path)` picks one: "packaged" (default),
"none", or a folder (ours if it holds `reading.json`, else a cross-encoder).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .errors import IndexError_

log = logging.getLogger(__name__)
PACKAGED = Path(__file__).with_name("models") / "reading"
LONGEST = 30  # tokens in an answer span


class ReadingModelError(IndexError_):
    """A reading model could not be loaded."""


@dataclass(frozen=True)
class Read:
    p: float  # probability that the passage answers the question
    span: tuple[int, int] = (-1, -1)  # the answer phrase, character offsets in the passage; (-1, -1): none
    margin: float = float("nan")  # the span's start + end logits less those of "no answer" ([CLS]); nan: no span head


@runtime_checkable
class ReadingModel(Protocol):
    name: str
    threshold: float  # a passage answers when `p` reaches this (chosen on validation data)

    def read(self, pairs: Sequence[tuple[str, str]]) -> list[Read]: ...


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))


def best_span(start: np.ndarray, end: np.ndarray, allowed: np.ndarray, longest: int = LONGEST) -> tuple[int, int]:
    """Token positions (s, e), s <= e < s + `longest`, both `allowed`, maximising start[s] + end[e];
    (-1, -1) when no token is allowed."""
    idx = np.flatnonzero(allowed)
    if not len(idx):
        return -1, -1
    s, e = start[idx], end[idx]
    score = s[:, None] + e[None, :]
    gap = idx[None, :] - idx[:, None]
    score = np.where((gap >= 0) & (gap < longest), score, -np.inf)
    i, j = np.unravel_index(int(np.argmax(score)), score.shape)
    return int(idx[i]), int(idx[j])


class PackagedReader:
    """citewise's cross-encoder (see the module docstring), in numpy."""

    def __init__(self, folder: str | os.PathLike[str] = PACKAGED, base: str | None = None, cache: int = 20_000) -> None:
        self.folder = Path(folder)
        self.name = f"citewise-reading:{self.folder.name}" if self.folder != PACKAGED else "citewise-reading"
        self._base = base
        self._bert: Any = None
        self._heads: dict[str, np.ndarray] = {}
        self._cache: OrderedDict[tuple[str, str], Read] = OrderedDict()
        self._size = cache
        self._lock = threading.Lock()
        try:
            self.config = json.loads((self.folder / "reading.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ReadingModelError(f"Cannot read the reading model in {str(self.folder)!r}: {exc}") from exc
        self.threshold = float(self.config.get("threshold", 0.5))
        self.max_tokens = int(self.config.get("max_tokens", 128))

    def load(self) -> Any:
        """The encoder and heads, loaded once (lazily: the first `read`)."""
        with self._lock:
            if self._bert is None:
                self._bert = self._load()
            return self._bert

    def _load(self) -> Any:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        from .bert_numpy import NumpyBert
        from .embed import default_model_path

        base = Path(self._base or default_model_path())
        try:
            weights = load_file(str(base / "model.safetensors"))
            ours = load_file(str(self.folder / "model.safetensors"))
            config = json.loads((base / "config.json").read_text(encoding="utf-8"))
            tokenizer = Tokenizer.from_file(str(base / "tokenizer.json"))
        except (OSError, ValueError) as exc:
            raise ReadingModelError(f"Cannot load the reading model in {str(self.folder)!r} on base {str(base)!r}: "
                                    f"{exc}") from exc
        words = weights["embeddings.word_embeddings.weight"].astype(np.float16)
        check = hashlib.sha256(words.tobytes()).hexdigest()[:16]
        if self.config.get("base_check") and check != self.config["base_check"]:
            raise ReadingModelError(f"The reading model in {str(self.folder)!r} was trained on other word embeddings "
                                    f"than {str(base)!r} holds (checksum {check}, expected {self.config['base_check']}).")
        weights = {k: v for k, v in weights.items() if not k.startswith("pooler.") and not k.endswith("position_ids")}
        weights["embeddings.word_embeddings.weight"] = words.astype(np.float32)
        for k, v in ours.items():
            if k.startswith("bert."):
                weights[k.removeprefix("bert.")] = v.astype(np.float32)
            else:
                self._heads[k] = v.astype(np.float32)
        tokenizer.enable_truncation(max_length=self.max_tokens, strategy="longest_first")
        tokenizer.no_padding()
        log.info("loaded reading model %s", self.folder)
        return NumpyBert.of(weights, config, self.max_tokens, tokenizer)

    def read(self, pairs: Sequence[tuple[str, str]], batch_size: int = 16) -> list[Read]:
        """`Read` of each (question, passage) pair; pairs read before come from a cache."""
        out: list[Read | None] = []
        todo: list[int] = []
        with self._lock:
            for i, pair in enumerate(pairs):
                got = self._cache.get(pair)
                out.append(got)
                if got is None:
                    todo.append(i)
        if todo:
            bert = self.load()
            encs = bert.tokenizer.encode_batch([pairs[i] for i in dict.fromkeys(todo)])
            order = sorted(range(len(encs)), key=lambda j: len(encs[j].ids))
            fresh: dict[int, Read] = {}
            for s in range(0, len(order), batch_size):
                part = order[s:s + batch_size]
                for j, r in zip(part, self._forward(bert, [encs[j] for j in part]), strict=True):
                    fresh[todo[j]] = r
            with self._lock:
                for i, r in fresh.items():
                    out[i] = r
                    self._cache[pairs[i]] = r
                while len(self._cache) > self._size:
                    self._cache.popitem(last=False)
        return [r if r is not None else Read(0.0) for r in out]

    def _forward(self, bert: Any, encs: Sequence[Any]) -> list[Read]:
        n = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), n), np.int64)
        types = np.zeros((len(encs), n), np.int64)
        mask = np.zeros((len(encs), n), np.float32)
        for j, e in enumerate(encs):
            ids[j, :len(e.ids)] = e.ids
            types[j, :len(e.ids)] = e.type_ids
            mask[j, :len(e.ids)] = 1.0
        h = _torch_hidden(bert, ids, types, mask) if "torch" in sys.modules else bert.hidden(ids, types, mask)
        hd = self._heads
        p = _sigmoid(h[:, 0] @ hd["answer.weight"][0] + hd["answer.bias"][0])
        se = h @ hd["span.weight"].T + hd["span.bias"]  # (batch, tokens, 2)
        out = []
        for j, e in enumerate(encs):
            allowed = np.array([s == 1 for s in e.sequence_ids], bool)
            a, b = best_span(se[j, :len(e.ids), 0], se[j, :len(e.ids), 1], allowed)
            span = (e.offsets[a][0], e.offsets[b][1]) if a >= 0 else (-1, -1)
            margin = float(se[j, a, 0] + se[j, b, 1] - se[j, 0, 0] - se[j, 0, 1]) if a >= 0 else float("-inf")
            out.append(Read(float(p[j]), span, margin))
        return out


def _torch_hidden(bert: Any, ids: np.ndarray, types: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """`NumpyBert.hidden` computed with torch (its weights shared, not copied): the same BERT layers."""
    import torch
    import torch.nn.functional as F

    w = {k: torch.from_numpy(v) for k, v in bert.weights.items()}
    b, n = ids.shape
    d = w["embeddings.word_embeddings.weight"].shape[1]
    hd = d // bert.heads
    with torch.inference_mode():
        t_ids, t_types = torch.from_numpy(ids), torch.from_numpy(types)
        h = (w["embeddings.word_embeddings.weight"][t_ids] + w["embeddings.position_embeddings.weight"][:n][None]
             + w["embeddings.token_type_embeddings.weight"][t_types])
        h = F.layer_norm(h, (d,), w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], bert.eps)
        keep = torch.from_numpy(mask > 0)[:, None, None, :]  # padded keys get no attention
        for layer in range(bert.layers):
            p = f"encoder.layer.{layer}."

            def dense(x: Any, name: str, p: str = p) -> Any:
                return torch.addmm(w[p + name + ".bias"], x.reshape(-1, x.shape[-1]), w[p + name + ".weight"]).reshape(
                    *x.shape[:-1], -1)  # weights stored transposed (`NumpyBert.of`)

            q, k, v = (dense(h, f"attention.self.{m}").reshape(b, n, bert.heads, hd).transpose(1, 2)
                       for m in ("query", "key", "value"))
            ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=keep).transpose(1, 2).reshape(b, n, d)
            h = F.layer_norm(h + dense(ctx, "attention.output.dense"), (d,), w[p + "attention.output.LayerNorm.weight"],
                             w[p + "attention.output.LayerNorm.bias"], bert.eps)
            h = F.layer_norm(h + dense(F.gelu(dense(h, "intermediate.dense")), "output.dense"), (d,),
                             w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], bert.eps)
        return h.numpy()


class CrossEncoderReader:
    """A user's local sentence-transformers cross-encoder folder as a reading model: `p` is the
    sigmoid of its score (a model trained with a sigmoid head gives its own probability), no span."""

    def __init__(self, path: str, threshold: float = 0.5, batch_size: int = 16) -> None:
        from .rerank import CrossEncoderReranker

        self._ce = CrossEncoderReranker(path, batch_size=batch_size)
        self.name = f"cross-encoder:{path}"
        self.threshold = threshold

    def read(self, pairs: Sequence[tuple[str, str]]) -> list[Read]:
        if not pairs:
            return []
        try:
            scores = self._ce.model().predict(list(pairs), batch_size=self._ce.batch_size, show_progress_bar=False,
                                              activation_fn=None)
        except TypeError:  # an older sentence-transformers: no activation_fn argument
            scores = self._ce.model().predict(list(pairs), batch_size=self._ce.batch_size, show_progress_bar=False)
        s = np.asarray(scores, np.float32).reshape(len(pairs), -1)[:, -1]
        p = s if ((s >= 0) & (s <= 1)).all() else _sigmoid(s)
        return [Read(float(v)) for v in p]


def reading_model(spec: str | None = "packaged") -> ReadingModel | None:
    """The reading model `spec` names: "packaged" (default), "none", or a local folder (one written by
    `python -m training.train`, or a sentence-transformers cross-encoder)."""
    if spec is None or spec == "packaged":
        return PackagedReader()
    if spec.lower() in ("none", "off"):
        return None
    path = os.path.expanduser(spec)
    if not os.path.isdir(path):
        raise ReadingModelError(f"No reading model at {spec!r}: give 'packaged', 'none' or a local folder.")
    if os.path.isfile(os.path.join(path, "reading.json")):
        return PackagedReader(path)
    return CrossEncoderReader(path)
