"""Which documents hold each term: the resolver's document frequencies, kept at index time.

The resolver (`assistant.answer.resolve`) finds the documents a question names by a rare word
("Soledad", "N1181Y", "melphalan"): it needs, for a few question terms, the documents holding each.
It used to read and tokenise every document's text at its first question (65 s at 100k chunks).
Here each document's terms are written once, with its chunks, in the writer's transaction:

- `doc_terms(term, doc_id)`: the terms (`index.lexical.terms`, accent-free and case-folded, dots
  dropped: `key`) of the document's text, its title and its file name (the stem too, whole).

The owner's name is not stored: a user may change it at any time (`Store.set_owner`), and the
resolver adds it from the documents' current owners. `DOC_TERMS_VERSION` names this definition:
an index written with another one is re-read when it is next opened (`index.upgrade`).
"""

from __future__ import annotations

import os
import sqlite3
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache

from ingest.names import join_spacing_accents

from .lexical import LEXICAL_VERSION, terms
from .sql import select_in

DOC_TERMS_VERSION = f"1.{LEXICAL_VERSION}"  # changes with the tokenizer too


@lru_cache(maxsize=200_000)
def key(word: str) -> str:
    """Accent-free, case-folded NFKC `word` without dots ("Pârvulescu" -> "parvulescu", "Ph.D." -> "phd")."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", join_spacing_accents(word)))
    return "".join(c for c in text if not unicodedata.combining(c)).casefold().replace(".", "")


def of_text(text: str) -> set[str]:
    """The `key`s of the terms of `text`."""
    return {k for k in map(key, set(terms(text))) if k}


def of_document(path: str, title: str, text: str) -> set[str]:
    """A document's stored terms: its text's, its title's and its file name's, and the file stem whole."""
    stem = os.path.splitext(os.path.basename(path))[0]
    return of_text(f"{text}\n{title}\n{stem.replace('_', ' ')}") | {key(stem)} - {""}


def create_table(db: sqlite3.Connection) -> None:
    # keyed by term only: a removed document's rows are found from its terms (`remove`), which spares
    # an index by document as large as the table
    db.execute("CREATE TABLE IF NOT EXISTS doc_terms (term TEXT NOT NULL, doc_id INTEGER NOT NULL, "
               "PRIMARY KEY (term, doc_id)) WITHOUT ROWID")


def add(db: sqlite3.Connection, doc_id: int, found: Iterable[str]) -> None:
    db.executemany("INSERT OR IGNORE INTO doc_terms(term, doc_id) VALUES (?, ?)", ((t, doc_id) for t in found))


def remove(db: sqlite3.Connection, doc_id: int, found: Iterable[str]) -> None:
    """Remove the rows `add` wrote for the document (`found`: its terms, read again from what is stored)."""
    db.executemany("DELETE FROM doc_terms WHERE term = ? AND doc_id = ?", ((t, doc_id) for t in found))


def rebuild(db: sqlite3.Connection) -> None:
    """Read every stored document again (a migration, or a new `DOC_TERMS_VERSION`), inside the caller's transaction."""
    create_table(db)
    db.execute("DELETE FROM doc_terms")
    for doc_id, path, title, text in db.execute("SELECT doc_id, path, title, text FROM documents").fetchall():
        add(db, doc_id, of_document(path, title, text))
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('doc_terms_version', ?)", (DOC_TERMS_VERSION,))


def holding(db: sqlite3.Connection, wanted: Sequence[str]) -> dict[str, list[str]] | None:
    """term -> the paths of the documents holding it (terms no document holds are left out); None when
    the index has no terms of this `DOC_TERMS_VERSION` (opened read-only before its upgrade)."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'doc_terms_version'").fetchone()
        if not row or row[0] != DOC_TERMS_VERSION:
            return None
        out: dict[str, list[str]] = {}
        for term, path in sorted(select_in(db, "SELECT t.term, d.path FROM doc_terms t JOIN documents d "
                                               "ON d.doc_id = t.doc_id WHERE t.term", list(dict.fromkeys(wanted)))):
            out.setdefault(term, []).append(path)
    except sqlite3.OperationalError:  # no such table
        return None
    return out
