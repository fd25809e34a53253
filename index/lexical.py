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

Phrase queries and field boosts beyond `context` vs `text` are left out; ranking is FTS5's BM25.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from collections.abc import Collection, Iterable, Sequence

FREQUENT_SHARE = 0.25  # in indexes of FREQUENT_MIN_CHUNKS chunks or more, query terms in a larger share
FREQUENT_MIN_CHUNKS = 20_000  # of the chunks are left out of the lexical query (speed, see frequent_terms)
POSTINGS_BUDGET = 12_000  # ... and the kept terms' postings stay within this (rarest terms first)
LEXICAL_VERSION = "2"  # bump when `terms` changes: open indexes re-tokenise their chunks
FTS_TABLE = "chunks_fts"
FTS_TOKENIZE = "porter unicode61 remove_diacritics 2 tokenchars '.#+'"

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
    """An FTS5 MATCH expression: any of the query's terms but `drop` (None when none is left)."""
    seen = [t for t in dict.fromkeys(terms(query)) if t not in drop]
    if not seen:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in seen)


def frequent_terms(db: sqlite3.Connection, query: str) -> set[str]:
    """Query terms left out of the lexical query of a large index (the rarest term is always kept).

    FTS5 scores every row that holds any query term, so its cost is the sum of the terms' document
    frequencies. In indexes of `FREQUENT_MIN_CHUNKS` chunks or more, terms are taken rarest first
    while their postings stay within `POSTINGS_BUDGET`, and never a term in more than
    `FREQUENT_SHARE` of the chunks. What is left out are common words that weigh little in BM25 and
    that dense retrieval covers; names, acronyms and numbers (the reason for a lexical index) are
    rare and kept. Frequencies are counted by FTS5 itself, so stemmed forms count right, and only
    up to the limit: a term past it is left out whatever its exact count (unless every term is
    past it: then the exact counts pick the rarest); on the 100k-chunk bench (bench/scale.py) that
    leaves the median query as it was and cuts the 95th percentile by a third. An `fts5vocab`
    table is not free either: it walks each term's whole doclist too (4.6 ms vs 8.1 ms for the
    full counts of a bench query), and it cannot stop at a limit.
    """
    ts = list(dict.fromkeys(terms(query)))
    if len(ts) < 2:
        return set()
    n = db.execute(f"SELECT COUNT(*) FROM {FTS_TABLE}_docsize").fetchone()[0]
    if n < FREQUENT_MIN_CHUNKS:
        return set()
    limit = int(min(POSTINGS_BUDGET, FREQUENT_SHARE * n))
    df = {t: _document_frequency(db, t, limit + 1) for t in ts}
    if all(d > limit for d in df.values()):
        df = {t: _document_frequency(db, t) for t in ts}
    kept: list[str] = []
    total = 0
    for t in sorted(ts, key=lambda t: df[t]):
        if kept and (df[t] > FREQUENT_SHARE * n or total + df[t] > POSTINGS_BUDGET):
            break
        kept.append(t)
        total += df[t]
    return set(ts) - set(kept)


def _document_frequency(db: sqlite3.Connection, term: str, cap: int | None = None) -> int:
    """Chunks holding `term` (after FTS5's stemming), counted up to `cap`: a doclist walk, no scoring."""
    quoted = '"' + term.replace('"', '""') + '"'
    rows = f"SELECT 1 FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?" + ("" if cap is None else " LIMIT ?")
    params: tuple[object, ...] = (quoted,) if cap is None else (quoted, cap)
    return int(db.execute(f"SELECT COUNT(*) FROM ({rows})", params).fetchone()[0])


def create_table(db: sqlite3.Connection) -> None:
    db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5(text, context, tokenize=\"{FTS_TOKENIZE}\")")


def insert_rows(db: sqlite3.Connection, rows: Iterable[tuple[int, str, str]]) -> None:
    """Index (faiss id, chunk text, chunk context) rows; call inside the chunk rows' transaction."""
    db.executemany(
        f"INSERT INTO {FTS_TABLE}(rowid, text, context) VALUES (?, ?, ?)",
        [(i, lexical_doc(t), lexical_doc(c)) for i, t, c in rows],
    )


def delete_rows(db: sqlite3.Connection, ids: Sequence[int]) -> None:
    db.executemany(f"DELETE FROM {FTS_TABLE} WHERE rowid = ?", [(int(i),) for i in ids])


def rebuild(db: sqlite3.Connection) -> None:
    """Re-tokenise every chunk (a migration, or a new `LEXICAL_VERSION`), inside the caller's transaction."""
    db.execute(f"DELETE FROM {FTS_TABLE}")
    cur = db.execute("SELECT id, text, context FROM chunks")
    while rows := cur.fetchmany(2000):
        insert_rows(db, rows)
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('lexical_version', ?)", (LEXICAL_VERSION,))


def search(
    db: sqlite3.Connection,
    query: str,
    k: int,
    *,
    context_weight: float = 0.5,
    doc_ids: Sequence[int] | None = None,
) -> list[tuple[int, float]]:
    """(faiss id, BM25 score, higher is better) of the `k` best chunks; only in `doc_ids` when given."""
    expr = match_query(query, frequent_terms(db, query))
    if expr is None or k <= 0 or (doc_ids is not None and not doc_ids):
        return []
    sql = f"SELECT rowid, bm25({FTS_TABLE}, 1.0, ?) AS s FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?"
    params: list[object] = [context_weight, expr]
    if doc_ids is not None:
        sql += f" AND rowid IN (SELECT id FROM chunks WHERE doc_id IN ({','.join('?' * len(doc_ids))}))"
        params.extend(doc_ids)
    sql += " ORDER BY s LIMIT ?"
    params.append(k)
    return [(int(i), -float(s)) for i, s in db.execute(sql, params)]
