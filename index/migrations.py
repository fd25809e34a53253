"""Numbered SQLite schema migrations. Append new ones; never edit one that has shipped."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable


def _script(db: sqlite3.Connection, sql: str) -> None:
    # Not executescript(): it COMMITs first, and migrations run inside the writer's transaction.
    for statement in sql.split(";"):
        if statement.strip():
            db.execute(statement)


def m001_create_tables(db: sqlite3.Connection) -> None:
    _script(
        db,
        """
        CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE documents (
            doc_id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            sha256 TEXT NOT NULL,
            format TEXT NOT NULL,
            title TEXT NOT NULL,
            owner TEXT,
            pages INTEGER,
            n_chunks INTEGER NOT NULL,
            size INTEGER NOT NULL,
            indexed_at TEXT NOT NULL,
            text TEXT NOT NULL
        );
        CREATE INDEX documents_sha ON documents(sha256);
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,            -- the FAISS id, derived from chunk_id
            chunk_id TEXT NOT NULL UNIQUE,
            doc_id INTEGER NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            ord INTEGER NOT NULL,
            start INTEGER NOT NULL,
            end INTEGER NOT NULL,
            page INTEGER,
            section TEXT NOT NULL,
            text TEXT NOT NULL,
            context TEXT NOT NULL,
            vector BLOB NOT NULL               -- float32 little-endian, normalised
        );
        CREATE INDEX chunks_doc ON chunks(doc_id, ord);
        """
    )


def m002_lexical_index(db: sqlite3.Connection) -> None:
    """FTS5 over each chunk's text and context (title, owner, section), pre-tokenised by `index.lexical`."""
    from . import lexical

    lexical.create_table(db)
    lexical.rebuild(db)


def m003_document_mtime(db: sqlite3.Connection) -> None:
    """The file's mtime (ns) when it was last hashed: a re-index skips hashing a file whose size and
    mtime are unchanged, as git and rsync do. NULL (older rows, or a file modified moments before it
    was read) means "hash it next time"."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(documents)")}
    if "mtime_ns" not in columns:  # idempotent: a schema_version set back by hand re-runs it
        db.execute("ALTER TABLE documents ADD COLUMN mtime_ns INTEGER")


def m004_lexical_postings(db: sqlite3.Connection) -> None:
    """Term postings for exact BM25 without FTS5's per-row scoring (`index.postings`), built from
    the pre-tokenised rows FTS5 already holds."""
    from . import lexical

    lexical.rebuild_postings(db)


def m005_owner_evidence(db: sqlite3.Connection) -> None:
    """Owners with their evidence, users' overrides and aliases (`index.owners`): the detected
    owner's evidence per document ("title+email+filename"; NULL in older rows until re-indexed), an
    override per path that survives re-indexing, and each owner's aliases, filled for the owners
    already in the index."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(documents)")}
    if "owner_source" not in columns:
        db.execute("ALTER TABLE documents ADD COLUMN owner_source TEXT")
    _script(
        db,
        """
        CREATE TABLE IF NOT EXISTS owner_overrides (
            path TEXT PRIMARY KEY,             -- the document's path, as in documents.path
            owner TEXT NOT NULL,               -- '' = the document has no owner
            set_at TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS owner_aliases (
            owner TEXT NOT NULL,
            alias TEXT NOT NULL,
            key TEXT NOT NULL,                 -- index.owners.alias_key(alias)
            PRIMARY KEY (owner, alias)
        );
        CREATE INDEX IF NOT EXISTS owner_aliases_key ON owner_aliases(key)
        """,
    )
    from . import owners

    owners.rebuild_aliases(db)


def m006_read_with(db: sqlite3.Connection) -> None:
    """How each document was read (`index.build.reading`: the ingest version and chunk settings). A
    re-index re-reads a document read another way; NULL (rows from before) means "re-read it"."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(documents)")}
    if "read_with" not in columns:
        db.execute("ALTER TABLE documents ADD COLUMN read_with TEXT")


def m007_lemma_counts(db: sqlite3.Connection) -> None:
    """Chunks per lemma and per lower-case word (`index.lemmas`), counted from the stored chunks: the
    reader's IDF loads them instead of lemmatising the whole index at its first question."""
    from . import lemmas

    lemmas.rebuild(db)


def m008_doc_terms(db: sqlite3.Connection) -> None:
    """The terms of each document (`index.doc_terms`), read from the stored documents: the resolver
    looks up which documents hold a question's rare words instead of tokenising every document."""
    from . import doc_terms

    doc_terms.rebuild(db)


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    m001_create_tables, m002_lexical_index, m003_document_mtime, m004_lexical_postings, m005_owner_evidence,
    m006_read_with, m007_lemma_counts, m008_doc_terms,
]


def schema_version(db: sqlite3.Connection) -> int:
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.OperationalError:
        return 0
    return int(row[0]) if row else 0


def migrate(db: sqlite3.Connection) -> int:
    """Apply pending migrations inside the caller's transaction; returns the new version."""
    version = schema_version(db)
    if version > len(MIGRATIONS):
        raise RuntimeError(
            f"index schema version {version} is newer than this citewise ({len(MIGRATIONS)}): upgrade citewise"
        )
    for i, step in enumerate(MIGRATIONS[version:], start=version + 1):
        step(db)
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?)", (str(i),))
    return len(MIGRATIONS)
