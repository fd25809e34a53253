"""Parsing and embedding in worker processes (`index_paths(workers=N)`) and sharding between machines.

The equality test uses the real model in real spawned workers, against the same build with one
process. Tests of the pool's mechanics (a worker that dies, the in-flight bound, shards) use
`SpawnableHashEmbedder`, the FAKE hashing embedder of tests/index_helpers.py made re-creatable in a
worker; the pools, FAISS and SQLite are real.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import PROFILES
from index_helpers import HashEmbedder, write_docs

from assistant.api import merge_indexes
from assistant.cli import main
from index import EmbedderMismatch, Store, index_paths
from index.embed import EmbedderSpec
from index.errors import MergeError
from index.parallel import WORKER_DIED, ProcessPool, resolve_workers
from index.pipeline import FileTask
from index.shard import Shard, shard_key


class SpawnableHashEmbedder(HashEmbedder):
    """FAKE embedder (see index_helpers) with a spec, so a worker process can build its own."""

    def spec(self) -> EmbedderSpec:
        return EmbedderSpec(type(self))


class CrashingHashEmbedder(SpawnableHashEmbedder):
    """Kills its process on a text holding CRASHME, as a parser library's segfault would."""

    def embed_documents(self, texts):  # type: ignore[no-untyped-def]
        if any("CRASHME" in t for t in texts):
            os._exit(3)
        return super().embed_documents(texts)


def _contents(index_dir: Path) -> dict:
    db = sqlite3.connect(index_dir / "chunks.sqlite")
    try:
        docs = db.execute(
            "SELECT doc_id, path, sha256, format, title, owner, pages, n_chunks, size, mtime_ns, text"
            " FROM documents ORDER BY doc_id").fetchall()
        chunks = db.execute(
            "SELECT c.id, c.chunk_id, d.path, c.ord, c.start, c.end, c.page, c.section, c.text, c.context"
            " FROM chunks c JOIN documents d ON d.doc_id = c.doc_id ORDER BY c.id").fetchall()
        vectors = np.vstack([np.frombuffer(v, dtype="<f4") for (v,) in db.execute("SELECT vector FROM chunks ORDER BY id")])
        fts = db.execute("SELECT rowid, text, context FROM chunks_fts ORDER BY rowid").fetchall()
    finally:
        db.close()
    return {"docs": docs, "chunks": chunks, "vectors": vectors, "fts": fts}


def _folder(tmp_path: Path) -> Path:
    """A real profile, a few small documents, a copy of one of them and a file that cannot be parsed,
    all last modified an hour ago (so both builds record the same mtimes)."""
    folder = tmp_path / "docs"
    write_docs(folder, 4)
    shutil.copy(sorted(PROFILES.glob("*.txt"))[2], folder / "profile.txt")
    shutil.copy(folder / "doc0001.txt", folder / "copy-of-doc1.txt")
    (folder / "empty.txt").write_text("")
    hour_ago = time.time_ns() - 3600 * 10**9
    for f in folder.iterdir():
        os.utime(f, ns=(hour_ago, hour_ago))
    return folder


@pytest.mark.slow
def test_two_workers_build_the_same_index_as_one(tmp_path: Path, embedder) -> None:
    """Real model in 2 spawned workers vs 1 process: same documents, chunk ids, texts, FTS rows, order."""
    folder = _folder(tmp_path)
    reports, contents = {}, {}
    for workers in (1, 2):
        store = Store.create(tmp_path / f"index-{workers}", embedder.name, embedder.dim)
        reports[workers] = index_paths([folder], store, embedder, workers=workers, batch_chunks=16)
        store.close()
        contents[workers] = _contents(tmp_path / f"index-{workers}")
    one, two = contents[1], contents[2]
    assert two["docs"] == one["docs"] and len(one["docs"]) == 5  # in file order: the same doc ids
    assert two["chunks"] == one["chunks"] and two["fts"] == one["fts"]
    np.testing.assert_allclose(two["vectors"], one["vectors"], atol=1e-5)
    for field in ("added", "updated", "unchanged", "skipped", "chunks_embedded"):
        assert getattr(reports[2], field) == getattr(reports[1], field), field
    reasons = {Path(s.path).name: s.reason for s in reports[2].skipped}
    assert reasons["empty.txt"].startswith("file is empty")
    assert reasons["doc0001.txt"].startswith("same content as")  # copy-of-doc1.txt comes first


def test_a_worker_that_dies_costs_only_its_file(tmp_path: Path) -> None:
    emb = CrashingHashEmbedder()
    first = write_docs(tmp_path / "docs", 2)
    store = Store.create(tmp_path / "index", emb.name, emb.dim)
    index_paths([tmp_path / "docs"], store, emb)
    before = {d.doc for d in store.documents()}
    more = write_docs(tmp_path / "docs", 7, seed=1)[2:]  # doc0002..doc0006
    more[1].write_text(more[1].read_text() + "\nCRASHME\n")
    report = index_paths([tmp_path / "docs"], store, emb, workers=2)
    crashed = str(more[1].resolve())
    assert [(s.path, s.reason) for s in report.skipped] == [(crashed, WORKER_DIED)]
    assert report.added == [str(p.resolve()) for p in more if p != more[1]]
    assert {d.doc for d in store.documents()} == before | set(report.added)
    assert len(before) == len(first)
    # The survivors' vectors are what one process gives.
    ref = HashEmbedder()
    for path in report.added:
        chunks = store.chunks_of(path)
        np.testing.assert_allclose(store.vectors([c.id for c in chunks]),
                                   ref.embed_documents([f"{c.context}\n{c.text}" for c in chunks]), atol=1e-6)


@pytest.mark.parametrize("per_task", [1, 3])
def test_pool_keeps_at_most_two_tasks_per_worker_in_flight(tmp_path: Path, per_task: int) -> None:
    files = write_docs(tmp_path / "docs", 14)
    pool = ProcessPool(SpawnableHashEmbedder().spec(), 2, 600, 100, files_per_task=per_task)
    try:
        seen = []
        for f in files:
            seen += pool.put(FileTask(str(f.resolve()), f.stat().st_size, None, False))
            assert pool.in_flight <= 2 * 2 * per_task + per_task - 1  # 4 groups sent, one filling
        seen += pool.finish()
    finally:
        pool.close()
    assert [o.doc.path for o in seen] == [str(f.resolve()) for f in files]  # in task order


def test_a_file_that_kills_its_group_is_isolated(tmp_path: Path) -> None:
    """Groups of 3 files: the crash takes its group (and the pool) down; each file is then run alone."""
    files = write_docs(tmp_path / "docs", 8)
    files[4].write_text(files[4].read_text() + "\nCRASHME\n")
    pool = ProcessPool(CrashingHashEmbedder().spec(), 2, 600, 100, files_per_task=3)
    try:
        seen = []
        for f in files:
            seen += pool.put(FileTask(str(f.resolve()), f.stat().st_size, None, False))
        seen += pool.finish()
    finally:
        pool.close()
    assert [getattr(o, "reason", None) for o in seen] == [None] * 4 + [WORKER_DIED] + [None] * 3
    assert [getattr(o, "path", None) or o.doc.path for o in seen] == [str(f.resolve()) for f in files]


def test_workers_need_a_respawnable_embedder(tmp_path: Path) -> None:
    emb = HashEmbedder()
    write_docs(tmp_path / "docs", 3)
    store = Store.create(tmp_path / "index", emb.name, emb.dim)
    with pytest.raises(TypeError, match="HashEmbedder has no spec"):
        index_paths([tmp_path / "docs"], store, emb, workers=2)
    assert store.documents() == []


def test_zero_workers_means_one_per_core() -> None:
    assert resolve_workers(0) == len(os.sched_getaffinity(0))
    assert resolve_workers(3) == 3
    with pytest.raises(ValueError, match="not -1"):
        resolve_workers(-1)


def test_shards_split_a_folder_the_same_way_wherever_it_is_mounted(tmp_path: Path) -> None:
    files = write_docs(tmp_path / "a" / "docs", 12)
    (tmp_path / "a" / "docs" / "sub").mkdir()
    write_docs(tmp_path / "a" / "docs" / "sub", 4, seed=3)
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    emb = HashEmbedder()
    names: dict[str, list[list[str]]] = {}
    for mount in ("a", "b"):
        root = tmp_path / mount / "docs"
        names[mount] = []
        for i in (1, 2, 3):
            store = Store.create(tmp_path / f"index-{mount}-{i}", emb.name, emb.dim)
            index_paths([root], store, emb, shard=Shard(i, 3))
            names[mount].append(sorted(str(Path(d.doc).relative_to(root.resolve())) for d in store.documents()))
    assert names["a"] == names["b"]
    union = sorted(n for part in names["a"] for n in part)
    assert union == sorted([f.name for f in files] + [f"sub/doc{i:04d}.txt" for i in range(4)])
    assert all(part for part in names["a"])  # 16 files: no shard is empty


def test_shard_parsing_and_keys(tmp_path: Path) -> None:
    assert Shard.parse("2/3") == Shard(2, 3) and str(Shard(2, 3)) == "2/3"
    for bad in ("0/3", "4/3", "3", "a/b", "1/2/3"):
        with pytest.raises(ValueError, match="I/N|between 1 and N"):
            Shard.parse(bad)
    root = tmp_path.resolve()
    assert shard_key(root / "x" / "y.pdf", [root]) == "x/y.pdf"
    assert shard_key(Path("/elsewhere/z.txt"), [root]) == "z.txt"


def _rows(index_dir: Path) -> dict:
    """`_contents` without what differs by design between a merged and a direct build (doc ids, mtimes)."""
    c = _contents(index_dir)
    return {"docs": sorted(d[1:9] + d[10:] for d in c["docs"]), "chunks": c["chunks"], "fts": c["fts"],
            "vectors": c["vectors"]}


def test_shards_merged_equal_one_build(tmp_path: Path) -> None:
    """Two machines' shards, merged without re-embedding, hold what one build of the folder holds."""
    folder = tmp_path / "docs"
    write_docs(folder, 10)
    shutil.copy(folder / "doc0003.txt", folder / "doc0003-copy.txt")  # a copy: indexed once
    emb = HashEmbedder()
    whole = Store.create(tmp_path / "whole", emb.name, emb.dim)
    index_paths([folder], whole, emb)
    for i in (1, 2):
        part = Store.create(tmp_path / f"part{i}", emb.name, emb.dim)
        index_paths([folder], part, emb, shard=Shard(i, 2))
        part.close()
    embedded = emb.embedded
    store, reports = merge_indexes([tmp_path / "part1", tmp_path / "part2"], tmp_path / "merged")
    assert emb.embedded == embedded  # nothing re-embedded
    assert sum(len(r.added) for _, r in reports) == len(whole.documents()) == 10
    merged, direct = _rows(tmp_path / "merged"), _rows(tmp_path / "whole")
    assert merged["docs"] == direct["docs"] and merged["chunks"] == direct["chunks"] and merged["fts"] == direct["fts"]
    np.testing.assert_array_equal(merged["vectors"], direct["vectors"])
    q = emb.embed_query("w17 w42 w99")
    got, want = store.dense_search(q, 5), whole.dense_search(q, 5)
    assert got[0] == want[0] and [s for _, s in got] == [s for _, s in want]  # (the fake embedder ties at 0)
    assert {d.mtime_ns for d in store.documents()} == {None}  # another machine's mtimes are not trusted here

    # Merging again changes nothing; a changed document in a part replaces the old one.
    _, again = merge_indexes([tmp_path / "part1", tmp_path / "part2"], tmp_path / "merged")
    assert sum(len(r.unchanged) for _, r in again) == 10 and not any(r.added or r.updated for _, r in again)
    changed = folder / "doc0005.txt"
    changed.write_text(changed.read_text() + "\nA new closing line.\n")
    holder = next(i for i in (1, 2) if Store.open(tmp_path / f"part{i}").document(str(changed.resolve())))
    part = Store.open(tmp_path / f"part{holder}")
    index_paths([folder], part, emb, shard=Shard(holder, 2))
    part.close()
    store.close()
    store, reports = merge_indexes([tmp_path / f"part{holder}"], tmp_path / "merged")
    assert reports[0][1].updated == [str(changed.resolve())]
    assert "A new closing line." in store.document_text(str(changed.resolve()))


def test_merge_refuses_another_model_and_itself(tmp_path: Path) -> None:
    emb = HashEmbedder()
    write_docs(tmp_path / "docs", 2)
    Store.create(tmp_path / "a", emb.name, emb.dim).close()
    Store.create(tmp_path / "b", "another-model", emb.dim).close()
    with pytest.raises(EmbedderMismatch, match="only indexes of the same model can be merged"):
        merge_indexes([tmp_path / "b"], tmp_path / "a")
    with pytest.raises(MergeError, match="is the index being merged into"):
        merge_indexes([tmp_path / "a"], tmp_path / "a")


@pytest.mark.parametrize("command", ["index", "merge"])
def test_help_shows_workers_shard_and_merge_examples(command: str) -> None:
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0, result.output
    expected = {"index": ["--workers N", "--shard I/N", "citewise index ~/papers --workers 2", "--shard 2/3"],
                "merge": ["citewise merge ./part1 ./part2 ./part3 --index ./team-index"]}[command]
    for text in expected:
        assert text in result.output


def test_bad_shard_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["index", str(tmp_path), "--shard", "3/2", "--index", str(tmp_path / "i")])
    assert result.exit_code == 2 and "I must be between 1 and N" in result.output


@pytest.mark.slow
def test_cli_two_machines_then_merge(tmp_path: Path) -> None:
    """The README's recipe with the real model: shard 1 with 2 workers, shard 2 with 1, then merge and search."""
    folder = _folder(tmp_path)
    runner = CliRunner()
    for i, workers in ((1, "2"), (2, "1")):
        result = runner.invoke(main, ["index", str(folder), "--shard", f"{i}/2", "--workers", workers,
                                      "--index", str(tmp_path / f"part{i}"), "--json"])
        assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["merge", str(tmp_path / "part1"), str(tmp_path / "part2"),
                                  "--index", str(tmp_path / "team"), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["documents"] == 5 and sum(len(p["added"]) for p in data["parts"]) == 5
    result = runner.invoke(main, ["search", "Baolin Li Netflix", "-k", "1", "--json", "--index", str(tmp_path / "team")])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["hits"][0]["doc"].endswith("profile.txt")
