"""Lexical retrieval: our tokenizer, the FTS5 table it feeds, and BM25 search over it.

Text is tokenised here in Python, and FTS5 receives the terms joined by spaces (a pre-tokenised
column), so what counts as a term is decided in one place for documents and queries alike:

- case-folded words; possessives lose their "'s";
- numbers keep their decimal point or version dots (`3.94`, `2.0.1`), and abbreviations their
  inner dots (`b.eng`); `c++` and `c#` stay whole;
- acronyms (`GNN`, `FP8`, `ICPP`) are ordinary terms, and an all-capitals stopword (`IT`, `US`)
  is kept as the acronym it is;
- a compound joined by `-`, `/` or dots gives its parts and the parts glued together, so
  `multi-GPU` matches `multi GPU` and `multigpu`;
- English stopwords are dropped; FTS5's porter stemmer folds `networks` into `network`.

Phrase queries and field boosts beyond `context` vs `text` are left out. Ranking is FTS5's BM25,
computed from the term postings of `index.postings` (same scores, a fraction of the time);
`fts5_search` asks FTS5's own `bm25()`, the reference the postings are tested and benched against.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from collections.abc import Collection, Iterable, Sequence

import numpy as np

from . import postings
from .sql import select_in

LEXICAL_VERSION = "2"  # bump when `terms` changes: open indexes re-tokenise their chunks
FTS_TABLE = "chunks_fts"
FTS_TOKENIZE = postings.TOKENIZE

# Lucene's English list plus common question words: terms that say nothing about a passage.
_STOPWORD_TEXT = """a an and are as at be but by for if in into is it no not of on or such that the their then there
    these they this to was will with what which who whom whose when where why how do does did done
    has have had having i me my we our you your he him his she her its them those am been being
    can could would should may might must shall about above after again against all any both
    each few more most other same so some than too very just only own also from up down out
    over under further once here off s t don now"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

# number with decimals/versions | word with inner dots/hyphens/slashes | word (+ or # suffix)
_TOKEN = re.compile(r"\d+(?:[.,]\d+)+|\w+(?:(?:[.\-/]|'s\b)\w+)*(?:\+\+|#)?", re.UNICODE)
_SPLIT = re.compile(r"[.\-/]")


def _normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).replace("’", "'")


def terms(text: str) -> list[str]:
    """The search terms of `text`, in order (see the module docstring for the rules)."""
    out: list[str] = []
    for m in _TOKEN.finditer(_normalise(text)):
        raw = m.group(0)
        if raw.endswith("'s"):
            raw = raw[:-2]
        low = raw.casefold()
        if low[0].isdigit() and _SPLIT.search(low) and re.fullmatch(r"[\d.,]+", low):
            out.append(low.rstrip(".,"))  # 3.94, 2.0.1
            continue
        parts = [p for p in _SPLIT.split(low) if p]
        if len(parts) > 1:
            if "." in low and all(len(p) <= 4 for p in parts):  # b.eng, u.s.a, ph.d
                out.append(low.replace("-", ""))
            out.extend(p for p in parts if p not in STOPWORDS or raw.isupper())
            out.append("".join(parts))
            continue
        if low in STOPWORDS and not (raw.isupper() and len(raw) > 1):
            continue
        out.append(low)
    return out


def lexical_doc(text: str) -> str:
    """The pre-tokenised form of `text` stored in the FTS5 table."""
    return " ".join(terms(text))


def match_query(query: str, drop: Collection[str] = ()) -> str | None:
    """An FTS5 MATCH expression: any of the query's terms but `drop` (None when none is left); a
    repeated term is repeated (FTS5's bm25() then counts it twice, as `search` does)."""
    seen = [t for t in terms(query) if t not in drop]
    if not seen:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in seen)


def create_table(db: sqlite3.Connection) -> None:
    db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5(text, context, tokenize=\"{FTS_TOKENIZE}\")")
    postings.create_table(db)


def insert_rows(db: sqlite3.Connection, rows: Iterable[tuple[int, str, str]]) -> list[postings.Row]:
    """Index (chunk id, chunk text, chunk context) rows; call inside the chunk rows' transaction.

    Returns the rows as stored (pre-tokenised), for the transaction's `postings.Delta`.
    """
    stored = [(int(i), lexical_doc(t), lexical_doc(c)) for i, t, c in rows]
    db.executemany(f"INSERT INTO {FTS_TABLE}(rowid, text, context) VALUES (?, ?, ?)", stored)
    return stored


def delete_rows(db: sqlite3.Connection, ids: Sequence[int]) -> list[postings.Row]:
    """Remove chunks from FTS5; returns their stored rows, for the transaction's `postings.Delta`."""
    stored: list[postings.Row] = [(int(i), t, c) for i, t, c in select_in(
        db, f"SELECT rowid, text, context FROM {FTS_TABLE} WHERE rowid", [int(i) for i in ids])]
    db.executemany(f"DELETE FROM {FTS_TABLE} WHERE rowid = ?", [(r[0],) for r in stored])
    return stored


def rebuild(db: sqlite3.Connection) -> None:
    """Re-tokenise every chunk (a migration, or a new `LEXICAL_VERSION`), inside the caller's transaction."""
    db.execute(f"DELETE FROM {FTS_TABLE}")
    cur = db.execute("SELECT id, text, context FROM chunks")
    while rows := cur.fetchmany(2000):
        insert_rows(db, rows)
    rebuild_postings(db)
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('lexical_version', ?)", (LEXICAL_VERSION,))


def rebuild_postings(db: sqlite3.Connection) -> None:
    """The BM25 postings of every row in the FTS5 table, inside the caller's transaction."""
    postings.create_table(db)
    rows = db.execute(f"SELECT rowid, text, context FROM {FTS_TABLE}").fetchall()
    postings.rebuild(db, rows)


def search(
    db: sqlite3.Connection,
    query: str,
    k: int,
    *,
    context_weight: float = 0.5,
    doc_ids: Sequence[int] | None = None,
    cache: postings.Cache | None = None,
    k1: float = postings.K1,
    doc_weight: float = 0.0,
) -> list[tuple[int, float]]:
    """(chunk id, BM25 score, higher is better) of the `k` best chunks; only in `doc_ids` when given.

    FTS5's BM25 over the query's terms OR-ed, computed from `index.postings` (with `k1=FTS5_K1`,
    the ranking of `bm25()` with weights 1.0 for the text and `context_weight` for the context
    column). A term the query repeats counts as often as it is repeated (query-term frequency:
    without it CACM's long queries lost 0.04 nDCG@10 to bm25s, bench/lexical.py). `doc_weight`
    adds that much of the chunk's whole document's BM25 (`postings.search`).
    """
    if k <= 0 or (doc_ids is not None and not doc_ids):
        return []
    allowed = None
    if doc_ids is not None:
        q = (f"SELECT r.row FROM {postings.ROWS} r JOIN chunks c ON c.id = r.id"
             f" WHERE c.doc_id IN ({','.join('?' * len(doc_ids))})")
        allowed = np.array([r[0] for r in db.execute(q, list(doc_ids))], dtype=np.int64)
    return postings.search(db, terms(query), k, context_weight=context_weight, allowed=allowed, cache=cache, k1=k1,
                           doc_weight=doc_weight)


def fts5_search(db: sqlite3.Connection, query: str, k: int, *, context_weight: float = 0.5) -> list[tuple[int, float]]:
    """`search` done by FTS5's own `bm25()` (the reference; ~3 µs per matching row, see `index.postings`)."""
    expr = match_query(query)
    if expr is None or k <= 0:
        return []
    sql = f"SELECT rowid, bm25({FTS_TABLE}, 1.0, ?) AS s FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ? ORDER BY s LIMIT ?"
    return [(int(i), -float(s)) for i, s in db.execute(sql, (context_weight, expr, k))]


def rare_matches(db: sqlite3.Connection, query: str, max_chunks: int,
                 doc_ids: Sequence[int] | None = None) -> set[int]:
    """Chunk ids holding a query term that at most `max_chunks` chunks of the whole index hold
    (a registration, a trial id, a course code: the rarest evidence a query can give); only
    chunks of `doc_ids` when given. Reads the postings' sizes, not their contents, but for the
    rare terms; `db` must be in autocommit mode."""
    wanted = sorted({s for t in terms(query) for s in postings.stems(t)})
    if max_chunks <= 0 or not wanted:
        return set()
    db.execute("BEGIN")  # one snapshot: sizes and postings agree
    try:
        sizes = select_in(db, f"SELECT term, length(data) FROM {postings.TABLE} WHERE term", wanted)
        rare = [t for t, n in sizes if 0 < n // postings.POSTING.itemsize <= max_chunks]
        rows = [int(r) for _, blob in select_in(db, f"SELECT term, data FROM {postings.TABLE} WHERE term", rare)
                for r in postings._columns(blob)["row"]] if rare else []
        found = select_in(db, f"SELECT row, id FROM {postings.ROWS} WHERE row", rows) if rows else []
        ids = {int(i) for _, i in found}
        if doc_ids is not None and ids:
            keep = {d for d in doc_ids}
            ids = {int(i) for i, d in select_in(db, "SELECT id, doc_id FROM chunks WHERE id", sorted(ids)) if d in keep}
    finally:
        db.execute("COMMIT")
    return ids
