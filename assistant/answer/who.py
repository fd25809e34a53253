""""Who" questions: which names a question spells, how a document is checked for them, the people
searched, and the order of their hits.

- `spelled_names`: the names a question spells ("Imperial College London", "NSF"); `spells` /
  `holds_name`: whether a text holds one as whole words, folded, dotted abbreviations glued ("Ph.D." is
  "PhD"), as the reader requires of the documents it lists for such a name;
- `what_was_searched`: what a "who" answer says it searched ("17 profiles and 7 other documents");
- `top_per_doc` and `take_turns`: each document's best hits, and the documents taking turns, so the
  first few hits show every person and not one person's six chunks.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from index import Hit
from ingest.names import fold

from ..people import Person
from . import detect


def spelled_names(question: str, proper: Any = None) -> list[str]:
    """The names a question spells, folded and spaced by single spaces: runs of two or more capitalised
    words ("Which people have a connection to Imperial College London?" -> ["imperial college london"]),
    and with `proper` (is this word a name? e.g. `features.Idf.proper`: capitalised and never written in
    lower case in the collection) single names past the first word ("funded by the NSF" -> ["nsf"])."""
    names = [" ".join(fold(question[a:b]).split()) for a, b in detect._runs(question)]
    if proper is not None:
        runs = " ".join(names)
        names += [fold(m.group(0)) for m in re.finditer(r"\w+", question)
                  if m.start() > 0 and len(m.group(0)) >= 2 and proper(m.group(0)) and fold(m.group(0)) not in runs]
    return names


_INNER_DOT = re.compile(r"(?<=\w)\.(?=\w)")


def glued(text: str) -> str:
    """`text` folded, spaced by single spaces, with dotted abbreviations glued as the lexical index
    glues them ("Ph.D." is "phd")."""
    return _INNER_DOT.sub("", " ".join(fold(text).split()))


def holds_name(glued_text: str, name: str) -> bool:
    """Does `glued_text` (a text through `glued`, done once for many names) hold `name` as whole words?"""
    return re.search(rf"(?<!\w){re.escape(_INNER_DOT.sub('', name))}(?!\w)", glued_text) is not None


def spells(text: str, name: str) -> bool:
    """Does `text` hold `name` as whole words ("NSF" is not in "transfer"), folded, with dotted
    abbreviations glued on both sides ("Ph.D." is "PhD")?"""
    return holds_name(glued(text), name)


def what_was_searched(people: Sequence[Person]) -> str:
    """What a "who" question searched: "3 profiles", "5 documents", "17 profiles and 7 other documents"
    (a document without a person owner is not a profile)."""
    owned = sum(p.owner_known for p in people)
    other = len(people) - owned

    def n(k: int, word: str) -> str:
        return f"{k} {word}{'s' if k != 1 else ''}"

    if not other:
        return n(owned, "profile")
    if not owned:
        return n(other, "document")
    return f"{n(owned, 'profile')} and {n(other, 'other document')}"


def take_turns(hits: Sequence[Hit], doc_p: dict[str, float] | None = None, cut: float = math.inf) -> list[Hit]:
    """Hits of several documents, each document's in their order, re-ordered so the documents take
    turns: every document's first hit, then every second one, and so on. Documents whose probability
    in `doc_p` reaches `cut` take their turns first, likeliest first; the others follow, taking turns
    among themselves in the order they first appear."""
    doc_p = doc_p or {}
    first: dict[str, int] = {}
    turn: list[int] = []
    count: dict[str, int] = {}
    for i, h in enumerate(hits):
        first.setdefault(h.doc, i)
        turn.append(count.get(h.doc, 0))
        count[h.doc] = turn[-1] + 1

    def key(i: int) -> tuple[bool, int, float, int]:
        p = doc_p.get(hits[i].doc, -math.inf)
        return (p < cut, turn[i], -p if p >= cut else 0.0, first[hits[i].doc])

    return [hits[i] for i in sorted(range(len(hits)), key=key)]


def top_per_doc(hits: Sequence[Hit], n: int) -> list[Hit]:
    count: dict[str, int] = {}
    out = []
    for h in hits:
        if count.get(h.doc, 0) < n:
            out.append(h)
            count[h.doc] = count.get(h.doc, 0) + 1
    return out
