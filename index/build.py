"""Indexing: paths in, an up-to-date index out.

Files are discovered and compared with what the index holds (the plan); then the files to read
are parsed, chunked and embedded by a stage (`index.pipeline`: in this process, or in worker
processes with `workers`), and written in file order; each write is atomic. Writes happen when the
embedded chunks reach `batch_chunks` or an eighth of the index, whichever is more, so a large build
rewrites the FAISS file O(log n) times, not once per batch. A file whose size and mtime match the
index is unchanged without being read (as git and rsync decide); a touched file (new mtime, same
bytes) is hashed once and its new mtime recorded; a moved file (same content, old path gone) is
re-pointed, not re-embedded. A file read another way than this run would read it (an older ingest
version or other chunk settings, see `reading`) is read again even when its bytes are unchanged. A
file that fails to parse is reported and skipped; it never stops the batch and never touches what is
already indexed. `shard` keeps this machine's share of the files (`index.shard`).
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ingest import Skipped, discover
from ingest.chunk import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE
from ingest.document import INGEST_VERSION

from .embed import Embedder, Respawnable
from .parallel import ProcessPool, resolve_workers
from .pipeline import Embedded, FileTask, InProcess, Outcome, Stage
from .shard import Shard, shard_key
from .store import DocRecord, Store

log = logging.getLogger(__name__)

Progress = Callable[[int, int, str], None]  # (files done, files total, current file)

# An mtime this close to the moment it is read is not trusted: a write in the same clock tick (2 s
# on FAT, about 4 ms on ext4) would leave it unchanged ("racily clean" in git). Such a file gets no
# stored mtime and is hashed on the next run.
RACY_NS = 2_000_000_000
FILES_PER_TASK = 8  # at most, per task of a worker process


def reading(chunk_size: int, chunk_overlap: int) -> str:
    """How this run reads a file, recorded with each document (`DocRecord.read_with`): what ingest
    makes of an unchanged file depends on the ingest version and the chunk settings."""
    return f"ingest {INGEST_VERSION}; chunks {chunk_size}/{chunk_overlap}"


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
    reread: list[str] = field(default_factory=list)  # unchanged files read again (`reading` changed); in `updated` too

    def summary(self, store: Store) -> str:
        docs = store.documents()
        total_chunks = sum(d.chunks for d in docs)
        parts = [f"{len(docs)} documents, {total_chunks} chunks in the index"]
        parts.append(
            f"{len(self.added)} added, {len(self.updated)} updated, {len(self.unchanged)} unchanged, "
            f"{len(self.moved)} moved, {len(self.removed)} removed, {len(self.skipped)} skipped"
        )
        if self.reread:
            parts.append(f"{len(self.reread)} unchanged files read again (indexed by an older citewise or "
                         "with other chunk settings)")
        return "; ".join(parts)


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass
class Plan:
    """What a run does besides reading files: the outcome of comparing the files with the index."""

    tasks: list[FileTask] = field(default_factory=list)  # files to parse, chunk and embed, in order
    moves: list[tuple[str, str, int | None]] = field(default_factory=list)  # (old path, new path, mtime)
    touched: list[tuple[str, int]] = field(default_factory=list)  # same bytes, new mtime to record
    stale: list[str] = field(default_factory=list)  # indexed paths whose file became a copy of another


def plan(files: list[Path], known: dict[str, DocRecord], report: IndexReport,
         progress: Progress | None = None, read_with: str | None = None) -> Plan:
    """Compare `files` with the `known` documents: unchanged and skipped files go to `report`.

    With `read_with` (this run's `reading`), a known file read another way is read again."""
    out = Plan()
    by_sha: dict[str, list[str]] = {}
    for d in known.values():
        by_sha.setdefault(d.sha256, []).append(d.doc)
    claimed: dict[str, str] = {}  # sha256 -> the path that holds that content in this run
    for path in files:
        spath = str(path)
        old = known.get(spath)
        again = old is not None and read_with is not None and old.read_with != read_with
        try:
            st = os.stat(spath)  # before reading: a change after this gives the file a newer mtime
            if old and not again and old.mtime_ns is not None and (old.size, old.mtime_ns) == (st.st_size, st.st_mtime_ns):
                report.unchanged.append(spath)
                claimed.setdefault(old.sha256, spath)
                continue
            mtime = trusted_mtime(st)
            if progress:
                progress(len(report.unchanged), len(files), spath)
            sha = file_sha256(path)
        except OSError as exc:
            report.skipped.append(Skipped(spath, exc.strerror or str(exc)))
            continue
        if old and old.sha256 == sha and again and claimed.get(sha, spath) == spath:
            claimed[sha] = spath
            report.reread.append(spath)
            out.tasks.append(FileTask(spath, st.st_size, mtime, True))
            continue
        if old and old.sha256 == sha:
            report.unchanged.append(spath)
            claimed.setdefault(sha, spath)
            if mtime is not None and mtime != old.mtime_ns:
                out.touched.append((spath, mtime))
            continue
        if old is None:
            gone = [p for p in by_sha.get(sha, []) if not os.path.exists(p)]
            if gone:
                out.moves.append((gone[0], spath, mtime))
                by_sha[sha].remove(gone[0])
                claimed.setdefault(sha, spath)
                continue
        # Chunk ids come from content: a second copy of an indexed file is indexed once, under the
        # first path, and reported; its stale former content (if it changed into a copy) goes.
        twin = claimed.get(sha) or next((p for p in by_sha.get(sha, []) if p != spath and os.path.exists(p)), None)
        if twin:
            report.skipped.append(Skipped(spath, f"same content as {twin}, which is indexed"))
            if old is not None:
                out.stale.append(spath)
            continue
        claimed[sha] = spath
        out.tasks.append(FileTask(spath, st.st_size, mtime, old is not None))
    return out


def open_stage(embedder: Embedder, workers: int, tasks: int, *, chunk_size: int, chunk_overlap: int,
               batch_chunks: int) -> Stage:
    """`InProcess` for 1 worker (or 1 file to read), else a `ProcessPool` of at most `tasks` workers."""
    n = min(resolve_workers(workers), tasks)
    if n <= 1:
        return InProcess(embedder, chunk_size, chunk_overlap, batch_chunks)
    if not isinstance(embedder, Respawnable):
        raise TypeError(
            f"indexing with {n} workers re-creates the embedder in each worker process, but "
            f"{type(embedder).__name__} has no spec(); index with workers=1 or give it one (index.embed.EmbedderSpec)"
        )
    # Groups of files per task (one model call each), but enough tasks to keep every worker busy.
    return ProcessPool(embedder.spec(), n, chunk_size, chunk_overlap,
                       files_per_task=max(1, min(FILES_PER_TASK, tasks // (4 * n))))


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
    workers: int = 1,
    shard: Shard | None = None,
) -> IndexReport:
    """Bring the index up to date with `paths` (files and folders, recursive).

    With `prune`, indexed documents under the given folders whose files are gone are removed.
    `workers` > 1 parses and embeds in that many processes (0: one per core); the index is the same.
    `shard` indexes only this machine's share of the files (see `index.shard`).
    """
    paths = list(paths)  # walked here and read again for --prune
    # A write cut short (a Milvus marker) is repaired here, not only by the next write: a re-run
    # with no changed file must still leave no orphan vector. A no-op for FAISS.
    store.repair_vectors()
    report = IndexReport()
    roots = [Path(p).resolve() for p in paths if Path(p).is_dir()]
    files: list[Path] = []
    for item in discover(paths):
        if isinstance(item, Skipped):
            report.skipped.append(item)
        elif shard is None or shard.holds(shard_key(item, roots)):
            files.append(item)
    known = {d.doc: d for d in store.documents()}
    read_with = reading(chunk_size, chunk_overlap)
    todo = plan(files, known, report, progress, read_with)

    embedded: list[Embedded] = []  # embedded, not yet written (file order)

    def write() -> None:
        nonlocal embedded
        batch, embedded = embedded, []  # a write that fails is not retried by the handler below
        if not batch:
            return
        with store.writer() as w:
            for e in batch:
                w.add_document(e.doc, e.chunks, e.vectors, e.task.size, e.task.mtime_ns, read_with)
                (report.updated if e.task.is_update else report.added).append(e.doc.path)

    def take(outcomes: list[Outcome]) -> None:
        for o in outcomes:
            if isinstance(o, Skipped):
                report.skipped.append(o)
            else:
                embedded.append(o)
                report.chunks_embedded += len(o.chunks)
        # Each write copies and rewrites the whole FAISS index: writing when the new chunks reach
        # an eighth of the index keeps a big build linear (geometric series), not quadratic.
        if sum(len(e.chunks) for e in embedded) >= max(batch_chunks, store.vector_count // 8):
            write()

    stage = open_stage(embedder, workers, len(todo.tasks), chunk_size=chunk_size, chunk_overlap=chunk_overlap,
                       batch_chunks=batch_chunks)
    done = len(files) - len(todo.tasks)  # files that need no reading are done
    try:
        for i, task in enumerate(todo.tasks):
            if progress:
                progress(done + i - stage.in_flight, len(files), task.path)
            take(stage.put(task))
        take(stage.finish())
        write()
    except Exception:
        # What was embedded before the failure (files in order) is still written; then the error.
        if embedded:
            log.warning("indexing stopped by an error; writing the %d documents embedded so far", len(embedded))
            write()
        raise
    finally:
        stage.close()
    if progress:
        progress(len(files), len(files), "")

    present = {str(f) for f in files}
    to_remove = list(todo.stale)
    if prune:
        to_remove += [
            p for p in known
            if p not in present and not os.path.exists(p) and any(Path(p).is_relative_to(r) for r in roots)
            and p not in {m[0] for m in todo.moves}
        ]
    if todo.moves or to_remove or todo.touched:
        with store.writer() as w:
            for same, touched_mtime in todo.touched:
                w.move_document(same, same, touched_mtime)  # records the mtime only
            for old_path, new_path, new_mtime in todo.moves:
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
