"""Combining indexes built apart: one per machine (`citewise index --shard I/N`), then `citewise merge`.

The documents, chunks and stored vectors of another index (all in its SQLite file) are written into
this one through the normal writer, in atomic writes, without re-embedding. Both indexes must use
the same embedding model. Per document of the source: the same path with the same content here is
unchanged; the same path with other content is replaced (the source is the fresher part); the same
content under another path is skipped as a copy (chunk ids come from content). Documents are never
removed here: merge into a new directory to mirror removals in the parts. Stored mtimes are not
carried over (they belong to the machine that read the file): a later `citewise index` of the
merged index hashes each file once. How each document was read (`DocRecord.read_with`) is carried
over. Left out: rewriting path prefixes (mount the shared folder at
the same path on every machine).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ingest import Chunk, Document, Skipped
from ingest.document import PageSpan

from .errors import EmbedderMismatch, MergeError
from .store import DocRecord, Store, StoredChunk


@dataclass
class MergeReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    chunks: int = 0  # chunks copied

    def summary(self) -> str:
        return (f"{len(self.added)} added, {len(self.updated)} updated, {len(self.unchanged)} unchanged, "
                f"{len(self.skipped)} skipped; {self.chunks} chunks copied, none embedded")


@dataclass(frozen=True)
class _ImportedChunk(Chunk):
    """A stored chunk written again as it was: its context is the stored one, not recomputed."""

    stored_context: str = ""

    @property
    def context(self) -> str:
        return self.stored_context


def _document(rec: DocRecord, text: str) -> Document:
    # Only the page count is stored (the spans live in the chunks' page numbers): placeholder spans.
    pages = tuple(PageSpan(n, 0, 0) for n in range(1, (rec.pages or 0) + 1))
    return Document(path=rec.doc, sha256=rec.sha256, format=rec.format, title=rec.title, text=text, source="",
                    pages=pages, owner=rec.owner)


def _chunk(rec: DocRecord, c: StoredChunk) -> Chunk:
    return _ImportedChunk(chunk_id=c.chunk_id, doc=rec.doc, doc_sha256=rec.sha256, ord=c.ord, start=c.start,
                          end=c.end, text=c.text, page=c.page, section=c.section, title=c.title, owner=c.owner,
                          stored_context=c.context)


def merge_index(source: Store, target: Store, batch_chunks: int = 2048) -> MergeReport:
    """Copy the documents of `source` into `target` (see the module docstring)."""
    if source.path.resolve() == target.path.resolve():
        raise MergeError(f"{source.path} is the index being merged into; name the other indexes")
    if (source.manifest.embedder, source.manifest.dim) != (target.manifest.embedder, target.manifest.dim):
        raise EmbedderMismatch(
            f"The index at {source.path} was built with {source.manifest.embedder!r} ({source.manifest.dim} dims), "
            f"the one at {target.path} with {target.manifest.embedder!r} ({target.manifest.dim} dims): "
            "only indexes of the same model can be merged."
        )
    report = MergeReport()
    here = {d.doc: d for d in target.documents()}
    by_sha = {d.sha256: d.doc for d in here.values()}
    waiting: list[tuple[Document, list[Chunk], list[int], DocRecord]] = []

    def write() -> None:
        nonlocal waiting
        batch, waiting = waiting, []
        if not batch:
            return
        with target.writer() as w:
            for doc, chunks, ids, rec in batch:
                w.add_document(doc, chunks, source.vectors(ids), rec.size, None, rec.read_with)
                (report.updated if doc.path in here else report.added).append(doc.path)
                report.chunks += len(chunks)

    for rec in source.documents():
        old = here.get(rec.doc)
        if old is not None and old.sha256 == rec.sha256:
            report.unchanged.append(rec.doc)
            continue
        twin = by_sha.get(rec.sha256)
        if twin is not None and twin != rec.doc:
            report.skipped.append(Skipped(rec.doc, f"same content as {twin}, which is indexed"))
            continue
        stored = source.chunks_of(rec.doc)
        waiting.append((_document(rec, source.document_text(rec.doc) or ""), [_chunk(rec, c) for c in stored],
                        [c.id for c in stored], rec))
        by_sha[rec.sha256] = rec.doc
        # Each write rewrites the FAISS file: the same geometric cadence as `index_paths`.
        if sum(len(c) for _, c, _, _ in waiting) >= max(batch_chunks, target.vector_count // 8):
            write()
    write()
    return report
