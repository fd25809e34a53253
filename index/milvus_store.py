"""The Milvus `VectorStore`: chunk vectors in a Milvus collection, for indexes shared by a team.

`uri` is a local path (milvus-lite, embedded in this process; one process at a time may open
it) or `http(s)://host:19530` (a Milvus server or cluster; `token` and `db_name` as Milvus
expects them). The collection has three fields: `id` (the chunk id, primary key), `doc_id` (the
filter key) and `vector` (normalised, inner product). Below `vectors.EXACT_MAX` vectors it is
searched exactly (FLAT); from there on through HNSW, switched automatically after a write.

Milvus cannot join the SQLite transaction, so a write is ordered for repair instead: a marker
file (`vectors.pending`) is made durable first, new vectors are upserted before the SQLite
commit, removed ones deleted after it, and the marker goes last. A crash anywhere in between
leaves the marker; the next writer sees it and `repair`s: orphan vectors are deleted, chunks
without a vector (or filed under another document) are upserted from the vectors kept in SQLite.
Until then searches may return orphans, which the store drops (their chunk row is gone).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from . import vectors
from .errors import IndexLocked, VectorStoreError
from .vector_store import VectorCheck, VectorConfig, fsync_dir, stored_vectors

log = logging.getLogger(__name__)

MARKER = "vectors.pending"
BATCH = 2000  # rows per upsert/delete call
HNSW_PARAMS = {"M": 16, "efConstruction": 200}
HNSW_EF = 512  # search breadth (at least k): recall@10 0.978 at 100k, 0.982 at 1M (128: 0.785, 0.840; bench/scale.py)


def default_uri(index_path: Path) -> str:
    """milvus-lite inside the index directory (recorded relative to it)."""
    return str(index_path / "milvus.db")


def default_collection(index_path: Path) -> str:
    """A collection name unique to the index directory (Milvus names: letters, digits, _)."""
    digest = hashlib.sha1(str(index_path.resolve()).encode()).hexdigest()[:10]
    stem = "".join(c if c.isalnum() else "_" for c in index_path.name)[:40] or "index"
    return f"citewise_{stem}_{digest}"


def is_server(uri: str) -> bool:
    return uri.startswith(("http://", "https://", "tcp://", "unix:"))


# milvus-lite serves a file from a server thread of this process, which holds the file's lock until it
# is released: the last `MilvusVectors` of a file to close releases it, so another process can open it.
_lite_open: dict[str, int] = {}  # milvus-lite path -> open MilvusVectors on it in this process
_lite_guard = threading.Lock()


def _release_lite(uri: str) -> None:
    with _lite_guard:
        _lite_open[uri] -= 1
        if _lite_open[uri]:
            return
        del _lite_open[uri]
    with contextlib.suppress(Exception):
        from milvus_lite.server_manager import server_manager_instance

        server_manager_instance.release_server(uri)


def _client(uri: str, token: str | None, db_name: str | None) -> Any:
    try:
        from pymilvus import MilvusClient
    except ImportError:
        raise VectorStoreError(
            "This index keeps its vectors in Milvus, which needs pymilvus (and milvus-lite for a local file): "
            "pip install 'citewise[milvus]'"
        ) from None
    kwargs: dict[str, Any] = {"uri": uri}
    if token:
        kwargs["token"] = token
    if db_name:
        kwargs["db_name"] = db_name
    if not is_server(uri):
        # milvus-lite lacks AllocTimestamp, which query iterators ask for before falling back to a
        # client-side timestamp; its gRPC server logs that as an error with a traceback.
        logging.getLogger("grpc._server").setLevel(logging.CRITICAL)
        logging.getLogger("pymilvus.client.iterator.query_iterator").setLevel(logging.ERROR)
    try:
        return MilvusClient(**kwargs)
    except Exception as exc:
        if not is_server(uri):
            raise IndexLocked(
                f"Cannot open the milvus-lite file {uri}: another process has it open (milvus-lite allows one "
                f"process at a time; stop it, or use a Milvus server for shared use). ({exc})"
            ) from None
        raise VectorStoreError(f"Cannot connect to Milvus at {uri}: {exc}") from None


class MilvusVectors:
    name = "milvus"

    def __init__(self, config: VectorConfig, path: Path, dim: int, token: str | None = None) -> None:
        self.path = path
        self.dim = dim
        uri = config.uri or default_uri(path)
        self.uri = uri if is_server(uri) or Path(uri).is_absolute() else str(path / uri)
        self.collection = config.collection or default_collection(path)
        self._lock = threading.RLock()
        self.client = _client(self.uri, token, config.db_name)
        self._lite = not is_server(self.uri)
        if self._lite:
            with _lite_guard:
                _lite_open[self.uri] = _lite_open.get(self.uri, 0) + 1
        self._count = 0
        self._created = False
        try:
            if not self.client.has_collection(self.collection):
                self._create()
            else:
                self._check_schema()
        except BaseException:
            self.close()
            raise
        self._index_type = self._current_index_type()

    # -- collection ------------------------------------------------------------------------
    def _create(self) -> None:
        from pymilvus import DataType

        schema = self.client.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("id", DataType.INT64, is_primary=True)
        schema.add_field("doc_id", DataType.INT64)
        schema.add_field("vector", DataType.FLOAT_VECTOR, dim=self.dim)
        params = self.client.prepare_index_params()
        params.add_index("vector", index_type="FLAT", metric_type="IP")
        self.client.create_collection(self.collection, schema=schema, index_params=params,
                                      consistency_level="Strong")
        self._created = True
        log.info("created Milvus collection %s at %s", self.collection, self.uri)

    def _check_schema(self) -> None:
        desc = self.client.describe_collection(self.collection)
        fields = {f["name"]: f for f in desc.get("fields", [])}
        dim = int((fields.get("vector", {}).get("params") or {}).get("dim", -1))
        if set(fields) != {"id", "doc_id", "vector"} or dim != self.dim:
            raise VectorStoreError(
                f"The Milvus collection {self.collection!r} at {self.uri} is not a citewise collection of "
                f"{self.dim}-d vectors (fields {sorted(fields)}, dim {dim}); choose another --milvus-collection."
            )
        if self._described_index_type() is None:  # a crash between dropping and creating the index
            rows = int(self.client.get_collection_stats(self.collection).get("row_count", 0))
            self._index_type = "?"
            self._build_index("HNSW" if vectors.kind_for(rows) == "ivf" else "FLAT")
        self._load()

    def _load(self) -> None:
        """Load the collection for search; a milvus-lite index file cut short by a crash is rebuilt.

        milvus-lite writes each segment's vector index next to the segment's data in place, not by
        rename: a process killed while writing one leaves a short file, and every later load fails
        ("file seems not fully written"). Those files are derived from the segments, which are
        written atomically, so they are removed and the load, which builds them again, is retried.
        """
        try:
            self.client.load_collection(self.collection)
        except Exception as exc:
            dropped = self._drop_lite_index_files()
            if not dropped:
                raise
            log.warning("Milvus collection %s: could not load (%s); rebuilt its %d index file(s) from the segments",
                        self.collection, exc, dropped)
            self.client.load_collection(self.collection)

    def _drop_lite_index_files(self) -> int:
        """Remove the per-segment index files of this milvus-lite collection; how many there were."""
        if not self._lite:
            return 0
        partitions = Path(self.uri) / "collections" / self.collection / "partitions"
        files = [f for f in partitions.glob("*/indexes/*") if f.is_file() and f.suffix in (".idx", ".sidx")]
        for f in files:
            f.unlink()
        return len(files)

    def _described_index_type(self) -> str | None:
        try:
            desc = self.client.describe_index(self.collection, "vector")
        except Exception:
            return None
        return str(desc["index_type"]) if desc and desc.get("index_type") else None

    def _current_index_type(self) -> str:
        return self._described_index_type() or "FLAT"

    def _reindex(self, index_type: str) -> None:
        """Switch the collection's vector index (FLAT <-> HNSW); searches wait for it."""
        log.info("Milvus collection %s: vector index %s -> %s (%d vectors)",
                 self.collection, self._index_type, index_type, self._count)
        self.client.release_collection(self.collection)
        self.client.drop_index(self.collection, "vector")
        self._build_index(index_type)
        self._load()

    def _build_index(self, index_type: str) -> None:
        params = self.client.prepare_index_params()
        params.add_index("vector", index_type=index_type, metric_type="IP",
                         params=HNSW_PARAMS if index_type == "HNSW" else {})
        try:
            self.client.create_index(self.collection, params)
        except Exception:
            # A build that outlasts the gRPC keepalive (milvus-lite builds HNSW inside the call: ~4 min
            # at 100k vectors on 2 cores) drops the connection; pymilvus retries, and the retry finds
            # the index its first attempt created. That is success, not a reason to rebuild next write.
            if self._described_index_type() != index_type:
                raise
            log.info("Milvus collection %s: %s index found after a retried create_index", self.collection, index_type)
        self._index_type = index_type

    def _settle(self) -> None:
        """milvus-lite: move the rows just written from its memtable into a segment with its index.

        Until then each search scans the memtable in Python (2.3 s per query at 20k vectors, 0.14 s
        once flushed; bench/scale.py). A Milvus server seals and indexes growing segments itself.
        """
        if self._lite:
            self.client.flush(self.collection)

    def _fit_index(self) -> None:
        kind = vectors.kind_for(self._count, "ivf" if self._index_type == "HNSW" else "exact")
        want = "HNSW" if kind == "ivf" else "FLAT"
        if want != self._index_type:
            self._reindex(want)

    # -- VectorStore ---------------------------------------------------------------------
    def load(self, db: sqlite3.Connection) -> None:
        with self._lock:
            self._count = self._milvus_count()

    def _milvus_count(self) -> int:
        rows = self.client.query(self.collection, filter="", output_fields=["count(*)"], consistency_level="Strong")
        return int(rows[0]["count(*)"]) if rows else 0

    def count(self) -> int:
        return self._count

    def search(self, query: np.ndarray, k: int, doc_ids: Sequence[int] | None = None) -> list[tuple[int, float]]:
        if k <= 0 or (doc_ids is not None and not len(doc_ids)):
            return []
        q = np.asarray(query, dtype=np.float32).reshape(-1).tolist()
        params: dict[str, Any] = {"metric_type": "IP"}
        if self._index_type == "HNSW":
            params["params"] = {"ef": max(HNSW_EF, k)}
        kwargs: dict[str, Any] = {}
        if doc_ids is not None:
            kwargs["filter"] = f"doc_id in [{','.join(str(int(d)) for d in doc_ids)}]"
        with self._lock:
            res = self.client.search(self.collection, data=[q], limit=min(k, 16384), search_params=params,
                                     output_fields=[], consistency_level="Strong", **kwargs)
        return [(int(h["id"]), float(h["distance"])) for h in res[0]]

    def begin(self) -> MilvusBatch:
        return MilvusBatch(self)

    def needs_repair(self) -> bool:
        return (self.path / MARKER).exists() or self._created

    def _stored(self) -> Iterator[tuple[int, int]]:
        """(chunk id, doc id) of every vector in the collection."""
        if not self._milvus_count():
            return
        it = self.client.query_iterator(self.collection, batch_size=4096, filter="",
                                        output_fields=["doc_id"], consistency_level="Strong")
        try:
            while batch := it.next():
                for row in batch:
                    yield int(row["id"]), int(row["doc_id"])
        finally:
            it.close()

    def _diff(self, db: sqlite3.Connection) -> tuple[list[int], list[int], list[int]]:
        have = dict(self._stored())
        want = dict(db.execute("SELECT id, doc_id FROM chunks").fetchall())
        orphans = [i for i in have if i not in want]
        missing = [i for i in want if i not in have]
        misfiled = [i for i, d in want.items() if i in have and have[i] != d]
        return orphans, missing, misfiled

    def check(self, db: sqlite3.Connection) -> VectorCheck:
        with self._lock:
            orphans, missing, misfiled = self._diff(db)
        return VectorCheck(len(orphans), len(missing), len(misfiled))

    def repair(self, db: sqlite3.Connection) -> VectorCheck:
        with self._lock:
            orphans, missing, misfiled = self._diff(db)
            for i in range(0, len(orphans), BATCH):
                self.client.delete(self.collection, ids=orphans[i : i + BATCH])
            fix = missing + misfiled
            for i in range(0, len(fix), BATCH):
                part = fix[i : i + BATCH]
                ids, docs, vecs = stored_vectors(db, self.dim, f"WHERE id IN ({','.join('?' * len(part))})", part)
                self._upsert(ids, docs, vecs)
            if orphans or fix:
                self._settle()
            self._count = self._milvus_count()
            self._fit_index()
            _remove_marker(self.path)
            self._created = False
        found = VectorCheck(len(orphans), len(missing), len(misfiled))
        if not found.ok:
            log.warning("repaired the Milvus collection %s: %d orphan vectors deleted, %d missing and %d misfiled "
                        "vectors restored from SQLite", self.collection, found.orphans, found.missing, found.misfiled)
        return found

    def _upsert(self, ids: np.ndarray, doc_ids: np.ndarray, vecs: np.ndarray) -> None:
        for i in range(0, len(ids), BATCH):
            rows = [{"id": int(c), "doc_id": int(d), "vector": v}
                    for c, d, v in zip(ids[i : i + BATCH], doc_ids[i : i + BATCH], vecs[i : i + BATCH], strict=True)]
            self.client.upsert(self.collection, rows)

    def describe(self) -> dict[str, Any]:
        kind = "exact" if self._index_type == "FLAT" else "approximate"
        return {"vector_store": "milvus", "vector_index": self._index_type.lower(),
                "vector_index_description": f"{kind} (Milvus {self._index_type})", "exact_max": vectors.EXACT_MAX,
                "milvus_uri": self.uri, "milvus_collection": self.collection}

    def drop(self) -> None:
        """Delete the collection (the index directory is being deleted)."""
        with self._lock:
            self.client.drop_collection(self.collection)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close()
        if self._lite:
            self._lite = False  # closing twice releases once
            _release_lite(self.uri)


def _write_marker(path: Path) -> None:
    marker = path / MARKER
    with open(marker, "w") as f:
        f.write("a write to the Milvus collection is in progress or was cut short; the next write repairs it\n")
        f.flush()
        os.fsync(f.fileno())
    fsync_dir(path)


def _remove_marker(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        (path / MARKER).unlink()


class MilvusBatch:
    """Net changes of one write: upserted before the SQLite commit, deletions after it."""

    def __init__(self, owner: MilvusVectors) -> None:
        self.owner = owner
        self.added: dict[int, tuple[int, np.ndarray]] = {}
        self.removed: set[int] = set()

    def add(self, ids: np.ndarray, vectors: np.ndarray, doc_ids: np.ndarray) -> None:
        for i, v, d in zip(ids.tolist(), vectors, doc_ids.tolist(), strict=True):
            self.added[i] = (d, np.asarray(v, dtype=np.float32))
            self.removed.discard(i)

    def remove(self, ids: np.ndarray) -> None:
        for i in np.asarray(ids).tolist():
            self.added.pop(i, None)
            self.removed.add(i)

    def prepare(self, db: sqlite3.Connection, generation: int) -> None:
        if not (self.added or self.removed):
            return
        _write_marker(self.owner.path)
        if self.added:
            ids = np.fromiter(self.added, dtype=np.int64, count=len(self.added))
            docs = np.array([d for d, _ in self.added.values()], dtype=np.int64)
            vecs = np.vstack([v for _, v in self.added.values()])
            with self.owner._lock:
                self.owner._upsert(ids, docs, vecs)

    def finish(self) -> None:
        owner = self.owner
        if not (self.added or self.removed):
            return
        try:
            with owner._lock:
                gone = sorted(self.removed)
                for i in range(0, len(gone), BATCH):
                    owner.client.delete(owner.collection, ids=gone[i : i + BATCH])
                owner._settle()
                owner._count = owner._milvus_count()
                owner._fit_index()
        except Exception as exc:  # committed in SQLite; the marker stays and the next write repairs
            log.warning("Milvus: finishing the write after the commit failed (%d vectors to delete; %s); "
                        "the next write repairs it", len(self.removed), exc)
            return
        _remove_marker(owner.path)

    def abort(self) -> None:
        """Upserts made for a transaction that rolled back stay until the next write repairs them (marker)."""
