"""Helpers for the index tests: a deterministic stand-in embedder and index snapshots.

`HashEmbedder` is a FAKE: it hashes words into a 384-d vector. Tests of storage, atomicity and
incrementality use it so that dozens of subprocess runs finish in seconds; every search-quality
test uses the real model instead.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import faiss
import numpy as np


class HashEmbedder:
    """FAKE embedder (deterministic bag of hashed words, L2-normalised); counts what it embeds."""

    name = "test-hash-embedder"
    dim = 384

    def __init__(self) -> None:
        self.embedded = 0

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        for w in re.findall(r"\w+", text.lower()):
            h = int(hashlib.md5(w.encode()).hexdigest()[:8], 16)
            v[h % self.dim] += 1.0 if (h >> 9) & 1 else -1.0
        n = np.linalg.norm(v)
        return v / n if n else v + 1.0 / np.sqrt(self.dim)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded += len(texts)
        return np.vstack([self._vec(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._vec(text)


def write_docs(folder: Path, n: int, seed: int = 0, paragraphs: int = 3) -> list[Path]:
    """`n` small text documents with distinct words (a title line and a few paragraphs)."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(2000)]
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        paras = [" ".join(rng.choice(vocab, 60)) + "." for _ in range(paragraphs)]
        p = folder / f"doc{i:04d}.txt"
        p.write_text(f"Document {i} seed {seed}\n\n" + "\n\n".join(paras) + "\n")
        paths.append(p)
    return paths


def snapshot(index_dir: Path) -> str:
    """Everything an index holds, as a canonical JSON string (documents, chunks, vectors, FTS, FAISS)."""
    db = sqlite3.connect(index_dir / "chunks.sqlite")
    try:
        docs = db.execute("SELECT path, sha256, n_chunks FROM documents ORDER BY path").fetchall()
        chunks = db.execute(
            "SELECT c.id, c.chunk_id, d.path, c.ord, c.text, hex(c.vector) FROM chunks c"
            " JOIN documents d ON d.doc_id = c.doc_id ORDER BY c.id"
        ).fetchall()
        fts = db.execute("SELECT rowid, text, context FROM chunks_fts ORDER BY rowid").fetchall()
        bm25 = _postings(db)
        name = db.execute("SELECT value FROM meta WHERE key = 'faiss_file'").fetchone()
    finally:
        db.close()
    ids: list[int] = []
    if name:
        index = faiss.read_index(str(index_dir / name[0]))
        ids = sorted(int(i) for i in _faiss_ids(index))
    return json.dumps({"docs": docs, "chunks": chunks, "fts": fts, "bm25": bm25, "faiss_ids": ids})


def _postings(db: sqlite3.Connection) -> dict[str, object]:
    """The BM25 postings (index.postings) by term, chunk ids in place of row numbers, and N / tokens."""
    from index import postings

    id_of = dict(db.execute(f"SELECT row, id FROM {postings.ROWS}").fetchall())
    out: dict[str, object] = {}
    for term, blob in db.execute(f"SELECT term, data FROM {postings.TABLE} ORDER BY term"):
        cols = postings._columns(blob)
        out[term] = sorted(zip([id_of[int(r)] for r in cols["row"]], cols["text"].tolist(),
                               cols["context"].tolist(), cols["length"].tolist(), strict=True))
    out[" stats"] = postings._stats(db)[:2]
    return out


def _faiss_ids(index: faiss.Index) -> list[int]:
    if isinstance(index, faiss.IndexIDMap2) or hasattr(index, "id_map"):
        return list(faiss.vector_to_array(faiss.downcast_index(index).id_map))
    ivf = faiss.extract_index_ivf(index)
    out: list[int] = []
    for lst in range(ivf.nlist):
        n = ivf.invlists.list_size(lst)
        if n:
            ptr = ivf.invlists.get_ids(lst)
            out.extend(faiss.rev_swig_ptr(ptr, n).tolist())
    return out
