"""Crash consistency of a Milvus-backed index: SQLite and Milvus never disagree once repaired.

`test_sigkill_while_indexing_into_milvus` builds an index of a folder (state A) into milvus-lite,
changes the folder (state B: 40 files rewritten, 60 added, 30 deleted), and runs `index_paths`
on it (`--prune`) in a subprocess, which it SIGKILLs: at random moments, and right after the
subprocess reports reaching a write step, so that kills land inside each window of the Milvus
write order (upsert before the SQLite commit, delete after it, marker last). The steps are
reported by wrapping the store's own methods in the subprocess script; nothing in the product
sleeps or waits for the test. After each kill, before any repair, SQLite must be intact with
every document whole, no committed chunk may lack its vector, and any orphan vector must be
covered by the `vectors.pending` marker. Then the user runs `citewise index <folder> --prune`
again (through CliRunner): the index must equal a clean index of state B, with exactly one vector
per chunk (`check_vectors`, counts, a self-search of every sampled chunk) and dense search
returning only existing chunk ids.

Embedding is `HashEmbedder`, a deterministic FAKE (tests/index_helpers.py), in the subprocess and
in the CLI re-run (its embedder factory is pointed at it: the index was built with it), so the
trials take seconds each; milvus-lite, SQLite, the subprocesses and SIGKILL are real.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from index_helpers import HashEmbedder, snapshot, write_docs

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")

from index import Store, index_paths  # noqa: E402
from index.milvus_store import MARKER  # noqa: E402
from index.vector_store import VectorConfig  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
TRIALS = 12
STRATEGIES = ("random", "upsert", "upserted", "committed")  # what a trial's kill waits for

# The writer: `index_paths` as `citewise index --prune` runs it, reporting the write steps on
# stdout (unbuffered) by wrapping the store's methods; the wrappers add no waiting.
WRITER = """
import os, sys, time
sys.path.insert(0, {tests!r})
import pymilvus
from index_helpers import HashEmbedder
from index import Store, index_paths
from index import milvus_store, store as store_mod

def event(text):
    os.write(1, (text + "\\n").encode())

def wrap(owner, name, before, after):
    orig = getattr(owner, name)
    def wrapped(self, *a, **k):
        if before:
            event(before(self) if callable(before) else before)
        out = orig(self, *a, **k)
        if after:
            event(after)
        return out
    setattr(owner, name, wrapped)

wrap(milvus_store.MilvusBatch, "prepare", lambda b: f"prepare {{len(b.added)}} {{len(b.removed)}}", "upserted")
commit = store_mod.Writer._commit
def _commit(self):
    gen = commit(self)
    event("committed" if gen is not None else "unchanged")  # unchanged: a write with nothing to commit
    return gen
store_mod.Writer._commit = _commit
wrap(pymilvus.MilvusClient, "delete", "delete", "deleted")
wrap(milvus_store.MilvusBatch, "finish", None, "finished")
wrap(milvus_store.MilvusVectors, "repair", "repair", "repaired")
store = Store.open(sys.argv[1])
event("writing")
t = time.perf_counter()
index_paths([sys.argv[2]], store, HashEmbedder(), prune=True)
event(f"done {{time.perf_counter() - t:.4f}}")
"""


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """An index of `docs` in state A (120 files), then `docs` changed to state B."""
    root = tmp_path_factory.mktemp("milvus-crash")
    write_docs(root / "a", 120, seed=1, paragraphs=4)
    write_docs(root / "b", 180, seed=2, paragraphs=6)
    docs = root / "docs"
    docs.mkdir()
    for i in range(120):
        shutil.copy(root / "a" / f"doc{i:04d}.txt", docs)
    # Old mtimes: size+mtime are trusted, so a re-run with nothing changed writes nothing at all.
    hour_ago = time.time() - 3600
    for p in docs.iterdir():
        os.utime(p, (hour_ago, hour_ago))
    state_a = {str(p): _sha(p) for p in docs.iterdir()}
    emb = HashEmbedder()
    store = Store.create(root / "base", emb.name, emb.dim, vectors=VectorConfig("milvus"))
    index_paths([docs], store, emb)
    assert store.check_vectors().ok and store.vector_count > 0
    store.close()
    for i in range(30):  # deleted
        (docs / f"doc{i:04d}.txt").unlink()
    for i in [*range(30, 70), *range(120, 180)]:  # rewritten, added
        shutil.copy(root / "b" / f"doc{i:04d}.txt", docs)
        os.utime(docs / f"doc{i:04d}.txt", (hour_ago + 60, hour_ago + 60))
    state_b = {str(p): _sha(p) for p in docs.iterdir()}
    return {"root": root, "docs": docs, "base": root / "base", "a": state_a, "b": state_b}


def copy_index(src: Path, dst: Path) -> Path:
    """A copy of a milvus-lite index; its manifest names the milvus-lite path, so point it at the copy."""
    shutil.copytree(src, dst)
    manifest = json.loads((dst / "manifest.json").read_text())
    manifest["vectors"]["uri"] = str(dst.resolve() / "milvus.db")
    (dst / "manifest.json").write_text(json.dumps(manifest))
    return dst


def _release(index_dir: Path) -> None:
    """Stop this process's milvus-lite server for the index (the CLI leaves its store open, as a process that exits)."""
    from milvus_lite.server_manager import server_manager_instance

    server_manager_instance.release_server(str(index_dir.resolve() / "milvus.db"))


def run_writer(index_dir: Path, docs: Path, trigger: tuple[str, int] | None = None, delay: float = 0.0,
               ) -> tuple[list[str], bool]:
    """Run the writer; with `trigger` (event, occurrence), SIGKILL it `delay` s after that event
    (("writing", 1): a random moment). Returns the events it reported and whether it was killed."""
    proc = subprocess.Popen([sys.executable, "-c", WRITER.format(tests=str(TESTS)), str(index_dir), str(docs)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    assert proc.stdout is not None and proc.stderr is not None
    events: list[str] = []
    seen = 0
    while trigger is not None and (line := proc.stdout.readline()):
        events.append(line.strip())
        if line.split()[0] == trigger[0]:
            seen += 1
            if seen == trigger[1]:
                time.sleep(delay)
                os.kill(proc.pid, signal.SIGKILL)
                break
    out, err = proc.communicate(timeout=120)
    events += out.split("\n")
    events = [e for e in events if e]
    killed = proc.returncode == -signal.SIGKILL
    assert killed or proc.returncode == 0, err[-3000:]
    return events, killed


def transactions(events: list[str]) -> list[dict]:
    """The writes the writer reported: vectors added and removed, and the step times when timed."""
    return [{"added": int(e.split()[1]), "removed": int(e.split()[2])} for e in events if e.startswith("prepare")]


def window(events: list[str]) -> str:
    """Where the writer died: the last write step it reported, named by what Milvus and SQLite hold."""
    steps = [e.split()[0] for e in events]
    last = steps[-1]
    if last == "done":
        return "completed"
    removing = int(next(e for e in reversed(events) if e.startswith("prepare")).split()[2]) if "prepare" in steps else 0
    return {
        "prepare": "marker/upsert (SQLite not committed)",
        "upserted": "upserted, SQLite not committed",
        "committed": "committed, delete pending" if removing else "committed, nothing to delete",
        "delete": "committed, delete in flight",
        "deleted": "deleted, marker not yet removed",
    }.get(last, "outside a Milvus write (parse/embed/SQLite rows)")


def sqlite_state(index_dir: Path) -> tuple[dict[str, str], set[int]]:
    """(path -> sha256, chunk ids) after checking the file's integrity and that every document is whole."""
    db = sqlite3.connect(index_dir / "chunks.sqlite")
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = db.execute("SELECT path, sha256, n_chunks, (SELECT COUNT(*) FROM chunks c WHERE c.doc_id = d.doc_id)"
                          " FROM documents d").fetchall()
        ids = {r[0] for r in db.execute("SELECT id FROM chunks")}
    finally:
        db.close()
    assert all(n == m for _, _, n, m in rows), "a document with some of its chunks"
    return {p: s for p, s, _, _ in rows}, ids


def check_repaired(index_dir: Path, clean: str, emb: HashEmbedder) -> None:
    """The index equals a clean one of state B and Milvus holds exactly one vector per chunk."""
    assert not (index_dir / MARKER).exists()
    assert snapshot(index_dir) == clean
    _, ids = sqlite_state(index_dir)
    store = Store.open(index_dir)
    try:
        assert store.check_vectors().ok
        assert store.vector_count == len(ids)
        sample = random.Random(len(ids)).sample(sorted(ids), 25)
        for cid, vec in zip(sample, store.vectors(sample), strict=True):  # each chunk's own vector finds it
            assert store.dense_search(vec, 1)[0][0] == cid
        for text in ("w1 w2 w3 w4", "Document 250 seed 2", "w17 w400 w1999"):
            hits = store.dense_search(emb.embed_query(text), 50)
            assert len(hits) == 50 and {i for i, _ in hits} <= ids
    finally:
        store.close()


@pytest.mark.slow
def test_sigkill_while_indexing_into_milvus(base: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import assistant.api
    from assistant.cli import main

    emb = HashEmbedder()
    monkeypatch.setattr(assistant.api, "make_embedder", lambda model: HashEmbedder())
    docs, a, b = base["docs"], base["a"], base["b"]
    # A clean run: the final state, and the writes (with removals or not) that the kills aim at.
    clean_dir = copy_index(base["base"], tmp_path / "clean")
    events, killed = run_writer(clean_dir, docs)
    assert not killed
    txs = transactions(events)
    duration = float(events[-1].split()[1])
    assert len(txs) >= 3 and any(t["removed"] for t in txs) and sum(t["added"] for t in txs) > 400
    assert sqlite_state(clean_dir)[0] == b
    clean = snapshot(clean_dir)
    check_repaired(clean_dir, clean, emb)

    rng = random.Random(20261123)
    seen: Counter[str] = Counter()
    needed_repair: Counter[str] = Counter()
    for trial in range(TRIALS):
        target = copy_index(base["base"], tmp_path / f"trial{trial}")
        strategy = STRATEGIES[trial % len(STRATEGIES)]
        with_removals = [k for k, t in enumerate(txs, 1) if t["removed"]]
        with_additions = [k for k, t in enumerate(txs, 1) if t["added"]]
        if strategy == "random":
            trigger, delay = ("writing", 1), rng.uniform(0, duration * 1.1)
        elif strategy == "upsert":
            trigger, delay = ("prepare", rng.choice(with_additions)), rng.uniform(0, 0.05)
        elif strategy == "upserted":
            trigger, delay = ("upserted", rng.choice(with_additions)), rng.uniform(0, 0.003)
        else:
            trigger, delay = ("committed", rng.choice(with_removals)), rng.uniform(0, 0.003)
        events, killed = run_writer(target, docs, trigger, delay)
        where = window(events) if killed else "completed"
        seen[where] += 1

        # Before any repair: SQLite intact and every document whole, in its A or its B version.
        state, ids = sqlite_state(target)
        assert set(state) <= set(a) | set(b)
        assert all(sha in (a.get(p), b.get(p)) for p, sha in state.items())
        store = Store.open(target)
        found = store.check_vectors()
        pending = (target / MARKER).exists()
        hits = {i for i, _ in store.dense_search(emb.embed_query("w1 w2 w3"), 100)}
        store.close()
        assert found.missing == 0, f"trial {trial} ({where}): a committed chunk without its vector"
        assert found.ok or pending, f"trial {trial} ({where}): {found} with no marker to repair it"
        if not found.ok:
            needed_repair[where] += 1
        if hits - ids:
            needed_repair["search returned orphans"] += 1
        print(f"trial {trial}: {strategy} {trigger} +{delay * 1000:.0f} ms -> {where}; {found}, marker {pending}; "
              f"{len(state)} docs")

        # The user runs `citewise index` again on the same folder.
        result = CliRunner().invoke(main, ["index", str(docs), "--index", str(target), "--prune", "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["documents"] == len(b)
        _release(target)
        check_repaired(target, clean, emb)
        _release(target)
        shutil.rmtree(target)
    print(f"\n{TRIALS} kills landed: {dict(seen)}; repair had work after: {dict(needed_repair)}")
    # The kills did hit both windows of the write order, and the repair had work to do in each.
    assert needed_repair["upserted, SQLite not committed"] + needed_repair["marker/upsert (SQLite not committed)"] > 0
    assert needed_repair["committed, delete pending"] + needed_repair["committed, delete in flight"] > 0


# -- unit level: the marker makes the next writer repair ------------------------------------------

def _small_index(tmp_path: Path, n: int = 6) -> tuple[Store, HashEmbedder, Path]:
    emb = HashEmbedder()
    docs = tmp_path / "docs"
    write_docs(docs, n, seed=3)
    hour_ago = time.time() - 3600
    for p in docs.iterdir():
        os.utime(p, (hour_ago, hour_ago))
    store = Store.create(tmp_path / "index", emb.name, emb.dim, vectors=VectorConfig("milvus"))
    index_paths([docs], store, emb)
    return store, emb, docs


def _break_behind_the_store(store: Store) -> tuple[int, int, int]:
    """Delete one vector, file another under a wrong document and insert a bogus id, through the Milvus client."""
    mv = store.vector_store
    client, collection = mv.client, mv.collection  # type: ignore[attr-defined]
    db = sqlite3.connect(store.path / "chunks.sqlite")
    rows = db.execute("SELECT id, doc_id, vector FROM chunks ORDER BY id").fetchall()
    db.close()
    ids = [r[0] for r in rows]
    gone, misfiled = ids[0], ids[1]
    bogus = 999_999_999_999
    client.delete(collection, ids=[gone])
    client.upsert(collection, [
        {"id": misfiled, "doc_id": rows[1][1] + 1000, "vector": np.frombuffer(rows[1][2], dtype="<f4").tolist()},
        {"id": bogus, "doc_id": rows[2][1], "vector": np.frombuffer(rows[2][2], dtype="<f4").tolist()},
    ])
    return gone, misfiled, bogus


@pytest.mark.slow
def test_marker_makes_the_next_writer_repair(tmp_path: Path) -> None:
    store, emb, _ = _small_index(tmp_path)
    n = store.vector_count
    gone, misfiled, bogus = _break_behind_the_store(store)
    found = store.check_vectors()
    assert (found.orphans, found.missing, found.misfiled) == (1, 1, 1)
    # Without the marker nothing says a write was cut short: a writer does not scan.
    with store.writer():
        pass
    assert store.check_vectors() == found
    (store.path / MARKER).write_text("cut short\n")
    with store.writer():
        pass
    assert store.check_vectors().ok and not (store.path / MARKER).exists()
    assert store.vector_store.count() == n
    vec = store.vectors([gone])[0]
    assert store.dense_search(vec, 1)[0][0] == gone
    assert bogus not in {i for i, _ in store.dense_search(vec, n + 5)}
    doc_paths = [d.doc for d in store.documents()]
    # The misfiled chunk is found again when searching within its own document.
    own = next(p for p in doc_paths if misfiled in {c.id for c in store.chunks_of(p)})
    assert misfiled in {i for i, _ in store.dense_search_in(store.vectors([misfiled])[0], [own], 3)}
    store.close()


@pytest.mark.slow
def test_reindexing_an_unchanged_folder_repairs(tmp_path: Path) -> None:
    """A kill after the last commit leaves nothing for `citewise index` to write; it must still repair."""
    store, emb, docs = _small_index(tmp_path)
    _break_behind_the_store(store)
    (store.path / MARKER).write_text("cut short\n")
    report = index_paths([docs], store, emb)
    assert len(report.unchanged) == 6 and not (report.added or report.updated)
    assert store.check_vectors().ok and not (store.path / MARKER).exists()
    store.close()


@pytest.mark.slow
def test_closed_milvus_lite_index_opens_in_another_process(tmp_path: Path) -> None:
    """milvus-lite locks its file per process; closing the store releases it for the next process."""
    store, _, _ = _small_index(tmp_path)
    n = store.vector_count
    store.close()
    code = (f"import sys; sys.path.insert(0, {str(REPO)!r}); from index import Store; "
            f"s = Store.open({str(tmp_path / 'index')!r}); print(s.vector_count)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.split()[-1]) == n


@pytest.mark.slow
def test_a_write_leaves_no_rows_in_the_milvus_lite_memtable(tmp_path: Path) -> None:
    """Each search scans milvus-lite's unflushed rows in Python (2.3 s a query at 20k vectors): a write flushes them."""
    store, emb, docs = _small_index(tmp_path)
    collection = store.vector_store.collection  # type: ignore[attr-defined]
    segments = store.path / "milvus.db" / "collections" / collection / "partitions" / "_default" / "data"
    assert list(segments.glob("data_*.parquet"))  # written by the write, not only when the process exits
    wal = store.path / "milvus.db" / "collections" / collection / "wal"
    assert not [p for p in wal.glob("wal_data_*") if p.stat().st_size > 0]
    store.close()


@pytest.mark.slow
def test_a_retried_create_index_completes_the_hnsw_switch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """milvus-lite builds HNSW inside `create_index` (~4 min at 100k vectors on 2 cores). A call that long
    outlasts the gRPC keepalive: the connection drops, pymilvus retries, and the retry answers "index already
    exists" for the index its first attempt made. Before the fix the switch failed, the marker stayed,
    search ran HNSW without its ef (recall@10 0.62 at 100k) and every later write rebuilt HNSW again."""
    import pymilvus

    from index import vectors

    monkeypatch.setattr(vectors, "EXACT_MAX", 10)
    emb = HashEmbedder()
    docs = tmp_path / "docs"
    write_docs(docs, 6, seed=3)
    store = Store.create(tmp_path / "index", emb.name, emb.dim, vectors=VectorConfig("milvus"))
    real = pymilvus.MilvusClient.create_index
    calls: list[str] = []

    def dropped_then_retried(self: pymilvus.MilvusClient, *args: object, **kwargs: object) -> None:
        calls.append("create_index")
        real(self, *args, **kwargs)  # the first attempt goes through on the server ...
        real(self, *args, **kwargs)  # ... and the client sees only its retry's answer

    monkeypatch.setattr(pymilvus.MilvusClient, "create_index", dropped_then_retried)
    index_paths([docs], store, emb)
    assert store.vector_count >= 10 and calls == ["create_index"]
    assert store.vector_index_kind == "hnsw" and not (store.path / MARKER).exists()
    write_docs(docs, 8, seed=4)  # a later write keeps the index it has
    index_paths([docs], store, emb)
    assert calls == ["create_index"] and store.check_vectors().ok
    hits = store.dense_search(emb.embed_query("w1 w2 w3"), 5)
    assert len(hits) == 5
    store.close()


@pytest.mark.slow
def test_an_index_file_cut_short_is_rebuilt_on_open(tmp_path: Path) -> None:
    """milvus-lite writes a segment's index file in place: a kill while it writes (seen in CI, inside the
    SIGKILL test) left a short file that every later load refused. The store rebuilds it from the segment."""
    store, emb, _ = _small_index(tmp_path)
    n = store.vector_count
    db = sqlite3.connect(store.path / "chunks.sqlite")
    ids = [r[0] for r in db.execute("SELECT id FROM chunks ORDER BY id LIMIT 3")]
    db.close()
    sample = store.vectors(ids)
    store.close()
    _release(store.path)
    files = [p for p in (store.path / "milvus.db").rglob("*.idx") if p.is_file()]
    assert files
    for p in files:  # what a kill halfway through the write leaves
        p.write_bytes(p.read_bytes()[: p.stat().st_size // 3])
    store = Store.open(store.path)
    try:
        assert store.vector_count == n and store.check_vectors().ok
        assert [store.dense_search(v, 1)[0][0] for v in sample] == ids
        assert all(p.stat().st_size > 0 for p in files if p.exists())
    finally:
        store.close()
