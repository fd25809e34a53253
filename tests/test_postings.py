"""The BM25 postings (`index.postings`): FTS5's own `bm25()` is the reference they must equal.

Real SQLite and FTS5 throughout. Where a store is built, its vectors come from the FAKE
`HashEmbedder` (tests/index_helpers.py): the lexical side never reads them, and the real model
would only make these tests slower. The seed profiles and Cranfield abstracts are real text.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from conftest import CRANFIELD, require_shared
from index_helpers import HashEmbedder, write_docs

from index import Store, index_paths, lexical, postings, remove_paths
from index.beir import load_beir, write_corpus

PROFILES = Path(__file__).resolve().parent.parent / "examples" / "profiles"


def assert_same_ranking(db: sqlite3.Connection, query: str, k: int, weight: float) -> int:
    """`lexical.search` (postings) against FTS5's `bm25()`: equal scores rank by rank, and equal ids
    above the last score (ties at the cut may be cut differently). Returns the hits compared."""
    ours = lexical.search(db, query, k, context_weight=weight, k1=postings.FTS5_K1)
    ref = lexical.fts5_search(db, query, k, context_weight=weight)
    assert len(ours) == len(ref), query
    np.testing.assert_allclose([s for _, s in ours], [s for _, s in ref], rtol=1e-9, err_msg=query)
    if ours:
        cut = ref[-1][1] * (1 + 1e-9)
        assert {i for i, s in ours if s > cut} == {i for i, s in ref if s > cut}, query
    return len(ours)


def _build(folder: Path, where: Path) -> Store:
    emb = HashEmbedder()
    store = Store.create(where, emb.name, emb.dim)
    index_paths([folder], store, emb)
    return store


def _words(store: Store, n: int, seed: int) -> list[str]:
    text = " ".join(r[0] for r in store._db.execute("SELECT text FROM chunks"))
    vocab = sorted(set(lexical.terms(text)))
    return random.Random(seed).sample(vocab, min(n, len(vocab)))


def test_postings_rank_the_seed_profiles_as_fts5_does(tmp_path: Path) -> None:
    store = _build(PROFILES, tmp_path / "index")
    db = store._db
    words = _words(store, 120, 1)
    rng = random.Random(2)
    queries = ["Who has worked on graph neural networks?", "Where did Balin do his PhD?", "What is KForge?",
               "graph networks; networks of graph research",  # repeated terms count twice in both
               "GNN FP8 ICPP 3.94", "networks", "c++ and c#", "naïve Bartan's"]
    queries += [" ".join(rng.sample(words, rng.randint(1, 6))) for _ in range(80)]
    compared = sum(assert_same_ranking(db, q, k, w) for q in queries for k, w in ((10, 1.0), (50, 0.5)))
    assert compared > 1500  # most queries fill k: the comparison covers whole rankings


def test_postings_rank_cranfield_as_fts5_does(tmp_path: Path) -> None:
    data = load_beir(require_shared(CRANFIELD))
    write_corpus(data, tmp_path / "corpus")
    store = _build(tmp_path / "corpus", tmp_path / "index")
    db = store._db
    for q in list(data.queries.values()):
        assert_same_ranking(db, q, 100, 1.0)
    for q in list(data.queries.values())[::5]:
        assert_same_ranking(db, q, 100, 0.5)


def test_restricting_to_documents_equals_fts5_restricted(tmp_path: Path) -> None:
    store = _build(PROFILES, tmp_path / "index")
    db = store._db
    doc_ids = [r[0] for r in db.execute("SELECT doc_id FROM documents ORDER BY path LIMIT 2")]
    q = "research graph training systems university"
    ours = lexical.search(db, q, 500, context_weight=1.0, doc_ids=doc_ids, k1=postings.FTS5_K1)
    inside = {r[0] for r in db.execute(
        f"SELECT id FROM chunks WHERE doc_id IN ({','.join('?' * len(doc_ids))})", doc_ids)}
    ref = [(i, s) for i, s in lexical.fts5_search(db, q, 10_000, context_weight=1.0) if i in inside]
    assert ours and {i for i, _ in ours} == {i for i, _ in ref}
    np.testing.assert_allclose(sorted(s for _, s in ours), sorted(s for _, s in ref), rtol=1e-9)
    assert lexical.search(db, q, 10, doc_ids=[]) == []


def _canonical(db: sqlite3.Connection) -> tuple[dict[str, list[tuple[int, int, int, int]]], tuple[int, int]]:
    """The postings by term with chunk ids in place of row numbers (which differ between builds)."""
    id_of = dict(db.execute(f"SELECT row, id FROM {postings.ROWS}").fetchall())
    out = {}
    for term, blob in db.execute(f"SELECT term, data FROM {postings.TABLE}"):
        cols = postings._columns(blob)
        out[term] = sorted(zip([id_of[int(r)] for r in cols["row"]], cols["text"].tolist(),
                               cols["context"].tolist(), cols["length"].tolist(), strict=True))
    n, tokens, _ = postings._stats(db)
    return out, (n, tokens)


def test_incremental_updates_equal_a_rebuild(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    files = write_docs(docs, 12)
    store = _build(docs, tmp_path / "index")
    emb = HashEmbedder()
    rng = random.Random(5)
    for round_ in range(4):  # rewrite some files, delete some, add some, re-index each time
        for f in rng.sample(files, 3):
            if f.exists():
                f.write_text(f.read_text() + f"\n\nAdded in round {round_}: networks of graphs {rng.random()}.\n")
        gone = rng.choice([f for f in files if f.exists()])
        gone.unlink()
        remove_paths([str(gone)], store)
        files += write_docs(docs / f"round{round_}", 2, seed=100 + round_)
        index_paths([docs], store, emb, prune=True)
    db = store._db
    incremental = _canonical(db)
    fresh = sqlite3.connect(tmp_path / "fresh.sqlite", isolation_level=None)
    db.backup(fresh)  # a copy with what the WAL holds
    fresh.execute("BEGIN")
    lexical.rebuild_postings(fresh)
    fresh.execute("COMMIT")
    assert _canonical(fresh) == incremental
    n_chunks = db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    assert incremental[1][0] == n_chunks == db.execute(f"SELECT COUNT(*) FROM {postings.ROWS}").fetchone()[0]
    for q in ["networks of graphs", "document round", "added"]:
        assert_same_ranking(db, q, 20, 1.0)


def test_search_follows_new_generations_through_the_cache(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    write_docs(docs, 4)
    store = _build(docs, tmp_path / "index")
    assert store.lexical_search("zyxwvut", 5) == []
    before = store.lexical_search("document", 5, None, 1.0)
    (docs / "new.txt").write_text("A note on zyxwvut.\n\nThe zyxwvut document, and another document.\n")
    index_paths([docs], store, HashEmbedder())
    hits = store.lexical_search("zyxwvut", 5)
    assert len(hits) == 1 and "zyxwvut" in store.chunks_by_ids([hits[0][0]])[hits[0][0]].text
    after = store.lexical_search("document", 5, None, 1.0)
    assert after != before  # N, avgdl and the postings changed: no stale impacts from the cache
    ref = lexical.search(store._db, "document", 5, context_weight=1.0)  # no cache: computed afresh
    np.testing.assert_allclose([s for _, s in after], [s for _, s in ref], rtol=1e-9)
    fts5 = lexical.fts5_search(store._db, "document", 5, context_weight=1.0)
    np.testing.assert_allclose([s for _, s in lexical.search(store._db, "document", 5, context_weight=1.0,
                                                              k1=postings.FTS5_K1)], [s for _, s in fts5], rtol=1e-9)


def test_row_numbers_are_renumbered_when_removals_leave_them_sparse(tmp_path: Path, monkeypatch) -> None:
    docs = tmp_path / "docs"
    files = write_docs(docs, 30)
    store = _build(docs, tmp_path / "index")
    db = store._db
    top = db.execute(f"SELECT MAX(row) FROM {postings.ROWS}").fetchone()[0]
    for f in files[:10]:  # the first files hold the first row numbers
        f.unlink()
    index_paths([docs], store, HashEmbedder(), prune=True)  # default slack: no renumbering yet
    assert db.execute(f"SELECT MAX(row) FROM {postings.ROWS}").fetchone()[0] == top
    monkeypatch.setattr(postings, "SPARE_ROWS", 0)
    for f in files[10:25]:
        f.unlink()
    index_paths([docs], store, HashEmbedder(), prune=True)
    n = db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    assert db.execute(f"SELECT MIN(row), MAX(row), COUNT(*) FROM {postings.ROWS}").fetchone() == (1, n, n)
    assert_same_ranking(db, "document seed", 20, 1.0)
    assert len(store.lexical_search("document", 1000)) == n  # every chunk's title context says "document"


def test_an_index_from_before_the_postings_gets_them_on_open(tmp_path: Path) -> None:
    store = _build(PROFILES, tmp_path / "index")
    store.close()
    db = sqlite3.connect(tmp_path / "index" / "chunks.sqlite", isolation_level=None)
    db.execute(f"DROP TABLE {postings.TABLE}")
    db.execute(f"DROP TABLE {postings.ROWS}")
    db.execute("DELETE FROM meta WHERE key IN ('lexical_rows', 'lexical_tokens')")
    db.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    db.close()
    store = Store.open(tmp_path / "index")
    assert_same_ranking(store._db, "graph neural networks PhD", 20, 1.0)
    hits = store.lexical_search("KForge", 3)
    assert hits and "KForge" in store.chunks_by_ids([hits[0][0]])[hits[0][0]].text


def test_stems_are_fts5s() -> None:
    assert postings.stems("networks") == postings.stems("network") == ["network"]
    assert postings.stems("graph_neural") == ["graph", "neural"]  # FTS5 splits what our tokenizer keeps
    assert postings.stems("3.94") == ["3.94"] and postings.stems("c++") == ["c++"]
    assert postings.stems("naïve") == ["naiv"]


def test_postings_of_counts_each_column_and_the_length() -> None:
    got, tokens = postings.postings_of([(7, "graph networks graph", "balin network"), (3, "network", "")])
    assert tokens == 6
    net = got["network"]
    assert net["row"].tolist() == [3, 7] and net["text"].tolist() == [1, 1] and net["context"].tolist() == [0, 1]
    assert net["length"].tolist() == [1, 5]
    assert got["graph"]["text"].tolist() == [2]
    with pytest.raises(KeyError):
        got["networks"]  # stems only


def test_postings_of_many_rows_equals_one_batch(monkeypatch) -> None:
    rng = random.Random(9)
    words = ["graph", "graphs", "network", "layer", "kforge", "3.94", "c++", "w1", "w2", "w3"]
    rows = [(i, " ".join(rng.choices(words, k=rng.randint(0, 12))), " ".join(rng.choices(words, k=3)))
            for i in rng.sample(range(1, 500), 60)]
    whole, tokens = postings.postings_of(rows)
    monkeypatch.setattr(postings, "_ROWS_AT_ONCE", 7)
    split, split_tokens = postings.postings_of(rows)
    assert whole.keys() == split.keys() and tokens == split_tokens
    for t in whole:
        assert whole[t].tobytes() == split[t].tobytes(), t
        assert (np.diff(split[t]["row"].astype(np.int64)) > 0).all()  # sorted by row, no repeats


def test_a_repeated_query_term_weighs_more(tmp_path: Path) -> None:
    """Query-term frequency: a word the query repeats adds its BM25 once per mention."""
    store = _build(PROFILES, tmp_path / "index")
    db = store._db
    once = dict(lexical.search(db, "graph research", 50))
    twice = dict(lexical.search(db, "graph graph research", 50))
    graph = dict(lexical.search(db, "graph", 50))
    both = set(once) & set(graph)
    assert both
    for i in both:
        assert twice[i] == pytest.approx(once[i] + graph[i])
    assert lexical.search(db, "graph", 5, k1=1.2) != lexical.search(db, "graph", 5, k1=2.0)  # k1 is used


def _doc_bm25(db: sqlite3.Connection, query: str, weight: float) -> dict[int, float]:
    """Reference whole-document BM25 (Lucene IDF, k1 1.5, b 0.75), by chunk id, computed in plain
    Python from the stored rows: a document's counts are its chunks' counts summed, its length
    the characters of its chunks' text and context."""
    rows = db.execute("SELECT c.id, c.doc_id, f.text, f.context, c.end - c.start + length(c.context)"
                      f" FROM chunks c JOIN {lexical.FTS_TABLE} f ON f.rowid = c.id").fetchall()
    counts: dict[int, dict[str, float]] = {}
    length: dict[int, float] = {}
    for _, doc, text, context, chars in rows:
        c = counts.setdefault(doc, {})
        for col, w in ((text, 1.0), (context, weight)):
            for word in col.split():
                for s in postings.stems(word):
                    c[s] = c.get(s, 0.0) + w
        length[doc] = length.get(doc, 0.0) + chars
    n, avg = len(counts), sum(length.values()) / len(length)
    score = dict.fromkeys(counts, 0.0)
    for t in [s for term in lexical.terms(query) for s in postings.stems(term)]:
        df = sum(1 for c in counts.values() if c.get(t))
        idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
        for doc, c in counts.items():
            f = c.get(t, 0.0)
            score[doc] += idf * f * 2.5 / (f + 1.5 * (0.25 + 0.75 * length[doc] / avg)) if f else 0.0
    return {i: score[doc] for i, doc, *_ in rows}


def test_document_evidence_adds_the_whole_documents_bm25(tmp_path: Path) -> None:
    """`doc_weight` adds that much of the chunk's document's BM25 to each matching chunk, and no
    chunk without a query term is brought in by its document."""
    store = _build(PROFILES, tmp_path / "index")
    db = store._db
    for query in ("graph neural networks", "PhD university advisor", "GPU training systems systems"):
        plain = dict(lexical.search(db, query, 500))
        both = dict(lexical.search(db, query, 500, doc_weight=0.5, cache=postings.Cache()))
        ref = _doc_bm25(db, query, 0.5)
        assert set(both) == set(plain) and plain
        for i in plain:
            assert both[i] == pytest.approx(plain[i] + 0.5 * ref[i], rel=1e-9)
        assert len({round(ref[i], 9) for i in plain}) > 1  # the documents score differently


def test_document_evidence_follows_new_documents(tmp_path: Path) -> None:
    """A write changes every document statistic (N, lengths, counts); cached document impacts are
    not reused across it."""
    docs = tmp_path / "docs"
    write_docs(docs, 4)
    store = _build(docs, tmp_path / "index")
    store.lexical_search("document w1 w2", 5, None, 1.0, 0.5)
    (docs / "new.txt").write_text("A document.\n\nw1 w2 w1 and another document.\n")
    index_paths([docs], store, HashEmbedder())
    cached = store.lexical_search("document w1 w2", 5, None, 1.0, 0.5)
    fresh = lexical.search(store._db, "document w1 w2", 5, context_weight=1.0, doc_weight=0.5)
    assert [i for i, _ in cached] == [i for i, _ in fresh]
    np.testing.assert_allclose([s for _, s in cached], [s for _, s in fresh], rtol=1e-9)
