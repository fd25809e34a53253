"""Bring an index on disk up to this citewise when it is opened.

Two kinds of change, applied in one transaction under the writer's file lock:
- pending schema migrations (`index.migrations`, numbered, never edited once shipped);
- tables derived from the stored chunks and documents under a versioned definition (`DERIVED`): the
  lexical index (`lexical.LEXICAL_VERSION`), the lemma counts (`lemmas.LEMMA_VERSION`) and each
  document's terms (`doc_terms.DOC_TERMS_VERSION`). An index that recorded another version of one is
  rebuilt from what it stores, so a new tokenizer never mixes with the old one's rows.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock, Timeout

from . import doc_terms, lemmas, lexical, meta
from .errors import IndexLocked
from .migrations import MIGRATIONS, migrate, schema_version

log = logging.getLogger(__name__)

# (meta key, the current version, rebuild inside the caller's transaction)
DERIVED: tuple[tuple[str, str, Callable[[sqlite3.Connection], None]], ...] = (
    ("lexical_version", lexical.LEXICAL_VERSION, lexical.rebuild),
    ("lemma_version", lemmas.LEMMA_VERSION, lemmas.rebuild),
    ("doc_terms_version", doc_terms.DOC_TERMS_VERSION, doc_terms.rebuild),
)


def current(db: sqlite3.Connection) -> bool:
    return schema_version(db) >= len(MIGRATIONS) and all(meta.get(db, k) == v for k, v, _ in DERIVED)


def upgrade(directory: Path, database: Path) -> None:
    """Migrate the SQLite `database` of the index in `directory` and rebuild its outdated derived
    tables, under the index's writer lock (a writer busy for 30 s is an `IndexLocked` error)."""
    db = sqlite3.connect(database, isolation_level=None)
    try:
        if current(db):
            return
        try:
            lock = FileLock(str(directory / ".lock"), timeout=30)
            lock.acquire()
        except Timeout:
            raise IndexLocked(f"The index at {directory} needs an upgrade but another process is writing to it.") from None
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                migrate(db)
                for k, v, rebuild in DERIVED:
                    if meta.get(db, k) != v:
                        log.info("rebuilding %s of %s (%s)", k.removesuffix("_version"), directory, v)
                        rebuild(db)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        finally:
            lock.release()
    finally:
        db.close()
