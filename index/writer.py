"""A write transaction's changes: documents and their chunks in SQLite, their vectors in a `VectorBatch`.

`Store.writer()` opens one (under the index's file lock, inside `BEGIN IMMEDIATE`) and commits it:
readers see nothing until the SQLite commit, which also advances `meta.generation`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import numpy as np

from ingest import Chunk, Document

from . import doc_terms, lemmas, lexical, meta, owners, postings
from .vector_store import VectorBatch

if TYPE_CHECKING:
    from .store import Store


def faiss_id(chunk_id: str) -> int:
    """A stable positive int64 from the content-derived chunk id (60 bits of its hash)."""
    return int(chunk_id[:15], 16)


_meta_of = meta.get


class Writer:
    """Changes of one write transaction; visible to readers only when the transaction commits."""

    def __init__(self, store: Store, db: sqlite3.Connection, batch: VectorBatch) -> None:
        self.store = store
        self.db = db
        self.batch = batch
        self.changed = False
        self.lexical = postings.Delta()
        self.lemmas = lemmas.Delta()

    def remove_document(self, path: str) -> int:
        """Remove a document and its chunks; returns the number of chunks removed."""
        rows = self.db.execute(
            "SELECT c.id, c.text FROM chunks c JOIN documents d ON d.doc_id = c.doc_id WHERE d.path = ?", (path,)
        ).fetchall()
        ids = [r[0] for r in rows]
        self.lemmas.remove(r[1] for r in rows)
        for doc_id, title, text in self.db.execute("SELECT doc_id, title, text FROM documents WHERE path = ?",
                                                   (path,)).fetchall():
            doc_terms.remove(self.db, doc_id, doc_terms.of_document(path, title, text))
        self.lexical.remove(lexical.delete_rows(self.db, ids))
        self.db.execute("DELETE FROM chunks WHERE doc_id = (SELECT doc_id FROM documents WHERE path = ?)", (path,))
        cur = self.db.execute("DELETE FROM documents WHERE path = ?", (path,))
        if ids:
            self.batch.remove(np.array(ids, dtype=np.int64))
        self.changed = self.changed or cur.rowcount > 0
        return len(ids)

    def move_document(self, old: str, new: str, mtime_ns: int | None = None) -> None:
        """A renamed or moved file: same content, same chunks and vectors, new path and mtime.

        `new == old` only records the mtime of a touched file (same bytes, new mtime): no new generation.
        """
        if new != old:  # the file name is among the document's terms
            for doc_id, title, text in self.db.execute("SELECT doc_id, title, text FROM documents WHERE path = ?",
                                                       (old,)).fetchall():
                doc_terms.remove(self.db, doc_id, doc_terms.of_document(old, title, text))
                doc_terms.add(self.db, doc_id, doc_terms.of_document(new, title, text))
        self.db.execute("UPDATE documents SET path = ?, mtime_ns = ? WHERE path = ?", (new, mtime_ns, old))
        owners.move_override(self.db, old, new)
        self.changed = self.changed or new != old

    def add_document(self, doc: Document, chunks: Sequence[Chunk], vectors: np.ndarray, size: int,
                     mtime_ns: int | None = None, read_with: str | None = None) -> None:
        """Add (or replace) `doc` with its chunks and their vectors (one row per chunk, normalised).

        `size` and `mtime_ns` are the file's, taken before it was read (see `DocRecord.mtime_ns`);
        `read_with` says how it was read (`index.build.reading`).
        """
        if len(chunks) != len(vectors):
            raise ValueError(f"{doc.path}: {len(chunks)} chunks but {len(vectors)} vectors")
        self.remove_document(doc.path)
        cur = self.db.execute(
            "INSERT INTO documents(path, sha256, format, title, owner, pages, n_chunks, size, indexed_at, text, mtime_ns,"
            " owner_source, read_with) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (doc.path, doc.sha256, doc.format, doc.title, doc.owner, len(doc.pages) or None, len(chunks), size,
             datetime.now(UTC).isoformat(timespec="seconds"), doc.text, mtime_ns, doc.owner_source or None,
             read_with),
        )
        doc_id = cur.lastrowid
        assert doc_id is not None
        doc_terms.add(self.db, doc_id, doc_terms.of_document(doc.path, doc.title, doc.text))
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
        self.lexical.add(lexical.insert_rows(self.db, [(int(i), c.text, c.context) for i, c in zip(ids, chunks, strict=True)]))
        self.lemmas.add(c.text for c in chunks)
        if len(ids):
            self.batch.add(ids, vecs, np.full(len(ids), doc_id, dtype=np.int64))
        self.changed = True

    def _commit(self) -> int | None:
        """Commit; returns the new generation (None when nothing changed)."""
        if not self.changed:
            self.db.execute("COMMIT")
            return None
        gen = int(meta.get(self.db, "generation") or 0) + 1
        if self.lexical.apply(self.db):  # row numbers grown sparse by removals: renumber
            lexical.rebuild_postings(self.db)
        self.lemmas.apply(self.db)
        self.batch.prepare(self.db, gen)
        meta.put(self.db, "generation", gen)
        self.db.execute("COMMIT")  # the switch: readers see the new generation from here on
        return gen
