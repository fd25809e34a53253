"""Step 6 of the reader for a fact question: answer from the best candidate, or abstain and say why.

`answer_fact(reader, r)` (as `who.answer_who` answers a "who" question) decides from the fitted answerability,
then checks what the passage it would quote holds before quoting it:
- an address asked of a person it names is theirs (`addresses.own_address`), or none;
- a code-like term no document read mentions, or a stated quantity or term the passage and its section lack
  (`mentions`), refuses the question, and the note names it;
- a "When ...?" question needs a passage that says when (a year for "In what year ...?"), a question about the
  present one that speaks of it, a "how many" one a number; a "When ...?" question, or one stating a quantity,
  is answered from the likeliest candidate that holds what it asks, among those at least `HOLDING_SHARE` as
  likely as the best, before these checks refuse it (`_holding`);
- the answer leads with the phrase of the kind asked for (the reading model's span, else `leads.phrase`), or
  with the document's title when the question asks which document ("Which paper proposes ...?").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from index import Hit, Store, StoredChunk
from index.lemmas import lemma

from . import Answer, asks, citation_from_hit, detect, leads, present
from .addresses import own_address
from .aliases import people_named, stored_aliases
from .candidates import Candidate
from .extent import (
    header_first,
    read_span,
    running_header,
    short,
    with_body,
    with_header,
    with_list,
    with_numbered,
    with_sentence_end,
    with_what_follows,
)
from .features import NAMES, flat, focus, owner_tokens
from .mentions import quantities, unheld, unmentioned, unstated
from .resolve import locating
from .titles import TITLE_LEAD_CHARS, document_asked
from .who import short_title

if TYPE_CHECKING:
    from .reader import Reader, Reading

# a "When ...?" answer, or one to a question stating a quantity, may come from a candidate this share as likely as
# the best, when the best's passage lacks the date or the quantity (`_holding`)
HOLDING_SHARE = 0.5
NOW = NAMES.index("now_match")  # the candidate, its section or its entry speaks of the present (`features`)


def answer_fact(reader: Reader, r: Reading, threshold: float | None = None) -> Answer:
    """The answer to the fact question `r` reads (see the module docstring); `threshold`: answer when the
    answerability is at least this instead of the fitted threshold (the checks of what the quote holds still
    apply)."""
    kind = asks.asked(r.question)
    m = r.model or reader.model
    floor = m.threshold if threshold is None else threshold
    p = m.answerable(r.p, r.x, r.unmatched, r.read)  # decides; `sure` is what the answer says of itself
    sure = m.sure(p)
    store = reader.store
    if kind in detect.SHAPED and (named := named_people(store, r)):
        what = "an e-mail address" if kind == "email" else "a web address"
        return own_address(r, kind, named, chunks_of(store)) or reader.abstain(
            r, f"no passage read holds {what} that spells part of {' or '.join(sorted(named))}'s name", sure)
    docs = sorted({h.doc for h in r.hits})
    owners = [w for h in r.hits if h.owner for w in h.owner.split()]
    if missing := unmentioned(r.question, docs, store, skip=owners):
        read = ", ".join(Path(d).name for d in docs[:3]) + (f" and {len(docs) - 3} more" if len(docs) > 3 else "")
        return reader.abstain(r, f"none of the documents read ({read}) mentions “{missing[0]}”, which the question "
                                 "asks about", sure)
    best = int(np.argmax(r.p))
    if p < floor:
        return reader.abstain(r, reader.how_sure(p, m), sure)
    sections: dict[str, list[str]] = {}  # a section's texts, read once
    section = lambda h: sections.setdefault(h.chunk_id, section_texts(store, h))  # noqa: E731
    if kind == "date" or quantities(r.question):
        best = _holding(reader, r, best, kind, section)
    c = r.cands[best]
    hit = r.hits[c.hit]
    r, start, end = extent(reader, r, c, kind)
    text = hit.text[start:end]
    located = locating(r.question, hit.doc, store, facts=False) if store is not None else frozenset()
    skip = [*owners, *(w for h in r.hits for w in (h.title or "").split()), *located]
    document = lambda: [t] if store is not None and (t := store.document_text(hit.doc)) else []  # noqa: E731
    if why := unheld(r.question, [hit.text, hit.section or "", hit.title or ""], lambda: section(hit), skip, document):
        return reader.abstain(r, why, sure)
    if kind == "date" and not detect.says_when(text):
        return reader.abstain(r, "the passage it would quote holds no date, and the question asks for one", sure)
    if kind == "date" and asks.type_word(r.question) == "year" and not detect.has_year(text):
        return reader.abstain(r, "the passage it would quote holds no year, and the question asks for one", sure)
    if present.asks_now(r.question) and not r.x[best, NOW]:
        return reader.abstain(r, "the passage it would quote speaks of no present (no period still running, no "
                                 "\"currently\"), and the question asks about now", sure)
    if kind == "number" and asks.counts(r.question) and not detect.counts_something(text):
        return reader.abstain(r, "the passage it would quote holds no number, and the question asks how many "
                                 "or how much", sure)
    cite = citation_from_hit(1, hit, start, end, score=p)
    span = read_span(r, best, start, end)  # the reading model's answer phrase, else the kind asked for
    if span is not None and kind and not leads.fits(kind, text[span[0]:span[1]], r.question):
        span = None  # "age 85" for "How long was the airstrip?": not the kind of thing asked for
    idf = reader.idf(r.hits)
    # the reading model's phrase for "Where ...?" or "Who ...?" may be a subject or a title ("Applied Physics" of
    # "Ph.D. in Applied Physics, Yale University"): the passage's phrase naming a body or a person is preferred
    headings = hit.section.split(" > ") if hit.section else []
    common = (span is not None and kind in ("person", "place")
              and not leads.names_body(kind, text[span[0]:span[1]], idf.proper))
    owner = owner_tokens(hit.owner)
    near = lambda: {w: idf(lemma(w)) for w in {w.lower() for w in re.findall(r"\w+", focus(r.question, r.hits))} - owner}  # noqa: E731
    if (span is None or common) and kind:
        found = leads.phrase(kind, text, owner, near(), question=r.question, named=idf.proper, headings=headings)
        if span is None or (found is not None and leads.names_body(kind, text[found[0]:found[1]], idf.proper)):
            span = found
    if (span is not None and kind == "place" and not leads.names_body(kind, text[span[0]:span[1]], idf.proper)
            and leads.on_heading(text, *span, headings)):
        span = None  # a section's heading ("Research Experience") is no place
    if span is not None and kind and (second := asks.also_asked(r.question)):  # "Where and when ...?": both, together
        span = leads.with_second(second, text, span, r.question, owner, near())
    body = flat(text)
    fact = ""
    if (document_named := _named_document(reader, r, hit)) is not None:
        noun, label = document_named
        if len(label) + len(body) + 1 > 300:  # the title stays; the quote is cut to the line that answers
            start, end = short(r, best, 300 - len(label) - 1)
            body = flat(hit.text[start:end])
            cite = citation_from_hit(1, hit, start, end, score=p)
        # no `fact`: a fact is a phrase of the quote, and the title names the cited document instead
        return Answer(r.question, f"{label} [1]\n{body} [1]", False, (cite,), confidence=sure,
                      notes=(f"the question asks which {noun}, and this document calls itself one: it is "
                             "named by its title",))
    if span:
        fact = text[span[0]:span[1]]
        lead = flat(fact)
        # lead with the phrase when the passage still fits beside it; the phrase alone could be a wrong pick
        answer = f"{lead} [1]\n{body} [1]" if len(lead) + len(body) + 1 <= 300 else f"{body} [1]"
    else:
        answer = f"{body} [1]"
    return Answer(r.question, answer, False, (cite,), fact=fact, confidence=sure)


def extent(reader: Reader, r: Reading, c: Candidate, kind: str) -> tuple[Reading, int, int]:
    """Where the passage quoted for candidate `c` starts and ends (`extent`: its entry's header and body, the
    line its colon announces, the rest of its list, a numbered list's other items, the rest of a sentence its last line
    wrapped), and `r` with the closeness of its chunk's pieces."""
    r = reader.near(r, c.hit)
    end = c.end if kind else with_body(r, c)
    start = with_header(r, c, c.start, end)
    if start == c.start and present.asks_now(r.question):  # the entry's header, and its period, cut to fit
        start, end = header_first(r, c, start, end)
        if start == c.start and (running := running_header(r, c, start, end)):
            return r, *running  # the entry's first lines, from its header that speaks of the present
    start, end = with_what_follows(r, c, start, end)
    start, end = with_list(r, c, start, end)
    start, end = with_numbered(r, c, start, end)
    start, end = with_sentence_end(r, c, start, end)
    return r, start, end


def _holding(reader: Reader, r: Reading, best: int, kind: str, section: Callable[[Hit], list[str]]) -> int:
    """The likeliest candidate whose passage holds what the question asks it to (a date for "When ...?",
    `detect.says_when`; each quantity the question states, `mentions.unstated`), among those at least
    `HOLDING_SHARE` as likely as the best: "got my PhD from the University of Groningen" ranks above
    "University of Groningen, 2019-2023 / PhD, ...", which alone can answer "When did he get his PhD?", and
    "02.2016 - 02.2017 Hewlett-Packard" above "06.2014 - 02.2016 Zylia" for "Which company employed him from
    2014 to 2016?". `best` when none does (the checks of `answer_fact` then refuse the answer), and when its own
    passage passes those checks (its chunk, section heading, title or `section` holding the quantities)."""
    def holds(i: int, wide: bool) -> bool:
        c = r.cands[i]
        hit = r.hits[c.hit]
        _, start, end = extent(reader, r, c, kind)
        near = [hit.text, hit.section or "", hit.title or ""]
        if kind == "date" and not detect.says_when(hit.text[start:end]):
            return False
        return not unstated(r.question, near) or (wide and not unstated(r.question, [*section(hit), *near[1:]]))

    if holds(best, wide=True):
        return best
    floor = HOLDING_SHARE * float(r.p[best])
    for i in np.argsort(-r.p):
        if float(r.p[i]) < floor:
            break
        if holds(int(i), wide=False):
            return int(i)
    return best


def section_texts(store: Store | None, hit: Hit) -> list[str]:
    """The texts of the chunks of `hit`'s section, which may say a few sentences before the chunk what the
    question states ("In 1973, ..."); just the chunk's without a store."""
    if store is None:
        return [hit.text]
    return [c.text for c in store.chunks_of(hit.doc) if c.section == hit.section]


def chunks_of(store: Store | None) -> Callable[[str], list[StoredChunk]]:
    """A document's chunks in order, read from `store`; none without a store."""
    return lambda doc: store.chunks_of(doc) if store is not None else []


def named_people(store: Store | None, r: Reading) -> set[str]:
    """The owners of the hits that the question names."""
    owners = sorted({h.owner for h in r.hits if h.owner})
    aliases = stored_aliases(store) if store is not None else None
    return set(people_named(r.question, owners, aliases))


def _named_document(reader: Reader, r: Reading, hit: Hit) -> tuple[str, str] | None:
    """`titles.document_asked` for the document of `hit`, read whole from the store. A person's document
    (one with an owner) is about that person, never the thing asked for."""
    noun = asks.thing_asked(r.question)
    if not noun or hit.owner:
        return None
    full = reader.store.document_text(hit.doc) if reader.store is not None else None
    text = full if full is not None else "\n".join(h.text for h in r.hits if h.doc == hit.doc)
    found = document_asked(noun, hit.title or Path(hit.doc).stem, text)
    return (found[0], short_title(found[1], TITLE_LEAD_CHARS)) if found else None
