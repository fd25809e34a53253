"""Owners as the index keeps them: the detected owner of each document, a user's override, and the
aliases every owner can be named by.

- `documents.owner` / `documents.owner_source` hold what ingest detected (`ingest.owner`), with its
  evidence ("title+email+filename").
- `owner_overrides(path, owner)` holds what a user set (`citewise docs --set-owner FILE "Name"`);
  an empty owner means "this document has no owner". It is keyed by path, so it survives re-indexing
  (the detection is rerun, the override still wins) and follows a moved file. Reads apply it at once:
  `EFFECTIVE_OWNER` is the SQL every owner read uses, and the owner source of an override is "user".
- `owner_aliases(owner, alias, key)` lists, once per owner, the ways a question may name them (full
  name, accent-free spelling, initials + surname, surname, given name while unique in the index;
  `ingest.names.name_aliases`); `key` is the accent- and case-folded alias. It is rebuilt in the
  transaction of every write, so it always matches the owners the index holds. The answer path
  resolves people from these aliases only (`Store.owner_aliases`, `Store.owners_named`).
"""

from __future__ import annotations

import sqlite3

from ingest.names import fold, name_aliases

# The owner and owner source of `documents d` with the override `o` (LEFT JOIN on path) applied.
EFFECTIVE_OWNER = "CASE WHEN o.path IS NOT NULL THEN NULLIF(o.owner, '') ELSE d.owner END"
EFFECTIVE_SOURCE = "CASE WHEN o.path IS NOT NULL THEN 'user' ELSE d.owner_source END"
JOIN_OVERRIDE = "LEFT JOIN owner_overrides o ON o.path = d.path"


def alias_key(text: str) -> str:
    """The form aliases are compared in: accent-free, case-folded, single-spaced, no dots or commas."""
    return " ".join(fold(text).replace(".", " ").replace(",", " ").split())


def rebuild_aliases(db: sqlite3.Connection) -> None:
    """Recompute `owner_aliases` from the effective owners (inside the caller's transaction)."""
    owners = [r[0] for r in db.execute(
        f"SELECT DISTINCT eff FROM (SELECT {EFFECTIVE_OWNER} AS eff FROM documents d {JOIN_OVERRIDE})"
        " WHERE eff IS NOT NULL AND eff != '' ORDER BY eff"
    )]
    db.execute("DELETE FROM owner_aliases")
    rows = {(owner, alias, alias_key(alias)) for owner in owners for alias in name_aliases(owner, owners)}
    db.executemany("INSERT OR IGNORE INTO owner_aliases(owner, alias, key) VALUES (?, ?, ?)", sorted(rows))


def set_override(db: sqlite3.Connection, path: str, owner: str | None) -> None:
    """Record a user's owner for `path` (None or "": the document has no owner)."""
    db.execute(
        "INSERT INTO owner_overrides(path, owner, set_at) VALUES (?, ?, datetime('now'))"
        " ON CONFLICT(path) DO UPDATE SET owner = excluded.owner, set_at = excluded.set_at",
        (path, " ".join((owner or "").split())),
    )


def clear_override(db: sqlite3.Connection, path: str) -> bool:
    """Forget a user's owner for `path` (the detected one applies again); False when none was set."""
    return db.execute("DELETE FROM owner_overrides WHERE path = ?", (path,)).rowcount > 0


def move_override(db: sqlite3.Connection, old: str, new: str) -> None:
    """A moved file keeps the owner its user set."""
    if old != new:
        db.execute("UPDATE OR REPLACE owner_overrides SET path = ? WHERE path = ?", (new, old))
