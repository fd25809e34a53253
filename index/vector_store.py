"""The `VectorStore` seam: where chunk vectors live and are searched by cosine similarity.

SQLite is the source of truth: every chunk row holds its normalised vector. A vector store is an
index derived from those rows, kept in step with them by the `Store`'s writer, and rebuilt or
repaired from them when it is lost or out of step. Chunk ids (the SQLite `chunks.id`, 60 bits
of the content hash) are the join key; document ids (`documents.doc_id`) are the filter key.

Two implementations, chosen per index when it is created and recorded in its manifest:

- `faiss` (default, `index.faiss_store`): embedded, one file per generation, switched
  atomically with the SQLite commit;
- `milvus` (`index.milvus_store`): a Milvus collection, embedded by milvus-lite for a local path
  or a Milvus server/cluster for an `http(s)://` URI, repaired after a crash (`repair`).

A write is a `VectorBatch`: `add`/`remove` while the SQLite transaction is open, `prepare` right
before it commits, `finish` right after, `abort` when it rolls back.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from .errors import VectorStoreError

STORES = ("faiss", "milvus")

# doc ids -> (chunk ids, their stored vectors): how a store without filters searches some documents
Members = Callable[[Sequence[int]], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class VectorConfig:
    """Which vector store an index uses; recorded in the manifest (never the token)."""

    store: str = "faiss"
    uri: str | None = None  # milvus: a local file path (milvus-lite) or http(s)://host:19530
    collection: str | None = None  # milvus: the collection name
    db_name: str | None = None  # milvus: the database (server only)

    def __post_init__(self) -> None:
        if self.store not in STORES:
            raise ValueError(f"unknown vector store {self.store!r}; choose one of: {', '.join(STORES)}")

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass(frozen=True)
class VectorCheck:
    """How a vector store differs from the chunk rows: what `repair` fixes."""

    orphans: int = 0  # vectors whose chunk is gone
    missing: int = 0  # chunks without a vector
    misfiled: int = 0  # vectors filed under another document than their chunk

    @property
    def ok(self) -> bool:
        return not (self.orphans or self.missing or self.misfiled)


class VectorBatch(Protocol):
    """The vector side of one write transaction."""

    def add(self, ids: np.ndarray, vectors: np.ndarray, doc_ids: np.ndarray) -> None: ...

    def remove(self, ids: np.ndarray) -> None: ...

    def prepare(self, db: sqlite3.Connection, generation: int) -> None:
        """Make the new state durable, still invisible; called inside the open SQLite transaction."""

    def finish(self) -> None:
        """The SQLite transaction committed."""

    def abort(self) -> None:
        """The SQLite transaction rolled back."""


class VectorStore(Protocol):
    name: str

    def load(self, db: sqlite3.Connection) -> None:
        """Catch up with the committed state (called in a read snapshot when the generation changed)."""

    def count(self) -> int: ...

    def search(self, query: np.ndarray, k: int, doc_ids: Sequence[int] | None = None) -> list[tuple[int, float]]:
        """(chunk id, cosine) of the `k` nearest vectors; only those of `doc_ids` when given."""

    def begin(self) -> VectorBatch: ...

    def check(self, db: sqlite3.Connection) -> VectorCheck:
        """Compare with the chunk rows of `db` (a full scan)."""

    def needs_repair(self) -> bool:
        """Whether a write may have been cut short (cheap: no scan)."""

    def repair(self, db: sqlite3.Connection) -> VectorCheck:
        """Bring the vectors in line with the chunk rows of `db`; returns what was wrong."""

    def describe(self) -> dict[str, Any]:
        """What `citewise stats` shows about the vectors."""

    def close(self) -> None: ...


def fsync_dir(path: Path) -> None:
    """Make a rename or a new file in `path` durable (best effort where directories cannot be opened)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def open_vector_store(config: VectorConfig, path: Path, dim: int, members: Members,
                      token: str | None = None) -> VectorStore:
    """The vector store of the index at `path`; `token` (or CITEWISE_MILVUS_TOKEN) authenticates to Milvus."""
    if config.store == "milvus":
        from .milvus_store import MilvusVectors

        return MilvusVectors(config, path, dim, token if token is not None else os.environ.get("CITEWISE_MILVUS_TOKEN"))
    from .faiss_store import FaissVectors

    return FaissVectors(path, dim, members)


def stored_vectors(db: sqlite3.Connection, dim: int, where: str = "", params: Sequence[object] = (),
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(chunk ids, doc ids, vectors) of the chunk rows matching `where` (all when empty)."""
    n = db.execute(f"SELECT COUNT(*) FROM chunks {where}", params).fetchone()[0]
    ids = np.empty(n, dtype=np.int64)
    docs = np.empty(n, dtype=np.int64)
    vecs = np.empty((n, dim), dtype=np.float32)
    cur = db.execute(f"SELECT id, doc_id, vector FROM chunks {where}", params)
    pos = 0
    while rows := cur.fetchmany(4096):
        for i, d, blob in rows:
            if pos == n:
                break
            ids[pos], docs[pos] = i, d
            vecs[pos] = np.frombuffer(blob, dtype="<f4")
            pos += 1
    return ids[:pos], docs[:pos], vecs[:pos]


def resolve_config(config: VectorConfig, path: Path) -> VectorConfig:
    """`config` as recorded for the index at `path`: milvus-lite paths made absolute, a collection named."""
    if config.store != "milvus":
        return VectorConfig()
    from .milvus_store import default_collection, default_uri, is_server

    uri = config.uri or default_uri(path)
    if not is_server(uri):  # a file inside the index directory is recorded relative to it: the index can move
        full = Path(uri).expanduser().resolve()
        uri = str(full.relative_to(path.resolve())) if full.is_relative_to(path.resolve()) else str(full)
    return VectorConfig("milvus", uri, config.collection or default_collection(path), config.db_name)


def describe_config(config: VectorConfig) -> str:
    if config.store == "faiss":
        return "FAISS files inside the index directory"
    return f"the Milvus collection {config.collection!r} at {config.uri}"


def check_new_collection(config: VectorConfig, path: Path, dim: int, token: str | None) -> None:
    """A new index must not adopt a Milvus collection that already holds vectors (another index's)."""
    vs = open_vector_store(config, path, dim, lambda _: (np.zeros(0, np.int64), np.zeros((0, dim), np.float32)),
                           token)
    try:
        vs.load(sqlite3.connect(":memory:"))
        if vs.count():
            raise VectorStoreError(
                f"The Milvus collection {config.collection!r} at {config.uri} already holds {vs.count()} vectors "
                "of another index; choose another --milvus-collection (or drop that collection)."
            )
    finally:
        vs.close()
