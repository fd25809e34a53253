"""The on-disk index: a directory holding

    manifest.json        format version, embedder name and dimension (written once, atomically)
    chunks.sqlite        documents, chunks (with their vectors), the FTS5 lexical index and meta, in WAL mode
    vectors-<gen>.faiss  the FAISS index of generation <gen>, written with faiss.write_index
    .lock                held by the one writer

A write is one SQLite transaction. The new FAISS file is written aside (fsync, then os.replace)
before the transaction that points `meta.faiss_file` at it commits, so the commit is the atomic
switch: a crash at any moment leaves the previous generation loadable. Vectors are also kept in
SQLite, so a lost FAISS file is rebuilt without re-embedding. Readers reload when the generation
changes. The FTS5 rows of a chunk are written in the same transaction as the chunk. The FAISS
index is exact or IVF by size (`index.vectors`); its kind is recorded in `meta.faiss_kind`.
Nothing here unpickles anything. Left out: sharing one FAISS index between processes (each opens
its own copy) and compaction of the SQLite file after large removals (`VACUUM` by hand).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import faiss
import numpy as np
from filelock import FileLock, Timeout

from ingest import Chunk, Document

from . import lexical, vectors
from .errors import EmbedderMismatch, IndexCorrupt, IndexLocked, IndexNotFound
from .migrations import MIGRATIONS, migrate, schema_version

log = logging.getLogger(__name__)

FORMAT = "citewise-index"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
DATABASE = "chunks.sqlite"


@dataclass(frozen=True)
class Manifest:
    format: str
    format_version: int
    embedder: str
    dim: int
    created: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class DocRecord:
    doc: str
    title: str
    owner: str | None
    pages: int | None
    chunks: int
    sha256: str
    format: str
    size: int
    indexed_at: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class StoredChunk:
    id: int  # FAISS id
    chunk_id: str
    doc: str
    ord: int
    start: int
    end: int
    page: int | None
    section: str
    text: str
    context: str
    title: str
    owner: str | None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        del d["id"]
        return d


def faiss_id(chunk_id: str) -> int:
    """A stable positive int64 from the content-derived chunk id (60 bits of its hash)."""
    return int(chunk_id[:15], 16)


def _meta_of(db: sqlite3.Connection, key: str) -> str | None:
    try:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    except sqlite3.OperationalError:
        return None
    return row[0] if row else None


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def new_faiss_index(dim: int) -> faiss.Index:
    return vectors.new_exact(dim)


_CHUNK_SELECT = """
    SELECT c.id, c.chunk_id, d.path, c.ord, c.start, c.end, c.page, c.section, c.text, c.context, d.title, d.owner
    FROM chunks c JOIN documents d ON d.doc_id = c.doc_id
"""


class Store:
    """An open index directory. Reads are thread-safe; writes go through `writer()`."""

    def __init__(self, path: Path, manifest: Manifest) -> None:
        self.path = path
        self.manifest = manifest
        self._lock = threading.RLock()
        self._db = self._connect()
        self._generation = -1
        self._faiss: faiss.Index = new_faiss_index(manifest.dim)
        self._owners: tuple[int, dict[str, list[str]]] | None = None
        self.refresh()

    # -- opening ---------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | os.PathLike[str], embedder: str | None = None) -> Store:
        """Open an existing index; `embedder` (a model name) must match the one it was built with."""
        p = Path(path).expanduser()
        mpath = p / MANIFEST
        if not mpath.exists():
            raise IndexNotFound(str(p))
        try:
            manifest = Manifest(**json.loads(mpath.read_text()))
        except (ValueError, TypeError) as exc:
            raise IndexCorrupt(f"{mpath}: unreadable manifest ({exc})") from exc
        if manifest.format != FORMAT or manifest.format_version > FORMAT_VERSION:
            raise IndexCorrupt(f"{mpath}: format {manifest.format} v{manifest.format_version} is not supported")
        if embedder is not None and embedder != manifest.embedder:
            raise EmbedderMismatch(
                f"The index at {p} was built with the embedding model {manifest.embedder!r}, not {embedder!r}. "
                f"Use --model {manifest.embedder} or build a new index in another directory."
            )
        cls._upgrade(p)
        return cls(p, manifest)

    @staticmethod
    def _upgrade(p: Path) -> None:
        """Apply pending schema migrations and re-tokenise for a new lexical tokenizer, under the writer lock."""
        db = sqlite3.connect(p / DATABASE, isolation_level=None)
        try:
            current = schema_version(db) >= len(MIGRATIONS) and _meta_of(db, "lexical_version") == lexical.LEXICAL_VERSION
            if current:
                return
            try:
                lock = FileLock(str(p / ".lock"), timeout=30)
                lock.acquire()
            except Timeout:
                raise IndexLocked(f"The index at {p} needs an upgrade but another process is writing to it.") from None
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    migrate(db)
                    if _meta_of(db, "lexical_version") != lexical.LEXICAL_VERSION:
                        log.info("re-tokenising the lexical index of %s", p)
                        lexical.rebuild(db)
                    db.execute("COMMIT")
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
            finally:
                lock.release()
        finally:
            db.close()

    @classmethod
    def create(cls, path: str | os.PathLike[str], embedder: str, dim: int) -> Store:
        """Open the index at `path`, creating an empty one if the directory holds none."""
        p = Path(path).expanduser()
        if (p / MANIFEST).exists():
            return cls.open(p, embedder)
        p.mkdir(parents=True, exist_ok=True)
        with FileLock(str(p / ".lock"), timeout=0):
            if not (p / MANIFEST).exists():
                db = sqlite3.connect(p / DATABASE, isolation_level=None)
                try:
                    db.execute("PRAGMA journal_mode=WAL")
                    db.execute("BEGIN IMMEDIATE")
                    migrate(db)
                    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('generation', '0')")
                    db.execute("COMMIT")
                finally:
                    db.close()
                manifest = Manifest(FORMAT, FORMAT_VERSION, embedder, dim, datetime.now(UTC).isoformat())
                # The manifest last: a directory without it is not an index yet.
                _write_atomic(p / MANIFEST, json.dumps(manifest.to_dict(), indent=2).encode())
        return cls.open(p, embedder)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path / DATABASE, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA busy_timeout=10000")
        if schema_version(db) < 1:
            raise IndexCorrupt(f"{self.path / DATABASE}: no citewise schema")
        return db

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- generations -----------------------------------------------------------------------
    def _meta(self, key: str) -> str | None:
        return _meta_of(self._db, key)

    def refresh(self) -> None:
        """Load the FAISS index of the current generation if another process committed a newer one."""
        with self._lock:
            if int(self._meta("generation") or 0) == self._generation:
                return
            self._db.execute("BEGIN")  # one snapshot: the generation, its file name and its vectors agree
            try:
                gen = int(self._meta("generation") or 0)
                name = self._meta("faiss_file")
                index = None
                if name and (self.path / name).exists():
                    try:
                        index = vectors.tune(faiss.read_index(str(self.path / name)))
                    except RuntimeError as exc:
                        log.warning("%s unreadable (%s): rebuilding it from stored vectors", name, exc)
                if index is None:
                    index = _index_from_db(self._db, self.manifest.dim, self._meta("faiss_kind"))
            finally:
                self._db.execute("COMMIT")
            self._faiss, self._generation = index, gen

    def _rebuild_faiss(self) -> faiss.Index:
        return _index_from_db(self._db, self.manifest.dim, None)

    @property
    def generation(self) -> int:
        return self._generation

    @property
    def vector_count(self) -> int:
        return int(self._faiss.ntotal)

    @property
    def vector_index_kind(self) -> str:
        """"exact" or "ivf": the FAISS index this generation searches."""
        self.refresh()
        return vectors.kind_of(self._faiss)

    def stats(self) -> dict[str, Any]:
        """Counts and the kinds of the index's parts (for `citewise stats`)."""
        self.refresh()
        with self._lock:
            docs, chunks = self._db.execute("SELECT (SELECT COUNT(*) FROM documents), (SELECT COUNT(*) FROM chunks)").fetchone()
            schema = schema_version(self._db)
        kind = vectors.kind_of(self._faiss)
        out: dict[str, Any] = {
            "index": str(self.path), "documents": docs, "chunks": chunks, "vectors": self.vector_count,
            "embedder": self.manifest.embedder, "dim": self.manifest.dim, "vector_index": kind,
            "vector_index_description": vectors.KINDS[kind], "exact_max": vectors.EXACT_MAX,
            "generation": self._generation, "schema_version": schema, "lexical_tokenizer": lexical.LEXICAL_VERSION,
        }
        ivf = faiss.try_extract_index_ivf(self._faiss)
        if ivf is not None:
            out.update(nlist=int(ivf.nlist), nprobe=int(ivf.nprobe))
        return out

    # -- reading ---------------------------------------------------------------------------
    def documents(self) -> list[DocRecord]:
        with self._lock:
            rows = self._db.execute(
                "SELECT path, title, owner, pages, n_chunks, sha256, format, size, indexed_at FROM documents ORDER BY path"
            ).fetchall()
        return [DocRecord(*r) for r in rows]

    def document(self, path: str) -> DocRecord | None:
        with self._lock:
            row = self._db.execute(
                "SELECT path, title, owner, pages, n_chunks, sha256, format, size, indexed_at FROM documents WHERE path = ?",
                (path,),
            ).fetchone()
        return DocRecord(*row) if row else None

    def owner_docs(self) -> dict[str, list[str]]:
        """Owner name -> paths of the documents they own (cached per generation)."""
        self.refresh()
        with self._lock:
            if self._owners is None or self._owners[0] != self._generation:
                owners: dict[str, list[str]] = {}
                for owner, path in self._db.execute(
                    "SELECT owner, path FROM documents WHERE owner IS NOT NULL AND owner != '' ORDER BY path"
                ):
                    owners.setdefault(owner, []).append(path)
                self._owners = (self._generation, owners)
            return self._owners[1]

    def document_text(self, path: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT text FROM documents WHERE path = ?", (path,)).fetchone()
        return row[0] if row else None

    def chunk(self, chunk_id: str) -> StoredChunk | None:
        with self._lock:
            row = self._db.execute(_CHUNK_SELECT + " WHERE c.chunk_id = ?", (chunk_id,)).fetchone()
        return StoredChunk(*row) if row else None

    def chunks_by_ids(self, ids: Iterable[int]) -> dict[int, StoredChunk]:
        ids = list(ids)
        if not ids:
            return {}
        out: dict[int, StoredChunk] = {}
        with self._lock:
            for i in range(0, len(ids), 500):
                part = ids[i : i + 500]
                q = _CHUNK_SELECT + f" WHERE c.id IN ({','.join('?' * len(part))})"
                for row in self._db.execute(q, part):
                    out[row[0]] = StoredChunk(*row)
        return out

    def vectors(self, ids: Sequence[int]) -> np.ndarray:
        """The stored (normalised) vectors of chunks `ids`, in that order; unknown ids are skipped."""
        if not ids:
            return np.zeros((0, self.manifest.dim), dtype=np.float32)
        with self._lock:
            rows = dict(self._db.execute(
                f"SELECT id, vector FROM chunks WHERE id IN ({','.join('?' * len(ids))})", [int(i) for i in ids]
            ).fetchall())
        found = [np.frombuffer(rows[i], dtype="<f4") for i in ids if i in rows]
        return np.vstack(found) if found else np.zeros((0, self.manifest.dim), dtype=np.float32)

    def chunks_of(self, path: str) -> list[StoredChunk]:
        with self._lock:
            rows = self._db.execute(_CHUNK_SELECT + " WHERE d.path = ? ORDER BY c.ord", (path,)).fetchall()
        return [StoredChunk(*r) for r in rows]

    def dense_search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(faiss id, cosine) of the `k` nearest chunks."""
        self.refresh()
        index = self._faiss
        if index.ntotal == 0 or k <= 0:
            return []
        scores, ids = index.search(np.asarray(query, dtype=np.float32).reshape(1, -1), min(k, index.ntotal))
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]

    def doc_ids(self, docs: Iterable[str]) -> list[int]:
        """The internal ids of the documents at `docs` (paths); unknown paths are ignored."""
        paths = list(docs)
        out: list[int] = []
        with self._lock:
            for i in range(0, len(paths), 500):
                part = paths[i : i + 500]
                q = f"SELECT doc_id FROM documents WHERE path IN ({','.join('?' * len(part))})"
                out.extend(r[0] for r in self._db.execute(q, part))
        return out

    def lexical_search(self, query: str, k: int, docs: Iterable[str] | None = None,
                       context_weight: float = 0.5) -> list[tuple[int, float]]:
        """(faiss id, BM25 score) of the `k` best chunks by FTS5; only in `docs` (paths) when given."""
        doc_ids = None if docs is None else self.doc_ids(docs)
        with self._lock:
            return lexical.search(self._db, query, k, context_weight=context_weight, doc_ids=doc_ids)

    def dense_search_in(self, query: np.ndarray, docs: Iterable[str], k: int) -> list[tuple[int, float]]:
        """Exact cosine search restricted to the chunks of `docs` (paths), from the stored vectors."""
        paths = list(docs)
        if not paths or k <= 0:
            return []
        with self._lock:
            rows = self._db.execute(
                "SELECT c.id, c.vector FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
                f" WHERE d.path IN ({','.join('?' * len(paths))})",
                paths,
            ).fetchall()
        if not rows:
            return []
        vecs = np.vstack([np.frombuffer(r[1], dtype="<f4") for r in rows])
        scores = vecs @ np.asarray(query, dtype=np.float32)
        order = np.argsort(-scores)[:k]
        return [(int(rows[i][0]), float(scores[i])) for i in order]

    # -- writing ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def writer(self, timeout: float = 0) -> Iterator[Writer]:
        """The one writer: a file lock, one SQLite transaction and a FAISS copy, switched atomically."""
        lock = FileLock(str(self.path / ".lock"), timeout=timeout)
        try:
            lock.acquire()
        except Timeout:
            raise IndexLocked(
                f"Another citewise process is writing to the index at {self.path}; try again when it finishes."
            ) from None
        try:
            self.refresh()
            db = self._connect()
            try:
                db.execute("BEGIN IMMEDIATE")
                w = Writer(self, db, faiss.clone_index(self._faiss))
                try:
                    yield w
                    w._commit()
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
            finally:
                db.close()
            self.refresh()
            self._collect_garbage()
        finally:
            lock.release()

    def _collect_garbage(self) -> None:
        current = self._meta("faiss_file")
        for f in self.path.glob("vectors-*.faiss*"):
            if f.name != current:
                with contextlib.suppress(OSError):
                    f.unlink()


class Writer:
    """Changes of one write transaction; visible to readers only when the transaction commits."""

    def __init__(self, store: Store, db: sqlite3.Connection, index: faiss.Index) -> None:
        self.store = store
        self.db = db
        self.index = index
        self.changed = False

    def remove_document(self, path: str) -> int:
        """Remove a document and its chunks; returns the number of chunks removed."""
        ids = [r[0] for r in self.db.execute(
            "SELECT c.id FROM chunks c JOIN documents d ON d.doc_id = c.doc_id WHERE d.path = ?", (path,)
        )]
        lexical.delete_rows(self.db, ids)
        self.db.execute("DELETE FROM chunks WHERE doc_id = (SELECT doc_id FROM documents WHERE path = ?)", (path,))
        cur = self.db.execute("DELETE FROM documents WHERE path = ?", (path,))
        if ids:
            self.index.remove_ids(np.array(ids, dtype=np.int64))  # type: ignore[arg-type]  # SWIG takes arrays
        self.changed = self.changed or cur.rowcount > 0
        return len(ids)

    def move_document(self, old: str, new: str) -> None:
        """A renamed or moved file: same content, same chunks and vectors, new path."""
        self.db.execute("UPDATE documents SET path = ? WHERE path = ?", (new, old))
        self.changed = True

    def add_document(self, doc: Document, chunks: Sequence[Chunk], vectors: np.ndarray, size: int) -> None:
        """Add (or replace) `doc` with its chunks and their vectors (one row per chunk, normalised)."""
        if len(chunks) != len(vectors):
            raise ValueError(f"{doc.path}: {len(chunks)} chunks but {len(vectors)} vectors")
        self.remove_document(doc.path)
        cur = self.db.execute(
            "INSERT INTO documents(path, sha256, format, title, owner, pages, n_chunks, size, indexed_at, text)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (doc.path, doc.sha256, doc.format, doc.title, doc.owner, len(doc.pages) or None, len(chunks), size,
             datetime.now(UTC).isoformat(timespec="seconds"), doc.text),
        )
        doc_id = cur.lastrowid
        vecs = np.ascontiguousarray(vectors, dtype="<f4")
        ids = np.array([faiss_id(c.chunk_id) for c in chunks], dtype=np.int64)
        self.db.executemany(
            "INSERT INTO chunks(id, chunk_id, doc_id, ord, start, end, page, section, text, context, vector)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (int(i), c.chunk_id, doc_id, c.ord, c.start, c.end, c.page, c.section, c.text, c.context, v.tobytes())
                for i, c, v in zip(ids, chunks, vecs, strict=True)
            ],
        )
        lexical.insert_rows(self.db, [(int(i), c.text, c.context) for i, c in zip(ids, chunks, strict=True)])
        if len(ids):
            self.index.add_with_ids(vecs, ids)
        self.changed = True

    def _commit(self) -> None:
        if not self.changed:
            self.db.execute("COMMIT")
            return
        gen = int(self.db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0]) + 1
        want = vectors.needs_rebuild(self.index, int(_meta_of(self.db, "faiss_trained_on") or 0))
        if want is not None:
            log.info("rebuilding the vector index as %s (%d vectors)", want, self.index.ntotal)
            self.index = _index_from_db(self.db, self.store.manifest.dim, want)
            self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('faiss_trained_on', ?)",
                            (str(self.index.ntotal),))
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('faiss_kind', ?)",
                        (vectors.kind_of(self.index),))
        name = f"vectors-{gen}.faiss"
        path = self.store.path / name
        tmp = path.with_name(name + ".tmp")
        faiss.write_index(self.index, str(tmp))
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
        _fsync_dir(self.store.path)
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('faiss_file', ?)", (name,))
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('generation', ?)", (str(gen),))
        self.db.execute("COMMIT")  # the switch: readers see the new generation from here on


def _index_from_db(db: sqlite3.Connection, dim: int, kind: str | None) -> faiss.Index:
    """A FAISS index of `kind` (by size when None) from the vectors stored in SQLite."""
    n = db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    ids = np.empty(n, dtype=np.int64)
    vecs = np.empty((n, dim), dtype=np.float32)
    cur = db.execute("SELECT id, vector FROM chunks")
    pos = 0
    while rows := cur.fetchmany(4096):
        for i, blob in rows:
            ids[pos] = i
            vecs[pos] = np.frombuffer(blob, dtype="<f4")
            pos += 1
    return vectors.build(kind or vectors.kind_for(n), dim, ids[:pos], vecs[:pos])
