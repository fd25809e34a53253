"""Resolve: which people and documents a question names, and retrieval scoped to them.

`resolve(question, people, store)` reads the question against what the index stores:

- **people**, through each owner's aliases (`aliases`: the full name, its accent-free spelling, initials +
  surname, the surname, the given name while no other owner shares it; possessives such as
  "Weber's" are the name). A multi-word alias matches in any case; a one-word alias only when the
  question writes it with a capital ("Martin", not "martin"), since surnames are often words.
  A match inside a longer match of someone else is dropped ("Maurice Weber" does not also name
  another Weber); one span naming several owners (a shared surname) names all of them and the
  note says it is ambiguous.
- **documents by title** (`titles.titles_named`): a question holding two words of a document's title, one
  that at most `MAX_NAMED` titles share, names it ("the wine recognition dataset"); a title outranks
  the rare words below, and a "who" question about one titled document asks for a fact in it.
- **documents by name or fact**: the question's other words are looked up in the collection's
  document frequencies (each document's terms: its text, title and file name, accent-free, kept at
  index time by `index.doc_terms`; and its current owner's name).
  A name-like word (capitalised inside the sentence, in capitals, or holding a digit: "Soledad",
  "NARA", "N1181Y", "12/06/2007") names the documents holding it when they are at most
  `MAX_NAMED` (and under half the collection); any other word only when exactly one document holds
  it ("melphalan") and it is not a common English word (scikit-learn's stop words: "get" may be in
  one CV by chance). Each such word weighs ln(N / df), its IDF; the documents with the highest
  summed weight are the scope, a tie going to the documents named by more weight of name-like
  words: a name the question writes says which document it means more surely than a plain word
  one document happens to hold ("How many hours had the Seward pilot flown ...?" is about the
  report holding "Seward", not the one holding "flown", when both words are in one document each).
  No list fitted to any collection is involved: how rare a word is in *this* collection is the
  evidence.

`scoped_retrieve` searches within the scope first (the `docs` restriction of `index.Searcher`)
and fills the remaining places from the whole index; a scope found from rare words (not a person)
leaves its last `RESERVE` places to the whole index's best hits outside it, so a wrong scope costs
ranking, not the answer (measured: dropping the naming words inside the scope, or checking the
scope against the whole index's top k, ranked worse on realdocs tune); "who" questions keep searching every person separately (`scoped_retrieve`), the named
documents' people first, unless no document of the folder is a person's
(`names_unowned`): then the person asked for is named in a text, and they are searched as for a fact; so is a list question ("What two railroads ... in Fresno?") naming one such document, whose things are in its text. The note says what was searched ("Searched Maurice Weber's documents
(cv12_weber.pdf)", "Searched ntsb03.pdf (named by N1181Y)", "" when unscoped).

A question asking which of the documents in view match ("Which of these papers describe an R package?") names
none of them by its words: they say what the documents it asks for hold ("R package" is also one paper's title).
It is scoped only by the people it names.

Left out: nicknames, misspellings, dates written another way than in the document ("6 December
2007" for "12/06/2007"), and lower-case place names; those questions are searched unscoped.
"""

from __future__ import annotations

import functools
import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import zip_longest
from typing import TYPE_CHECKING

from index import Hit, Searcher, Store
from index.lemmas import lemmas
from index.lexical import STOPWORDS, terms
from ingest.addresses import shapes

from ..people import PERSON_K
from . import asks, detect, present
from .aliases import aliases_of, find_people, people_named, stored_aliases
from .features import without_names, without_titles
from .titles import MAX_NAMED, document_count, titles_named
from .words import common_words, key, tokens

if TYPE_CHECKING:
    from ..people import People

RESERVE = 2  # places a scope found from rare words leaves to the best hits elsewhere


@dataclass(frozen=True)
class Resolution:
    persons: tuple[str, ...] = ()  # the people (`people.Person.name`) the question names
    docs: tuple[str, ...] = ()  # the documents to search first (paths); empty: the whole index
    note: str = ""  # what the question was resolved to, for the reader ("" when nothing)
    by: tuple[str, ...] = ()  # the question's words that named the documents (when not a person)
    ambiguous: bool = False  # a name fits several people; all of them are searched
    by_title: bool = False  # the documents were named by their titles (`titles_named`)

    @property
    def one_document(self) -> bool:
        """The question is about one document it names by title: a fact in it, never a list of
        matches ("Who donated the breast cancer dataset?")."""
        return self.by_title and len(self.docs) == 1


# --- collection statistics ----------------------------------------------------------------------

def holding(store: Store, wanted: Sequence[str]) -> tuple[dict[str, list[str]], int]:
    """term -> the documents holding it (their text, title or file name, kept at index time by
    `index.doc_terms`, or their current owner's name), and the number of documents. Both the owners and
    the count are kept by the store and the title index per generation: `resolve` and `located` ask per
    question without reading every document record."""
    out = {t: list(v) for t, v in (store.docs_holding(wanted) or {}).items()}
    want = set(wanted)
    for owner, paths in store.owner_docs().items():
        for t in _owner_keys(owner) & want:
            held = out.setdefault(t, [])
            held.extend(d for d in paths if d not in held)
    return out, document_count(store)


@functools.lru_cache(maxsize=4096)
def _owner_keys(owner: str) -> frozenset[str]:
    return frozenset(key(t) for t in terms(owner))


# --- resolving ----------------------------------------------------------------------------------

def _name_like(word: str, position: int) -> bool:
    """A word that may name a thing: holds a digit, is in capitals, or is capitalised inside the sentence."""
    if any(c.isdigit() for c in word):
        return True
    letters = [c for c in word if c.isalpha()]
    if len(letters) >= 2 and all(c.isupper() for c in letters):
        return True
    return position > 0 and word[:1].isupper() and len(letters) >= 2


def _fact_terms(words: list[tuple[str, int, int]], covered: set[int]) -> dict[str, tuple[str, bool]]:
    """term -> (the question word it comes from, whether that word is name-like), for the words not
    naming a person; common English words ("get", "back") only count when written as a name."""
    out: dict[str, tuple[str, bool]] = {}
    for i, (w, _, _) in enumerate(words):
        if i in covered or w.casefold() in STOPWORDS:
            continue
        named = _name_like(w, i)
        if not named and w.casefold() in common_words():
            continue
        for t in terms(w):
            k = key(t)
            if k and k not in STOPWORDS:
                out.setdefault(k, (w, named))
        out.setdefault(key(re.sub(r"[^\w]", "", w)), (w, named))
    out.pop("", None)
    return out


def located(question: str, hits: Sequence[Hit], store: Store | None) -> frozenset[str]:
    """The question's name-like words that locate the one document every hit of `hits` is from: those
    among the words `resolve` scoped the search by (`_by_facts`), as "Seward" and "11/29/2007" in "What
    was the probable cause of the Seward, Alaska accident on 11/29/2007?". Inside that document they say where to look, not what to look for: its header
    block repeats them, the passage that answers need not. A document the question names by its title
    or file name was located by those words. Empty when the hits span documents (the words may be what
    a list question asks about), when the question names the document's owner (the name located it, and
    its other names may be what it asks about: "Which UCL courses did Jane Roe teach?"), and when the
    question is nothing but them ("What is Ribbon?" asks about the thing it names)."""
    docs = {h.doc for h in hits}
    if store is None or len(docs) != 1:
        return frozenset()
    if people_named(question, [h.owner for h in hits if h.owner], stored_aliases(store)):
        return frozenset()
    return locating(question, next(iter(docs)), store)


def locating(question: str, doc: str, store: Store, facts: bool = True) -> frozenset[str]:
    """The question's words that located `doc`: the run of its title the question spells ("DFDS Traefik v2
    ingress" of "Which system went down during DFDS's Traefik v2 ingress migration?"), or with `facts` the
    name-like words the resolver scoped the search by when `doc` is among the documents they name (which may also
    be what the question asks about: "What is the value of ASN1_MAX_NAME_SIZE?"); empty when the question is
    nothing but them."""
    words = tokens(question)
    titled, title_words = titles_named(words, set(), store)
    if doc in titled:
        out = frozenset(title_words)
    elif not facts:
        return frozenset()
    else:  # the name-like words among those the resolver scoped the search by
        scoped = _by_facts(words, set(), store)
        names = {w for w, named in _fact_terms(words, set()).values() if named}
        out = frozenset(w for w in scoped.by if w in names) if doc in scoped.docs else frozenset()
    rest = lemmas(question) - lemmas(" ".join(out)) - STOPWORDS
    return out if rest else frozenset()


def names_unowned(question: str, store: Store) -> bool:
    """Does `question` ask who someone is ("Who are the security release stewards provided by
    NodeSource?", "who sang mama told me not to come") in a folder where no document is a person's? Then
    the person asked for is named in a text, as no document is anyone's: a fact question about the documents
    (those it names by their titles or rare words, if any), not a list of documents as if they were people
    (a folder of WikiQA's article summaries: concise 48 -> 51/100). Where some documents are people's
    (CVs beside reports), a "who" question keeps asking which of them match, whatever its rare words name
    (measured: applying this to the unowned documents of such a folder cost a "who" answer on realdocs).
    The same holds for a list question whose title or rare words name exactly one document ("What two
    railroads have railyards in Fresno?"): the things listed are in its text, also in a folder where a few
    documents are people's when that document is not ("What obstacles did the authors report running into while
    reproducing Shlomi et al.'s predictions?" among papers, one of which has an owner). In a folder mostly of
    people's documents, "Which people have a connection to Imperial College London?" still asks which people,
    whatever report names the place. It still asks which documents
    match when it names several or none, when it asks "which of" them, or when its plural noun is what most
    documents are ("Which papers acknowledge NSF funding?" where most documents say "paper")."""
    words = tokens(question)
    if not words:
        return False
    owned = {d for docs in store.owner_docs().values() for d in docs}
    if words[0][0].lower() in ("who", "whom", "whose"):
        return not owned
    noun = asks.listed_noun(question)  # (syntax first: the reader asks this of every question)
    if noun in ("", "of"):
        return False
    if len(owned) * 2 >= document_count(store):  # a folder mostly of people's documents: "which ..." asks which people
        return False
    named = set(titles_named(words, set(), store)[0]) | set(_by_facts(words, set(), store).docs)
    if len(named) != 1 or named & owned:
        return False
    held, n_docs = holding(store, [k for t in terms(noun) if (k := key(t))])
    return not any(len(docs) * 2 > n_docs for docs in held.values())


def names_one_title(question: str, store: Store) -> bool:
    """Does `question` name exactly one document by its title (`titles_named`)?"""
    return len(titles_named(tokens(question), set(), store)[0]) == 1


def _base(doc: str) -> str:
    return os.path.basename(doc)


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def resolve(question: str, people: People, store: Store) -> Resolution:
    """The people and documents `question` names (see the module docstring)."""
    words = tokens(question)
    if not words:
        return Resolution()
    known = [p for p in people.all() if p.owner_known]
    stored = stored_aliases(store)
    names = [p.name for p in known]
    aliases: dict[str, tuple[str, ...]] = {}
    for p in known:
        found = stored.get(p.name) if stored else None
        aliases[p.name] = tuple(found) if found else aliases_of(p.name, [n for n in names if n != p.name])
    matches, covered = find_people(words, aliases)
    if matches:
        persons = tuple(dict.fromkeys(m[2] for m in sorted(matches)))
        spans: dict[tuple[int, int], set[str]] = {}
        for a, b, person in matches:
            spans.setdefault((a, b), set()).add(person)
        ambiguous = any(len(v) > 1 for v in spans.values())
        by_name = {p.name: p for p in known}
        docs = tuple(d for name in persons for d in by_name[name].docs)
        listed = ", ".join(_base(d) for d in docs)
        if ambiguous:
            said = next(" ".join(w for w, _, _ in words[a:b]) for (a, b), v in spans.items() if len(v) > 1)
            note = f"“{said}” could be {' or '.join(persons)}: searched the documents of each ({listed})"
        elif len(persons) == 1:
            note = f"Searched {_possessive(persons[0])} documents ({listed})"
        else:
            note = f"Searched the documents of {' and '.join(persons)} ({listed})"
        return Resolution(persons, docs, note, ambiguous=ambiguous)
    if asks.listed_noun(question) == "of":
        return Resolution()  # "Which of these papers describe an R package?": which documents, none named by it
    titled, title_words = titles_named(words, covered, store)
    if titled:
        listed = ", ".join(_base(d) for d in titled)
        whose = "its title or file name" if len(titled) == 1 else "their titles or file names"
        return Resolution((), titled, f"Searched {listed} (named by {whose}: {' '.join(title_words)})",
                          by=title_words, ambiguous=len(titled) > 1, by_title=True)
    return _by_facts(words, covered, store)


def _by_facts(words: list[tuple[str, int, int]], covered: set[int], store: Store) -> Resolution:
    """The documents the question's rare words name (the last step of `resolve`)."""
    facts = _fact_terms(words, covered)
    if not facts:
        return Resolution()
    held_by, n_docs = holding(store, list(facts))
    if n_docs < 2:
        return Resolution()
    # (summed weight, weight of the name-like words among it) per document, compared in that order
    score: dict[str, tuple[float, float]] = {}
    named_by: dict[str, list[str]] = {}
    for term, (word, named) in facts.items():
        held = held_by.get(term, [])
        df = len(held)
        if not df or df > (MAX_NAMED if named else 1) or df * 2 > n_docs:
            continue
        weight = math.log(n_docs / df)
        for d in held:
            summed, of_names = score.get(d, (0.0, 0.0))
            score[d] = (summed + weight, of_names + (weight if named else 0.0))
            if word not in named_by.setdefault(d, []):
                named_by[d].append(word)
    if not score:
        return Resolution()
    best = max(score.values())
    docs = tuple(sorted(d for d, s in score.items() if s[0] >= best[0] - 1e-9 and s[1] >= best[1] - 1e-9))
    by = tuple(dict.fromkeys(w for d in docs for w in named_by[d]))
    listed = ", ".join(_base(d) for d in docs)
    return Resolution((), docs, f"Searched {listed} (named by {', '.join(by)})", by=by, ambiguous=len(docs) > 1)


def scoped_retrieve(searcher: Searcher, people: People, resolution: Resolution, question: str, k: int = 10,
                    *, who: bool | None = None, per_person: int = 6, person_k: int = PERSON_K) -> tuple[list[Hit], str]:
    """The hits for `question` and the note saying what they were scoped to (see the module docstring).

    `who` (default: read from the question as the reader reads it, `asks.asks_who`): the question asks which people match ("Who has worked on ...", "Which two
    people ..."); every person is searched separately, those of the resolved documents first, and the
    note is empty. A question naming a person, or one document by its title, is never a "who" question.
    """
    if who is None:
        who = (not resolution.persons and not resolution.one_document
               and asks.asks_who(question)
               and not names_unowned(question, searcher.store))
    if who:
        order = list(people.all())
        if resolution.docs:
            named = set(resolution.docs)
            order.sort(key=lambda p: not any(d in named for d in p.docs))
        hits: list[Hit] = []
        for p in order:
            hits.extend(searcher.search(question, per_person, docs=list(p.docs)))
        return hits, ""
    if not resolution.docs:
        return searcher.search(question, k), ""
    want = max(k, person_k) if resolution.persons else k
    # The naming words stay in the query (dropping them was measured worse: the header that names the person says
    # what they do); the same search without them takes turns with it (`_with_bare`), a person's or a title's.
    scoped = searcher.search(question, want, docs=list(resolution.docs))
    if resolution.persons:
        scoped = _with_bare(searcher, scoped, question, without_names(question, list(resolution.persons), initials=True),
                            resolution, want)
    elif resolution.by_title:
        scoped = _with_bare(searcher, scoped, question, without_titles(question, [" ".join(resolution.by)]),
                            resolution, want)
    if resolution.persons and (kind := asks.asked(question)) in detect.SHAPED:  # an address
        scoped = look_through(searcher.store, scoped, resolution.docs, lambda text: bool(shapes(kind, text)))
    elif resolution.persons and present.asks_now(question):  # an entry still running
        scoped = look_through(searcher.store, scoped, resolution.docs, present.open_range)
    if not scoped:  # nothing in the named documents: the whole index, and say so
        return searcher.search(question, k), ""
    if resolution.persons and len(scoped) >= k:
        return scoped, resolution.note
    # A scope found from rare words may be wrong: the last places go to the best hits elsewhere.
    reserve = 0 if resolution.persons else min(RESERVE, k // 4)
    seen = {h.chunk_id for h in scoped}
    rest = [h for h in searcher.search(question, k) if h.chunk_id not in seen and h.doc not in resolution.docs]
    merged = scoped[: max(k - reserve, k - len(rest))] if len(scoped) >= k else scoped
    merged = merged + rest[: k - len(merged)]
    return [replace(h, rank=i) for i, h in enumerate(merged, 1)], resolution.note


def _with_bare(searcher: Searcher, scoped: list[Hit], question: str, bare: str, resolution: Resolution,
               want: int) -> list[Hit]:
    """`scoped` taking turns with the hits of the same search for `bare`, the question without the words that
    named its documents (the names of the people it is about, initials too: `features.without_names`; a title's
    words: `features.without_titles`), `want` in all. In a CV that lists its owner in every publication, "When did
    Jerid C. Francom get their PhD?" finds the publications first and the Education entry 13th; without the name,
    2nd. In a paper every section repeats its title's words, and "Which universities are the authors of
    'Cross-Partisan Discussions on YouTube' affiliated with?" did not find the author block in ten hits; without
    them, 5th. With them, the header that names the person and says what they do now is found, so both searches
    count."""
    if bare == question:
        return scoped
    seen: set[str] = set()
    mixed: list[Hit] = []
    for pair in zip_longest(scoped, searcher.search(bare, want, docs=list(resolution.docs))):
        for h in pair:
            if h is not None and h.chunk_id not in seen:
                seen.add(h.chunk_id)
                mixed.append(h)
    return [replace(h, rank=i) for i, h in enumerate(mixed[:want], 1)]


LOOK_CHUNKS = 3  # chunks `look_through` adds per document
LOOK_HITS = 12  # and in all, however many documents a person has


def look_through(store: Store, hits: list[Hit], docs: Sequence[str], holds: Callable[[str], bool]) -> list[Hit]:
    """`hits` and, after them, the first `LOOK_CHUNKS` chunks of each of `docs` (in document order;
    `LOOK_HITS` in all) whose text `holds` what a question about a person asks, when the search did not
    return them: neither cosine nor words find a bare "jroe@example.org" for "What is Jane Roe's email?",
    nor "2021 – present  Analyst, Acme" for "Where does she work now?", while a person's documents are
    few enough to look through. An added chunk has no search score (0)."""
    seen = {h.chunk_id for h in hits}
    out = list(hits)
    for doc in docs:
        room = min(LOOK_CHUNKS, len(hits) + LOOK_HITS - len(out))
        if room <= 0:
            break
        found = [c for c in store.chunks_of(doc) if c.chunk_id not in seen and holds(c.text)]
        out.extend(Hit.from_chunk(len(out) + 1, c, 0.0) for c in found[:room])
    return out
