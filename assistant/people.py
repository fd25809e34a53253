"""People in the collection and person-aware retrieval.

A `Person` is a document owner (from ingest) with every document they own; owners written
differently in two documents ("M. F. Balin", "Muhammed Fatih Balin") are one person. A document
without a detected owner is its own `Person` with `owner_known=False`, named by its title, so "who"
questions still search it and say whose it is not known.

The retrieval a question needs is `answer.resolve.scoped_retrieve`: a question naming people searches
only their documents (so "Balin's h-index" never quotes Bartan); a "who / which people" question
searches every person's documents separately, so no person is crowded out by a global top-k.
Left out: people who are only mentioned (co-authors) are not `Person`s; they are found as text.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

from index import Store
from ingest.names import names_match

# Chunks searched inside the documents of a person the question names. realdocs tune/heldout and
# seed_dev answers were the same at 10, 12, 16 and 24 (again at 10 and 12 with the fitted reader);
# each chunk read adds its lines to embed, so the first ("cold") ask's p95 over all 190 realdocs
# questions (bench/answers.py --limit 200) was 766 ms at 24, 667 at 12 and 574 at 10 (same run day).
PERSON_K = 10


@dataclass(frozen=True)
class Person:
    name: str
    docs: tuple[str, ...]
    owner_known: bool = True


def group_people(records: Sequence[tuple[str, str | None, str]]) -> list[Person]:
    """People from (doc path, owner, title) records; same-person owners merged, fullest name kept."""
    groups: list[tuple[list[str], list[str]]] = []  # (names, docs)
    loose: list[Person] = []
    for doc, owner, title in records:
        if not owner:
            loose.append(Person(title or doc, (doc,), owner_known=False))
            continue
        for names, docs in groups:
            if any(names_match(owner, n) and (len(owner.split()) > 1 and len(n.split()) > 1) for n in names):
                names.append(owner)
                docs.append(doc)
                break
        else:
            groups.append(([owner], [doc]))
    people = [Person(max(names, key=len), tuple(docs)) for names, docs in groups]
    return sorted(people, key=lambda p: p.name.lower()) + loose


class People:
    """The people of a store, re-read when the store changes."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._cache: tuple[object, list[Person]] | None = None

    def all(self) -> list[Person]:
        records = self.store.documents()
        sig = tuple((d.doc, d.owner, d.sha256) for d in records)
        with self._lock:
            if self._cache is None or self._cache[0] != sig:
                self._cache = (sig, group_people([(d.doc, d.owner, d.title) for d in records]))
            return self._cache[1]

    def names(self) -> list[str]:
        return [p.name for p in self.all() if p.owner_known]

    def find(self, name: str) -> Person | None:
        """The person `name` refers to ("Balin", "M. F. Balin"), or None (or when it is ambiguous)."""
        matches = [p for p in self.all() if p.owner_known and names_match(name, p.name)]
        return matches[0] if len(matches) == 1 else None

