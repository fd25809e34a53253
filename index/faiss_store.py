"""The default `VectorStore`: FAISS, embedded, one file per generation.

The FAISS index of generation <gen> is the file `vectors-<gen>.faiss`, written with
`faiss.write_index`. A write copies the loaded index, applies the batch, writes the new file
aside (fsync, `os.replace`) and points `meta.faiss_file` at it inside the SQLite transaction, so
the commit is the atomic switch and a crash leaves the previous generation loadable. A missing
or unreadable file is rebuilt from the vectors stored in SQLite. The index is exact or IVF by
size (`index.vectors`); its kind is recorded in `meta.faiss_kind`. Searches restricted to some
documents scan those documents' stored vectors exactly (`members`), which is faster than a
FAISS id selector for the few documents such a search is about.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import faiss
import numpy as np

from . import meta, vectors
from .vector_store import Members, VectorCheck, fsync_dir, stored_vectors

log = logging.getLogger(__name__)


def index_from_db(db: sqlite3.Connection, dim: int, kind: str | None) -> faiss.Index:
    """A FAISS index of `kind` (by size when None) from the vectors stored in SQLite."""
    ids, _, vecs = stored_vectors(db, dim)
    return vectors.build(kind or vectors.kind_for(len(ids)), dim, ids, vecs)


class FaissVectors:
    name = "faiss"

    def __init__(self, path: Path, dim: int, members: Members) -> None:
        self.path = path
        self.dim = dim
        self._members = members
        self.index: faiss.Index = vectors.new_exact(dim)

    def load(self, db: sqlite3.Connection) -> None:
        name = meta.get(db, "faiss_file")
        index = None
        if name and (self.path / name).exists():
            try:
                index = vectors.tune(faiss.read_index(str(self.path / name)))
            except RuntimeError as exc:
                log.warning("%s unreadable (%s): rebuilding it from stored vectors", name, exc)
        self.index = index if index is not None else index_from_db(db, self.dim, meta.get(db, "faiss_kind"))

    def count(self) -> int:
        return int(self.index.ntotal)

    def search(self, query: np.ndarray, k: int, doc_ids: Sequence[int] | None = None) -> list[tuple[int, float]]:
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        if k <= 0:
            return []
        if doc_ids is not None:
            ids, vecs = self._members(doc_ids)
            if not len(ids):
                return []
            scores = vecs @ q
            order = np.argsort(-scores, kind="stable")[:k]
            return [(int(ids[i]), float(scores[i])) for i in order]
        index = self.index
        if index.ntotal == 0:
            return []
        scores, found = vectors.search_one(index, q, min(k, index.ntotal))
        return [(int(i), float(s)) for i, s in zip(found[0], scores[0], strict=True) if i >= 0]

    def begin(self) -> FaissBatch:
        return FaissBatch(self)

    def _ids(self) -> np.ndarray:
        return faiss.vector_to_array(self.index.id_map) if hasattr(self.index, "id_map") else _ivf_ids(self.index)

    def check(self, db: sqlite3.Connection) -> VectorCheck:
        have = set(self._ids().tolist())
        want = {r[0] for r in db.execute("SELECT id FROM chunks")}
        return VectorCheck(orphans=len(have - want), missing=len(want - have))

    def needs_repair(self) -> bool:
        return False  # a generation is all or nothing; a lost file is rebuilt by `load`

    def repair(self, db: sqlite3.Connection) -> VectorCheck:
        found = self.check(db)
        if not found.ok:
            self.index = index_from_db(db, self.dim, None)
        return found

    def describe(self) -> dict[str, Any]:
        kind = vectors.kind_of(self.index)
        out: dict[str, Any] = {"vector_store": "faiss", "vector_index": kind,
                               "vector_index_description": vectors.KINDS[kind], "exact_max": vectors.EXACT_MAX}
        ivf = faiss.try_extract_index_ivf(self.index)
        if ivf is not None:
            out.update(nlist=int(ivf.nlist), nprobe=int(ivf.nprobe))
        return out

    def close(self) -> None:
        pass


def _ivf_ids(index: faiss.Index) -> np.ndarray:
    ivf = faiss.extract_index_ivf(index)
    invlists = ivf.invlists
    assert invlists is not None
    parts = [faiss.rev_swig_ptr(invlists.get_ids(i), invlists.list_size(i)).copy()
             for i in range(ivf.nlist) if invlists.list_size(i)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


class FaissBatch:
    """A copy of the loaded index, changed by the batch and written aside as the next generation."""

    def __init__(self, owner: FaissVectors) -> None:
        self.owner = owner
        self.index = faiss.clone_index(owner.index)
        self._tmp: Path | None = None
        self._written: Path | None = None

    def add(self, ids: np.ndarray, vectors: np.ndarray, doc_ids: np.ndarray) -> None:
        if len(ids):
            self.index.add_with_ids(np.ascontiguousarray(vectors, dtype=np.float32),
                                    np.ascontiguousarray(ids, dtype=np.int64))

    def remove(self, ids: np.ndarray) -> None:
        if len(ids):
            self.index.remove_ids(np.ascontiguousarray(ids, dtype=np.int64))  # type: ignore[arg-type]  # SWIG

    def prepare(self, db: sqlite3.Connection, generation: int) -> None:
        want = vectors.needs_rebuild(self.index, int(meta.get(db, "faiss_trained_on") or 0))
        if want is not None:
            log.info("rebuilding the vector index as %s (%d vectors)", want, self.index.ntotal)
            self.index = index_from_db(db, self.owner.dim, want)
            meta.put(db, "faiss_trained_on", self.index.ntotal)
        meta.put(db, "faiss_kind", vectors.kind_of(self.index))
        name = f"vectors-{generation}.faiss"
        path = self.owner.path / name
        self._tmp = path.with_name(name + ".tmp")
        faiss.write_index(self.index, str(self._tmp))
        with open(self._tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(self._tmp, path)
        self._tmp, self._written = None, path
        fsync_dir(self.owner.path)
        meta.put(db, "faiss_file", name)

    def finish(self) -> None:
        self.owner.index = vectors.tune(self.index)

    def abort(self) -> None:
        for f in (self._tmp, self._written):  # never the committed generation: its commit failed
            if f is not None:
                with contextlib.suppress(OSError):
                    f.unlink()


def collect_garbage(path: Path, current: str | None) -> None:
    """Delete FAISS files of generations other than `current` (under the writer lock)."""
    for f in path.glob("vectors-*.faiss*"):
        if f.name != current:
            with contextlib.suppress(OSError):
                f.unlink()
