"""Indexing: paths in, an up-to-date index out.

Files are discovered, compared by content hash with what the index holds, parsed, chunked and
embedded in batches; each write is atomic. Writes happen when the embedded chunks reach
`batch_chunks` or an eighth of the index, whichever is more, so a large build rewrites the FAISS
file O(log n) times, not once per batch. Unchanged files cost a hash; a moved file (same
content, old path gone) is re-pointed, not re-embedded. A file whose size and mtime match the
index is unchanged without being read (as git and rsync decide); a touched file (new mtime, same
bytes) is hashed once and its new mtime recorded. A file that fails to parse is
reported and skipped; it never stops the batch and never touches what is already indexed.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ingest import Chunk, Document, ParseError, Skipped, chunk_document, discover, load_document
from ingest.chunk import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE

from .embed import Embedder
from .store import Store

log = logging.getLogger(__name__)

Progress = Callable[[int, int, str], None]  # (files done, files total, current file)

# An mtime this close to the moment it is read is not trusted: a write in the same clock tick (2 s
# on FAT, about 4 ms on ext4) would leave it unchanged ("racily clean" in git). Such a file gets no
# stored mtime and is hashed on the next run.
RACY_NS = 2_000_000_000


def trusted_mtime(st: os.stat_result) -> int | None:
    """`st.st_mtime_ns` when it is old enough to detect any change after this stat (call it right
    after the stat, before reading the file), else None."""
    return st.st_mtime_ns if st.st_mtime_ns < time.time_ns() - RACY_NS else None


@dataclass
class IndexReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    moved: list[tuple[str, str]] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    chunks_embedded: int = 0

    def summary(self, store: Store) -> str:
        docs = store.documents()
        total_chunks = sum(d.chunks for d in docs)
        parts = [f"{len(docs)} documents, {total_chunks} chunks in the index"]
        parts.append(
            f"{len(self.added)} added, {len(self.updated)} updated, {len(self.unchanged)} unchanged, "
            f"{len(self.moved)} moved, {len(self.removed)} removed, {len(self.skipped)} skipped"
        )
        return "; ".join(parts)


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def index_paths(
    paths: Iterable[str | os.PathLike[str]],
    store: Store,
    embedder: Embedder,
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
    prune: bool = False,
    batch_chunks: int = 256,
    progress: Progress | None = None,
) -> IndexReport:
    """Bring the index up to date with `paths` (files and folders, recursive).

    With `prune`, indexed documents under the given folders whose files are gone are removed.
    """
    paths = list(paths)  # walked here and read again for --prune
    # A write cut short (a Milvus marker) is repaired here, not only by the next write: a re-run
    # with no changed file must still leave no orphan vector. A no-op for FAISS.
    store.repair_vectors()
    report = IndexReport()
    files: list[Path] = []
    for item in discover(paths):
        if isinstance(item, Skipped):
            report.skipped.append(item)
        else:
            files.append(item)
    known = {d.doc: d for d in store.documents()}
    by_sha: dict[str, list[str]] = {}
    for d in known.values():
        by_sha.setdefault(d.sha256, []).append(d.doc)

    pending: list[tuple[Document, list[Chunk], tuple[int, int | None], bool]] = []
    pending_chunks = 0
    # embedded, not yet written: (doc, chunks, (size, mtime) before reading, is_update, vectors)
    embedded: list[tuple[Document, list[Chunk], tuple[int, int | None], bool, np.ndarray]] = []

    def write() -> None:
        nonlocal embedded
        if not embedded:
            return
        with store.writer() as w:
            for doc, chunks, (size, mtime), is_update, vecs in embedded:
                w.add_document(doc, chunks, vecs, size, mtime)
                (report.updated if is_update else report.added).append(doc.path)
        embedded = []

    def flush(final: bool = False) -> None:
        nonlocal pending, pending_chunks
        if pending:
            texts = [c.embed_text() for _, chunks, _, _ in pending for c in chunks]
            vectors = embedder.embed_documents(texts)
            pos = 0
            for doc, chunks, stamp, is_update in pending:
                embedded.append((doc, chunks, stamp, is_update, vectors[pos : pos + len(chunks)]))
                pos += len(chunks)
            report.chunks_embedded += len(texts)
            pending, pending_chunks = [], 0
        # Each write copies and rewrites the whole FAISS index: writing when the new chunks reach
        # an eighth of the index keeps a big build linear (geometric series), not quadratic.
        waiting = sum(len(e[1]) for e in embedded)
        if final or waiting >= max(batch_chunks, store.vector_count // 8):
            write()

    moves: list[tuple[str, str, int | None]] = []  # (old path, new path, new mtime)
    touched: list[tuple[str, int]] = []  # unchanged bytes, new mtime to record
    claimed: dict[str, str] = {}  # sha256 -> the path that holds that content in this run
    stale: list[str] = []
    for n, path in enumerate(files, 1):
        if progress:
            progress(n - 1, len(files), str(path))
        spath = str(path)
        old = known.get(spath)
        try:
            st = os.stat(spath)  # before reading: a change after this gives the file a newer mtime
            if old and old.mtime_ns is not None and (old.size, old.mtime_ns) == (st.st_size, st.st_mtime_ns):
                report.unchanged.append(spath)
                claimed.setdefault(old.sha256, spath)
                continue
            stamp = (st.st_size, trusted_mtime(st))
            sha = file_sha256(path)
        except OSError as exc:
            report.skipped.append(Skipped(spath, exc.strerror or str(exc)))
            continue
        if old and old.sha256 == sha:
            report.unchanged.append(spath)
            claimed.setdefault(sha, spath)
            if stamp[1] is not None and stamp[1] != old.mtime_ns:
                touched.append((spath, stamp[1]))
            continue
        if old is None:
            gone = [p for p in by_sha.get(sha, []) if not os.path.exists(p)]
            if gone:
                moves.append((gone[0], spath, stamp[1]))
                by_sha[sha].remove(gone[0])
                claimed.setdefault(sha, spath)
                continue
        # Chunk ids come from content: a second copy of an indexed file is indexed once, under the
        # first path, and reported; its stale former content (if it changed into a copy) goes.
        twin = claimed.get(sha) or next((p for p in by_sha.get(sha, []) if p != spath and os.path.exists(p)), None)
        if twin:
            report.skipped.append(Skipped(spath, f"same content as {twin}, which is indexed"))
            if old is not None:
                stale.append(spath)
            continue
        claimed[sha] = spath
        try:
            doc = load_document(path)
        except ParseError as exc:
            report.skipped.append(Skipped(exc.path, exc.reason))
            continue
        chunks = chunk_document(doc, chunk_size, chunk_overlap)
        pending.append((doc, chunks, stamp, old is not None))
        pending_chunks += len(chunks)
        if pending_chunks >= batch_chunks:
            flush()
    flush(final=True)
    if progress:
        progress(len(files), len(files), "")

    roots = [Path(p).resolve() for p in paths if Path(p).is_dir()]
    present = {str(f) for f in files}
    to_remove = list(stale)
    if prune:
        to_remove += [
            p for p in known
            if p not in present and not os.path.exists(p) and any(Path(p).is_relative_to(r) for r in roots)
            and p not in {m[0] for m in moves}
        ]
    if moves or to_remove or touched:
        with store.writer() as w:
            for same, touched_mtime in touched:
                w.move_document(same, same, touched_mtime)  # records the mtime only
            for old_path, new_path, new_mtime in moves:
                w.move_document(old_path, new_path, new_mtime)
                report.moved.append((old_path, new_path))
            for gone_path in to_remove:
                w.remove_document(gone_path)
                report.removed.append(gone_path)
    return report


def remove_paths(paths: Iterable[str], store: Store) -> list[str]:
    """Remove the documents at `paths` (files, or every document under a folder) from the index."""
    targets = [str(Path(p).resolve()) for p in paths]
    docs = [d.doc for d in store.documents()]
    gone = [d for d in docs if any(d == t or Path(d).is_relative_to(t) for t in targets)]
    if gone:
        with store.writer() as w:
            for d in gone:
                w.remove_document(d)
    return gone
