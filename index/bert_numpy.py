"""A BERT sentence encoder in numpy: the packaged MiniLM's vectors without importing torch.

`import sentence_transformers` (torch and transformers) takes 5-6 s on this machine, more than a
one-shot `citewise ask` spends on everything else. A BERT encoder's forward pass is a few matrix
products, so a sentence-transformers folder that is exactly Transformer(BERT) -> mean pooling ->
Normalize is run here with numpy, the `tokenizers` library (the folder's own `tokenizer.json`) and
`safetensors` (a format that stores arrays, never code). `NumpyBert.load(folder)` returns None for
any other folder (another architecture, pooling or head), and the caller uses sentence-transformers.

The vectors equal sentence-transformers' to float32 rounding (tests/test_bert_numpy.py compares them
on real text); GELU is the erf form BERT's config asks for, with erf computed to 1.5e-7.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

_MODULES = ["sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling",
            "sentence_transformers.models.Normalize"]


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def supported(folder: Path) -> bool:
    """Is `folder` a sentence-transformers BERT with mean pooling and normalisation, in safetensors?"""
    try:
        listed = _read(folder / "modules.json")
        modules = [m.get("type", "") for m in listed]
        config = _read(folder / "config.json")
        pooling_dir = next(m["path"] for m in listed if m["type"].endswith("Pooling"))
        pooling = _read(folder / pooling_dir / "config.json")
    except (OSError, ValueError, KeyError, StopIteration, TypeError, AttributeError):
        return False
    modes = {k for k, v in pooling.items() if k.startswith("pooling_mode") and v}
    return (modules == _MODULES and config.get("model_type") == "bert" and config.get("hidden_act") == "gelu"
            and config.get("position_embedding_type", "absolute") == "absolute"
            and modes == {"pooling_mode_mean_tokens"} and (folder / "model.safetensors").is_file()
            and (folder / "tokenizer.json").is_file())


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to within 1.5e-7 (Abramowitz & Stegun 7.1.26), in float32: below float32's own rounding of
    the activations. With scipy's erf, GELU took 1.5 s of a 4.9 s pass over 512 lines; this one 1.0 s,
    and scipy is not imported."""
    a = np.abs(x)
    t = a * np.float32(0.3275911)  # in place from here on: these arrays are the largest of the pass
    t += 1.0
    np.reciprocal(t, out=t)
    poly = t * np.float32(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += c
        poly *= t
    a *= a
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    np.subtract(1.0, poly, out=poly)
    return np.copysign(poly, x, out=poly)


def _gelu(x: np.ndarray) -> np.ndarray:
    e = _erf(x * np.float32(1.0 / math.sqrt(2.0)))
    e += 1.0
    e *= x
    e *= 0.5
    return e


@dataclass(frozen=True)
class NumpyBert:
    weights: dict[str, np.ndarray]
    heads: int
    layers: int
    eps: float
    max_tokens: int
    tokenizer: Any  # tokenizers.Tokenizer

    @property
    def dim(self) -> int:
        return int(self.weights["embeddings.word_embeddings.weight"].shape[1])

    @classmethod
    def load(cls, folder: str | Path) -> NumpyBert | None:
        """The encoder in `folder`, or None when the folder is not one this module runs."""
        folder = Path(folder)
        if not supported(folder):
            return None
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = _read(folder / "config.json")
        st = _read(folder / "sentence_bert_config.json") if (folder / "sentence_bert_config.json").is_file() else {}
        max_tokens = int(min(st.get("max_seq_length") or 512, config.get("max_position_embeddings", 512)))
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=max_tokens)
        tokenizer.no_padding()
        return cls.of(load_file(str(folder / "model.safetensors")), config, max_tokens, tokenizer)

    @classmethod
    def of(cls, weights: dict[str, np.ndarray], config: dict[str, Any], max_tokens: int, tokenizer: Any) -> NumpyBert:
        """An encoder from BERT weights as safetensors names them ("bert." prefixes dropped) and its config."""
        weights = {k.removeprefix("bert."): v.astype(np.float32, copy=False) for k, v in weights.items()}
        for k in [k for k in weights if k.startswith("encoder.") and k.endswith(".weight") and weights[k].ndim == 2]:
            weights[k] = np.ascontiguousarray(weights[k].T)  # dense layers: x @ W, one GEMM each
        return cls(weights, int(config["num_attention_heads"]), int(config["num_hidden_layers"]),
                   float(config.get("layer_norm_eps", 1e-12)), max_tokens, tokenizer)

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """L2-normalised mean-pooled vectors of `texts`, float32, in input order. Batches are formed from
        texts of similar length, so little padding is computed."""
        out = np.zeros((len(texts), self.dim), np.float32)
        if not texts:
            return out
        encs = self.tokenizer.encode_batch(list(texts))
        order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))
        for s in range(0, len(order), batch_size):
            idx = order[s:s + batch_size]
            n = max(len(encs[i].ids) for i in idx)
            ids = np.zeros((len(idx), n), np.int64)
            types = np.zeros((len(idx), n), np.int64)
            mask = np.zeros((len(idx), n), np.float32)
            for j, i in enumerate(idx):
                e = encs[i]
                ids[j, :len(e.ids)] = e.ids
                types[j, :len(e.ids)] = e.type_ids
                mask[j, :len(e.ids)] = 1.0
            out[idx] = self._forward(ids, types, mask)
        return out

    def _forward(self, ids: np.ndarray, types: np.ndarray, mask: np.ndarray) -> np.ndarray:
        h = self.hidden(ids, types, mask)
        pooled = (h * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)

    def hidden(self, ids: np.ndarray, types: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The last layer's states, (batch, tokens, dim), for token `ids` with their `types` and `mask`."""
        w = self.weights
        b, n = ids.shape
        h = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n][None]
             + w["embeddings.token_type_embeddings.weight"][types])
        h = _layer_norm(h, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        d = h.shape[-1]
        hd = d // self.heads
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]  # padded keys get no attention
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."

            def dense(x: np.ndarray, name: str, p: str = p) -> np.ndarray:
                weight = w[p + name + ".weight"]  # stored transposed (`load`)
                return (x.reshape(-1, x.shape[-1]) @ weight + w[p + name + ".bias"]).reshape(*x.shape[:-1], -1)

            def split(x: np.ndarray) -> np.ndarray:
                return x.reshape(b, n, self.heads, hd).transpose(0, 2, 1, 3)

            q = split(dense(h, "attention.self.query"))
            k = split(dense(h, "attention.self.key"))
            v = split(dense(h, "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(hd) + bias
            scores -= scores.max(-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(-1, keepdims=True)
            ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(b, n, d)
            h = _layer_norm(h + dense(ctx, "attention.output.dense"), w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"], self.eps)
            inner = _gelu(dense(h, "intermediate.dense"))
            h = _layer_norm(h + dense(inner, "output.dense"), w[p + "output.LayerNorm.weight"],
                            w[p + "output.LayerNorm.bias"], self.eps)
        return h
