"""The expensive half of indexing: a file to read becomes its `Document`, chunks and vectors.

`index_paths` decides which files need reading (hashes, moves, copies) and hands each one to a
`Stage` as a `FileTask`; the stage returns `Embedded` documents (or `Skipped` files) in the order
the tasks were put, which is the order they are written. `InProcess` parses in the calling process
and embeds several files' chunks per model call; `index.parallel.ProcessPool` spreads the work over
worker processes. Writing stays with the caller.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from ingest import Chunk, Document, ParseError, Skipped, chunk_document, load_document

from .embed import Embedder


@dataclass(frozen=True)
class FileTask:
    path: str  # resolved
    size: int  # from the stat taken before the file was read
    mtime_ns: int | None  # ditto; None when too recent to trust (see `index.build.trusted_mtime`)
    is_update: bool  # the index holds an older version of this path


@dataclass(frozen=True, eq=False)
class Embedded:
    task: FileTask
    doc: Document
    chunks: tuple[Chunk, ...]
    vectors: np.ndarray  # (len(chunks), dim) float32, L2-normalised


Outcome = Embedded | Skipped


class Stage(Protocol):
    """Takes `FileTask`s and gives back their outcomes, each once, in the order the tasks came."""

    @property
    def in_flight(self) -> int: ...  # tasks put whose outcome has not been returned yet

    def put(self, task: FileTask) -> list[Outcome]: ...  # the outcomes ready now (maybe none)

    def finish(self) -> list[Outcome]: ...  # every remaining outcome

    def close(self) -> None: ...


def parse_file(path: str, chunk_size: int, chunk_overlap: int) -> tuple[Document, list[Chunk]] | Skipped:
    """Parse, clean and chunk one file; a file that cannot be read is `Skipped` with the reason."""
    try:
        doc = load_document(path)
    except ParseError as exc:
        return Skipped(exc.path, exc.reason)
    return doc, chunk_document(doc, chunk_size, chunk_overlap)


def for_storage(doc: Document) -> Document:
    """`doc` without what the index does not store (the raw source text and its character map),
    which is most of its size when it crosses a process boundary."""
    return replace(doc, source="", char_map=())


class InProcess:
    """Parse here, embed here, `batch_chunks` chunks (of one or more files) per model call."""

    def __init__(self, embedder: Embedder, chunk_size: int, chunk_overlap: int, batch_chunks: int) -> None:
        self.embedder = embedder
        self.chunk_size, self.chunk_overlap, self.batch_chunks = chunk_size, chunk_overlap, batch_chunks
        self._pending: list[tuple[FileTask, Document, list[Chunk]] | Skipped] = []  # in task order
        self._pending_chunks = 0

    @property
    def in_flight(self) -> int:
        return 0  # a parsed file waiting for its batch counts as read (the progress bar moves per file)

    def put(self, task: FileTask) -> list[Outcome]:
        parsed = parse_file(task.path, self.chunk_size, self.chunk_overlap)
        if isinstance(parsed, Skipped):
            self._pending.append(parsed)
        else:
            self._pending.append((task, for_storage(parsed[0]), parsed[1]))
            self._pending_chunks += len(parsed[1])
        return self._embed() if self._pending_chunks >= self.batch_chunks else []

    def finish(self) -> list[Outcome]:
        return self._embed()

    def close(self) -> None:
        self._pending, self._pending_chunks = [], 0

    def _embed(self) -> list[Outcome]:
        parsed = [p for p in self._pending if not isinstance(p, Skipped)]
        texts = [c.embed_text() for _, _, chunks in parsed for c in chunks]
        vectors = self.embedder.embed_documents(texts) if parsed else np.zeros((0, 0), np.float32)
        out: list[Outcome] = []
        pos = 0
        for item in self._pending:
            if isinstance(item, Skipped):
                out.append(item)
                continue
            task, doc, chunks = item
            out.append(Embedded(task, doc, tuple(chunks), vectors[pos : pos + len(chunks)]))
            pos += len(chunks)
        self._pending, self._pending_chunks = [], 0
        return out
