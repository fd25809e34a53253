"""The `meta` key/value table of an index's SQLite file (generation, file names, versions)."""

from __future__ import annotations

import sqlite3


def get(db: sqlite3.Connection, key: str) -> str | None:
    """The value of `key`, or None when unset (or when the table does not exist yet)."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    except sqlite3.OperationalError:
        return None
    return row[0] if row else None


def put(db: sqlite3.Connection, key: str, value: object) -> None:
    """Set `key`; inside the caller's transaction."""
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, str(value)))
