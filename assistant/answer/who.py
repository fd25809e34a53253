""""Who" questions: the answer that lists every matching person, which names a question spells, how a
document is checked for them, the people searched, and the order of their hits.

- `answer_who`: the people the fitted "who" model matches, one line and one quote each (`short_title` for a
  document without an owner), and a coverage note; `spelling_names` keeps the matches that spell the
  question's names in full, and `spelling_in_full` adds the documents whose read passages write out a name
  of two or more words the question spells;

- `spelled_names`: the names a question spells ("Imperial College London", "NSF"); `spells` /
  `holds_name`: whether a text holds one as whole words, folded, dotted abbreviations glued ("Ph.D." is
  "PhD"), as the reader requires of the documents it lists for such a name;
- `what_was_searched`: what a "who" answer says it searched ("17 profiles and 7 other documents");
- `top_per_doc` and `take_turns`: each document's best hits, and the documents taking turns, so the
  first few hits show every person and not one person's six chunks.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from index import Hit
from ingest.names import fold

from ..people import Person
from . import Answer, Citation, PersonAnswer, citation_from_hit
from .entities import runs
from .extent import short
from .features import flat

if TYPE_CHECKING:
    from .reader import Reader, Reading


def spelled_names(question: str, proper: Any = None) -> list[str]:
    """The names a question spells, folded and spaced by single spaces: runs of two or more capitalised
    words ("Which people have a connection to Imperial College London?" -> ["imperial college london"]),
    and with `proper` (is this word a name? e.g. `features.Idf.proper`: capitalised and never written in
    lower case in the collection) single names past the first word ("funded by the NSF" -> ["nsf"])."""
    names = [" ".join(fold(question[a:b]).split()) for a, b in runs(question)]
    if proper is not None:
        spelled = " ".join(names)
        names += [fold(m.group(0)) for m in re.finditer(r"\w+", question)
                  if m.start() > 0 and len(m.group(0)) >= 2 and proper(m.group(0)) and fold(m.group(0)) not in spelled]
    return names


_INNER_DOT = re.compile(r"(?<=\w)\.(?=\w)")


def glued(text: str) -> str:
    """`text` folded, spaced by single spaces, with dotted abbreviations glued as the lexical index
    glues them ("Ph.D." is "phd"), and as written after it: an address's name is not glued to its
    domain ("github" in "https://github.com/x")."""
    folded = " ".join(fold(text).split())
    return f"{_INNER_DOT.sub('', folded)}\n{folded}"


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


def long_names(question: str) -> list[str]:
    """The names of two or more words a question spells (`spelled_names`): specific enough that a document
    writing one out is about it ("Imperial College London", "Robert J Gretz")."""
    return [n for n in spelled_names(question) if len(n.split()) >= 2]


def writes_out(text: str, names: Sequence[str]) -> bool:
    """Does `text` write out every one of `names` as whole words (`holds_name`, dotted abbreviations glued)?"""
    folded = glued(text)
    return all(holds_name(folded, n) for n in names)


def with_names(question: str, hits: Sequence[Hit], read: Sequence[Hit]) -> list[Hit]:
    """`read` (each document's best hits of a "who" question) and, for each document none of whose hits
    in `read` writes out the question's `long_names`, its first hit that does: the search may rank the
    line that names the place below two that only resemble the question."""
    names = long_names(question)
    if not names:
        return list(read)
    spelled = {h.doc for h in read if writes_out(h.text, names)}
    chosen = {h.chunk_id for h in read}
    out = list(read)
    for h in hits:
        if h.doc not in spelled and h.chunk_id not in chosen and writes_out(h.text, names):
            out.append(h)
            spelled.add(h.doc)
    return out


def top_per_doc(hits: Sequence[Hit], n: int) -> list[Hit]:
    count: dict[str, int] = {}
    out = []
    for h in hits:
        if count.get(h.doc, 0) < n:
            out.append(h)
            count[h.doc] = count.get(h.doc, 0) + 1
    return out


PER_PERSON_CHARS = 118  # a "who" line, "- Name: quote" without its [n] marker (concise: ~120 per person)
MIN_QUOTE = 40  # a "who" line's quote gets at least this many characters
# a document listed by its title in a "who" line: at most this much of it, so that its line keeps MIN_QUOTE
# characters of quote within PER_PERSON_CHARS (a paper's 100-character title left a line of 150)
TITLE_CHARS = PER_PERSON_CHARS - MIN_QUOTE - len("- : ")


def short_title(title: str, limit: int = TITLE_CHARS) -> str:
    """A document's title as a list line names it: cut at a word within `limit` characters ("…" marking the
    cut), so that the line keeps room for its quote (`PER_PERSON_CHARS`)."""
    title = " ".join(title.split())
    if len(title) <= limit:
        return title
    cut = title.rfind(" ", 0, limit)  # the word ending there, and "…" after it, stay within `limit`
    return title[: cut if cut > limit // 2 else limit - 1].rstrip(" ,;:-–") + "…"


def spelling_names(reader: Reader, r: Reading, match: dict[str, float]) -> dict[str, float]:
    """The matched documents of a "who" question that spell in full the names the question spells
    (`spelled_names`), when some do: "University College London" is not "Imperial College London",
    though both are "College London" and their passages embed alike; a CV that never writes "NSF"
    is no answer to "Whose work has been funded by the NSF?". When no matched document spells a
    name in full (the documents may abbreviate it), the matches stand."""
    names = spelled_names(r.question, reader.idf(r.hits).proper)
    if not names or len(match) < 2:
        return match
    spelling: dict[str, float] = {}
    for d, v in match.items():
        full = reader.store.document_text(d) if reader.store is not None else None
        text = glued(full if full is not None else "\n".join(h.text for h in r.hits if h.doc == d))
        if all(holds_name(text, n) for n in names):  # each document folded once, whatever the number of names
            spelling[d] = v
    return spelling or match


def spelling_in_full(reader: Reader, r: Reading, match: dict[str, float],
                     pm: dict[str, float]) -> dict[str, tuple[float, int]]:
    """The documents of a "who" question the "who" model did not match that write out in full, in a passage
    the reader read, the names of two or more words the question spells ("Which people have a connection to
    Imperial College London?"): {document: (its match probability, that passage's best candidate)}. Such a
    name is specific enough that a CV writing it has the connection, whatever the model made of the passage
    the search put first ("Jesus College Oxford" for one that also writes "Imperial College London"). A
    single word ("Google", "NSF") is not: a CV writes "Google Scholar" and a student's NSF fellowship."""
    names = long_names(r.question)
    if not names:
        return {}
    spelling = {i for i, h in enumerate(r.hits) if h.doc not in match
                and writes_out(h.text, names)}  # each chunk folded once
    found: dict[str, tuple[float, int]] = {}
    for i in np.argsort(-r.p):
        c = r.cands[int(i)]
        d = r.hits[c.hit].doc
        if c.hit in spelling and d not in found and writes_out(r.text(int(i)), names):
            found[d] = (pm.get(d, 0.0), int(i))
    return found


def answer_who(reader: Reader, r: Reading, people: Sequence[Person]) -> Answer:
    """A "who" question's answer: every person whose document the fitted "who" model matches (when the
    answerability model says anyone does), likeliest first, each on one line with one quote, and a coverage
    note; an abstention naming how many were searched when no one matches."""
    m = r.model or reader.model
    docs, pm, best = m.doc_matches(r)
    # Does anyone match at all? The answerability model, over the best candidate of every person:
    # the "who" model ranks documents against each other, so the best one always looks likely.
    anyone = m.answerable(r.p, r.x, r.unmatched, r.read)
    cut = m.who_threshold if anyone >= m.threshold else math.inf
    match = {d: float(v) for d, v in zip(docs, pm, strict=True) if v >= cut}
    match = spelling_names(reader, r, match)
    by_doc = dict(zip(docs, best, strict=True))
    if cut < math.inf:
        for d, (v, i) in spelling_in_full(reader, r, match, dict(zip(docs, pm, strict=True))).items():
            match[d], by_doc[d] = v, i
    matches: list[tuple[float, Person, list[int]]] = []
    for person in people:
        hit_docs = sorted((d for d in person.docs if d in match), key=lambda d: -match[d])
        if hit_docs:
            matches.append((match[hit_docs[0]], person, [by_doc[d] for d in hit_docs]))
    searched = len(people)
    what = what_was_searched(people)
    if not matches:
        why = f"{what} searched, 0 match"
        ans = reader.abstain(r, why if anyone >= m.threshold else f"{why}; {reader.how_sure(anyone, m)}",
                            anyone)
        return Answer(ans.question, f"{ans.answer} ({what} searched)", True, (), ans.related,
                      ans.notes, kind="abstain", searched=searched, confidence=ans.confidence)
    matches.sort(key=lambda m: (-m[0], m[1].name))
    cites: list[Citation] = []
    lines: list[str] = []
    out: list[PersonAnswer] = []
    mixed = any(person.owner_known for _p, person, _ids in matches)  # people and unowned documents
    for _p, person, ids in matches:
        # one quote per person keeps the answer short; the rest of their evidence is in the sources
        i = ids[0]
        c = r.cands[i]
        hit = r.hits[c.hit]
        # a document without a person owner goes by its title; listed beside people, by its file name (a CV whose
        # owner was not found is "About" or "CV" by its title, and "jroe_cv.md" by its name) and tagged
        tag = " (owner unknown)" if mixed and not person.owner_known else ""
        name = os.path.basename(person.docs[0]) if tag and len(person.docs) == 1 else person.name
        label = person.name if person.owner_known else short_title(name, TITLE_CHARS - len(tag)) + tag
        prefix = f"- {label}: "
        a, b = short(r, i, max(MIN_QUOTE, PER_PERSON_CHARS - len(prefix)))
        cites.append(citation_from_hit(len(cites) + 1, hit, a, b, score=float(r.p[i])))
        lines.append(f"{prefix}{flat(hit.text[a:b])} [{len(cites)}]")
        out.append(PersonAnswer(person.name, person.docs, (len(cites),), person.owner_known))
    note = f"{what} searched, {len(matches)} match"
    return Answer(r.question, "\n".join(lines), False, tuple(cites), notes=(note,), kind="people",
                  people=tuple(out), searched=searched, confidence=max(m[0] for m in matches))
