"""Who is the question about? Query words that name a document's owner scope the search.

A collection of CVs and profiles answers questions like "What did <person> study?". Every chunk
of that person's document carries their name (in its context), so the name says *which
documents* to look in but nothing about *which chunk*: the search is restricted to the named
people's documents and the name words are dropped from the query that ranks chunks inside them.

A query word names an owner when it equals one of the owner's name words (case-folded, a
possessive "'s" dropped), is written with a capital letter and has at least three letters; a
whole-name match counts whatever the case. When several owners match, those with the most
matching words win. Nicknames, initials ("M. F. Balin" for "Muhammed Fatih Balin") and fuzzy
spelling are left out: a wrong scope hides the answer, a missed one only costs ranking.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

_WORD = re.compile(r"[^\W\d_][\w'’.-]*", re.UNICODE)
MIN_NAME_WORD = 3


@dataclass(frozen=True)
class Scope:
    owners: tuple[str, ...]  # the owners the query names
    docs: tuple[str, ...]  # their documents (paths)
    query: str  # the query without the name words


def _key(word: str) -> str:
    word = word.replace("’", "'")
    if word.lower().endswith("'s"):
        word = word[:-2]
    return word.strip(".'-").casefold()


def _name_words(owner: str) -> set[str]:
    return {_key(w) for w in _WORD.findall(owner) if len(_key(w)) >= 2}


def find_scope(query: str, owner_docs: Mapping[str, Sequence[str]],
               within: Collection[str] | None = None) -> Scope | None:
    """The owners `query` names and the query without their names, or None when it names none.

    Args:
        query: the user's question.
        owner_docs: owner name -> paths of the documents they own.
        within: when given, only owners with a document among these paths count.
    """
    words = [(m.group(0), _key(m.group(0))) for m in _WORD.finditer(query)]
    if not words or not owner_docs:
        return None
    folded = " ".join(k for _, k in words)
    matches: dict[str, int] = {}
    for owner, docs in owner_docs.items():
        if within is not None and not any(d in within for d in docs):
            continue
        names = _name_words(owner)
        strong = sum(1 for raw, k in words if k in names and len(k) >= MIN_NAME_WORD and raw[:1].isupper())
        full = " ".join(_key(w) for w in _WORD.findall(owner))
        if full and re.search(rf"\b{re.escape(full)}\b", folded):
            strong = max(strong, len(names))
        if strong:
            matches[owner] = strong
    if not matches:
        return None
    best = max(matches.values())
    owners = tuple(sorted(o for o, n in matches.items() if n == best))
    drop = set().union(*(_name_words(o) for o in owners))
    kept = _WORD.sub(lambda m: "" if _key(m.group(0)) in drop else m.group(0), query)
    kept = re.sub(r"\s+", " ", kept).strip()
    docs = tuple(d for o in owners for d in owner_docs[o] if within is None or d in within)
    return Scope(owners, docs, kept)
