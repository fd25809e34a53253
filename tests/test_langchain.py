"""CitewiseRetriever: a real LangChain BaseRetriever over the real seed index."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_core")

from langchain_core.retrievers import BaseRetriever  # noqa: E402

from assistant.langchain import CitewiseRetriever  # noqa: E402

pytestmark = pytest.mark.slow


def test_retriever_returns_documents_with_citewise_metadata(seed_assistant):
    retriever = CitewiseRetriever(assistant=seed_assistant, k=4)
    assert isinstance(retriever, BaseRetriever)
    docs = retriever.invoke("What is Burak Bartan's h-index?")
    assert 0 < len(docs) <= 4
    for d in docs:
        assert {"doc", "page", "section", "chunk_id", "owner", "score"} <= d.metadata.keys()
        assert d.metadata["owner"] == "Burak Bartan"  # person-aware: only his documents
        assert seed_assistant.chunk(d.metadata["chunk_id"]).text == d.page_content


def test_retriever_in_a_runnable_chain(seed_assistant):
    from langchain_core.runnables import RunnableLambda

    chain = CitewiseRetriever(assistant=seed_assistant, k=3) | RunnableLambda(lambda ds: [d.metadata["doc"] for d in ds])
    assert chain.invoke("Who has worked at Netflix?")
