"""Retrieval: tokenizer, fusion, owner scoping, modes, restriction to documents, dedup, reranking.

Unit tests of pure functions need no model; search tests run the real model on the seed index.
Tests of the lexical index alone (BM25 against FTS5's, its connection) use a store of generated
text with the FAKE `HashEmbedder` (tests/index_helpers.py): SQLite, FTS5 and FAISS are the real ones.
"""

from __future__ import annotations

import random
import shutil
import threading
import time
from pathlib import Path

import pytest
from index_helpers import HashEmbedder

from index import Searcher, Store, fuse, index_paths
from index.lexical import match_query, terms
from index.rerank import CrossEncoderReranker, Reranker, RerankerError, reorder
from index.scope import find_scope
from index.search import MODES, Hit

PROFILES = Path(__file__).resolve().parent.parent / "examples" / "profiles"


# -- tokenizer ------------------------------------------------------------------------------------
def test_terms_keep_names_acronyms_and_numbers() -> None:
    assert terms("GNNs and FP8 at ICPP; GPA 3.94/4.00") == ["gnns", "fp8", "icpp", "gpa", "3.94", "4.00"]
    assert {"multi", "gpu", "multigpu"} <= set(terms("multi-GPU training"))
    assert {"c++", "c#", "b.eng"} <= set(terms("B.Eng., C++ and C#"))
    assert terms("Bartan's work") == ["bartan", "work"]
    assert terms("What is the capital of Australia?") == ["capital", "australia"]
    assert "it" in terms("the IT department") and "it" not in terms("it is")


def test_match_query_quotes_terms_and_handles_stopword_only_queries() -> None:
    assert match_query('What is "SIRD"?') == '"sird"'
    assert match_query("what is it") is None


# -- fusion ---------------------------------------------------------------------------------------
def test_rrf_matches_the_formula() -> None:
    fused = dict(fuse.rrf([[(1, 9.0), (2, 8.0)], [(2, 0.5), (3, 0.4)]], k=60))
    assert fused[2] == pytest.approx(1 / 62 + 1 / 61)
    assert fused[1] == pytest.approx(1 / 61) and fused[3] == pytest.approx(1 / 62)


def test_convex_gives_absent_lexical_ids_the_bm25_floor() -> None:
    dense = [(1, 0.9), (3, 0.8), (2, 0.5), (4, 0.1)]
    lexical = [(3, 7.0)]  # one chunk holds the rare query term
    ranked = fuse.convex([dense, lexical], [0.5, 0.5], "minmax", floors=[None, 0.0])
    assert ranked[0][0] == 3  # the exact match wins over the best dense-only chunk
    z = fuse.convex([dense, lexical], [0.5, 0.5], "z", floors=[None, 0.0])
    assert z[0][0] == 3
    with pytest.raises(ValueError, match="minmax, z"):
        fuse.convex([dense], [1.0], "nope")


def test_interleave_takes_turns() -> None:
    out = fuse.interleave([(1, 5.0), (2, 4.0), (3, 3.0), (4, 2.0)], {1: "a", 2: "a", 3: "b", 4: "b"})
    assert [i for i, _ in out] == [1, 3, 2, 4]


# -- owner scoping --------------------------------------------------------------------------------
OWNERS = {"Ada Lovelace": ["/d/ada.txt"], "Alan Turing": ["/d/alan.txt", "/d/alan2.txt"], "Li Wei": ["/d/li.txt"]}


def test_find_scope_names_owners_and_strips_their_names() -> None:
    s = find_scope("Where did Alan Turing's PhD happen?", OWNERS)
    assert s is not None and s.owners == ("Alan Turing",) and s.docs == ("/d/alan.txt", "/d/alan2.txt")
    assert s.query == "Where did PhD happen?"
    assert find_scope("who knows about turing machines", OWNERS) is None  # lower case, not a name
    assert find_scope("what did li wei publish", OWNERS).owners == ("Li Wei",)  # whole name, any case
    both = find_scope("Compare Lovelace and Turing", OWNERS)
    assert both.owners == ("Ada Lovelace", "Alan Turing")
    assert find_scope("Alan Turing", OWNERS, within=["/d/ada.txt"]) is None


# -- lexical index: document frequencies and its own connection ----------------------------------
_STEMS = ["network", "graph", "model", "train", "layer", "kernel", "cluster", "paper", "result", "method"]


@pytest.fixture(scope="module")
def zipf_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """200 generated documents whose words follow a Zipf law (plural forms included, for stemming)."""
    root = tmp_path_factory.mktemp("zipf")
    rng = random.Random(7)
    words = [w + s for w in _STEMS for s in ("", "s")] + [f"term{i}" for i in range(400)]
    weights = [1.0 / (i + 1) for i in range(len(words))]
    (root / "docs").mkdir()
    for i in range(200):
        paras = [" ".join(rng.choices(words, weights, k=50)) + "." for _ in range(3)]
        (root / "docs" / f"doc{i:03d}.txt").write_text(f"Note {i}\n\n" + "\n\n".join(paras) + "\n")
    emb = HashEmbedder()
    store = Store.create(root / "index", emb.name, emb.dim)
    index_paths([root / "docs"], store, emb)
    return store


def test_postings_rank_the_zipf_store_as_fts5_does(zipf_store: Store) -> None:
    """Stemmed plurals, very common and rare words: `index.postings` gives FTS5's `bm25()` ranking."""
    from test_postings import assert_same_ranking

    words = [w + s for w in _STEMS for s in ("", "s")] + [f"term{i}" for i in range(0, 400, 7)]
    rng = random.Random(3)
    for _ in range(60):
        q = " ".join(rng.sample(words, rng.randint(1, 6)))
        assert_same_ranking(zipf_store._db, q, 50, 1.0)
        assert_same_ranking(zipf_store._db, q, 10, 0.5)


def test_lexical_search_does_not_wait_for_the_store_lock(zipf_store: Store) -> None:
    first = zipf_store.lexical_search("network term5", 5)
    assert first
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with zipf_store._lock:  # as a long read or a refresh in another thread would
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(5)
        out: list = []
        searching = threading.Thread(target=lambda: out.append(zipf_store.lexical_search("network term5", 5)))
        searching.start()
        searching.join(5)
        assert out == [first]  # finished while the store lock was held, with the same answer
    finally:
        release.set()
        holder.join()


# -- search on the real seed index (real model) --------------------------------------------------
@pytest.fixture(scope="module")
def searcher(seed_index_dir: Path, embedder) -> Searcher:
    return Searcher(Store.open(seed_index_dir), embedder)


@pytest.mark.slow
@pytest.mark.parametrize("term", ["ICPP", "MG-GCN", "3.94", "TOEFL", "SIRD", "Netflix", "Pilanci"])
def test_exact_names_acronyms_and_numbers_retrieve_their_chunks(searcher: Searcher, term: str) -> None:
    lexical = searcher.search(term, k=3, mode="lexical")
    assert lexical and term.lower() in lexical[0].text.lower()
    default = searcher.search(f"What about {term}?", k=3)
    assert any(term.lower() in h.text.lower() for h in default)


@pytest.mark.slow
def test_modes_are_named_and_unknown_modes_list_them(searcher: Searcher) -> None:
    assert set(MODES) == {"dense", "lexical", "hybrid", "default"}
    for mode in MODES:
        hits = searcher.search("graph neural networks", k=5, mode=mode)
        assert [h.rank for h in hits] == [1, 2, 3, 4, 5]
        assert len({h.chunk_id for h in hits}) == 5
    with pytest.raises(ValueError, match="default, dense, hybrid, lexical"):
        searcher.search("x", mode="fancy")
    assert searcher.search("   ") == []


@pytest.mark.slow
def test_docs_restricts_every_mode(searcher: Searcher) -> None:
    docs = sorted({d.doc for d in searcher.store.documents()})
    one = [docs[1]]
    for mode in MODES:
        hits = searcher.search("experience and publications", k=8, mode=mode, docs=one)
        assert hits and all(h.doc == one[0] for h in hits)
    assert searcher.search("anything", docs=[]) == []
    t = time.perf_counter()
    for _ in range(5):
        searcher.search("publications on GPUs", k=4, docs=one)
    assert (time.perf_counter() - t) / 5 < 2.0  # per-person retrieval stays interactive (loose bound)


@pytest.mark.slow
def test_a_question_naming_a_person_searches_their_documents(searcher: Searcher) -> None:
    owners = searcher.store.owner_docs()
    assert owners, "the seed profiles have owners"
    for owner, paths in owners.items():
        hits = searcher.search(f"Where did {owner} study?", k=4)
        assert hits[0].doc in paths


@pytest.mark.slow
def test_duplicate_files_are_shown_once(tmp_path: Path, embedder) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    src = sorted(PROFILES.iterdir())[2]
    shutil.copy(src, docs / "a.txt")
    shutil.copy(src, docs / "b.txt")
    (docs / "b.txt").write_text((docs / "b.txt").read_text() + "\n")  # other sha, same chunk texts
    store = Store.create(tmp_path / "index", embedder.name, embedder.dim)
    index_paths([docs], store, embedder)
    hits = Searcher(store, embedder).search("Netflix internship", k=10)
    texts = [h.text for h in hits]
    assert len(texts) == len(set(texts))


@pytest.mark.slow
def test_the_query_is_embedded_before_the_lexical_query_starts(seed_index_dir: Path, embedder, monkeypatch) -> None:
    """Nothing runs beside the embedding: torch's OpenMP workers and an FTS5 query slow each other down."""
    store = Store.open(seed_index_dir)
    events: list[str] = []

    class Recording:
        name, dim = embedder.name, embedder.dim

        def embed_documents(self, texts):
            return embedder.embed_documents(texts)

        def embed_query(self, text: str):
            events.append("embedding")
            vec = embedder.embed_query(text)
            events.append("embedded")
            return vec

    search_lexical = store.lexical_search

    def recorded(*args, **kwargs):
        events.append("lexical")
        return search_lexical(*args, **kwargs)

    monkeypatch.setattr(store, "lexical_search", recorded)
    hits = Searcher(store, Recording()).search("graph neural networks", k=5)
    assert hits and events == ["embedding", "embedded", "lexical"]


# -- reranker seam --------------------------------------------------------------------------------
class ReverseReranker:
    """FAKE reranker (no cross-encoder can load offline): scores a hit by its reverse first-stage rank."""

    def __init__(self) -> None:
        self.calls = 0

    def rerank(self, query: str, hits: list[Hit]) -> list[Hit]:
        self.calls += 1
        return reorder(hits, [float(h.rank) for h in hits])


@pytest.mark.slow
def test_reranker_seam_reorders_the_candidates(seed_index_dir: Path, embedder) -> None:
    fake = ReverseReranker()
    assert isinstance(fake, Reranker)
    store = Store.open(seed_index_dir)
    plain = Searcher(store, embedder).search("graph neural networks", k=30)
    reranked = Searcher(store, embedder, reranker=fake, rerank_depth=30).search("graph neural networks", k=5)
    assert fake.calls == 1
    assert [h.chunk_id for h in reranked] == [h.chunk_id for h in plain[::-1][:5]]
    assert [h.rank for h in reranked] == [1, 2, 3, 4, 5]
    # Only the first rerank_depth candidates are re-scored; past them, the first stage's order.
    deeper = Searcher(store, embedder, reranker=fake, rerank_depth=3).search("graph neural networks", k=6)
    assert [h.chunk_id for h in deeper] == [h.chunk_id for h in plain[2::-1] + plain[3:6]]
    assert [h.rank for h in deeper] == [1, 2, 3, 4, 5, 6]


def test_cross_encoder_reranker_names_a_missing_model(tmp_path: Path) -> None:
    reranker = CrossEncoderReranker(str(tmp_path / "no-model"))
    hit = Hit(1, "c", "d", None, "", "text", 1.0)
    with pytest.raises(RerankerError, match=str(tmp_path / "no-model")):
        reranker.rerank("q", [hit])
    assert reranker.rerank("q", []) == []


# -- rare identifiers -----------------------------------------------------------------------------
def test_promote_rare_lifts_identifier_chunks_above_dense_only_ones() -> None:
    from index.search import promote_rare

    fused = [(1, 0.9), (2, 0.8), (3, 0.7), (4, 0.6), (5, 0.5)]
    lex = [(1, 3.0), (5, 9.0)]  # 5 holds the rare term; 2, 3, 4 matched no query term at all
    out = promote_rare(fused, lex, {5})
    assert [i for i, _ in out] == [1, 5, 2, 3, 4]
    assert [s for _, s in out] == sorted((s for _, s in out), reverse=True)
    assert promote_rare(fused, lex, set()) == fused
    assert promote_rare(fused, [(1, 1.0), (2, 1.0), (3, 1.0), (4, 1.0), (5, 1.0)], {5}) == fused  # all matched


@pytest.mark.slow
def test_a_rare_identifier_is_never_outranked_by_dense_only_neighbours(tmp_path: Path, embedder) -> None:
    """Twelve near-identical reports; the question names the registration of one of them."""
    docs = tmp_path / "docs"
    docs.mkdir()
    rng = random.Random(4)
    regs = [f"N{rng.randint(1000, 9999)}{rng.choice('XYZ')}" for _ in range(12)]
    for n, reg in enumerate(regs):
        (docs / f"report{n}.txt").write_text(
            f"Accident report {n}\n\nThe pilot of a small airplane lost control during landing on a gravel "
            f"strip; the airplane nosed over and was substantially damaged. Nobody was hurt.\n\n"
            f"Aircraft details\n\nRegistration: {reg}. Engine: piston, {rng.randint(100, 300)} hp.\n")
    store = Store.create(tmp_path / "index", embedder.name, embedder.dim)
    index_paths([docs], store, embedder)
    searcher = Searcher(store, embedder)
    from index.lexical import rare_matches

    db, lock = store._lexical_db()
    for reg in regs[:4]:
        with lock:
            assert rare_matches(db, f"Who flew {reg}?", 3)  # the identifier is rare; "flew" is in no chunk
        hits = searcher.search(f"What happened to the airplane {reg} when it landed?", k=4)
        query = f"What happened to the airplane {reg} when it landed?"
        first_with = next(h.rank for h in hits if reg in h.text)
        matched = {store.chunks_by_ids([i])[i].chunk_id for i, _ in store.lexical_search(query, 100)}
        assert all(h.chunk_id in matched for h in hits[: first_with - 1])  # nothing dense-only above it
