"""Exact BM25 from term postings kept beside FTS5: how the lexical index is searched.

FTS5's `bm25()` runs per matching row through the auxiliary-function API (~3 µs a row), so a
query of common words over 100k chunks spends 130 ms scoring (bench/scale.py). This side index
keeps, per stemmed term, one blob of postings (the chunk's row number, the term's count in the
`text` and `context` columns, the chunk's length in tokens); `lexical_rows` numbers the chunks
densely, so a query sums its terms' scores into one array by row number (no sort, no hashing) and
reads the top ids back. An open index keeps the per-term scores of recent terms (`Cache`): ~1.5 ms
per query at 100k chunks when its terms were seen since the last write, ~2.5 ms when not.

It is FTS5's ranking, not an approximation of it:

- the same tokens: text goes through FTS5's own tokenizer (`TOKENIZE`, porter stemming included),
  run on an in-memory FTS5 table and read back through `fts5vocab`;
- the same formula as FTS5's `bm25()`: IDF = ln((N - n + 0.5) / (n + 0.5)) floored at 1e-6, a
  column weight multiplies that column's count, a chunk's length counts all its columns, the
  average length is over the whole table; b = 0.75. FTS5 fixes k1 = 1.2; searches here use 1.5
  (bm25s's default; +0.003 to +0.004 nDCG@10 on Cranfield and CACM, bench/lexical.py), and
  `k1=FTS5_K1` gives FTS5's. `tests/test_postings.py` checks equal scores and ranks against
  `bm25()` itself.

`search(doc_weight=w)` adds w x the chunk's whole document's BM25, computed from the same postings
(a document's counts and length are its chunks' summed; Lucene IDF): nothing more is stored.

The postings change inside the writer's SQLite transaction (`Delta.apply` before COMMIT), so they
are as atomic as the chunk rows. A term FTS5 splits further (`graph_neural`) counts as its parts
here, where FTS5 would look for the phrase; `index.lexical` never produces such terms from text
but a query can.
"""

from __future__ import annotations

import math
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .sql import select_in

TOKENIZE = "porter unicode61 remove_diacritics 2 tokenchars '.#+'"
TABLE = "lexical_postings"
K1, B = 1.5, 0.75  # bm25s's (and Robertson's range); FTS5's bm25() has 1.2, 0.75 built in
FTS5_K1 = 1.2  # `search(k1=FTS5_K1)` ranks exactly as FTS5's bm25() (the tests' reference)
ROWS = "lexical_rows"
_FIELDS: dict[str, np.dtype] = {
    "row": np.dtype("<u4"), "text": np.dtype("<u2"), "context": np.dtype("<u2"), "length": np.dtype("<u4"),
}
POSTING = np.dtype(list(_FIELDS.items()))
_U16 = np.iinfo(np.uint16).max
_BATCH = 5000  # words tokenised at a time
_ROWS_AT_ONCE = 10_000  # rows counted at a time
SPARE_ROWS = 1024  # row numbers are renumbered when the largest exceeds 2 x rows + this

Row = tuple[int, str, str]  # (chunk id, pre-tokenised text, pre-tokenised context), as FTS5 holds them

_BY_DOC = "\x00doc"  # cache key suffix of a term's document-level impacts (no term holds a NUL)

_local = threading.local()


def _tokenizer() -> sqlite3.Connection:
    """This thread's in-memory FTS5 table with the index's tokenizer, and its `instance` vocabulary."""
    con: sqlite3.Connection | None = getattr(_local, "con", None)
    if con is None:
        con = sqlite3.connect(":memory:", isolation_level=None)
        con.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, context, tokenize=\"{TOKENIZE}\")")
        con.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
        _local.con = con
        _local.stems = {}
    return con


def postings_of(rows: Iterable[Row]) -> tuple[dict[str, np.ndarray], int]:
    """The postings of `rows` ((row number, text, context)), by stemmed term, each sorted by row,
    and the number of tokens in all of them.

    FTS5's tokens never span whitespace, so each distinct word of the pre-tokenised rows goes
    through FTS5's tokenizer once (`_stem_words`); the counting is numpy over word numbers.
    """
    rows = sorted(rows)
    parts: dict[str, list[np.ndarray]] = {}
    tokens = 0
    for start in range(0, len(rows), _ROWS_AT_ONCE):  # bounded memory for a big first build
        found, n = _postings_of(rows[start : start + _ROWS_AT_ONCE])
        tokens += n
        for t, arr in found.items():
            parts.setdefault(t, []).append(arr)
    return {t: p[0] if len(p) == 1 else np.concatenate(p) for t, p in parts.items()}, tokens


def _postings_of(rows: list[Row]) -> tuple[dict[str, np.ndarray], int]:
    if not rows:
        return {}, 0
    vocab: dict[str, int] = {}
    words: list[int] = []
    row_of: list[int] = []
    col_of: list[int] = []
    for r, (_, text, ctx) in enumerate(rows):
        for col, value in ((0, text), (1, ctx)):
            toks = value.split()
            words.extend(vocab.setdefault(w, len(vocab)) for w in toks)
            row_of.extend([r] * len(toks))
            col_of.extend([col] * len(toks))
    stem = _stem_words(vocab)
    terms = sorted({t for ts in stem.values() for t in ts})
    term_no = {t: j for j, t in enumerate(terms)}
    # word number -> its stems, flat: stems of word w are flat[start[w] : start[w] + count[w]]
    per_word = [[term_no[t] for t in stem[w]] for w in vocab]
    count = np.array([len(ts) for ts in per_word], dtype=np.int64)
    start = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
    flat = np.array([t for ts in per_word for t in ts], dtype=np.int64)
    w_arr = np.array(words, dtype=np.int64)
    per_token = count[w_arr]
    at = np.repeat(start[w_arr] - np.cumsum(per_token) + per_token, per_token) + np.arange(int(per_token.sum()))
    term = flat[at]
    row = np.repeat(np.array(row_of, dtype=np.int64), per_token)
    column = np.repeat(np.array(col_of, dtype=np.int64), per_token)
    length = np.bincount(row, minlength=len(rows))
    n = len(rows)
    key, counts = np.unique((term * n + row) * 2 + column, return_counts=True)
    pair = key // 2  # term * n + row, sorted: by term, then row
    first = np.concatenate([[True], pair[1:] != pair[:-1]])
    where = np.flatnonzero(first)
    pairs = pair[where]
    text_n = np.zeros(len(pairs), dtype=np.int64)
    ctx_n = np.zeros(len(pairs), dtype=np.int64)
    slot = np.cumsum(first) - 1
    is_ctx = (key % 2).astype(bool)
    text_n[slot[~is_ctx]] = counts[~is_ctx]
    ctx_n[slot[is_ctx]] = counts[is_ctx]
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    post = np.empty(len(pairs), POSTING)
    post["row"] = ids[pairs % n]
    post["text"] = np.minimum(text_n, _U16)
    post["context"] = np.minimum(ctx_n, _U16)
    post["length"] = length[pairs % n]
    t_of = pairs // n
    cuts = np.flatnonzero(np.diff(t_of)) + 1
    by_term = {terms[int(t_of[a])]: part for a, part in zip(np.concatenate([[0], cuts]), np.split(post, cuts), strict=True)}
    return by_term, int(length.sum())


def _stem_words(words: Iterable[str]) -> dict[str, list[str]]:
    """word -> its FTS5 tokens (usually its porter stem alone), from FTS5's own tokenizer."""
    con = _tokenizer()
    cache: dict[str, list[str]] = _local.stems
    out = {w: cache[w] for w in words if w in cache}
    missing = [w for w in words if w not in out]
    for start in range(0, len(missing), _BATCH):
        part = missing[start : start + _BATCH]
        con.executemany("INSERT INTO t(rowid, text, context) VALUES (?, ?, '')", enumerate(part))
        try:
            got: dict[int, list[str]] = {}
            for doc, term in con.execute("SELECT doc, term FROM v ORDER BY doc, offset"):
                got.setdefault(doc, []).append(term)
        finally:
            con.execute("DELETE FROM t")
        for j, w in enumerate(part):
            out[w] = got.get(j, [])
    if len(cache) > 200_000:
        cache.clear()
    cache.update((w, out[w]) for w in missing)
    return out


def _by_row(arr: np.ndarray) -> np.ndarray:
    return arr[np.argsort(arr["row"], kind="stable")]


def stems(term: str) -> list[str]:
    """The FTS5 tokens of one `index.lexical` term (usually one: its porter stem)."""
    return [t for w in term.split() for t in _stem_words([w])[w]]


def create_table(db: sqlite3.Connection) -> None:
    """Postings by term; `lexical_rows` numbers the chunks densely (postings and the score array of
    a query are indexed by that number, not by the sparse 60-bit chunk id)."""
    db.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (term TEXT PRIMARY KEY, data BLOB NOT NULL) WITHOUT ROWID")
    db.execute(f"CREATE TABLE IF NOT EXISTS {ROWS} (row INTEGER PRIMARY KEY, id INTEGER NOT NULL UNIQUE)")


def _stats(db: sqlite3.Connection) -> tuple[int, int, str | None]:
    """(rows, tokens in all rows, generation): the N and N x avgdl of BM25, and which commit they are of."""
    got = dict(db.execute(
        "SELECT key, value FROM meta WHERE key IN ('lexical_rows', 'lexical_tokens', 'generation')").fetchall())
    return int(got.get("lexical_rows", 0)), int(got.get("lexical_tokens", 0)), got.get("generation")


class Cache:
    """BM25 impacts (row numbers and each posting's score, per term and context weight) of recently
    searched terms of one index, up to `max_bytes`, least recently used out first; emptied when
    the index moves to another generation (N, avgdl and the postings change with it). Common words
    are in most queries and have the longest postings, so they are what stays."""

    def __init__(self, max_bytes: int = 128 << 20) -> None:
        self.max_bytes = max_bytes
        self.generation: str | None = None
        self.items: OrderedDict[tuple[str, float, float, float], tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self.size = 0
        self.lock = threading.Lock()
        self.ids = np.empty(0, np.int64)  # chunk id by row number (-1: a free number)
        self.docs: Documents | None = None  # read on the first search that scores whole documents
        self.synced = False

    def sync(self, db: sqlite3.Connection, generation: str | None) -> None:
        """Follow the index to `generation` (inside the caller's read snapshot)."""
        if generation != self.generation or not self.synced:
            self.synced = True
            self.items.clear()
            self.size = 0
            self.generation = generation
            self.ids = _ids_by_row(db)
            self.docs = None

    def documents(self, db: sqlite3.Connection) -> Documents:
        """This generation's `Documents` (inside the caller's read snapshot, after `sync`)."""
        if self.docs is None:
            self.docs = Documents.read(db, len(self.ids))
        return self.docs

    def get(self, key: tuple[str, float, float, float]) -> tuple[np.ndarray, np.ndarray] | None:
        found = self.items.get(key)
        if found is not None:
            self.items.move_to_end(key)
        return found

    def put(self, key: tuple[str, float, float, float], value: tuple[np.ndarray, np.ndarray]) -> None:
        self.items[key] = value
        self.size += value[0].nbytes + value[1].nbytes
        while self.size > self.max_bytes and self.items:
            _, (ids, scores) = self.items.popitem(last=False)
            self.size -= ids.nbytes + scores.nbytes


@dataclass(frozen=True)
class Documents:
    """Which document each row's chunk is in, and each document's length: what scoring a term
    over whole documents needs (`doc_impacts`). Lengths are in characters (text and context of all
    the document's chunks): BM25 only uses a length over the average length, and characters are
    read from integer columns, not by tokenising again."""

    of_row: np.ndarray  # dense document number by row number (-1: a free row number)
    length: np.ndarray  # characters, by document number

    @classmethod
    def empty(cls) -> Documents:
        return cls(np.empty(0, np.int64), np.empty(0, np.float64))

    @classmethod
    def read(cls, db: sqlite3.Connection, n_rows: int) -> Documents:
        got = np.array(db.execute(
            f"SELECT r.row, c.doc_id, c.end - c.start + length(c.context) FROM {ROWS} r JOIN chunks c ON c.id = r.id"
        ).fetchall(), dtype=np.int64).reshape(-1, 3)
        of_row = np.full(n_rows, -1, dtype=np.int64)
        if not len(got):
            return cls(of_row, np.empty(0, np.float64))
        docs, dense = np.unique(got[:, 1], return_inverse=True)
        of_row[got[:, 0]] = dense
        return cls(of_row, np.bincount(dense, weights=got[:, 2], minlength=len(docs)).astype(np.float64))


def doc_impacts(cols: dict[str, np.ndarray], weight: float, docs: Documents, k1: float = K1,
                b: float = B) -> tuple[np.ndarray, np.ndarray]:
    """(document numbers, BM25 score) of one term over whole documents: a document's count is the
    sum of its chunks' counts (text + `weight` x context), its length its chunks' lengths. IDF is
    Lucene's ln(1 + (N - n + 0.5) / (n + 0.5)), never 0: a collection of a few dozen documents
    has terms in more than half of them that still tell documents apart."""
    of_row = docs.of_row[cols["row"][cols["row"] < len(docs.of_row)]]
    f_row = (cols["text"] + weight * cols["context"].astype(np.float64))[: len(of_row)]
    keep = of_row >= 0
    n_docs = len(docs.length)
    if not n_docs or not keep.any():
        return np.empty(0, np.int64), np.empty(0, np.float64)
    f = np.bincount(of_row[keep], weights=f_row[keep], minlength=n_docs)
    where = np.flatnonzero(f)
    idf = math.log(1.0 + (n_docs - len(where) + 0.5) / (len(where) + 0.5))
    avg = float(docs.length.mean()) or 1.0
    fd = f[where]
    return where, idf * (k1 + 1.0) * fd / (fd + k1 * (1 - b + b * docs.length[where] / avg))


def _ids_by_row(db: sqlite3.Connection) -> np.ndarray:
    pairs = np.array(db.execute(f"SELECT row, id FROM {ROWS}").fetchall(), dtype=np.int64).reshape(-1, 2)
    ids = np.full(int(pairs[:, 0].max()) + 1 if len(pairs) else 0, -1, dtype=np.int64)
    ids[pairs[:, 0]] = pairs[:, 1]
    return ids


def _encode(arr: np.ndarray) -> bytes:
    """Column after column (rows, text counts, context counts, lengths): a query reads each
    column as a contiguous array, without copying (`_columns`)."""
    return b"".join(np.ascontiguousarray(arr[f]).tobytes() for f in _FIELDS)


def _columns(blob: bytes) -> dict[str, np.ndarray]:
    n = len(blob) // POSTING.itemsize
    out: dict[str, np.ndarray] = {}
    offset = 0
    for f, dt in _FIELDS.items():
        out[f] = np.frombuffer(blob, dt, n, offset)
        offset += n * dt.itemsize
    return out


def _decode(blob: bytes) -> np.ndarray:
    cols = _columns(blob)
    arr = np.empty(len(cols["row"]), POSTING)
    for f, col in cols.items():
        arr[f] = col
    return arr


def _blobs(db: sqlite3.Connection, terms: Sequence[str]) -> dict[str, bytes]:
    return dict(select_in(db, f"SELECT term, data FROM {TABLE} WHERE term", terms))


class Delta:
    """The postings one write transaction adds and removes; `apply` writes them before COMMIT."""

    def __init__(self) -> None:
        self.added: dict[int, Row] = {}
        self.removed: dict[int, Row] = {}

    def add(self, rows: Iterable[Row]) -> None:
        for r in rows:
            self.added[r[0]] = r

    def remove(self, rows: Iterable[Row]) -> None:
        for r in rows:
            if self.added.pop(r[0], None) is None:  # added earlier in this transaction: never written
                self.removed[r[0]] = r

    def apply(self, db: sqlite3.Connection) -> bool:
        """Merge into the postings table, inside the caller's transaction. True when the row
        numbers have grown sparse (more than half free): time for `rebuild`."""
        if not self.added and not self.removed:
            return False
        was = _row_numbers(db, list(self.removed))
        db.executemany(f"DELETE FROM {ROWS} WHERE id = ?", [(i,) for i in was])
        db.executemany(f"INSERT INTO {ROWS}(id) VALUES (?)", [(i,) for i in self.added])
        now = _row_numbers(db, list(self.added))
        gone, gone_tokens = postings_of((was[i], t, c) for i, t, c in self.removed.values() if i in was)
        new, new_tokens = postings_of((now[i], t, c) for i, t, c in self.added.values())
        rows, tokens, _ = _stats(db)
        rows += len(now) - len(was)
        tokens += new_tokens - gone_tokens
        touched = sorted(set(gone) | set(new))
        old = {t: _decode(b) for t, b in _blobs(db, touched).items()}
        writes: list[tuple[str, bytes]] = []
        drops: list[tuple[str]] = []
        for t in touched:
            cur = old.get(t, np.empty(0, POSTING))
            if t in gone:
                cur = cur[~np.isin(cur["row"], gone[t]["row"])]
            if t in new:
                cur = _by_row(np.concatenate([cur, new[t]]))
            if len(cur):
                writes.append((t, _encode(cur)))
            else:
                drops.append((t,))
        db.executemany(f"INSERT OR REPLACE INTO {TABLE}(term, data) VALUES (?, ?)", writes)
        db.executemany(f"DELETE FROM {TABLE} WHERE term = ?", drops)
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('lexical_rows', ?)", (str(rows),))
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('lexical_tokens', ?)", (str(tokens),))
        self.added.clear()
        self.removed.clear()
        top = db.execute(f"SELECT MAX(row) FROM {ROWS}").fetchone()[0] or 0
        return top > 2 * rows + SPARE_ROWS


def _row_numbers(db: sqlite3.Connection, ids: Sequence[int]) -> dict[int, int]:
    return dict(select_in(db, f"SELECT id, row FROM {ROWS} WHERE id", ids))


def rebuild(db: sqlite3.Connection, rows: Iterable[Row]) -> None:
    """Replace every posting with those of `rows` (the whole table), inside the caller's transaction."""
    db.execute(f"DELETE FROM {TABLE}")
    db.execute(f"DELETE FROM {ROWS}")
    db.execute("DELETE FROM meta WHERE key IN ('lexical_rows', 'lexical_tokens')")
    delta = Delta()
    delta.add(rows)
    delta.apply(db)


def _impacts(cols: dict[str, np.ndarray], weight: float, n_rows: int, avgdl: float, k1: float = K1,
             b: float = B) -> np.ndarray:
    """Each posting's BM25 score: idf * f * (k1 + 1) / (f + k1 * (1 - b + b * length / avgdl)),
    f = text count + `weight` * context count."""
    n = len(cols["row"])
    idf = max(math.log((n_rows - n + 0.5) / (n + 0.5)), 1e-6)
    f = cols["context"] * weight
    f += cols["text"]
    den = cols["length"] * (k1 * b / avgdl)
    den += k1 * (1 - b)
    den += f
    out = np.multiply(f, idf * (k1 + 1.0))
    out /= den
    return out


def search(db: sqlite3.Connection, query_terms: Sequence[str], k: int, *, context_weight: float = 0.5,
           allowed: np.ndarray | None = None, cache: Cache | None = None, k1: float = K1,
           b: float = B, doc_weight: float = 0.0) -> list[tuple[int, float]]:
    """(chunk id, BM25 score, higher is better) of the `k` best chunks holding any of `query_terms`
    (`index.lexical` terms, each counted as often as the query repeats it, as FTS5 counts the
    phrases of an OR query: "parallel languages; languages for parallel computation" weighs its
    two repeated words twice, as BM25's query-term frequency does); only the row numbers in
    `allowed` when given. `db` must be in autocommit mode. `k1=FTS5_K1` ranks as FTS5's bm25().

    `doc_weight` > 0 adds that much of the chunk's document's BM25 (`doc_impacts`) to each
    matching chunk's score: a chunk is also judged by the document it is in, as whole-document
    BM25 judges it, and a document whose words are spread over several chunks is not lost to
    one that packs them into one (bench/lexical.py).
    """
    phrases = [s for t in query_terms for s in stems(t)]
    if not phrases or k <= 0:
        return []
    cache = cache or Cache(0)
    wanted = sorted(set(phrases))
    with cache.lock:
        db.execute("BEGIN")  # one snapshot: the statistics, the generation and the postings agree
        try:
            n_rows, n_tokens, generation = _stats(db)
            cache.sync(db, generation)
            found = {t: v for t in wanted if (v := cache.get((t, context_weight, k1, b))) is not None}
            by_doc = {t: v for t in wanted if doc_weight and (v := cache.get((t + _BY_DOC, context_weight, k1, b))) is not None}
            for t, blob in _blobs(db, [t for t in wanted if t not in found or (doc_weight and t not in by_doc)]).items():
                cols = _columns(blob)
                if t not in found:
                    found[t] = (cols["row"], _impacts(cols, context_weight, n_rows, n_tokens / n_rows, k1, b))
                    cache.put((t, context_weight, k1, b), found[t])
                if doc_weight and t not in by_doc:
                    by_doc[t] = doc_impacts(cols, context_weight, cache.documents(db), k1, b)
                    cache.put((t + _BY_DOC, context_weight, k1, b), by_doc[t])
            ids = cache.ids
            docs = cache.documents(db) if doc_weight else None
        finally:
            db.execute("COMMIT")
    parts = [found[p] for p in phrases if p in found]
    if not parts:
        return []
    # Sum per chunk over a dense array indexed by row number: one pass, no sort.
    total = np.bincount(np.concatenate([o for o, _ in parts]), weights=np.concatenate([sc for _, sc in parts]),
                        minlength=len(ids))
    if docs is not None and by_doc:
        doc_parts = [by_doc[p] for p in phrases if p in by_doc]
        doc_total = np.bincount(np.concatenate([d for d, _ in doc_parts]),
                                weights=np.concatenate([sc for _, sc in doc_parts]), minlength=len(docs.length))
        hit = np.flatnonzero(total[: len(docs.of_row)] > 0)
        of = docs.of_row[hit]
        total[hit[of >= 0]] += doc_weight * doc_total[of[of >= 0]]
    if allowed is not None:
        mask = np.zeros(len(ids), dtype=bool)
        mask[allowed[allowed < len(ids)]] = True
        total[~mask] = 0.0
    top = np.argpartition(-total, k - 1)[:k] if len(total) > k else np.arange(len(total))
    top = top[total[top] > 0]  # rows no query term is in (and a match with weight 0, unlike FTS5)
    order = np.lexsort((ids[top], -total[top]))
    return [(int(ids[i]), float(total[i])) for i in top[order]]
