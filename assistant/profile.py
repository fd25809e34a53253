"""Profile cards: who a person is, from their own documents, every field with its citation.

`build_profile(store, person)` reads every chunk of the person's documents (that is the retrieval for
a card) and fills:
- `current`: the entry of an experience section whose dates run to the present (employer and role);
- `education`: degree lines (Ph.D., M.S., B.S./B.Eng. ...) with the school named above them;
- `topics`: lines of an interests / focus / research-areas section, or the lines a CV labels "Focus";
- `publications`: the first entries `ingest.publications` parses (title, venue, year).
Each `CardField.value` is an exact slice of its citation's quote, checked like any answer
(`answer.verify_citations`). A field the documents do not give is left empty, never guessed.
Left out: merging a person's several CVs into one timeline, and fields beyond these four.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from index import Hit, Store
from ingest.publications import parse_publications

from .answer import Answer, Citation, citation_from_hit, verify_citations
from .facts import _DEGREE, _real_degree, degree, org
from .people import People, Person
from .question import analyze

_PRESENT = re.compile(r"[-–]\s*(?:present|now|current)\b", re.I)
_TOPIC_SECTION = re.compile(r"interest|focus|research areas|areas of|expertise|summary|about", re.I)
_EXPERIENCE = re.compile(r"experience|employment|positions|work", re.I)
_WORK = re.compile(r"work|employment|professional|industry", re.I)


@dataclass(frozen=True)
class CardField:
    label: str  # "current", "education", "topic", "publication"
    value: str  # an exact slice of `citation.quote`
    citation: Citation
    detail: str = ""  # education: the school, also a slice of the quote

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "value": self.value, "detail": self.detail, "citation": self.citation.to_dict()}


@dataclass(frozen=True)
class Profile:
    name: str
    docs: tuple[str, ...]
    current: tuple[CardField, ...] = ()
    education: tuple[CardField, ...] = ()
    topics: tuple[CardField, ...] = ()
    publications: tuple[CardField, ...] = ()

    def fields(self) -> tuple[CardField, ...]:
        return (*self.current, *self.education, *self.topics, *self.publications)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "docs": list(self.docs),
            **{k: [f.to_dict() for f in getattr(self, k)] for k in ("current", "education", "topics", "publications")},
        }


class _Fields:
    def __init__(self, hits: list[Hit]) -> None:
        self.hits = hits
        self.out: list[CardField] = []
        self.seen: set[tuple[str, str]] = set()

    def add(self, label: str, hit: int, quote: tuple[int, int], value: tuple[int, int],
            detail: tuple[int, int] | None = None) -> None:
        text = self.hits[hit].text
        val = " ".join(text[value[0] : value[1]].split())
        if not val or (label, val.lower()) in self.seen:
            return
        self.seen.add((label, val.lower()))
        c = citation_from_hit(len(self.out) + 1, self.hits[hit], quote[0], quote[1])
        extra = text[detail[0] : detail[1]] if detail else ""
        self.out.append(CardField(label, text[value[0] : value[1]], c, extra))


def _lines(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text) if m.group(0).strip()]


def build_profile(store: Store, person: Person, max_items: int = 5) -> Profile:
    """The card of `person` from the chunks of their documents (see the module docstring)."""
    chunks = [c for d in person.docs for c in store.chunks_of(d)]
    hits = [Hit.from_chunk(i + 1, c, 1.0) for i, c in enumerate(chunks)]
    f = _Fields(hits)
    q = analyze(f"What degrees does {person.name} hold?", [person.name])
    current: list[tuple[int, int, tuple[int, int], tuple[int, int]]] = []  # (priority, hit, quote, value)
    for i, h in enumerate(hits):
        lines = _lines(h.text)
        education = "educat" in h.section.lower()
        for n, (a, b) in enumerate(lines):
            line = h.text[a:b]
            window = (lines[max(0, n - 3)][0], b)
            if _EXPERIENCE.search(h.section) and _PRESENT.search(line):
                where = org(h.text, a, b, window, q)
                if where:
                    current.append((0 if _WORK.search(h.section) else 1, i, (min(where[0], a), b), where))
            m = next((m for m in _DEGREE.finditer(line) if _real_degree(m)), None)
            if m and (education or m.start() == len(line) - len(line.lstrip())):
                span = degree(h.text, a + m.start(), b, q)
                if span:
                    before = (a, a + m.start())
                    school = (org(h.text, before[0], before[1], before, q) if m.start() > 3 else None) or (
                        org(h.text, window[0], a, (window[0], a), q) if a > window[0] else None)
                    lo = min(school[0], span[0]) if school else span[0]
                    f.add("education", i, (min(lo, a), max(span[1], b)), span, school)
            if _TOPIC_SECTION.search(h.section) and not _TOPIC_SECTION.fullmatch(line.strip()):
                body = re.match(r"^\s*(?:[-•·*○◦▪–]\s*)?(.{8,200})$", line)
                if body and line.strip() != h.section:
                    f.add("topic", i, (a, b), (a + body.start(1), a + body.end(1)))
            else:
                tag = re.match(r"^\s*(?:Focus|Research interests?|Interests?|Research areas?)\s*[:\t ]\s*(?=[A-Z])", line, re.I)
                if tag:
                    f.add("topic", i, (a, b), (a + tag.end(), b))
        for pub in parse_publications(h.text):
            j = h.text.find(pub.title, pub.start, pub.end + 1)
            if j >= 0:
                f.add("publication", i, (pub.start, pub.end), (j, j + len(pub.title)))
    if current:
        _, i, quote, value = min(current, key=lambda c: (c[0], c[1], c[2][0]))
        f.add("current", i, quote, value)
    # The same check as any answer: every quote must be an exact slice of a chunk we read.
    checked = verify_citations(Answer("", "", False, tuple(x.citation for x in f.out)), hits).citations
    valid = {(c.chunk_id, c.quote_start, c.quote) for c in checked}
    fields = [x for x in f.out if (x.citation.chunk_id, x.citation.quote_start, x.citation.quote) in valid
              and x.value in x.citation.quote and x.detail in x.citation.quote]
    by = {label: tuple(x for x in fields if x.label == label)[:max_items]
          for label in ("current", "education", "topic", "publication")}
    numbered: list[CardField] = []
    for label in ("current", "education", "topic", "publication"):
        for x in by[label]:
            numbered.append(replace(x, citation=replace(x.citation, n=len(numbered) + 1)))
    pick = {label: tuple(x for x in numbered if x.label == label) for label in by}
    return Profile(person.name, person.docs, pick["current"], pick["education"], pick["topic"], pick["publication"])


def profile(store: Store, name: str, people: People | None = None) -> Profile | None:
    """The card of the person `name` names ("Balin", "M. F. Balin"), or None when nobody matches."""
    people = people or People(store)
    person = people.find(name)
    return build_profile(store, person) if person else None


def profile_text(card: Profile) -> str:
    """The card for the terminal: one field a line, each with its [n], then the sources."""
    from .render import where

    out = [card.name]
    for title, fields in (("Current", card.current), ("Education", card.education), ("Topics", card.topics),
                          ("Selected publications", card.publications)):
        out.append(f"\n{title}:")
        out.extend(f"  - {' '.join(x.value.split())}{' — ' + ' '.join(x.detail.split()) if x.detail else ''} "
                   f"[{x.citation.n}]" for x in fields)
        if not fields:
            out.append("  (not in the documents)")
    out.append("\nSources:")
    out.extend(f"[{x.citation.n}] {where(x.citation.doc, x.citation.page, x.citation.section)}\n"
               f"    \"{' '.join(x.citation.quote.split())[:200]}\"" for x in card.fields())
    return "\n".join(out)
