"""The answer path as named steps: resolve -> retrieve -> candidates -> score -> answer / abstain.

`retrieve_hits` runs steps 1 and 2 (`resolve.resolve`, then `resolve.scoped_retrieve`): the hits the
reader may quote and the note saying what the search was scoped to. The reader (`reader.Reader`)
does the rest.

A question that names documents is answered from them only: the search fills its last places with
the best hits elsewhere (a scope found from rare words may be wrong, and those hits rank the
search), but the reader never quotes them, so an answer cannot take its fact from a document other
than the one the question named ("the Seward pilot" answered from another accident's report).
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
    if note and resolution.docs:  # scoped: the named documents' hits only (see the module docstring)
        named = set(resolution.docs)
        hits = [h for h in hits if h.doc in named] or hits
    return list(hits), note
