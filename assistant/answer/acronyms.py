"""Acronyms and the names they stand for, as one word: a question's "UK" is met by a passage's "United Kingdom",
its "NTSB" by "National Transportation Safety Board", and its "National Science Foundation" by "NSF".

Word overlap weighs the rare words a question shares with a passage; an acronym shares none with its expansion,
so the affiliation line "University of Bath, Bath, BA2 7AY, United Kingdom" had nothing of "Which UK university
...?". An acronym here is a word of two to six capitals (not a question typed in capitals); it is spelled out by
consecutive capitalised words whose initials are its letters, in order, function words between them allowed
("University of North Carolina" for "UNC"). No list of acronyms: the text at hand says what each stands for.
"""

from __future__ import annotations

import re
from functools import lru_cache

from index.lemmas import lemma, lemmas
from index.lexical import STOPWORDS

_ACRONYM = re.compile(r"\b[A-Z]{2,6}s?\b")
_BETWEEN = rf"(?:[ \t]+(?:{'|'.join(sorted(STOPWORDS))}))*[ \t]+"
_NAME_RUN = re.compile(rf"[A-Z][a-z][\w'’-]*(?:{_BETWEEN}[A-Z][a-z][\w'’-]*)+")  # "National Science Foundation"


def acronyms(text: str, typed: bool = True) -> list[str]:
    """The acronyms `text` writes (two to six capitals, a plural "s" dropped), in order; with `typed` (a question),
    none when it is written mostly in capitals (its capitals say nothing of its words)."""
    letters = [c for c in text if c.isalpha()]
    if typed and sum(c.isupper() for c in letters) > len(letters) / 2:
        return []
    return list(dict.fromkeys(m.group(0).rstrip("s") if m.group(0)[-1] == "s" and len(m.group(0)) > 2 else m.group(0)
                              for m in _ACRONYM.finditer(text)))


@lru_cache(maxsize=4096)
def _spelling(acronym: str) -> re.Pattern[str]:
    return re.compile(r"\b" + _BETWEEN.join(rf"{c}[\w'’-]*" for c in acronym) + r"\b")


def spelled_out(acronym: str, text: str) -> str | None:
    """The words of `text` that spell out `acronym` ("United Kingdom" for "UK"), or None."""
    m = _spelling(acronym).search(text)
    return m.group(0) if m else None


@lru_cache(maxsize=1024)
def expansions(question: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """For each acronym of `question`, and each run of its capitalised words that an acronym would abbreviate
    (two words or more, function words between them allowed): (the acronym, the lemmas of its spelled-out words).
    A passage holding either form holds the other's lemmas too (`extra_lemmas`). Kept per question: the features
    and the unmatched-word check both read it."""
    out: list[tuple[str, frozenset[str]]] = [(a, frozenset()) for a in acronyms(question)]
    for m in _NAME_RUN.finditer(question):
        run = m.group(0) if m.start() else m.group(0).split(None, 1)[-1]  # the question's first word is no name's
        words = [w for w in run.split() if w[0].isupper()]
        if 2 <= len(words) <= 6:
            out.append(("".join(w[0] for w in words), frozenset(lemmas(run) - STOPWORDS)))
    return tuple(out)


def extra_lemmas(question_forms: tuple[tuple[str, frozenset[str]], ...], text: str) -> set[str]:
    """The lemmas `text` holds under another form (see `expansions`): an acronym of the question that `text` spells
    out gives the acronym's lemma ("uk"); a name of the question whose acronym `text` writes gives the name's
    lemmas ("national", "science", "foundation" for a passage's "NSF")."""
    out: set[str] = set()
    written = set(acronyms(text, typed=False)) if any(words for _, words in question_forms) else set()
    for acronym, words in question_forms:
        if not words and spelled_out(acronym, text):
            out.add(lemma(acronym.lower()))
        elif words and acronym in written:
            out |= words
    return out
