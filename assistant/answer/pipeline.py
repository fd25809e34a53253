"""The answer path as named steps: resolve -> retrieve -> candidates -> score -> answer / abstain.

Contract with `assistant/answer/resolve.py` (step 1, written beside this module):

    resolve(question: str, people: People, store: Store) -> Resolution
        Resolution: frozen dataclass with
            persons: tuple[str, ...]   # the document owners the question names (Person.name)
            docs: tuple[str, ...]      # the documents the question names (owners' documents, titles, file names)
            note: str                  # how they were found, for display
    scoped_retrieve(searcher, people, resolution, question, k) -> tuple[list[Hit], str]
        the hits the reader may quote, searched inside `resolution.docs` when the question names
        something (with a fallback to the whole collection), and a "scoped to ..." note.

Until `resolve.py` exists, `retrieve_hits` falls back to `assistant.people.retrieve` (question
analysis by `assistant.question.analyze`), so the rest of the path works either way.
"""

from __future__ import annotations

import importlib
from dataclasses import replace
from types import ModuleType

from index import Hit, Searcher, Store

from ..people import People, retrieve
from ..question import analyze
from .detect import is_list


def _resolver() -> ModuleType | None:
    try:
        return importlib.import_module(f"{__package__}.resolve")
    except ModuleNotFoundError as exc:  # only "resolve.py is not there yet" falls back
        if exc.name != f"{__package__}.resolve":
            raise
        return None


def retrieve_hits(question: str, searcher: Searcher, people: People, store: Store, k: int = 10) -> tuple[list[Hit], str]:
    """The hits an answer to `question` may quote, and a note on how the search was scoped."""
    mod = _resolver()
    if mod is None:
        q = analyze(question, people.names())
        if q.kind != "people" and is_list(question, bool(q.persons)):
            q = replace(q, kind="people")  # "which reports ...": every document group is searched
        return retrieve(searcher, people, q, k), ""
    resolution = mod.resolve(question, people, store)
    hits, note = mod.scoped_retrieve(searcher, people, resolution, question, k)
    return list(hits), note
