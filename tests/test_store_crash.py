"""Crash safety: writers killed with SIGKILL at random moments leave the old or the new state.

Each trial copies a base index, starts a writer subprocess, kills it with SIGKILL at a random
moment of its write, then opens the index: it must load, pass `PRAGMA integrity_check`, and hold
exactly the state before or after the write (documents, chunks, vectors, FTS rows, FAISS ids).
The writer script embeds with `HashEmbedder`, a deterministic FAKE (tests/index_helpers.py), so
24 trials take seconds; SQLite, FAISS and the filesystem are real. `test_killed_citewise_index`
kills the real `citewise index` command (real model) a few times.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from index_helpers import HashEmbedder, snapshot, write_docs

from index import Store, index_paths

REPO = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
TRIALS = 24

WRITER = """
import sys, time
sys.path.insert(0, {tests!r})
from pathlib import Path
from index_helpers import HashEmbedder
from index import Store
from ingest import chunk_document, load_document

index_dir, new_dir = sys.argv[1], Path(sys.argv[2])
store = Store.open(index_dir)
emb = HashEmbedder()
docs = [load_document(p) for p in sorted(new_dir.glob("*.txt"))]
parts = [(d, chunk_document(d)) for d in docs]
vectors = [emb.embed_documents([c.embed_text() for c in cs]) for _, cs in parts]
gone = [d.doc for d in store.documents()][::3]
print("writing", flush=True)
t = time.perf_counter()
with store.writer() as w:  # one transaction: removals, additions, then the FAISS switch
    for path in gone:
        w.remove_document(path)
    for (doc, chunks), vecs in zip(parts, vectors):
        w.add_document(doc, chunks, vecs, 1)
print("done", time.perf_counter() - t, flush=True)
"""


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A base index of 150 documents and a folder of 150 more that the writer adds."""
    root = tmp_path_factory.mktemp("crash")
    emb = HashEmbedder()
    write_docs(root / "old", 150, seed=1)
    write_docs(root / "new", 150, seed=2, paragraphs=6)
    store = Store.create(root / "base", emb.name, emb.dim)
    index_paths([root / "old"], store, emb)
    store.close()
    return root, root / "new"


def _run_writer(index_dir: Path, new_dir: Path, kill_after: float | None) -> tuple[str, float]:
    script = WRITER.format(tests=str(TESTS))
    proc = subprocess.Popen([sys.executable, "-c", script, str(index_dir), str(new_dir)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    assert line == "writing", proc.stderr.read() if proc.stderr else line
    if kill_after is None:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        return "done", float(out.split()[-1])
    time.sleep(kill_after)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return "killed", kill_after


def _check_loads(index_dir: Path) -> None:
    db = sqlite3.connect(index_dir / "chunks.sqlite")
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        db.close()
    store = Store.open(index_dir)
    n_chunks = sum(d.chunks for d in store.documents())
    assert store.vector_count == n_chunks  # FAISS and SQLite agree
    assert store.lexical_search("w1 w2 w3", 3)
    store.close()


@pytest.mark.slow
def test_sigkill_during_a_write_leaves_old_or_new_state(base: tuple[Path, Path], tmp_path: Path) -> None:
    root, new_dir = base
    old_state = snapshot(root / "base")
    # One clean run gives the new state and how long the write takes.
    clean = tmp_path / "clean"
    shutil.copytree(root / "base", clean)
    _, duration = _run_writer(clean, new_dir, None)
    new_state = snapshot(clean)
    assert new_state != old_state
    rng = random.Random(20261122)
    seen = {"old": 0, "new": 0}
    for trial in range(TRIALS):
        target = tmp_path / f"trial{trial}"
        shutil.copytree(root / "base", target)
        # Random moments across the write, and a little past it (the kill may land after the commit).
        _run_writer(target, new_dir, rng.uniform(0, duration * 1.3))
        _check_loads(target)
        state = snapshot(target)
        assert state in (old_state, new_state), f"trial {trial}: a state that is neither old nor new"
        seen["old" if state == old_state else "new"] += 1
        shutil.rmtree(target)
    assert seen["old"] > 0  # the kills did interrupt writes (and the old state survived them)


@pytest.mark.slow
def test_killed_citewise_index_recovers(tmp_path: Path) -> None:
    """The real `citewise index` (real model), killed mid-run: the index loads, and a re-run completes it."""
    docs = tmp_path / "docs"
    for i in range(3):
        (docs / f"note{i}.md").parent.mkdir(parents=True, exist_ok=True)
        (docs / f"note{i}.md").write_text(f"# Note {i}\n\nThe GNN paper number {i} used FP8 kernels on ICPP data.\n")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    cmd = [str(Path(sys.executable).parent / "citewise"), "index", str(docs), "--index", str(tmp_path / "idx"), "--json"]
    rng = random.Random(7)
    for _ in range(3):
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO, env=env)
        time.sleep(rng.uniform(1.0, 8.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if (tmp_path / "idx" / "manifest.json").exists():
            _check_loads_real(tmp_path / "idx")
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    _check_loads_real(tmp_path / "idx")
    store = Store.open(tmp_path / "idx")
    assert sorted(Path(d.doc).name for d in store.documents()) == ["note0.md", "note1.md", "note2.md"]


def _check_loads_real(index_dir: Path) -> None:
    db = sqlite3.connect(index_dir / "chunks.sqlite")
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        docs = db.execute("SELECT n_chunks, (SELECT COUNT(*) FROM chunks c WHERE c.doc_id = d.doc_id) FROM documents d").fetchall()
    finally:
        db.close()
    assert all(n == m for n, m in docs)  # every document is whole
    store = Store.open(index_dir)
    assert store.vector_count == sum(n for n, _ in docs)
    store.close()


def test_hash_embedder_is_deterministic() -> None:
    a, b = HashEmbedder(), HashEmbedder()
    assert (a.embed_documents(["x y"]) == b.embed_documents(["x y"])).all()
