"""SQLite helpers shared by the index's modules."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

IN_BATCH = 500  # keys per statement: well under SQLite's bound-parameter limit


def select_in(db: sqlite3.Connection, select: str, keys: Sequence[object]) -> list[tuple]:
    """The rows of `select` + " IN (keys)" (`select` ends with the column to match), asked
    `IN_BATCH` keys at a time."""
    out: list[tuple] = []
    for start in range(0, len(keys), IN_BATCH):
        part = list(keys[start : start + IN_BATCH])
        out.extend(db.execute(f"{select} IN ({','.join('?' * len(part))})", part).fetchall())
    return out
