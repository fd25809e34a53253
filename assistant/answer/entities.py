"""Who and what a text names: runs of capitalised words, tagged by probablepeople as a person or as an
organisation or place (`entities`), and places named in a single word (`single_names`). `detect` reads
them for the kind of thing a question asks for; `who` reads a question's own names with `runs`.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from functools import lru_cache

from .asks import AUX, TOKENS

MONTHS = frozenset(m.casefold() for m in (*calendar.month_name[1:], *calendar.month_abbr[1:]))
JOINERS = ("of", "the", "de", "for", "and", "&")  # the small words a run of capitalised words joins by
# a capitalised word, an ampersand between capitals inside it ("Texas A&M University", "AT&T"), or a joiner
_WORD_OR_JOINER = rf"(?:[A-Z](?:[\w'’.-]|&(?=[A-Z]))*|{'|'.join(JOINERS)})"
_CAPRUN = re.compile(rf"{_WORD_OR_JOINER}(?:[ \t]+{_WORD_OR_JOINER})*")


@lru_cache(maxsize=65536)
def tag(run: str) -> str:
    import probablepeople

    try:
        parts, kind = probablepeople.tag(run)
    except Exception:  # probablepeople raises RepeatedLabelError on odd strings: no verdict
        return ""
    # its verdict must agree with its own parse: "Computer Science" comes back a "Person" made of
    # one CorporationNameOrganization part
    corporate = any(label.startswith("Corporation") for label in parts)
    if (kind == "Person" and corporate) or (kind == "Corporation" and not corporate):
        return ""
    return str(kind)


@lru_cache(maxsize=65536)
def designated(run: str) -> bool:
    """Does probablepeople read an organisation's designator in `run`: the word that says what kind of body it is
    ("University" of "Yale University", "Laboratory", "Institute") or its legal form ("GmbH", "Inc.")? A field of
    study written like a name ("Applied Physics", "Sociology and Demography") has none."""
    import probablepeople

    try:
        parts, kind = probablepeople.tag(run.rstrip(".,"))
    except Exception:  # RepeatedLabelError on odd strings: no verdict
        return False
    return kind == "Corporation" and any(k in ("CorporationNameOrganization", "CorporationLegalType") for k in parts)


def runs(text: str) -> list[tuple[int, int]]:
    """Offsets of the runs of two or more capitalised words (joined by "of", "the", "and", ...).

    A word of three or more letters ending in a full stop ends a sentence, and so its run, the stop
    left out ("Mentor: Cliff Wong. Benchmarked ..." holds "Cliff Wong"); an initial ("J."), an
    abbreviation with inner stops between short parts ("Ph.D.", "U.S."), a title before a name ("Prof.",
    "St.") or a word before a lower-case joiner ("Univ. of Michigan") does not. A name with an inner stop
    between longer parts ends its sentence like any word ("... trusted by Node.js. Therefore ...")."""
    out: list[tuple[int, int]] = []
    for m in _CAPRUN.finditer(text):
        words = [(w.start(), w.end()) for w in re.finditer(r"\S+", m.group(0))]
        run: list[tuple[int, int]] = []
        for k, (a, b) in enumerate(words):
            word = m.group(0)[a:b]
            if word[0] == "I" and _first_person(word, text[m.start() + b:m.start() + b + 12]):
                _close(text, m.start(), run, out)  # "Lately I've been into ...": "I" names no one
                run = []
                continue
            if run and word.strip(".,").casefold() in MONTHS:
                _close(text, m.start(), run, out)  # "Prof. David Fouhey Sep 2016": a date begins
                run = []
            run.append((a, b))
            stem = word.rstrip(".")
            after = m.group(0)[words[k + 1][0]] if k + 1 < len(words) else ""
            # a sentence ends where the next word is capitalised or nothing follows ("Univ. of Michigan" goes on)
            abbreviation = "." in stem and all(len(part) <= 2 for part in stem.split("."))
            if word.endswith(".") and len(stem) >= 3 and not abbreviation and not is_title(word) and not after.islower():
                _close(text, m.start(), run, out, strip=True)
                run = []
        _close(text, m.start(), run, out)
    return out


_CONTRACTED_I = re.compile(r"I['’](?:m|ve|ll|d)")
_NEXT_WORD = re.compile(r"[ \t]+([a-z]+)")


def _first_person(word: str, after: str) -> bool:
    """Is `word` the pronoun "I": contracted ("I've", "I'm"), or before an auxiliary ("I am", "I have")? A closed
    class of English; "I" alone may be a numeral of a name ("World War I", "Phase I")."""
    if _CONTRACTED_I.fullmatch(word.rstrip(".,;:")):
        return True
    nxt = _NEXT_WORD.match(after)
    return word == "I" and nxt is not None and nxt.group(1) in AUX


def _close(text: str, base: int, run: list[tuple[int, int]], out: list[tuple[int, int]], strip: bool = False) -> None:
    """Add `run` (word offsets from `base`) to `out` without the lower-case words at its ends, when two
    or more words are left; `strip` drops the sentence's full stop."""
    while run and not text[base + run[-1][0]].isupper():
        run.pop()
    while run and not text[base + run[0][0]].isupper():
        run.pop(0)
    if len(run) >= 2:
        a, b = base + run[0][0], base + run[-1][1]
        while b > a and text[b - 1] == "_":  # Markdown's emphasis closing after the name ("_University of Pittsburgh_")
            b -= 1
        out.append((a, b - 1 if strip and text[b - 1] == "." else b))


@lru_cache(maxsize=4096)
def is_title(word: str) -> bool:
    """Is `word` a title before a name ("Prof.", "Dr") or of an office ("Professor", "Director")? nameparser's
    list of titles decides."""
    from nameparser.config import CONSTANTS

    return word.rstrip(".").casefold() in CONSTANTS.titles


def _name_shape(run: str) -> bool:
    """A given name, a middle initial and a surname ("Umit V. Catalyurek"): the shape of a person's name."""
    words = run.rstrip(".,").split()
    return 3 <= len(words) <= 4 and all(w[:1].isupper() for w in words) and any(
        len(w.rstrip(".")) == 1 for w in words[1:-1]) and len(words[0]) > 2 and len(words[-1]) > 2


_AND = re.compile(r"\s+(?:&|and)\s+")


@lru_cache(maxsize=65536)
def entities(text: str) -> tuple[tuple[str, int, int], ...]:
    """(kind, start, end) of persons and organisations/places in `text` (capitalised runs). A run right
    before a colon is a form's label ("Defining Event: ...", "Registered Owner: ..."), not a name; a run
    opening with a title (nameparser's list: "Prof.", "Dr") is a person when the rest of it is one. A
    run joining persons ("Prof. Ce Zhang & Prof. Martin Vechev") gives each of them."""
    out: list[tuple[str, int, int]] = []
    for a, b in runs(text):
        if text[b:b + 3].lstrip(" \t").startswith(":"):
            continue
        cuts = [(m.start(), m.end()) for m in _AND.finditer(text, a, b)]
        ends = [a, *(x for c in cuts for x in c), b]
        parts = list(zip(ends[::2], ends[1::2], strict=True))
        if len(parts) >= 2 and all(len(text[x:y].split()) >= 2 and kind_of(text[x:y]) == "person" for x, y in parts):
            out.extend(("person", x, y) for x, y in parts)
        elif kind := kind_of(text[a:b]):
            out.append((kind, a, b))
    return tuple(out)


def kind_of(run: str) -> str:
    """"person", "place" (an organisation or place) or "" for one capitalised run."""
    kind = tag(run.rstrip(".,"))
    title, _, rest = run.partition(" ")
    if kind != "Person" and " " in rest.strip() and is_title(title) and tag(rest.rstrip(".,")) == "Person":
        kind = "Person"  # "Prof. Volker Bormuth": probablepeople reads the title as a company's name
    if kind == "Person" or _name_shape(run):
        words = [w.strip(".,") for w in run.split()]
        if all(len(w) <= 1 for w in words):
            return ""  # initials alone ("J. P.") name nobody
        if any(len(w) >= 2 and w.isalpha() and w.isupper() for w in words) and any(
                w[:1].isupper() and not w.isupper() for w in words):
            return "place"  # an acronym beside a capitalised word ("ETH Zurich", "IBM Research"): an organisation
        return "person"
    return "place" if kind == "Corporation" else ""


def other(text: str, a: int, b: int, exclude: frozenset[str]) -> bool:
    """Is text[a:b] not (part of) an excluded name, such as the document owner's own?"""
    return not exclude or not ({w.lower().strip(".,") for w in text[a:b].split()} & exclude)


# the English prepositions a place or an organisation follows ("from Princeton", "at Google", "in Vienna")
_BEFORE_PLACE = frozenset(["in", "at", "from", "to", "for", "of", "near", "by"])


def single_names(text: str, named: Callable[[str], bool], exclude: frozenset[str]) -> list[tuple[int, int]]:
    """Places or organisations named in one word ("He received a PhD from *Princeton* in 1942"): a word
    right after a preposition, not part of a run of capitalised words (a person's "Stanislaw Ulam") nor a
    form's label before a colon, that the collection never writes in lower case (`named`) and is not one
    of `exclude`'s. `entities` reads runs of two or more capitalised words only, since a capital that
    opens a sentence says nothing; this is the fallback for a place when a passage holds no such run. A
    word alone does not say whether it names a person or a place, so a "Who ...?" question gets none."""
    found = runs(text)
    out: list[tuple[int, int]] = []
    words = list(TOKENS.finditer(text))
    for prev, m in zip(words, words[1:], strict=False):
        w = m.group(0).strip(".,;:'’")
        a, b = m.start(), m.start() + len(w)
        if (len(w) >= 3 and w.isalpha() and w[0].isupper() and not w.isupper() and named(w)
                and prev.group(0).lower() in _BEFORE_PLACE and w.lower() not in exclude
                and not any(x <= a < y for x, y in found) and not text[b:b + 3].lstrip(" \t").startswith(":")):
            out.append((a, b))
    return out
