"""How much of a passage an answer quotes (step 6 of the answer path): a fact answer's passage with
the entry body its header lines announce (`with_body`), the line its closing colon or label announces
(`with_what_follows`), the rest of the list it ends in when several things are asked for (`with_list`), the
other items of a numbered list it starts or ends in (`with_numbered`), the rest of the sentence its last line
wrapped (`with_sentence_end`);
a "who" line's piece that shares most words with the question, with the line under it when that piece is a heading,
cut to fit (`short`, `window`); the phrase
the reading model's span head points at (`read_span`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from index.lexical import STOPWORDS

from . import asks, segments
from .candidates import BULLETS, LIMIT, Candidate, Piece, echo_key, header_like, is_item
from .features import flat
from .present import says_now

LABEL_WORDS = 5  # the most words a label line holds ("Place of birth", "PhD Students Directed")

if TYPE_CHECKING:
    from .reader import Reading


def read_span(r: Reading, i: int, start: int, end: int) -> tuple[int, int] | None:
    """The answer phrase the reading model's span head points at in candidate `i`, as offsets into the
    quote text[start:end], when it rates the phrase above "no answer" (margin > 0); else None. The phrase is
    widened to whole words (the model points at word pieces: "one petaby" is "one petabyte"), and one that
    runs over the end of a sentence, closes a bracket it does not open ("Persea americana) is a tree native to ...",
    cut from "The avocado (Persea americana) is ...") or leaves a quotation open, is no phrase; one that opens a
    bracket it does not close ends before it ("50,000, 40,000 of which are students (80.0%" -> "50,000, 40,000 of
    which are students")."""
    if r.rr is None or not (r.rr.margin[i] > 0):
        return None
    a, b = r.rr.span[i]
    if not (start <= a < b <= end):
        return None
    text = r.hits[r.cands[i].hit].text
    while a > start and text[a - 1].isalnum():
        a -= 1
    while b < end and text[b].isalnum():
        b += 1
    if _SENTENCE_END.search(text, a, b):
        return None
    cut = _unclosed(text[a:b])
    if cut is None:
        return None
    b = a + cut
    while b > a and not text[b - 1].isalnum() and text[b - 1] not in ")]%\"'":
        b -= 1
    return (a - start, b - start) if b > a else None


def _unclosed(phrase: str) -> int | None:
    """Where `phrase` must end so that it closes every bracket it opens: its length, or where its first
    unclosed bracket opens; None when it closes a bracket it did not open or leaves a straight quote unpaired."""
    if phrase.count('"') % 2:
        return None
    opened: list[int] = []
    for k, ch in enumerate(phrase):
        if ch in "([":
            opened.append(k)
        elif ch in ")]":
            if not opened or phrase[opened[-1]] != ("(" if ch == ")" else "["):
                return None
            opened.pop()
    return opened[0] if opened else len(phrase)


_SENTENCE_END = re.compile(r"[a-z]{2}[.!?]\s+[A-Z]")  # "... his private airstrip. While on ..."


def with_body(r: Reading, c: Candidate, limit: int = LIMIT) -> int:
    """Where a fact answer ends: a candidate made only of header-like lines (an entry's title, place
    and dates) is followed by the entry's body lines up to `limit` characters, since the header says
    where and when but not what was done. Other candidates end where they end."""
    text = r.hits[c.hit].text
    if not all(header_like(text[r.pieces[j].start:r.pieces[j].end]) for j in c.pieces):
        return c.end
    end = c.end
    for j in range(c.pieces[-1] + 1, len(r.pieces)):
        p = r.pieces[j]
        if p.hit != c.hit or header_like(text[p.start:p.end]) or len(" ".join(text[c.start:p.end].split())) > limit:
            break
        end = p.end
    return end


def _entry_header(r: Reading, c: Candidate, adjacent: bool = True) -> int | None:
    """Where the entry header of candidate `c` starts, when it is the line right above it (any line above it in its
    chunk, with `adjacent` False) in a person's document and an entry's header (see `with_header`), else None."""
    hit = r.hits[c.hit]
    if not hit.owner or c.header is None or r.pieces[c.header].hit != c.hit:
        return None
    if adjacent and c.header != c.pieces[0] - 1:
        return None
    a = r.pieces[c.header].start
    line = hit.text[a:r.pieces[c.header].end].strip()
    parts = [echo_key(part) for part in hit.section.split(" > ")]
    own = len(parts) > 1 and echo_key(line.lstrip("#")) == parts[-1]  # a sub-section's heading: its entry's head
    if not own and (line[:1] in BULLETS or echo_key(line) in parts):
        return None  # a list's item, or a section's heading: no entry's header
    return a


def with_header(r: Reading, c: Candidate, start: int, end: int, limit: int = LIMIT) -> int:
    """Where a fact answer from a person's document starts: with the entry header of its candidate when that
    header is the line right above it (a CV's "Bocconi University, Milan, Italy" above "PH.D. IN ECONOMICS
    2021-Present"), so the quote holds the whole entry's say of where and what, within `limit` characters. A
    sub-section's own heading is one ("### Acme Corp" over "DevOps Engineer | 01/2024 - Present" under "Work
    Experience"); a top section's heading ("Education") or a list's item above it is none; in a paper or a report, whose short lines
    are a paragraph wrapped by the layout more often than entries, the candidate starts where it starts."""
    a = _entry_header(r, c)
    return min(start, a) if a is not None and len(flat(r.hits[c.hit].text[a:end])) <= limit else start


def header_first(r: Reading, c: Candidate, start: int, end: int, limit: int = LIMIT) -> tuple[int, int]:
    """For a question about the present: when the entry's header (`with_header`) did not fit beside the whole
    candidate, the header and as many of the candidate's first lines as fit in `limit` characters, when that is at
    least its first line (the running period, "*2008 - Present*", under "### Freelance Designer & Web Developer");
    the description after it says what the job was, and the header which. Else (start, end) as they are."""
    a = _entry_header(r, c)
    text = r.hits[c.hit].text
    if a is None:
        return start, end
    last = _last_fitting(r, text, a, c.pieces, end, limit)
    # what is kept must still speak of the present: two "link: https://..." lines are no period, and the line they
    # would cut ("Yutong is a Ph.D. candidate ...") is the answer
    return (a, last) if last is not None and (says_now(text[a:last]) or not says_now(text[start:end])) else (start, end)


def _last_fitting(r: Reading, text: str, a: int, pieces: Sequence[int], end: int, limit: int) -> int | None:
    """The furthest end, up to `end`, of the pieces `pieces` that leaves text[a:that end] within `limit` characters."""
    fits = [r.pieces[j].end for j in pieces if r.pieces[j].end <= end and len(flat(text[a:r.pieces[j].end])) <= limit]
    return max(fits) if fits else None


def running_header(r: Reading, c: Candidate, start: int, end: int, limit: int = LIMIT) -> tuple[int, int] | None:
    """For a question about the present, a candidate lines below its entry's header whose own text speaks of no
    present while that header does ("Tech Lead, Incubyte | Jun 2021 -- Present" over a fourth bullet, "- Created
    developer tools ..."): the present is the header's, so is the answer. The header and the entry's lines under it
    that fit in `limit` characters, through the candidate when it fits; else None."""
    a = _entry_header(r, c, adjacent=False)
    text = r.hits[c.hit].text
    if a is None or c.header is None or says_now(text[start:end]) or not says_now(text[a:r.pieces[c.header].end]):
        return None
    last = _last_fitting(r, text, a, range(c.header, c.pieces[-1] + 1), end, limit)
    return (a, last) if last is not None else None


def with_what_follows(r: Reading, c: Candidate, start: int, end: int, limit: int = LIMIT) -> tuple[int, int]:
    """A passage that ends with a colon ("..., you can use:", "... determines the probable cause(s) of this
    accident to be:") announces the line after it, and so does one that ends with a label restating the
    question (`restates`: a form's "Place of birth" before the line that gives it): that line is taken in
    too, dropping the passage's first pieces when all of it would not fit in `limit` characters (a list's
    next items follow in `with_list`)."""
    text = r.hits[c.hit].text
    last = max(j for j in c.pieces if r.pieces[j].start < end)
    if not text[start:end].rstrip().endswith(":") and not restates(r, c, last):
        return start, end
    after = last + 1
    if after >= len(r.pieces) or r.pieces[after].hit != c.hit:
        return start, end
    new_end = r.pieces[after].end
    for j in c.pieces:  # the earliest start that still fits
        a = max(start, r.pieces[j].start)
        if len(flat(text[a:new_end])) <= limit:
            return a, new_end
    return start, end


def with_list(r: Reading, c: Candidate, start: int, end: int, limit: int = LIMIT) -> tuple[int, int]:
    """Where an answer ending inside a list (its last line an item: a bullet) starts and ends, when the list
    is what is asked for: the question asks for several things ("Which graduate courses does she teach?",
    `asks.is_list`) or the passage itself announces the list ("The two species are:"). It goes on over the
    list's next items, as many as fit in `limit` characters beside the line that announces them (or the
    list's first item), dropping the passage's first lines when all of it would not fit, if the question asks
    for several things; else the list goes on only as far as it fits beside the passage's start."""
    text = r.hits[c.hit].text
    quoted = [j for j, p in enumerate(r.pieces) if p.hit == c.hit and start <= p.start < end]
    if not quoted or not is_item(text[r.pieces[quoted[-1]].start:r.pieces[quoted[-1]].end]):
        return start, end
    colons = [j for j in quoted[:-1] if text[r.pieces[j].start:r.pieces[j].end].rstrip().endswith(":")]
    several = asks.is_list(r.question, False)
    if not colons and not several:
        return start, end
    first = colons[-1] if colons else next(j for j in quoted if is_item(text[r.pieces[j].start:r.pieces[j].end]))
    # a list the question does not ask for is taken only as far as it fits beside the passage's start: its
    # first line is what the passage was chosen for ("Assistant Professor, ... 2020 - present" above the
    # "Courses taught include:" it ends with)
    floor = max(start, r.pieces[first].start) if several else start
    new_end = end
    for p in r.pieces[quoted[-1] + 1:]:
        if p.hit != c.hit or not _in_list(text, new_end, p) or len(flat(text[floor:p.end])) > limit:
            break
        new_end = p.end
    for j in quoted:  # the earliest start that still fits
        a = max(start, r.pieces[j].start)
        if len(flat(text[a:new_end])) <= limit:
            return a, new_end
    return start, end


# "1 University of ...", "2. Sampling", "3) ...": one number, then a space; not a section's "2.1 Methods"
_NUMBERED = re.compile(r"\s*(\d{1,2})[.)]?\s+(?=\S)")


def _number(line: str) -> int | None:
    """The number a line opens with as an item of a numbered list ("1 University of Michigan", "2. Sampling"), or
    None."""
    m = _NUMBERED.match(line)
    return int(m.group(1)) if m else None


def with_numbered(r: Reading, c: Candidate, start: int, end: int, limit: int = LIMIT) -> tuple[int, int]:
    """Where an answer starts and ends when the question asks for several things (`asks.is_list`) and its first or
    last line is an item of a numbered list: back over the items numbered before it, then on over those numbered
    after it, one by one while the numbers run on and all fits in `limit` characters. "2 Australian National
    University" alone answered "Which universities are its authors affiliated with?", under "1 University of
    Michigan". Numbers of two digits at most (a footnote's mark, an ordered list's): a year is no item number."""
    if not asks.is_list(r.question, False):
        return start, end
    text = r.hits[c.hit].text
    spans: dict[int, tuple[int, int]] = {}  # line -> where it starts and ends, over the hit's pieces
    for p in r.pieces:
        if p.hit == c.hit:
            a, b = spans.get(p.line, (p.start, p.end))
            spans[p.line] = (min(a, p.start), max(b, p.end))
    lines = [spans[k] for k in sorted(spans)]
    quoted = [i for i, (a, b) in enumerate(lines) if a < end and b > start]
    if not quoted:
        return start, end

    def number(i: int) -> int | None:
        return _number(text[lines[i][0]:lines[i][1]])

    i, n = quoted[0], number(quoted[0])
    while n is not None and i > 0 and number(i - 1) == n - 1 and len(flat(text[lines[i - 1][0]:end])) <= limit:
        i, n = i - 1, n - 1
        start = lines[i][0]
    j, m = quoted[-1], number(quoted[-1])
    while m is not None and j + 1 < len(lines) and number(j + 1) == m + 1 and len(flat(text[start:lines[j + 1][1]])) <= limit:
        j, m = j + 1, m + 1
        end = lines[j][1]
    return start, end


def with_sentence_end(r: Reading, c: Candidate, start: int, end: int, limit: int = LIMIT) -> tuple[int, int]:
    """Where an answer ends whose last line the layout wrapped inside a sentence, as a PDF wraps a paragraph:
    "Our dataset consists of 274K videos from 973 US political channels between 2020-01-" went without the
    sentence's "01 and 2020-08-31, along with 134M comments from 9.3M users." It goes on to the end of that
    sentence over the lines that go on with it (a line opening in lower case, or any line after one ending with a
    hyphen or a comma), within the paragraph (no blank line), when all of it fits in `limit` characters; a line
    ending a sentence, a colon or a line of its own (a CV's "Associate Professor, Some University" over
    "2015 - present") ends nothing more."""
    text = r.hits[c.hit].text
    quoted = text[start:end].rstrip()
    if not quoted or quoted[-1] in ".!?:;" or text[end:end + 1] != "\n":
        return start, end
    pos = end
    while text[pos:pos + 1] == "\n" and len(flat(text[start:pos])) <= limit:
        a = pos + 1
        b = text.find("\n", a)
        b = len(text) if b < 0 else b
        line = text[a:b].lstrip()
        before = text[:pos].rstrip()
        if not line or not (line[:1].islower() or before.endswith(("-", ","))):
            return start, end
        stop = segments.sentence_end(text, a, b)
        if stop is not None:
            return (start, stop) if len(flat(text[start:stop])) <= limit else (start, end)
        pos = b
    return start, end


def _in_list(text: str, before: int, p: Piece) -> bool:
    """Does the line `p` of `text` go on with the list quoted up to `before`: an item, or the rest of one the
    layout wrapped (it opens in lower case, "the Brown-throated Sloth.", or the item ends with a colon, "3
    exercise variables:" before "Chins, Situps and Jumps.")?"""
    line = text[p.start:p.end]
    return is_item(line) or line.lstrip()[:1].islower() or text[:before].rstrip().endswith(":")


def restates(r: Reading, c: Candidate, last: int) -> bool:
    """Does candidate `c` end with a label that restates the question: its last piece `last` is a short
    line with no digit, colon or closing punctuation (a field's or a list's label, not a value), and of
    its chunk's lines the closest to the question (MiniLM cosine)? Such a line names what is asked and
    leaves the answer to the line after it."""
    if r.closeness is None or last != c.pieces[-1]:
        return False
    t = r.hits[c.hit].text[r.pieces[last].start:r.pieces[last].end].strip()
    if not header_like(t) or ":" in t or any(ch.isdigit() for ch in t) or len(t.split()) > LABEL_WORDS:
        return False
    close = r.closeness  # computed for the pieces of this chunk (`Reader.near`)
    return max((j for j, p in enumerate(r.pieces) if p.hit == c.hit), key=lambda j: float(close[j])) == last


def short(r: Reading, i: int, limit: int) -> tuple[int, int]:
    """The candidate's piece sharing most words with the question (the first on a tie), cut to `limit`
    characters at a word boundary; a heading of its section ("### Courses Taught") with the candidate's line after
    it, when both fit: a heading names what its lines say, and says none of it."""
    c = r.cands[i]
    text = r.hits[c.hit].text
    ids = list(c.pieces)
    best = ids[0]
    qw = _words(r.question) - STOPWORDS
    if len(ids) > 1:
        best = max(ids, key=lambda j: len(qw & _words(text[r.pieces[j].start:r.pieces[j].end])))
    a, b = r.pieces[best].start, r.pieces[best].end
    after = ids.index(best) + 1
    if (after < len(ids) and echo_key(text[a:b]) in _heads(r.hits[c.hit].section)
            and any(ch.isalnum() for ch in text[r.pieces[ids[after]].start:r.pieces[ids[after]].end])
            and len(flat(text[a:r.pieces[ids[after]].end])) <= limit):
        b = r.pieces[ids[after]].end
    if b - a > limit:
        a, b = window(text, a, b, limit, qw)
    return a, b


def _heads(section: str) -> set[str]:
    """The `echo_key`s of the headings of a section path ("Teaching > Courses Taught")."""
    return {k for part in section.split(" > ") if (k := echo_key(part))}


def _words(text: str) -> set[str]:
    """The lower-case words of `text`, without the punctuation around them ("NVIDIA?" is "nvidia")."""
    return {w.lower().strip(",.;:?!()[]\"'") for w in text.split()}


def window(text: str, a: int, b: int, limit: int, words: set[str]) -> tuple[int, int]:
    """The stretch of text[a:b], whole words and at most `limit` characters, holding the most of
    `words` (the earliest on a tie): a long line keeps the part that answers ("..., School of Public
    Health, Imperial College London"), not only its start."""
    starts = [m.start() for m in re.finditer(r"\S+", text[a:b])]
    best, best_n = (a, a), -1
    for s in starts:
        end = text.rfind(" ", a + s, min(b, a + s + limit) + 1) if a + s + limit < b else b
        end = end if end > a + s else min(b, a + s + limit)
        n = sum(w.lower().strip(",.;:()") in words for w in text[a + s:end].split())
        if n > best_n:
            best, best_n = (a + s, end), n
    return best
