"""Lemma statistics of the chunks, kept at index time: how many chunks hold each lemma.

The reader (`assistant.answer.features.Idf`) weighs question words by their inverse document
frequency over the collection's chunks and asks whether a capitalised word is ever written in lower
case ("Carolina" is a name, "Research" is not). Computing both at the first question meant
lemmatising every chunk of the index (0.4 s for 700 chunks, about a minute for 100k, again after
every re-index). Here they are counted as chunks are written and removed, in the writer's
transaction, so a reader loads them in one query:

- `lemma_df(lemma, df)`: the number of chunks whose text holds the lemma (`lemmas`);
- `lower_words(word, n)`: the number of chunks that write the word in lower case.

Lemmas are simplemma's (English), case-folded and accent-free, with dotted compounds also glued
("Ph.D." gives "phd"). `LEMMA_VERSION` names that definition: an index counted with another one is
recounted when it is next opened (`index.upgrade`), as a new lexical tokenizer re-tokenises.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from ingest.addresses import without_addresses
from ingest.names import fold

LEMMA_VERSION = "3"  # bump when `lemma` / `lemmas` / `lower_words` change: open indexes recount their chunks
_WORD = re.compile(r"\w+")
_COMPOUND = re.compile(r"\w+(?:\.\w+)+")
_JOINER = re.compile(r"\.")


@lru_cache(maxsize=200_000)
def lemma(word: str) -> str:
    import simplemma

    w = word.lower()
    try:
        w = str(simplemma.lemmatize(w, lang="en")).lower()
    except Exception:  # a token simplemma cannot handle keeps its lower-case form
        w = word.lower()
    return fold(w)  # accent-free: a question typed "Parvulescu" meets a CV's "Pârvulescu"


def lemmas(text: str) -> set[str]:
    """Lemmas of the words of `text`, and of each compound joined by dots glued together, as the
    lexical index glues them (`index.lexical`): "Ph.D." also gives "phd", so it meets a question's
    "PhD". (Gluing hyphenated compounds too, "PA-22" -> "pa22", left a question's own compounds
    unmatched in passages that split them, and was measured worse.)"""
    out = {lemma(w) for w in _WORD.findall(text)}
    out.update(lemma(w) for w in glued(text))
    return out


def glued(text: str) -> list[str]:
    """Each compound of `text` joined by dots, glued together: "Ph.D." -> "PhD", "U.S." -> "US"."""
    return [_JOINER.sub("", m) for m in _COMPOUND.findall(text)]


def lower_words(text: str) -> set[str]:
    """The words `text` writes in lower case, outside addresses, handles and paths."""
    return {w for w in _WORD.findall(without_addresses(text)) if w.islower()}


@dataclass(frozen=True)
class LemmaStats:
    """What `load` reads: the number of chunks, chunks per lemma, and the words written in lower case."""

    chunks: int
    df: dict[str, int] = field(default_factory=dict)
    lower: frozenset[str] = frozenset()


def create_table(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE IF NOT EXISTS lemma_df (lemma TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID")
    db.execute("CREATE TABLE IF NOT EXISTS lower_words (word TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID")


class Delta:
    """The lemma counts a write transaction adds and removes, applied once when it commits."""

    def __init__(self) -> None:
        self.df: Counter[str] = Counter()
        self.lower: Counter[str] = Counter()

    def add(self, texts: Iterable[str], sign: int = 1) -> None:
        for text in texts:
            for w in lemmas(text):
                self.df[w] += sign
            for w in lower_words(text):
                self.lower[w] += sign

    def remove(self, texts: Iterable[str]) -> None:
        self.add(texts, -1)

    def apply(self, db: sqlite3.Connection) -> None:
        for table, key, col, counts in (("lemma_df", "lemma", "df", self.df), ("lower_words", "word", "n", self.lower)):
            changed = [(k, v) for k, v in counts.items() if v]
            if not changed:
                continue
            db.executemany(f"INSERT INTO {table}({key}, {col}) VALUES (?, ?) "
                           f"ON CONFLICT({key}) DO UPDATE SET {col} = {col} + excluded.{col}", changed)
            if any(v < 0 for _, v in changed):
                db.execute(f"DELETE FROM {table} WHERE {col} <= 0")
        self.df.clear()
        self.lower.clear()


def rebuild(db: sqlite3.Connection, batch: int = 2000) -> None:
    """Count every stored chunk again (a migration, or a new `LEMMA_VERSION`), inside the caller's transaction."""
    create_table(db)
    db.execute("DELETE FROM lemma_df")
    db.execute("DELETE FROM lower_words")
    delta = Delta()
    cur = db.execute("SELECT text FROM chunks")
    while rows := cur.fetchmany(batch):
        delta.add(r[0] for r in rows)
    delta.apply(db)
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('lemma_version', ?)", (LEMMA_VERSION,))


def load(db: sqlite3.Connection) -> LemmaStats | None:
    """The counts of the index behind `db`; None when it has none of this `LEMMA_VERSION` (an index
    opened read-only before its upgrade)."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'lemma_version'").fetchone()
        if not row or row[0] != LEMMA_VERSION:
            return None
        chunks = int(db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])
        df = dict(db.execute("SELECT lemma, df FROM lemma_df"))
        lower = frozenset(r[0] for r in db.execute("SELECT word FROM lower_words"))
    except sqlite3.OperationalError:  # no such table
        return None
    return LemmaStats(chunks, df, lower)
