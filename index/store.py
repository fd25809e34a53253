"""The on-disk index: a directory holding

    manifest.json        format version, embedder name and dimension, vector store (written once, atomically)
    chunks.sqlite        documents, chunks (with their vectors), the FTS5 lexical index, the collection
                         statistics (`index.lemmas`, `index.doc_terms`) and meta, in WAL mode
    vectors-<gen>.faiss  with the default FAISS vector store: the FAISS index of generation <gen>
    .lock                held by the one writer

A write is one SQLite transaction; `meta.generation` counts them. The vectors live in a
`VectorStore` (`index.vector_store`): FAISS files switched atomically with the commit (the
default, `index.faiss_store`) or a Milvus collection kept in step and repaired after a crash
(`index.milvus_store`). Either way a crash at any moment leaves the previous state loadable.
Vectors are also kept in SQLite, the source of truth, so a lost vector index is rebuilt without
re-embedding. Readers reload when the generation changes. The FTS5 rows of a chunk are written in
the same transaction as the chunk. Nothing here unpickles anything. Left out: compaction of the
SQLite file after large removals (`VACUUM` by hand).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from filelock import FileLock, Timeout

from . import doc_terms, lemmas, lexical, meta, owners, postings
from .errors import EmbedderMismatch, IndexCorrupt, IndexLocked, IndexNotFound, VectorStoreError
from .faiss_store import collect_garbage
from .manifest import DATABASE, FORMAT, FORMAT_VERSION, MANIFEST, Manifest, _write_atomic
from .migrations import migrate, schema_version
from .sql import select_in
from .upgrade import upgrade
from .vector_store import (
    VectorCheck,
    VectorConfig,
    VectorStore,
    check_new_collection,
    describe_config,
    open_vector_store,
    resolve_config,
)
from .writer import Writer


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
    mtime_ns: int | None = None  # the file's mtime when last hashed; None: hash it on the next run
    # The evidence for `owner`: "+"-joined sources ("title+email+filename", see ingest.owner), "user"
    # when a user set it (`Store.set_owner`), None when there is no owner or the row predates it.
    owner_source: str | None = None
    # How the file was read (`index.build.reading`); None in rows from before it was recorded.
    read_with: str | None = None

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


_CHUNK_SELECT = f"""
    SELECT c.id, c.chunk_id, d.path, c.ord, c.start, c.end, c.page, c.section, c.text, c.context, d.title,
           {owners.EFFECTIVE_OWNER}
    FROM chunks c JOIN documents d ON d.doc_id = c.doc_id {owners.JOIN_OVERRIDE}
"""
_DOC_SELECT = f"""
    SELECT d.path, d.title, {owners.EFFECTIVE_OWNER}, d.pages, d.n_chunks, d.sha256, d.format, d.size, d.indexed_at,
           d.mtime_ns, CASE WHEN ({owners.EFFECTIVE_OWNER}) IS NULL THEN NULL ELSE {owners.EFFECTIVE_SOURCE} END,
           d.read_with
    FROM documents d {owners.JOIN_OVERRIDE}
"""


class Store:
    """An open index directory. Reads are thread-safe; writes go through `writer()`."""

    def __init__(self, path: Path, manifest: Manifest, milvus_token: str | None = None) -> None:
        self.path = path
        self.manifest = manifest
        self._lock = threading.RLock()
        self._db = self._connect()
        self._generation = -1
        self._postings = postings.Cache()  # the lexical search's, see index.postings
        self._vectors: VectorStore = open_vector_store(manifest.vector_config, path, manifest.dim,
                                                       self._members, milvus_token)
        self._owners: tuple[int, dict[str, list[str]]] | None = None
        self._aliases: tuple[int, dict[str, tuple[str, ...]]] | None = None
        self.refresh()

    # -- opening ---------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | os.PathLike[str], embedder: str | None = None, *,
             vectors: VectorConfig | None = None, milvus_token: str | None = None) -> Store:
        """Open an existing index; `embedder` (a model name) and `vectors` must match what it was built with.

        `milvus_token` (default: $CITEWISE_MILVUS_TOKEN) authenticates to a Milvus server.
        """
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
        if vectors is not None and resolve_config(vectors, p) != manifest.vector_config:
            raise VectorStoreError(
                f"The index at {p} keeps its vectors in {describe_config(manifest.vector_config)}, not in "
                f"{describe_config(resolve_config(vectors, p))}. Drop the --store/--milvus-* options to use it "
                "as it is, or build a new index in another directory."
            )
        upgrade(p, p / DATABASE)
        return cls(p, manifest, milvus_token)

    @classmethod
    def create(cls, path: str | os.PathLike[str], embedder: str, dim: int, *,
               vectors: VectorConfig | None = None, milvus_token: str | None = None) -> Store:
        """Open the index at `path`, creating an empty one if the directory holds none.

        `vectors` picks the vector store of a new index (default FAISS); an existing index must match it.
        """
        p = Path(path).expanduser()
        if (p / MANIFEST).exists():
            return cls.open(p, embedder, vectors=vectors, milvus_token=milvus_token)
        p.mkdir(parents=True, exist_ok=True)
        config = resolve_config(vectors or VectorConfig(), p.resolve())
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
                manifest = Manifest(FORMAT, FORMAT_VERSION, embedder, dim, datetime.now(UTC).isoformat(),
                                    config.to_dict() if config.store != "faiss" else {})
                if config.store != "faiss":  # refuse a collection that holds someone else's vectors
                    check_new_collection(config, p, dim, milvus_token)
                # The manifest last: a directory without it is not an index yet.
                _write_atomic(p / MANIFEST, json.dumps(manifest.to_dict(), indent=2).encode())
        return cls.open(p, embedder, milvus_token=milvus_token)

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
            self._vectors.close()
            lexical_db = getattr(self, "_lexical", None)
        if lexical_db is not None:
            with lexical_db[1]:
                lexical_db[0].close()

    # -- generations -----------------------------------------------------------------------
    def _meta(self, key: str) -> str | None:
        return meta.get(self._db, key)

    def refresh(self) -> None:
        """Catch up with the vectors of the current generation if another process committed a newer one."""
        with self._lock:
            if int(self._meta("generation") or 0) == self._generation:
                return
            self._db.execute("BEGIN")  # one snapshot: the generation, its file name and its vectors agree
            try:
                gen = int(self._meta("generation") or 0)
                self._vectors.load(self._db)
            finally:
                self._db.execute("COMMIT")
            self._generation = gen

    def _members(self, doc_ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """(chunk ids, stored vectors) of the documents `doc_ids`: filtered search without a filtering index."""
        ids: list[int] = []
        blobs: list[bytes] = []
        with self._lock:
            for cid, blob in select_in(self._db, "SELECT id, vector FROM chunks WHERE doc_id", [int(d) for d in doc_ids]):
                ids.append(cid)
                blobs.append(blob)
        if not ids:
            return np.zeros(0, dtype=np.int64), np.zeros((0, self.manifest.dim), dtype=np.float32)
        return np.array(ids, dtype=np.int64), np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(ids), -1)

    @property
    def generation(self) -> int:
        return self._generation

    @property
    def vector_store(self) -> VectorStore:
        return self._vectors

    @property
    def vector_count(self) -> int:
        return self._vectors.count()

    @property
    def vector_index_kind(self) -> str:
        """How this generation searches its vectors: "exact" or "ivf" (FAISS), "flat" or "hnsw" (Milvus)."""
        self.refresh()
        return str(self._vectors.describe()["vector_index"])

    def check_vectors(self) -> VectorCheck:
        """Compare the vector store with the chunk rows (a full scan of both)."""
        self.refresh()
        with self._lock:
            self._db.execute("BEGIN")
            try:
                return self._vectors.check(self._db)
            finally:
                self._db.execute("COMMIT")

    def repair_vectors(self, force: bool = False) -> VectorCheck:
        """Bring the vector store in line with the chunk rows (when a write was cut short, or always with `force`)."""
        if not (force or self._vectors.needs_repair()):
            return VectorCheck()
        with self._write_lock():
            return self._repair()

    def _repair(self) -> VectorCheck:
        """`VectorStore.repair` in one read snapshot of the chunk rows; the caller holds the write lock."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                return self._vectors.repair(self._db)
            finally:
                self._db.execute("COMMIT")

    def stats(self) -> dict[str, Any]:
        """Counts and the kinds of the index's parts (for `citewise stats`)."""
        self.refresh()
        with self._lock:
            docs, chunks = self._db.execute("SELECT (SELECT COUNT(*) FROM documents), (SELECT COUNT(*) FROM chunks)").fetchone()
            schema = schema_version(self._db)
            terms = self._db.execute(f"SELECT COUNT(*) FROM {postings.TABLE}").fetchone()[0]
        out: dict[str, Any] = {
            "index": str(self.path), "documents": docs, "chunks": chunks, "vectors": self.vector_count,
            "embedder": self.manifest.embedder, "dim": self.manifest.dim,
        }
        out.update(self._vectors.describe())
        out.update(generation=self._generation, schema_version=schema, lexical_tokenizer=lexical.LEXICAL_VERSION,
                   lexical_terms=terms)
        return out

    # -- reading ---------------------------------------------------------------------------
    def documents(self) -> list[DocRecord]:
        """Every document, owners as users corrected them (`set_owner`) and with their evidence."""
        with self._lock:
            rows = self._db.execute(_DOC_SELECT + " ORDER BY d.path").fetchall()
        return [DocRecord(*r) for r in rows]

    def document(self, path: str) -> DocRecord | None:
        with self._lock:
            row = self._db.execute(_DOC_SELECT + " WHERE d.path = ?", (path,)).fetchone()
        return DocRecord(*row) if row else None

    def owner_docs(self) -> dict[str, list[str]]:
        """Owner name -> paths of the documents they own (cached per generation)."""
        self.refresh()
        with self._lock:
            if self._owners is None or self._owners[0] != self._generation:
                found: dict[str, list[str]] = {}
                for owner, path in self._db.execute(
                    f"SELECT eff, path FROM (SELECT {owners.EFFECTIVE_OWNER} AS eff, d.path AS path FROM documents d"
                    f" {owners.JOIN_OVERRIDE}) WHERE eff IS NOT NULL AND eff != '' ORDER BY path"
                ):
                    found.setdefault(owner, []).append(path)
                self._owners = (self._generation, found)
            return self._owners[1]

    def owner_aliases(self) -> dict[str, tuple[str, ...]]:
        """Owner name -> the aliases a question may name them by, fullest first: full name,
        accent-free spelling, initials + surname, surname, and the given name while no other owner
        shares it (`index.owners`). The one place people are resolved from; cached per generation."""
        self.refresh()
        with self._lock:
            if self._aliases is None or self._aliases[0] != self._generation:
                found: dict[str, list[str]] = {}
                for owner, alias in self._db.execute("SELECT owner, alias FROM owner_aliases"):
                    found.setdefault(owner, []).append(alias)
                ordered = {o: tuple(sorted(a, key=lambda s: (-len(s.split()), -len(s), s))) for o, a in found.items()}
                self._aliases = (self._generation, ordered)
            return self._aliases[1]

    def owners_named(self, name: str) -> tuple[str, ...]:
        """The owners `name` is an alias of ("Parvulescu", "R. A. Pârvulescu", "radu"), sorted;
        () when it names none. Compared accent-free and case-folded (`owners.alias_key`)."""
        key = owners.alias_key(name)
        if not key:
            return ()
        with self._lock:
            rows = self._db.execute("SELECT DISTINCT owner FROM owner_aliases WHERE key = ? ORDER BY owner", (key,))
            return tuple(r[0] for r in rows)

    def set_owner(self, path: str, owner: str | None, *, timeout: float = 0) -> DocRecord:
        """Set (or, with None/"", remove) the owner of the indexed document at `path`, as a user's
        correction: it wins over detection, survives re-indexing and is seen by readers at once (a new
        generation). Raises KeyError naming the path when the index does not hold it."""
        with self.writer(timeout) as w:
            if w.db.execute("SELECT 1 FROM documents WHERE path = ?", (path,)).fetchone() is None:
                raise KeyError(f"{path} is not in the index at {self.path}")
            owners.set_override(w.db, path, owner)
            w.changed = True
        record = self.document(path)
        assert record is not None  # checked inside the transaction above
        return record

    def reset_owner(self, path: str, *, timeout: float = 0) -> DocRecord | None:
        """Drop a user's owner for `path`: the detected owner applies again."""
        with self.writer(timeout) as w:
            w.changed = owners.clear_override(w.db, path)
        return self.document(path)

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
            for row in select_in(self._db, _CHUNK_SELECT + " WHERE c.id", ids):
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

    def docs_holding(self, terms: Sequence[str]) -> dict[str, list[str]] | None:
        """term (`index.doc_terms.key` form) -> the paths of the documents whose text, title or file
        name holds it; None for an index without document terms (opened before its upgrade)."""
        with self._lock:
            return doc_terms.holding(self._db, terms)

    def lemma_stats(self) -> lemmas.LemmaStats | None:
        """Chunks per lemma and the words written in lower case (`index.lemmas`), counted at index
        time; None for an index without them (opened before its upgrade)."""
        with self._lock:
            return lemmas.load(self._db)

    def chunks_of(self, path: str) -> list[StoredChunk]:
        with self._lock:
            rows = self._db.execute(_CHUNK_SELECT + " WHERE d.path = ? ORDER BY c.ord", (path,)).fetchall()
        return [StoredChunk(*r) for r in rows]

    def dense_search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(chunk id, cosine) of the `k` nearest chunks."""
        self.refresh()
        return self._vectors.search(query, k)

    def doc_ids(self, docs: Iterable[str]) -> list[int]:
        """The internal ids of the documents at `docs` (paths); unknown paths are ignored."""
        paths = list(docs)
        with self._lock:
            return [r[0] for r in select_in(self._db, "SELECT doc_id FROM documents WHERE path", paths)]

    def lexical_search(self, query: str, k: int, docs: Iterable[str] | None = None,
                       context_weight: float = 0.5, doc_weight: float = 0.0) -> list[tuple[int, float]]:
        """(chunk id, BM25 score) of the `k` best chunks (FTS5's ranking, `index.postings`); only in
        `docs` (paths) when given.

        Runs on a read connection of its own (memory-mapped, so postings blobs are read without
        page-by-page copies) with this store's cache of term impacts.
        """
        doc_ids = None if docs is None else self.doc_ids(docs)
        db, lock = self._lexical_db()
        with lock:
            return lexical.search(db, query, k, context_weight=context_weight, doc_ids=doc_ids, cache=self._postings,
                                  doc_weight=doc_weight)

    def _lexical_db(self) -> tuple[sqlite3.Connection, threading.Lock]:
        """The lexical search's read-only connection and its lock, opened on first use (closed with the object)."""
        import weakref

        found: tuple[sqlite3.Connection, threading.Lock] | None = getattr(self, "_lexical", None)
        if found is None:
            with self._lock:  # only to open it once
                found = getattr(self, "_lexical", None)
                if found is None:
                    db = self._connect()
                    db.execute("PRAGMA query_only=ON")
                    # Postings blobs (index.postings) read through mmap, not page by page: 5 -> 1.5 ms per
                    # query at 100k chunks. SQLite caps the map at 2 GB; what lies beyond uses the cache.
                    db.execute("PRAGMA mmap_size=2147418112")
                    db.execute("PRAGMA cache_size=-65536")
                    found = self._lexical = (db, threading.Lock())
                    weakref.finalize(self, db.close)
        return found

    def dense_search_in(self, query: np.ndarray, docs: Iterable[str], k: int) -> list[tuple[int, float]]:
        """Cosine search restricted to the chunks of `docs` (paths)."""
        doc_ids = self.doc_ids(docs)
        if not doc_ids or k <= 0:
            return []
        self.refresh()
        return self._vectors.search(query, k, doc_ids)

    def dense_search_owner(self, query: np.ndarray, owner: str, k: int) -> list[tuple[int, float]]:
        """Cosine search restricted to the documents of `owner` (as `owner_docs` names them)."""
        return self.dense_search_in(query, self.owner_docs().get(owner, []), k)

    # -- writing ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def _write_lock(self, timeout: float = 0) -> Iterator[None]:
        lock = FileLock(str(self.path / ".lock"), timeout=timeout)
        try:
            lock.acquire()
        except Timeout:
            raise IndexLocked(
                f"Another citewise process is writing to the index at {self.path}; try again when it finishes."
            ) from None
        try:
            yield
        finally:
            lock.release()

    @contextlib.contextmanager
    def writer(self, timeout: float = 0) -> Iterator[Writer]:
        """The one writer: a file lock, one SQLite transaction and a vector batch, committed together."""
        with self._write_lock(timeout):
            self.refresh()
            if self._vectors.needs_repair():  # an earlier write was cut short
                self._repair()
            db = self._connect()
            try:
                db.execute("BEGIN IMMEDIATE")
                w = Writer(self, db, self._vectors.begin())
                try:
                    yield w
                    if w.changed:  # aliases follow the owners in the same transaction
                        owners.rebuild_aliases(db)
                    gen = w._commit()
                except BaseException:
                    db.execute("ROLLBACK")
                    w.batch.abort()
                    raise
            finally:
                db.close()
            if gen is not None:
                with self._lock:
                    w.batch.finish()
                    self._generation = gen
                    self._owners = None
                    self._aliases = None
            if self._vectors.name == "faiss":
                collect_garbage(self.path, self._meta("faiss_file"))
