"""The `VectorStore` contract, run against both implementations: FAISS and Milvus (milvus-lite).

Real components throughout: the real embedding model over the seed profiles, real FAISS, a real
milvus-lite collection, real SQLite. Every test runs once per store; the two must agree. The
model's vectors are memoised per text (`Memo`) so that a dozen builds embed the seeds once.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import PROFILES, REPO

from index import Store, index_paths, remove_paths
from index.errors import VectorStoreError
from index.vector_store import VectorConfig

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")

STORES = ["faiss", "milvus"]
QUERY = "graph neural networks on GPUs"


class Memo:
    """The real embedder, remembering the vector of each text it has embedded (same outputs)."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.seen: dict[str, np.ndarray] = {}

    def embed_documents(self, texts):
        todo = [t for t in dict.fromkeys(texts) if t not in self.seen]
        if todo:
            self.seen.update(zip(todo, self.inner.embed_documents(todo), strict=True))
        return np.vstack([self.seen[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text):
        return self.inner.embed_query(text)


@pytest.fixture(scope="module")
def embedder(embedder):  # noqa: F811  # the session's real model, memoised for this module
    return Memo(embedder)


def _build(tmp_path: Path, store: str, embedder, files: Path = PROFILES) -> Store:
    s = Store.create(tmp_path / "index", embedder.name, embedder.dim, vectors=VectorConfig(store))
    index_paths([files], s, embedder)
    return s


def _chunk_docs(s: Store) -> dict[int, str]:
    return {c.id: c.doc for d in s.documents() for c in s.chunks_of(d.doc)}


@pytest.fixture(scope="module")
def faiss_reference(tmp_path_factory: pytest.TempPathFactory, embedder) -> list[tuple[int, float]]:
    s = _build(tmp_path_factory.mktemp("reference"), "faiss", embedder)
    try:
        return s.dense_search(embedder.embed_query(QUERY), 10)
    finally:
        s.close()


@pytest.mark.parametrize("kind", STORES)
def test_add_and_search_agree_with_exact_faiss(tmp_path: Path, embedder, kind: str, faiss_reference) -> None:
    s = _build(tmp_path, kind, embedder)
    assert s.stats()["vector_store"] == kind
    n_chunks = sum(d.chunks for d in s.documents())
    assert s.vector_count == n_chunks > 50
    assert s.check_vectors().ok
    hits = s.dense_search(embedder.embed_query(QUERY), 10)
    assert [i for i, _ in hits] == [i for i, _ in faiss_reference]
    assert np.allclose([x for _, x in hits], [x for _, x in faiss_reference], atol=1e-5)
    s.close()


@pytest.mark.parametrize("kind", STORES)
def test_delete_removes_vectors(tmp_path: Path, embedder, kind: str) -> None:
    s = _build(tmp_path, kind, embedder)
    before = _chunk_docs(s)
    victim = next(d.doc for d in s.documents() if "000_" in d.doc)
    gone = {i for i, d in before.items() if d == victim}
    remove_paths([victim], s)
    assert s.vector_count == len(before) - len(gone)
    assert s.check_vectors().ok
    found = {i for i, _ in s.dense_search(embedder.embed_query(QUERY), 200)}
    assert found and not found & gone
    s.close()


@pytest.mark.parametrize("kind", STORES)
def test_filters_by_document_and_owner(tmp_path: Path, embedder, kind: str) -> None:
    s = _build(tmp_path, kind, embedder)
    chunk_doc = _chunk_docs(s)
    q = embedder.embed_query(QUERY)
    docs = [d.doc for d in s.documents()]
    for doc in docs:
        hits = s.dense_search_in(q, [doc], 5)
        assert hits and {chunk_doc[i] for i, _ in hits} == {doc}
        # Exactly the best five of that document, as the exact search over its stored vectors finds them.
        expected = sorted(((float(s.vectors([i])[0] @ q), i) for i, d in chunk_doc.items() if d == doc), reverse=True)
        assert [i for i, _ in hits] == [i for _, i in expected[:5]]
    owners = s.owner_docs()
    assert owners, "the seed profiles have owners"
    for owner, owned in owners.items():
        hits = s.dense_search_owner(q, owner, 8)
        assert hits and {chunk_doc[i] for i, _ in hits} <= set(owned)
    assert s.dense_search_in(q, ["/no/such/file.txt"], 5) == []
    s.close()


@pytest.mark.parametrize("kind", STORES)
def test_changed_file_replaces_its_vectors(tmp_path: Path, embedder, kind: str) -> None:
    folder = tmp_path / "docs"
    shutil.copytree(PROFILES, folder)
    s = _build(tmp_path, kind, embedder, folder)
    target = sorted(folder.iterdir())[0]
    target.write_text(target.read_text() + "\nAlso maintains KestrelDB, a columnar time-series engine.\n")
    index_paths([folder], s, embedder)
    assert s.check_vectors().ok
    assert s.vector_count == sum(d.chunks for d in s.documents())
    hit = s.dense_search(embedder.embed_query("KestrelDB columnar time-series engine"), 1)[0][0]
    assert "KestrelDB" in s.chunks_by_ids([hit])[hit].text
    s.close()


SEARCH_IN_CHILD = """
import json, sys
import numpy as np
from index import Store
s = Store.open(sys.argv[1])
q = np.array(json.loads(sys.argv[2]), dtype=np.float32)
print(json.dumps({"stats": s.stats(), "hits": s.dense_search(q, 5)}))
"""


@pytest.mark.parametrize("kind", STORES)
def test_persists_across_restarts(tmp_path: Path, embedder, kind: str) -> None:
    s = _build(tmp_path, kind, embedder)
    q = embedder.embed_query(QUERY)
    expected = s.dense_search(q, 5)
    n = s.vector_count
    s.close()  # milvus-lite: one process at a time
    moved = tmp_path / "moved"  # and the index directory can move
    shutil.move(tmp_path / "index", moved)
    out = subprocess.run([sys.executable, "-c", SEARCH_IN_CHILD, str(moved), json.dumps(q.tolist())], cwd=REPO,
                         capture_output=True, text=True, timeout=180, check=True)
    child = json.loads(out.stdout.strip().splitlines()[-1])
    assert child["stats"]["vector_store"] == kind and child["stats"]["vectors"] == n
    assert [h[0] for h in child["hits"]] == [i for i, _ in expected]


def test_store_choice_is_recorded_and_enforced(tmp_path: Path, embedder) -> None:
    s = _build(tmp_path, "milvus", embedder)
    s.close()
    manifest = json.loads((tmp_path / "index" / "manifest.json").read_text())
    assert manifest["vectors"]["store"] == "milvus"
    assert manifest["vectors"]["uri"] == "milvus.db"  # inside the index directory: relative, the index can move
    assert "token" not in json.dumps(manifest)
    with pytest.raises(VectorStoreError, match="keeps its vectors in the Milvus collection"):
        Store.open(tmp_path / "index", vectors=VectorConfig("faiss"))
    again = Store.open(tmp_path / "index")  # no choice given: the index's own store
    assert again.stats()["vector_store"] == "milvus"
    again.close()


def test_new_index_refuses_a_collection_holding_other_vectors(tmp_path: Path, embedder) -> None:
    uri = str(tmp_path / "shared-milvus.db")
    first = Store.create(tmp_path / "a", embedder.name, embedder.dim,
                         vectors=VectorConfig("milvus", uri=uri, collection="team"))
    index_paths([PROFILES], first, embedder)
    first.close()
    with pytest.raises(VectorStoreError, match="already holds"):
        Store.create(tmp_path / "b", embedder.name, embedder.dim,
                     vectors=VectorConfig("milvus", uri=uri, collection="team"))
    assert not (tmp_path / "b" / "manifest.json").exists()


def test_milvus_collection_left_without_its_index_reopens(tmp_path: Path, embedder) -> None:
    """A crash between dropping the FLAT index and creating HNSW (the switch at 20,000 vectors)."""
    s = _build(tmp_path, "milvus", embedder)
    expected = s.dense_search(embedder.embed_query(QUERY), 5)
    vs = s.vector_store
    vs.client.release_collection(vs.collection)  # type: ignore[attr-defined]
    vs.client.drop_index(vs.collection, "vector")  # type: ignore[attr-defined]
    s.close()
    again = Store.open(tmp_path / "index")
    assert again.stats()["vector_index"] == "flat"
    assert again.dense_search(embedder.embed_query(QUERY), 5) == expected
    again.close()
