"""The answer path as named steps: resolve -> retrieve -> candidates -> score -> answer / abstain.

`retrieve_hits` runs steps 1 and 2 (`resolve.resolve`, then `resolve.scoped_retrieve`): the hits the
reader may quote and the note saying what the search was scoped to. The reader (`reader.Reader`)
does the rest.
"""

from __future__ import annotations

from index import Hit, Searcher, Store

from ..people import PERSON_K, People
from .resolve import resolve, scoped_retrieve


def retrieve_hits(question: str, searcher: Searcher, people: People, store: Store, k: int = 10, *,
                  per_person: int = 6, person_k: int = PERSON_K) -> tuple[list[Hit], str]:
    """The hits an answer to `question` may quote, and a note on how the search was scoped.

    `per_person`: chunks searched in each person's documents for a "who" question; `person_k`:
    chunks searched inside the documents of a person the question names.
    """
    resolution = resolve(question, people, store)
    hits, note = scoped_retrieve(searcher, people, resolution, question, k, per_person=per_person,
                                 person_k=person_k)
    return list(hits), note
