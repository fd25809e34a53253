"""LangChain interop: `CitewiseRetriever`, a `BaseRetriever` over a citewise index.

    from assistant import Assistant
    from assistant.langchain import CitewiseRetriever
    retriever = CitewiseRetriever(assistant=Assistant.open("./my-index"), k=6)
    docs = retriever.invoke("Who has worked on graph neural networks?")

Each `Document` is one retrieved chunk; `metadata` carries doc, page, section, chunk_id, owner, title,
rank and score, so a chain can cite it. Retrieval is the assistant's own (person-aware: a question
naming a person searches that person's documents; a "who" question searches every person).
Needs `langchain-core` (`pip install citewise[llm]`). Left out: async retrieval beyond LangChain's
default thread offloading, and writing back to the index.
"""

from __future__ import annotations

from typing import Any

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError as exc:  # pragma: no cover - depends on the extra
    raise ImportError("assistant.langchain needs langchain-core: pip install 'citewise[llm]'") from exc

from index import Hit


def to_document(hit: Hit) -> Document:
    return Document(
        page_content=hit.text,
        metadata={"doc": hit.doc, "page": hit.page, "section": hit.section, "chunk_id": hit.chunk_id,
                  "owner": hit.owner, "title": hit.title, "rank": hit.rank, "score": hit.score},
    )


class CitewiseRetriever(BaseRetriever):
    """Chunks of a citewise index as LangChain `Document`s (see the module docstring)."""

    assistant: Any  # an `assistant.Assistant`
    k: int = 10  # at most this many documents (person-aware retrieval may look at more)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return [to_document(h) for h in self.assistant.retrieve(query)[: self.k]]
