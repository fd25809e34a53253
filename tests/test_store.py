"""The on-disk index: layout, manifest, embedder mismatch, migrations, FTS sync, locking.

Storage tests that need many writes use `HashEmbedder`, a deterministic FAKE embedder (see
tests/index_helpers.py); FAISS and SQLite are always the real ones. Layout tests read the seed
index built with the real model.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import faiss
import numpy as np
import pytest
from index_helpers import HashEmbedder, snapshot, write_docs

from index import EmbedderMismatch, IndexLocked, IndexNotFound, Store, index_paths, lexical
from index.migrations import MIGRATIONS, schema_version
from index.store import MANIFEST

REPO = Path(__file__).resolve().parent.parent


def _build(tmp_path: Path, n: int = 5) -> tuple[Store, HashEmbedder, list[Path]]:
    emb = HashEmbedder()
    files = write_docs(tmp_path / "docs", n)
    store = Store.create(tmp_path / "index", emb.name, emb.dim)
    index_paths([tmp_path / "docs"], store, emb)
    return store, emb, files


def test_seed_index_layout(seed_index_dir: Path) -> None:
    manifest = json.loads((seed_index_dir / MANIFEST).read_text())
    assert manifest["format"] == "citewise-index" and manifest["embedder"] == "all-MiniLM-L6-v2"
    assert manifest["dim"] == 384
    db = sqlite3.connect(seed_index_dir / "chunks.sqlite")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert schema_version(db) == len(MIGRATIONS)
    name = db.execute("SELECT value FROM meta WHERE key = 'faiss_file'").fetchone()[0]
    rows = db.execute("SELECT id, vector FROM chunks").fetchall()
    fts_ids = {r[0] for r in db.execute("SELECT rowid FROM chunks_fts")}
    db.close()
    index = faiss.read_index(str(seed_index_dir / name))
    assert isinstance(faiss.downcast_index(index), faiss.IndexIDMap2)
    assert index.ntotal == len(rows) > 0
    assert fts_ids == {r[0] for r in rows}
    vecs = np.vstack([np.frombuffer(v, dtype="<f4") for _, v in rows])
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    # FAISS against brute-force numpy over the stored vectors.
    q = vecs[3]
    scores, ids = index.search(q.reshape(1, -1), 5)
    order = np.argsort(-(vecs @ q))[:5]
    assert [int(i) for i in ids[0]] == [rows[i][0] for i in order]


def test_open_with_another_embedder_is_a_clear_error(seed_index_dir: Path) -> None:
    with pytest.raises(EmbedderMismatch, match=r"built with the embedding model 'all-MiniLM-L6-v2', not 'other-model'"):
        Store.open(seed_index_dir, "other-model")
    with pytest.raises(EmbedderMismatch, match="other-model"):
        Store.create(seed_index_dir, "other-model", 768)


def test_missing_index_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(IndexNotFound, match=str(tmp_path / "nope")):
        Store.open(tmp_path / "nope")


def test_fts_rows_follow_chunk_rows(tmp_path: Path) -> None:
    store, emb, files = _build(tmp_path)
    db = store._db

    def counts() -> tuple[int, int]:
        return db.execute("SELECT (SELECT COUNT(*) FROM chunks), (SELECT COUNT(*) FROM chunks_fts)").fetchone()

    n_chunks, n_fts = counts()
    assert n_chunks == n_fts > 0
    word = files[0].read_text().split()[5]  # a word of the first document
    assert any(store.chunks_by_ids([i])[i].doc == str(files[0]) for i, _ in store.lexical_search(word, 5))
    files[0].unlink()
    index_paths([tmp_path / "docs"], store, emb, prune=True)
    n2, f2 = counts()
    assert n2 == f2 < n_chunks
    assert all(store.chunks_by_ids([i])[i].doc != str(files[0]) for i, _ in store.lexical_search(word, 50))


def test_old_schema_is_migrated_on_open(tmp_path: Path) -> None:
    store, _, _ = _build(tmp_path)
    store.close()
    db = sqlite3.connect(tmp_path / "index" / "chunks.sqlite")
    db.execute("DROP TABLE chunks_fts")
    db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    db.execute("DELETE FROM meta WHERE key = 'lexical_version'")
    db.commit()
    db.close()
    store = Store.open(tmp_path / "index")
    assert schema_version(store._db) == len(MIGRATIONS)
    assert store._meta("lexical_version") == lexical.LEXICAL_VERSION
    assert store._db.execute("SELECT COUNT(*) FROM chunks_fts").fetchone()[0] == \
        store._db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0] > 0


def test_lost_faiss_file_is_rebuilt_from_stored_vectors(tmp_path: Path) -> None:
    store, emb, _ = _build(tmp_path)
    before = store.dense_search(emb.embed_query("w1 w2 w3"), 5)
    name = store._meta("faiss_file")
    store.close()
    (tmp_path / "index" / name).unlink()
    again = Store.open(tmp_path / "index")
    assert again.vector_count == store.vector_count
    after = again.dense_search(emb.embed_query("w1 w2 w3"), 5)
    assert after[0][0] == before[0][0]  # (later ranks may tie at score 0 with the fake embedder)
    assert [s for _, s in after] == pytest.approx([s for _, s in before])


def test_crash_between_faiss_write_and_commit_keeps_the_old_state(tmp_path: Path, monkeypatch) -> None:
    store, emb, _ = _build(tmp_path)
    before = snapshot(tmp_path / "index")
    new = write_docs(tmp_path / "more", 3, seed=7)

    class Crash(Exception):
        pass

    class CrashingCommit:
        """The writer's connection, failing at COMMIT: after the new FAISS file is on disk."""

        def __init__(self, inner: sqlite3.Connection) -> None:
            self.inner = inner

        def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
            if sql == "COMMIT":
                raise Crash
            return self.inner.execute(sql, *args)

        def __getattr__(self, name: str) -> object:
            return getattr(self.inner, name)

    original = Store._connect
    monkeypatch.setattr(Store, "_connect", lambda self: CrashingCommit(original(self)))
    with pytest.raises(Crash):
        index_paths([new[0].parent], store, emb)
    monkeypatch.setattr(Store, "_connect", original)
    files = sorted(p.name for p in (tmp_path / "index").glob("vectors-*.faiss*"))
    # The new generation's file was written aside, never switched to, and removed by the rollback
    # (a SIGKILL leaves it behind instead: the next write collects it, see test_store_crash.py).
    assert files == ["vectors-1.faiss"]
    assert snapshot(tmp_path / "index") == before
    reopened = Store.open(tmp_path / "index")
    assert len(reopened.documents()) == 5
    index_paths([new[0].parent], reopened, emb)  # the next write succeeds and collects the orphan
    assert len(reopened.documents()) == 8
    assert len(list((tmp_path / "index").glob("vectors-*.faiss*"))) == 1


WRITER_HOLDER = textwrap.dedent(
    """
    import sys, time
    from index import Store
    store = Store.open(sys.argv[1])
    with store.writer():
        print("locked", flush=True)
        time.sleep(float(sys.argv[2]))
    """
)


def test_second_writer_is_refused_while_readers_keep_working(tmp_path: Path) -> None:
    store, emb, _ = _build(tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", WRITER_HOLDER, str(tmp_path / "index"), "30"],
                              stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        locked = f"Another citewise process is writing to the index at {tmp_path / 'index'}"
        with pytest.raises(IndexLocked, match=locked), store.writer():
            pass
        # Readers: a fresh open, listing and both searches work while the lock is held.
        reader = Store.open(tmp_path / "index")
        assert len(reader.documents()) == 5
        assert reader.dense_search(emb.embed_query("w5 w6"), 3)
        assert reader.lexical_search("w5 w6", 3)
        t = time.perf_counter()
        with pytest.raises(IndexLocked):
            index_paths([tmp_path / "docs", *write_docs(tmp_path / "extra", 1, seed=3)], reader, emb)
        assert time.perf_counter() - t < 5  # refused at once, not after waiting
    finally:
        holder.kill()
        holder.wait()
    with store.writer():  # the lock died with its holder
        pass


def test_cli_index_refuses_a_locked_index(tmp_path: Path) -> None:
    _build(tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", WRITER_HOLDER, str(tmp_path / "index"), "30"],
                              stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        from click.testing import CliRunner

        from assistant.cli import main

        docs = write_docs(tmp_path / "cli-docs", 1, seed=9)
        # The index was built with the fake embedder: a second writer is refused before any model loads.
        store = Store.open(tmp_path / "index")
        with pytest.raises(IndexLocked):
            index_paths(docs, store, HashEmbedder())
        result = CliRunner().invoke(main, ["remove", str(tmp_path / "docs"), "--index", str(tmp_path / "index")])
        assert result.exit_code == 1
        assert "Another citewise process is writing to the index" in result.output
    finally:
        holder.kill()
        holder.wait()


def _recount(store: Store) -> tuple[int, dict[str, int], set[str]]:
    """The lemma counts read from every stored chunk, as the reader computed them before the index kept them."""
    from index.lemmas import lemmas, lower_words

    df: dict[str, int] = {}
    lower: set[str] = set()
    texts = [c.text for d in store.documents() for c in store.chunks_of(d.doc)]
    for t in texts:
        for w in lemmas(t):
            df[w] = df.get(w, 0) + 1
        lower |= lower_words(t)
    return len(texts), df, lower


def test_lemma_counts_follow_adds_edits_and_removals(tmp_path: Path) -> None:
    store, emb, files = _build(tmp_path)
    stats = store.lemma_stats()
    assert stats is not None and stats.chunks > 0
    assert (stats.chunks, stats.df, set(stats.lower)) == _recount(store)
    files[1].write_text("Zyxwv Quortle studied at Ümeå University.\n\nA new paragraph about Ph.D. work.\n")
    files[0].unlink()
    index_paths([tmp_path / "docs"], store, emb, prune=True)
    stats = store.lemma_stats()
    assert stats is not None
    assert (stats.chunks, stats.df, set(stats.lower)) == _recount(store)
    assert stats.df["umea"] == 1 and stats.df["phd"] >= 1  # accent-free, dotted compound glued
    assert "zyxwv" in stats.df and "zyxwv" not in stats.lower and "paragraph" in stats.lower  # a name vs a word
    assert all(v > 0 for v in stats.df.values())  # removed lemmas leave no zero rows


def _as_of_version(index: Path, version: int, tables: list[str], meta_key: str) -> None:
    """Make the index at `index` look written by an earlier citewise: schema `version`, without
    `tables` and the `meta_key` recording what they were derived with."""
    db = sqlite3.connect(index / "chunks.sqlite")
    for table in tables:
        db.execute(f"DROP TABLE {table}")
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
    db.execute("DELETE FROM meta WHERE key = ?", (meta_key,))
    db.commit()
    db.close()


def test_index_without_lemma_counts_is_counted_on_open(tmp_path: Path) -> None:
    store, _, _ = _build(tmp_path)
    expected = _recount(store)
    store.close()
    _as_of_version(tmp_path / "index", 6, ["lemma_df", "lower_words"], "lemma_version")
    store = Store.open(tmp_path / "index")
    stats = store.lemma_stats()
    assert stats is not None and (stats.chunks, stats.df, set(stats.lower)) == expected


def _terms_by_reading(store: Store) -> dict[str, set[str]]:
    """Each document's terms read from its stored text, title and path, as the resolver read them
    at its first question before the index kept them."""
    from index import doc_terms

    return {d.doc: doc_terms.of_document(d.doc, d.title, store.document_text(d.doc) or "") for d in store.documents()}


def _kept_terms(store: Store) -> dict[str, set[str]]:
    rows = store._db.execute("SELECT d.path, t.term FROM doc_terms t JOIN documents d ON d.doc_id = t.doc_id")
    out: dict[str, set[str]] = {}
    for path, term in rows:
        out.setdefault(path, set()).add(term)
    return out


def test_document_terms_follow_adds_edits_and_removals(tmp_path: Path) -> None:
    store, emb, files = _build(tmp_path)
    assert _kept_terms(store) == _terms_by_reading(store)
    files[1].write_text("Zyxwv Quortle studied at Ümeå University.\n")
    files[0].unlink()
    files[2].rename(files[2].with_name("renamed_report.txt"))  # same content: moved, not re-read
    index_paths([tmp_path / "docs"], store, emb, prune=True)
    assert _kept_terms(store) == _terms_by_reading(store)
    assert store.docs_holding(["renamed_report"]) == {"renamed_report": [str(files[2].with_name("renamed_report.txt"))]}
    held = store.docs_holding(["umea", "zyxwv", files[1].stem.lower(), "nowhere"])
    assert held == {"umea": [str(files[1])], "zyxwv": [str(files[1])], files[1].stem.lower(): [str(files[1])]}
    assert store._db.execute("SELECT COUNT(*) FROM doc_terms WHERE doc_id NOT IN (SELECT doc_id FROM documents)"
                             ).fetchone()[0] == 0  # a removed document leaves no terms


def test_index_without_document_terms_reads_them_on_open(tmp_path: Path) -> None:
    store, _, _ = _build(tmp_path)
    expected = _terms_by_reading(store)
    store.close()
    _as_of_version(tmp_path / "index", 7, ["doc_terms"], "doc_terms_version")
    store = Store.open(tmp_path / "index")
    assert _kept_terms(store) == expected
