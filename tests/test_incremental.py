"""Incremental re-index: size + mtime decide "unchanged" without reading the file; a touched file is
hashed once; a recent mtime is not trusted. Real SQLite and FAISS; the FAKE `HashEmbedder`
(tests/index_helpers.py) embeds, since these tests count hashes and writes, not search quality."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest
from index_helpers import HashEmbedder, write_docs

import index.build
from index import Store, index_paths
from index.migrations import MIGRATIONS, schema_version

HOUR_NS = 3600 * 10**9


def _age(paths: list[Path], by_ns: int = HOUR_NS) -> None:
    """Set the files' mtime in the past, as files that were not edited just now."""
    t = time.time_ns() - by_ns
    for p in paths:
        os.utime(p, ns=(t, t))


@pytest.fixture
def hashes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths `index_paths` hashes, in order."""
    seen: list[str] = []
    real = index.build.file_sha256

    def counting(path: Path) -> str:
        seen.append(str(path))
        return real(path)

    monkeypatch.setattr(index.build, "file_sha256", counting)
    return seen


def _build(tmp_path: Path, n: int = 4) -> tuple[Store, HashEmbedder, list[Path]]:
    emb = HashEmbedder()
    files = write_docs(tmp_path / "docs", n)
    _age(files)
    store = Store.create(tmp_path / "index", emb.name, emb.dim)
    index_paths([tmp_path / "docs"], store, emb)
    return store, emb, files


def _reopen_as_before(store: Store, index: Path, column: str, version: int) -> Store:
    """Close `store`, turn it into an index of schema `version` (without the documents' `column`), and
    open it again: the migrations after `version` must run and bring it up to date."""
    store.close()
    db = sqlite3.connect(index / "chunks.sqlite")
    db.execute(f"ALTER TABLE documents DROP COLUMN {column}")
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
    db.commit()
    db.close()
    store = Store.open(index)
    assert schema_version(store._db) == len(MIGRATIONS)
    return store


def test_unchanged_size_and_mtime_skip_hashing(tmp_path: Path, hashes: list[str]) -> None:
    store, emb, files = _build(tmp_path)
    assert len(hashes) == len(files)  # a first build hashes everything (moves and copies need it)
    assert {d.mtime_ns for d in store.documents()} == {files[0].stat().st_mtime_ns}
    hashes.clear()
    gen = store.generation
    report = index_paths([tmp_path / "docs"], store, emb)
    assert hashes == [] and len(report.unchanged) == len(files) and report.chunks_embedded == 0
    assert store.generation == gen


def test_touched_file_is_hashed_once_and_its_mtime_recorded(tmp_path: Path, hashes: list[str]) -> None:
    store, emb, files = _build(tmp_path)
    _age(files[1:2], by_ns=HOUR_NS // 2)  # `touch` to another (old enough) time: same bytes
    hashes.clear()
    gen = store.generation
    report = index_paths([tmp_path / "docs"], store, emb)
    assert hashes == [str(files[1].resolve())]
    assert len(report.unchanged) == len(files) and report.updated == [] and report.chunks_embedded == 0
    assert store.document(str(files[1].resolve())).mtime_ns == files[1].stat().st_mtime_ns
    assert store.generation == gen  # recording an mtime changes no vector: no new FAISS generation
    hashes.clear()
    index_paths([tmp_path / "docs"], store, emb)
    assert hashes == []


def test_edited_file_is_re_embedded(tmp_path: Path, hashes: list[str]) -> None:
    store, emb, files = _build(tmp_path)
    size = files[2].stat().st_size
    files[2].write_text(files[2].read_text().replace("Document 2", "Document X"))  # same size
    _age(files[2:3], by_ns=HOUR_NS // 2)
    assert files[2].stat().st_size == size
    report = index_paths([tmp_path / "docs"], store, emb)
    assert report.updated == [str(files[2].resolve())] and report.chunks_embedded > 0
    assert "Document X" in store.document_text(str(files[2].resolve()))


def test_a_recent_mtime_is_not_trusted(tmp_path: Path, hashes: list[str]) -> None:
    """A file written moments before it was read could change again within the same clock tick
    without a new mtime: it is stored without one and hashed on the next run."""
    emb = HashEmbedder()
    write_docs(tmp_path / "docs", 2)  # mtime: now
    store = Store.create(tmp_path / "index", emb.name, emb.dim)
    index_paths([tmp_path / "docs"], store, emb)
    assert [d.mtime_ns for d in store.documents()] == [None, None]
    hashes.clear()
    index_paths([tmp_path / "docs"], store, emb)
    assert len(hashes) == 2  # hashed again: found unchanged


def test_moved_file_keeps_its_vectors_and_records_the_new_mtime(tmp_path: Path, hashes: list[str]) -> None:
    store, emb, files = _build(tmp_path)
    target = tmp_path / "docs" / "renamed.txt"
    files[0].rename(target)
    embedded = emb.embedded
    report = index_paths([tmp_path / "docs"], store, emb, prune=True)
    assert report.moved == [(str(files[0].resolve()), str(target.resolve()))]
    assert emb.embedded == embedded and report.removed == []
    assert store.document(str(target.resolve())).mtime_ns == target.stat().st_mtime_ns


def test_index_without_mtimes_is_migrated_and_hashes_once(tmp_path: Path, hashes: list[str]) -> None:
    store, emb, files = _build(tmp_path)
    store = _reopen_as_before(store, tmp_path / "index", "mtime_ns", 2)  # the schema before m003
    assert {d.mtime_ns for d in store.documents()} == {None}
    hashes.clear()
    report = index_paths([tmp_path / "docs"], store, emb)
    assert len(hashes) == len(files) and len(report.unchanged) == len(files)
    hashes.clear()
    index_paths([tmp_path / "docs"], store, emb)
    assert hashes == []


def test_files_read_by_an_older_ingest_are_read_again(tmp_path: Path, hashes: list[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A parser upgrade must not leave old parses beside new ones: an unchanged file indexed by an
    older ingest version is read again once, then unchanged again."""
    store, emb, files = _build(tmp_path)
    first = index.build.reading(index.build.DEFAULT_CHUNK_SIZE, index.build.DEFAULT_CHUNK_OVERLAP)
    assert {d.read_with for d in store.documents()} == {first}
    monkeypatch.setattr(index.build, "INGEST_VERSION", index.build.INGEST_VERSION + 1)
    report = index_paths([tmp_path / "docs"], store, emb)
    every = sorted(str(f.resolve()) for f in files)
    assert sorted(report.reread) == every and sorted(report.updated) == every and report.unchanged == []
    assert report.chunks_embedded > 0 and "read again" in report.summary(store)
    assert {d.read_with for d in store.documents()} == {
        index.build.reading(index.build.DEFAULT_CHUNK_SIZE, index.build.DEFAULT_CHUNK_OVERLAP)} != {first}
    hashes.clear()
    report = index_paths([tmp_path / "docs"], store, emb)
    assert hashes == [] and report.reread == [] and len(report.unchanged) == len(files)


def test_other_chunk_settings_read_files_again(tmp_path: Path, hashes: list[str]) -> None:
    emb = HashEmbedder()
    files = write_docs(tmp_path / "docs", 3)
    long = tmp_path / "docs" / "long.txt"
    long.write_text("\n\n".join(f"Paragraph {i} says something about topic {i} at some length." for i in range(60)))
    _age([*files, long])
    store = Store.create(tmp_path / "index", emb.name, emb.dim)
    index_paths([tmp_path / "docs"], store, emb, chunk_size=2000, chunk_overlap=0)
    before = store.document(str(long.resolve())).chunks
    report = index_paths([tmp_path / "docs"], store, emb, chunk_size=300, chunk_overlap=0)
    assert len(report.reread) == 4 and report.unchanged == []
    assert store.document(str(long.resolve())).chunks > before  # the new settings, not the old chunks
    report = index_paths([tmp_path / "docs"], store, emb, chunk_size=300, chunk_overlap=0)
    assert report.reread == [] and len(report.unchanged) == 4


def test_index_from_before_read_with_is_migrated_and_read_again_once(tmp_path: Path, hashes: list[str]) -> None:
    store, emb, files = _build(tmp_path)
    store = _reopen_as_before(store, tmp_path / "index", "read_with", 5)  # the schema before m006
    assert {d.read_with for d in store.documents()} == {None}
    report = index_paths([tmp_path / "docs"], store, emb)
    assert len(report.reread) == len(files)
    report = index_paths([tmp_path / "docs"], store, emb)
    assert report.reread == [] and len(report.unchanged) == len(files)
