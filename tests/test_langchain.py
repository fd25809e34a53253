"""CitewiseRetriever: LangChain's own standard retriever suite, `k`, filters, metadata, async, and the README
chain, all on the real seed index (real MiniLM embedder, FAISS, SQLite)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from conftest import REPO
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.retrievers import BaseRetriever
from langchain_tests.integration_tests import RetrieversIntegrationTests

from assistant.langchain import METADATA_KEYS, CitewiseRetriever, FilterError, to_document
from index import Hit

pytestmark = pytest.mark.slow

QUERY = "graph neural networks"


class TestCitewiseRetrieverStandard(RetrieversIntegrationTests):
    """LangChain's standard retriever tests, unchanged, on the seed index."""

    @pytest.fixture(autouse=True)
    def _seed(self, seed_assistant: Any) -> None:
        self._assistant = seed_assistant

    @property
    def retriever_constructor(self) -> type[BaseRetriever]:
        return CitewiseRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"assistant": self._assistant}

    @property
    def retriever_query_example(self) -> str:
        return QUERY


def test_invoke_honours_k_above_and_below_the_assistant_default(seed_assistant: Any) -> None:
    retriever = CitewiseRetriever(assistant=seed_assistant, k=2)
    assert len(retriever.invoke(QUERY)) == 2
    for k in (1, 5, seed_assistant.settings.k + 7):
        docs = retriever.invoke(QUERY, k=k)
        assert len(docs) == k
        assert len({d.id for d in docs}) == k  # no chunk twice
    with pytest.raises(ValueError, match="k must be at least 1"):
        retriever.invoke(QUERY, k=0)


def test_documents_have_stable_metadata(seed_assistant: Any) -> None:
    retriever = CitewiseRetriever(assistant=seed_assistant, k=6)
    docs = retriever.invoke("Where did Muhammed Fatih Balin do his PhD?")
    again = retriever.invoke("Where did Muhammed Fatih Balin do his PhD?")
    assert [d.id for d in docs] == [d.id for d in again]  # same question, same documents
    for rank, d in enumerate(docs, 1):
        assert tuple(d.metadata) == METADATA_KEYS
        assert d.id == d.metadata["chunk_id"]
        assert d.metadata["rank"] == rank
        assert d.metadata["source"] == d.metadata["doc"]
        stored = seed_assistant.chunk(d.id)
        assert stored.text == d.page_content and stored.doc == d.metadata["doc"]
        assert d.metadata["owner"] == "Muhammed Fatih Balin"  # person-aware: only his documents


def owned(seed_assistant: Any) -> tuple[str, set[str]]:
    """A seed document owner (full name as stored) and the documents they own."""
    owners = sorted({r.owner for r in seed_assistant.documents() if r.owner})
    assert owners, "the seed index has no document owner"
    return owners[0], {r.doc for r in seed_assistant.documents() if r.owner == owners[0]}


def test_filter_by_owner_in_any_written_form(seed_assistant: Any) -> None:
    owner, docs_of = owned(seed_assistant)
    retriever = CitewiseRetriever(assistant=seed_assistant, k=4)
    for name in (owner, owner.split()[-1]):  # "Jane Q. Doe" and "Doe"
        docs = retriever.invoke(QUERY, filter={"owner": name})
        assert len(docs) == 4
        assert {d.metadata["doc"] for d in docs} <= docs_of and {d.metadata["owner"] for d in docs} == {owner}
    unfiltered = retriever.invoke(QUERY, k=30)
    assert {d.metadata["doc"] for d in unfiltered} - docs_of  # the filter is what narrowed it
    assert retriever.invoke(QUERY, filter={"owner": "Nobody Known"}) == []


def test_filter_by_document_page_and_section(seed_assistant: Any) -> None:
    records = seed_assistant.documents()
    one, two = records[0].doc, records[1].doc
    retriever = CitewiseRetriever(assistant=seed_assistant, k=5, filter={"doc": one})
    assert {d.metadata["doc"] for d in retriever.invoke(QUERY)} == {one}  # the retriever's own filter
    both = retriever.invoke(QUERY, k=8, filter={"source": [one, two]})  # a per-call filter replaces it
    assert {d.metadata["doc"] for d in both} <= {one, two} and len(both) == 8
    section = both[0].metadata["section"]
    in_section = retriever.invoke(QUERY, filter={"doc": both[0].metadata["doc"], "section": section})
    assert in_section and all(d.metadata["section"] == section for d in in_section)
    by_title = retriever.invoke(QUERY, filter={"title": records[2].title})
    assert {d.metadata["doc"] for d in by_title} == {records[2].doc}
    with pytest.raises(FilterError, match="cannot filter on 'score'.*owner"):
        retriever.invoke(QUERY, filter={"score": 1.0})


def test_who_question_takes_turns_between_people(seed_assistant: Any) -> None:
    """A "who" question searches every person; a small k still shows more than one of them: the people
    the answer lists, taking turns."""
    docs = CitewiseRetriever(assistant=seed_assistant, k=3).invoke("Who has a PhD?")
    listed = {d for p in seed_assistant.ask("Who has a PhD?").people for d in p.docs}
    assert len(listed) >= 2 and {d.metadata["doc"] for d in docs} == listed
    assert docs[0].metadata["doc"] != docs[1].metadata["doc"]


def test_to_document_takes_the_rank_given() -> None:
    hit = Hit(2, "b2", "b", None, "", "t", 0.5)
    assert to_document(hit, rank=7).metadata["rank"] == 7


def test_async_path_matches_sync(seed_assistant: Any) -> None:
    retriever = CitewiseRetriever(assistant=seed_assistant, k=3)
    owner, _ = owned(seed_assistant)

    async def both() -> list[list[Document]]:
        return list(await asyncio.gather(retriever.ainvoke(QUERY, k=2),
                                         retriever.ainvoke(QUERY, filter={"owner": owner})))

    fast, filtered = asyncio.run(both())
    assert [d.id for d in fast] == [d.id for d in retriever.invoke(QUERY, k=2)]
    assert [d.id for d in filtered] == [d.id for d in retriever.invoke(QUERY, filter={"owner": owner})]
    assert len(filtered) == 3 and {d.metadata["owner"] for d in filtered} == {owner}


def readme_chain() -> str:
    text = (REPO / "README.md").read_text()
    found = re.search(r"<!-- langchain-chain -->\n```python\n(.*?)```", text, re.S)
    assert found, "README has no <!-- langchain-chain --> python block"
    return found.group(1)


class Prompts(BaseCallbackHandler):
    """Records the messages a chat model was given."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.seen.extend(messages)


@pytest.mark.parametrize("fake", ["list", "generic"])
def test_readme_chain_runs_with_a_fake_chat_model(fake: str, seed_index_dir: Any, capsys: Any) -> None:
    """The README's chain block, exactly, with the index path pointed at the seed index."""
    prompts = Prompts()
    reply = "Georgia Institute of Technology [1]"
    llm = (FakeListChatModel(responses=[reply], callbacks=[prompts]) if fake == "list"
           else GenericFakeChatModel(messages=iter([AIMessage(content=reply)]), callbacks=[prompts]))
    code = readme_chain().replace('"/tmp/readme-idx"', repr(str(seed_index_dir)))
    exec(compile(code, "README.md", "exec"), {"llm": llm})
    assert capsys.readouterr().out.strip() == reply
    (messages,) = prompts.seen
    system, human = messages[0].content, messages[-1].content
    assert human == "Where did Muhammed Fatih Balin do his PhD?"
    assert system.count("[1] (") == 1 and "[4] (" in system  # the k=4 passages, numbered
    assert "Georgia Institute of Technology" in system  # the passage that holds the answer reached the model
