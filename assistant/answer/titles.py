"""Documents a question names by their titles ("the wine recognition dataset" -> "Wine recognition
dataset"; "the Apache License"): `titles_named`, which `resolve` asks before the question's rare words.

Each document's title terms (its title and its file name, accent-free, case-folded, no dots, as the index
stores them) are kept for the last store read until its next write.

Also the other way round: a document the question asks for by what it calls itself ("Which paper proposes
...?" of a paper that says "In this paper, we ..."), whose title is then the answer (`document_asked`).
"""

from __future__ import annotations

import math
import os
import re
import weakref

from index import Store
from index.doc_terms import key as _key
from index.lexical import STOPWORDS, terms

MAX_NAMED = 3  # a name-like word names documents only when at most this many hold it
# where a document says what it is ("In this paper, we ...", "This study evaluates ..."): its opening
SELF_REFERENCE_CHARS = 5000
TITLE_LEAD_CHARS = 120  # a document named as the answer: at most this much of its title


_TITLES: list[tuple[weakref.ref[Store], int, dict[str, frozenset[str]], dict[str, list[str]]]] = []


def _title_index(store: Store) -> tuple[dict[str, frozenset[str]], dict[str, list[str]]]:
    """Each document's title terms, and each term's documents (by title), kept for the last store read
    until its next write (its `generation`)."""
    gen = getattr(store, "generation", None)
    kept = _TITLES[0] if _TITLES else None  # one read: another thread may replace it
    if kept is not None and kept[0]() is store and gen is not None and kept[1] == gen:
        return kept[2], kept[3]
    titled = {r.doc: frozenset(k for t in terms(f"{r.title or ''} {_stem(r.doc)}") if (k := _key(t)) and k not in STOPWORDS)
              for r in store.documents()}
    postings: dict[str, list[str]] = {}
    for doc, keys in titled.items():
        for k in keys:
            postings.setdefault(k, []).append(doc)
    if gen is not None:
        _TITLES[:] = [(weakref.ref(store), gen, titled, postings)]  # one store at a time is the common case
    return titled, postings


def document_count(store: Store) -> int:
    """The number of documents in `store`, from the kept title index (no read of every record per question)."""
    return len(_title_index(store)[0])


def _stem(doc: str) -> str:
    """A document's file name without its extension, as one word: "annotated_doc.md" -> "annotated_doc"."""
    return os.path.splitext(os.path.basename(doc))[0]


def _rare_in_texts(store: Store, k: str, n: int) -> bool:
    """Is the term `k` held by at most half of the `n` documents' texts (titles and file names included)?
    A file name that most documents use as a word ("security", "report") names none of them by itself."""
    held = (store.docs_holding([k]) or {}).get(k, [])
    return len(held) * 2 <= n


def titles_named(words: list[tuple[str, int, int]], covered: set[int], store: Store
                 ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The documents whose title the question spells ("the wine recognition dataset" -> "Wine
    recognition dataset"), and the question's words that did it.

    A title is spelled when the question holds at least two of its words that are not stop words and
    are in at most half of the titles (one of two titles tells them apart), one of them in at most
    `MAX_NAMED` titles, or the document's whole file name as one word ("Who wrote defusedxml?" for
    `defusedxml.md`) that at most half of the documents' texts hold (`SECURITY.md` is not named by
    "the security release stewards" in a folder whose every document says "security"): a word most titles share ("dataset", "report", "rustdoc" in "Lints - The
    rustdoc book") locates nothing. The titles with the highest summed ln(N / title frequency) win.
    A title outranks the rare words of `_fact_terms`: "the mean petal width in the wine dataset" names
    the wine dataset, whichever document holds "petal"."""
    qkeys: dict[str, str] = {}
    proper: set[str] = set()  # keys of words the question capitalises past its first word: names
    for i, (w, start, _) in enumerate(words):
        if i not in covered:
            for t in terms(w):
                if (k := _key(t)) and k not in STOPWORDS:
                    qkeys.setdefault(k, w)
                    if start > 0 and w[:1].isupper():
                        proper.add(k)
    if not qkeys:
        return (), ()
    titled, postings = _title_index(store)
    n = len(titled)
    if n < 2:
        return (), ()
    df = {k: len(postings.get(k, ())) for k in qkeys}
    # only a title holding one of the question's rare title words can be spelled: look those up
    candidates = {d for k in qkeys if 0 < df[k] <= MAX_NAMED and df[k] * 2 <= n for d in postings[k]}
    score: dict[str, tuple[int, float]] = {}
    for doc in candidates:
        hit = titled[doc] & qkeys.keys()
        telling = [k for k in hit if df[k] * 2 <= n]  # "rustdoc" in every title of the rustdoc book tells none apart
        # a short title is named whole when the question writes, as a name, every word of it that tells
        # titles apart ("the Apache License": "License" is in every title, "Apache" only in its own;
        # numbers and the file name's glued compounds, "apache20", aside)
        own = {k for k in titled[doc] if k.isalpha() and len(postings.get(k, ())) * 2 <= n}
        whole = bool(own) and own <= hit and bool(own & proper)
        if len(telling) >= 2 or whole or (_key(_stem(doc)) in hit and _rare_in_texts(store, _key(_stem(doc)), n)):
            # its file name alone names it too ("defusedxml"), unless the documents' texts share it as a
            # word ("security" in "the security release stewards" is no name for SECURITY.md)
            # the titles whose names the question writes come first ("version 2.0 of the Apache License"
            # names the Apache License, not the Mozilla Public License Version 2.0), then the rarest words
            score[doc] = (len(set(telling) & proper), sum(math.log(n / df[k]) for k in hit))
    if not score:
        return (), ()
    best = max(score.values())
    docs = tuple(sorted(d for d, v in score.items() if v[0] == best[0] and v[1] >= best[1] - 1e-9))
    if len(docs) > MAX_NAMED:
        return (), ()
    return docs, tuple(dict.fromkeys(qkeys[k] for k in qkeys if any(k in titled[d] for d in docs)))


# -- the document as the answer ("Which paper proposes ...?") ------------------------------------

def self_named(text: str, noun: str, within: int = SELF_REFERENCE_CHARS) -> bool:
    """Does a document call itself a `noun` near its start ("In this paper, we ...")? Then "Which
    paper proposes ...?" asks for the document itself, and its title is the answer. The documents say
    what kind of thing they are; no list of document words is kept. A noun the document numbers
    anywhere ("Section 3", "Table 2", "Study 1") names its parts, so "In this section" is no answer to
    "Which section ...?"."""
    if not noun or re.search(rf"\bthis\s+{re.escape(noun)}\b", text[:within], re.IGNORECASE) is None:
        return False
    return re.search(rf"\b(?i:{re.escape(noun)})s?\s+(?:\d|[IVX]+\b|[A-Z]\b)", text) is None


def document_asked(noun: str, title: str, text: str) -> tuple[str, str] | None:
    """(`noun`, the document's `title`) when the question asks which `noun` (`asks.thing_asked`: "Which
    paper proposes ...?") and the document, its whole `text`, calls itself one ("In this paper"), else None."""
    return (noun, title) if noun and self_named(text, noun) else None
