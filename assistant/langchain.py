"""LangChain interop: `CitewiseRetriever`, a `BaseRetriever` over a citewise index.

    from assistant import Assistant
    from assistant.langchain import CitewiseRetriever
    retriever = CitewiseRetriever(assistant=Assistant.open("./my-index"), k=6)
    docs = retriever.invoke("Who has worked on graph neural networks?")
    docs = retriever.invoke("PhD", k=3, filter={"owner": "Bartan"})

Each `Document` is one retrieved chunk: `id` is the chunk id and `metadata` always has the same keys
(`METADATA_KEYS`: source, doc, title, owner, page, section, chunk_id, rank, score), so a chain can cite
it. Without a filter, retrieval is the assistant's own (person-aware: a question naming a person
searches that person's documents; a "who" question searches every person, and the people take turns,
those the reader matches first, so a small `k` still shows several people), topped up from the whole index when
it gives fewer than `k` chunks. `k` and `filter` may be set on the retriever or passed to `invoke`.

A filter maps metadata keys to a value or a list of allowed values: `doc`/`source` (document path),
`owner` (any written form of the person's name), `title` narrow the documents searched; `page` and
`section` keep matching chunks of a deeper search. The async path runs the same search in a thread.
Left out: writing back to the index, and filters on `score`/`rank`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import Field

from index import Hit

METADATA_KEYS = ("source", "doc", "title", "owner", "page", "section", "chunk_id", "rank", "score")
DOC_FILTERS = ("doc", "source", "owner", "title")  # narrow the documents searched
CHUNK_FILTERS = ("page", "section")  # kept from a deeper search
FILTER_KEYS = DOC_FILTERS + CHUNK_FILTERS
CHUNK_FILTER_DEPTH = 5  # a page/section filter looks at k * this many candidates


class FilterError(ValueError):
    """A filter names a key the retriever cannot filter on."""


def to_document(hit: Hit, rank: int | None = None) -> Document:
    """One hit as a `Document` with the `METADATA_KEYS` metadata; `rank` renumbers it (1-based)."""
    meta = {"source": hit.doc, "doc": hit.doc, "title": hit.title, "owner": hit.owner, "page": hit.page,
            "section": hit.section, "chunk_id": hit.chunk_id, "rank": rank or hit.rank,
            "score": round(float(hit.score), 6)}
    return Document(id=hit.chunk_id, page_content=hit.text, metadata=meta)


def _allowed(value: Any) -> set[Any]:
    return set(value) if isinstance(value, list | tuple | set | frozenset) else {value}


def check_filter(flt: Mapping[str, Any] | None) -> dict[str, set[Any]]:
    """The filter as key -> allowed values; an unknown key is a `FilterError` naming the known ones."""
    out: dict[str, set[Any]] = {}
    for key, value in (flt or {}).items():
        if key not in FILTER_KEYS:
            raise FilterError(f"cannot filter on {key!r}; filter on one of: {', '.join(FILTER_KEYS)}")
        out[key] = _allowed(value)
    return out


class CitewiseRetriever(BaseRetriever):
    """Chunks of a citewise index as LangChain `Document`s (see the module docstring)."""

    assistant: Any  # an `assistant.Assistant`
    k: int = Field(default=10, ge=1, description="documents returned")
    filter: dict[str, Any] | None = Field(default=None, description="metadata key -> value or list of values")

    def _docs_for(self, flt: dict[str, set[Any]]) -> list[str] | None:
        """Document paths the doc-level filters allow (None: no doc-level filter)."""
        if not set(flt) & set(DOC_FILTERS):
            return None
        records = self.assistant.documents()
        allowed = {r.doc for r in records}
        for key in ("doc", "source"):
            if key in flt:
                allowed &= {str(v) for v in flt[key]}
        if "title" in flt:
            allowed &= {r.doc for r in records if r.title in flt["title"]}
        if "owner" in flt:
            owned: set[str] = set()
            for name in flt["owner"]:
                person = self.assistant.people.find(str(name)) if name else None
                owned |= set(person.docs) if person else {r.doc for r in records if r.owner == name}
            allowed &= owned
        return sorted(allowed)

    def _search(self, query: str, k: int, flt: dict[str, set[Any]]) -> list[Hit]:
        docs = self._docs_for(flt)
        if docs is not None and not docs:
            return []
        if not flt:
            hits = self.assistant.retrieve(query)  # a "who" question's people already take turns
            if len(hits) < k:  # person-aware retrieval gave fewer: the rest from the whole index
                seen = {h.chunk_id for h in hits}
                hits += [h for h in self.assistant.search(query, k) if h.chunk_id not in seen]
            return hits[:k]
        chunk_level = set(flt) & set(CHUNK_FILTERS)
        depth = k * CHUNK_FILTER_DEPTH if chunk_level else k
        hits = self.assistant.searcher.search(query, depth, docs=docs)
        return [h for h in hits if all(getattr(h, key) in flt[key] for key in chunk_level)][:k]

    def documents_for(self, query: str, k: int | None = None,
                      filter: Mapping[str, Any] | None = None) -> list[Document]:
        """The `k` best chunks for `query` as `Document`s (defaults: the retriever's `k` and `filter`)."""
        k = self.k if k is None else k
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        hits = self._search(query, k, check_filter(self.filter if filter is None else filter))
        return [to_document(h, rank) for rank, h in enumerate(hits, 1)]

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                k: int | None = None, filter: Mapping[str, Any] | None = None) -> list[Document]:
        return self.documents_for(query, k, filter)

    async def _aget_relevant_documents(self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun,
                                       k: int | None = None, filter: Mapping[str, Any] | None = None) -> list[Document]:
        return await asyncio.to_thread(self.documents_for, query, k, filter)


def format_docs(docs: Iterable[Document]) -> str:
    """Documents as numbered passages naming their source, for a prompt: `[1] (cv.pdf p. 2) text`."""
    lines = []
    for i, d in enumerate(docs, 1):
        m = d.metadata
        where = str(m.get("doc", "")).rsplit("/", 1)[-1] + (f" p. {m['page']}" if m.get("page") else "")
        lines.append(f"[{i}] ({where}) {d.page_content}")
    return "\n\n".join(lines)
