"""The Python API: `Assistant.open(...)`, then `.ask`, `.table`, `.search`, `.documents`, `.chunk`.

An `Assistant` owns one open index and one embedder (loaded lazily, shared by every request), so a
server or a batch of questions never reloads the model.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from index import (
    DocRecord,
    Embedder,
    Hit,
    IndexReport,
    Searcher,
    SentenceTransformerEmbedder,
    Store,
    StoredChunk,
    index_paths,
    remove_paths,
)
from index.build import Progress
from index.embed import DEFAULT_MODEL
from index.errors import MergeError
from index.merge import MergeReport, merge_index
from index.rerank import CrossEncoderReranker, ReadingReranker
from index.shard import Shard
from index.store import MANIFEST

from .answer import Answer, AnswerWriter, detect, verify_citations
from .answer.model import ReaderModel
from .answer.pipeline import retrieve_hits
from .answer.reader import Reader
from .columns import COLUMN_MARGIN, build_table, corroborated
from .followup import resolve
from .people import People, Person
from .settings import Settings, SettingsError
from .table import Field, Row, Table, build_row, choose_fields, pick_people
from .table import Progress as TableProgress

Turn = dict[str, Any] | tuple[str, str]  # {"role": ..., "content": ...} or (user, assistant)


class QueryCache:
    """An `Embedder` that remembers its last query embeddings: per-person retrieval embeds a
    question once, not once per person. Documents pass straight through."""

    def __init__(self, inner: Embedder, size: int = 256) -> None:
        self.inner = inner
        self.name = inner.name
        self.size = size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            if text in self._cache:
                self._cache.move_to_end(text)
                return self._cache[text]
        vec = self.inner.embed_query(text)
        with self._lock:
            self._cache[text] = vec
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)
        return vec


def make_embedder(model: str | None) -> Embedder:
    return SentenceTransformerEmbedder(None if model in (None, DEFAULT_MODEL) else model)


def build_index(
    paths: Iterable[str | os.PathLike[str]],
    index_dir: str | os.PathLike[str] | None = None,
    *,
    settings: Settings | None = None,
    prune: bool = False,
    progress: Progress | None = None,
    embedder: Embedder | None = None,
    workers: int | None = None,
    shard: Shard | None = None,
) -> tuple[Store, IndexReport]:
    """Create or update the index at `index_dir` from files and folders.

    `workers` processes parse and embed (default `settings.workers`; 0: one per core); `shard` keeps
    this machine's share of the files (see `index.shard`; combine the parts with `merge_indexes`).
    """
    settings = settings or Settings()
    directory = Path(index_dir) if index_dir else settings.index_dir()
    if embedder is None:
        model = settings.model
        if (directory / MANIFEST).exists():
            # An existing index decides the model; a different --model fails here, before any model loads.
            existing = Store.open(directory, settings.model, milvus_token=settings.token())
            model = existing.manifest.embedder
            existing.close()  # milvus-lite: one open client per file is enough
        embedder = make_embedder(model)
    store = Store.create(directory, embedder.name, embedder.dim, vectors=settings.vector_config_given(),
                         milvus_token=settings.token())
    report = index_paths(
        paths, store, embedder, chunk_size=settings.chunk_size, chunk_overlap=settings.chunk_overlap,
        prune=prune, progress=progress, workers=settings.workers if workers is None else workers, shard=shard,
    )
    return store, report


def merge_indexes(
    parts: Iterable[str | os.PathLike[str]],
    index_dir: str | os.PathLike[str] | None = None,
    *,
    settings: Settings | None = None,
) -> tuple[Store, list[tuple[str, MergeReport]]]:
    """Copy the documents, chunks and vectors of the indexes at `parts` into the index at `index_dir`
    (created with the parts' model if absent), without re-embedding; see `index.merge`."""
    settings = settings or Settings()
    directory = (Path(index_dir) if index_dir else settings.index_dir()).expanduser()
    target: Store | None = None
    reports = []
    for part in parts:
        source = Store.open(part, milvus_token=settings.token())
        try:
            if target is None and (directory / MANIFEST).exists():  # its model is checked by merge_index
                target = Store.open(directory, milvus_token=settings.token())
            elif target is None:
                target = Store.create(directory, source.manifest.embedder, source.manifest.dim,
                                      vectors=settings.vector_config_given(), milvus_token=settings.token())
            reports.append((str(part), merge_index(source, target)))
        finally:
            source.close()
    if target is None:
        raise MergeError("name at least one index to merge")
    return target, reports


class Assistant:
    """Question in, cited `Answer` out, over one index."""

    def __init__(self, store: Store, embedder: Embedder, writer: AnswerWriter | None = None,
                 settings: Settings | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings or Settings()
        retrieval = self.settings.retrieval
        reranker = (ReadingReranker() if retrieval.reranker == "reading"
                    else CrossEncoderReranker(retrieval.reranker) if retrieval.reranker else None)
        self.searcher = Searcher(store, QueryCache(embedder),  # type: ignore[arg-type]  # dim is read-only here
                                 reranker=reranker, rerank_depth=retrieval.rerank_depth, fusion=self.settings.fusion())
        answer = self.settings.answer
        try:
            model = ReaderModel.load(answer.reader) if answer.reader else None
        except ValueError as exc:  # a missing file, bad JSON or another feature set: one line, the value named
            raise SettingsError(f"answer.reader: {exc}") from None
        self.reader = Reader(self.searcher.embedder, store=store, model=model, per_doc=answer.who_chunks,
                             reading=answer.reading_model, read_top=answer.read_top,
                             read_for=answer.read_for)  # one query embedding
        self.writer: AnswerWriter = writer or self.reader
        self.people = People(store)
        self._write_lock = threading.Lock()

    @classmethod
    def open(cls, index_dir: str | os.PathLike[str] | None = None, *, settings: Settings | None = None,
             writer: AnswerWriter | None = None) -> Assistant:
        """Open the index at `index_dir` (default: `CITEWISE_INDEX`, then the user data dir)."""
        settings = settings or Settings()
        directory = Path(index_dir) if index_dir else settings.index_dir()
        store = Store.open(directory, milvus_token=settings.token())
        # The index knows its embedder; a different --model is an error raised by Store.open.
        if settings.model and settings.model != store.manifest.embedder:
            store.close()
            store = Store.open(directory, settings.model, milvus_token=settings.token())
        return cls(store, make_embedder(store.manifest.embedder), writer, settings)

    def warm(self) -> threading.Thread:
        """Load the torch embedding model (`SentenceTransformerEmbedder.warm`) and the answer path's
        libraries (dateparser, simplemma's dictionary; `answer.detect.warm`) in a background thread, as a
        server should when it starts: otherwise the first question waits for them. Returns the thread."""
        def run() -> None:
            load = getattr(self.embedder, "warm", None)  # torch: a server embeds many new lines
            if callable(load):
                load()
            self.embedder.embed_query("warm up")
            detect.warm()

        t = threading.Thread(target=run, name="citewise-warm", daemon=True)
        t.start()
        return t

    def search(self, query: str, k: int = 10) -> list[Hit]:
        """The `k` best chunks for `query`, best first."""
        return self.searcher.search(query, k)

    def retrieve(self, question: str) -> list[Hit]:
        """The chunks an answer to `question` may quote, most likely answer first: the documents it
        names (people, titles, file names, rare facts) first, every person's best chunks for "who"
        questions, else the global top-k (see `answer.resolve`); then reordered by the reader's
        probability that a chunk holds the answer (`Reader.rank`; for "who" the people take turns, the
        ones the reader matches first)."""
        return self.reader.rank(question, self.retrieve_scoped(question)[0])

    def retrieve_scoped(self, question: str) -> tuple[list[Hit], str]:
        """The chunks an answer may quote in search order, and the note saying what the search was
        scoped to ("" when unscoped)."""
        answer = self.settings.answer
        return retrieve_hits(question, self.searcher, self.people, self.store, self.settings.k,
                             per_person=answer.per_person, person_k=answer.person_k)

    def ask(self, question: str, history: Sequence[Turn] = (), *, threshold: float | None = None) -> Answer:
        """A cited answer to `question` from the indexed documents (or an abstention).

        `history` (chat messages or (user, assistant) pairs) resolves follow-ups such as
        "What about his PhD?" before retrieval; `Answer.resolved` is the question actually answered.
        `threshold` (the default reader only): answer a fact question whose answerability is at least this
        rather than the fitted threshold (`citewise table` asks again with 0 for a cell its column vouches for).
        """
        resolved = resolve(question, history, self.people.names()) if history else " ".join(question.split())
        hits, scope = self.retrieve_scoped(resolved)
        if self.writer is not self.reader:  # another writer (an LLM) reads the reader's order, best first
            hits = self.reader.rank(resolved, hits)
            written = self.writer.write(resolved, hits)
        else:
            written = self.reader.write(resolved, hits, threshold=threshold)
        answer = verify_citations(written, hits)
        notes = (scope, *answer.notes) if scope else answer.notes
        return replace(answer, question=question, resolved=resolved, notes=notes)

    def table(self, fields: Sequence[Field] | None = None, people: Sequence[str] | None = None,
              progress: TableProgress | None = None, margin: float | None = COLUMN_MARGIN) -> Table:
        """A row per person (document owner), a cell per field: each field's question asked about each
        person and answered from their documents, with its value, confidence and citation; an empty
        cell where the reader abstains (see `assistant.table`). `fields`: default the `cv` preset;
        `people`: names in any written form (an unknown or ambiguous one is a `TableError`), default
        everyone; `progress(done, total, what)` is called after each cell; `margin`: a cell this many
        logits less sure than the median of its column is left empty, as is one whose passage lacks the word its
        column's surest answers hold (None: every answer kept)."""
        return self.table_of(pick_people(self.people.all(), people), fields, progress, margin)

    def table_of(self, people: Sequence[Person], fields: Sequence[Field] | None = None,
                 progress: TableProgress | None = None, margin: float | None = COLUMN_MARGIN) -> Table:
        """`table` for these `people` (`people.Person`s, e.g. from `Assistant.people.all()`); a cell its column
        vouches for that the reader left empty is asked again with `ask(question, threshold=0)`."""
        return build_table(self.ask, people, fields or choose_fields(), progress, margin,
                           reask=lambda question: self.ask(question, threshold=0.0))

    def profile(self, name: str, fields: Sequence[Field] | None = None) -> Row | None:
        """The person `name` names (any written form) as one row of the table, or None if nobody
        matches (or the name could be several people). A row alone has no column to be read against,
        so its cells are every answer the reader gives (`Assistant.table` with `margin=None`), the row read
        across (`columns.corroborated`: an empty cell filled when its answer at any confidence quotes the chunk
        a related filled cell quotes)."""
        person = self.people.find(name)
        if person is None:
            return None
        fields = tuple(fields or choose_fields())
        row = build_row(self.ask, person, fields)
        return corroborated(Table(fields, (row,)), lambda question: self.ask(question, threshold=0.0)).rows[0]

    def documents(self) -> list[DocRecord]:
        return self.store.documents()

    def chunk(self, chunk_id: str) -> StoredChunk | None:
        """The stored chunk `chunk_id` (text, doc, page, section), or None."""
        return self.store.chunk(chunk_id)

    def add(self, paths: Iterable[str | os.PathLike[str]], progress: Progress | None = None,
            workers: int | None = None) -> IndexReport:
        """Index more files into this assistant's index (incremental); `workers` as in `build_index`."""
        with self._write_lock:
            return index_paths(paths, self.store, self.embedder, chunk_size=self.settings.chunk_size,
                               chunk_overlap=self.settings.chunk_overlap, progress=progress,
                               workers=self.settings.workers if workers is None else workers)

    def remove(self, paths: Iterable[str]) -> list[str]:
        with self._write_lock:
            return remove_paths(paths, self.store)


def ask(question: str, index_dir: str | os.PathLike[str] | None = None) -> Answer:
    """One-off question: opens the index, answers, returns the `Answer`."""
    return Assistant.open(index_dir).ask(question)
