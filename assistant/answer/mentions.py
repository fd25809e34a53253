"""Terms a question names that no document it reads mentions, and quantities it states that its passage does not.

A question that names a code, an acronym or a product ("GPU", "PhD", "CatBoost", "eICU", "GPT-4") asks about
that thing; when none of the documents read for it holds the term, they cannot answer it, however close a passage
comes ("What GPU was used to train it?" against the paper's hyperparameters; "In what year did he receive his
PhD?" against a CV that lists a master's and "ABD"). Cosine and word overlap weigh such a word like any other, so
the reader answered these near misses from the neighbouring passage.

A term counts when it is written as a code is: an acronym in capitals of three letters or more ("GPU", "BERT"), a
name with capitals inside it of five letters or more ("CatBoost", "LightGBM"), or a capital and a digit ("FP8",
"PA-22"), alone or as a part of a hyphenated word ("BERT-based"). Two letters ("TA", "UK") stand for too many
things; an abbreviation mixing cases in four letters or fewer ("PhD", "MSc") is written in many ways ("Ph.D.",
"Master of Science", "doctorate"), so it counts only where the collection writes it so: when some other document
holds it, the documents read must hold it too, or spell it out in either order ("Doctor of Philosophy"); a
passage need not ("the economics PhD student" says who is meant). A question typed in lower case ("ww2") or in
capitals says nothing by its case. A word written as a name is ("Alaska", "Swiss") does not: a place
or a person is often written otherwise ("AK", "Switzerland"), and finding people is the resolver's work; nor does
a number ("0.20", "2019"), which a document may write another way ("20 %", "'19"). The documents hold a term
when their text, title or file name holds it (`Store.docs_holding`: accent-free, case-folded, dots dropped, so
"Ph.D." holds "PHD"), in the singular or the plural ("GNN", "GNNs"), each part of a hyphenated one ("BERT-based":
"BERT" and "based"), each of its letter and number runs ("GPLv3": "GPL" and "3", a version's "v" aside), or, for an acronym, spelled out ("graphics processing unit" for "GPU", "University of North Carolina"
for "UNC": function words between the initials).

A term the documents hold can still be missing where the answer would come from: "What accuracy did the BERT
classifier reach?" against the CNN baseline's accuracy, in a section that never names BERT. So the passage an answer
would quote (its chunk, section heading, document title), or else the rest of its section, must hold each such term
(`unsaid`), the words that located the document (its title, its owner's name) aside.

A number the question states as a quantity ("in the 24 hours before", "a 50% penalty", "in 1970") narrows what it
asks: a passage that gives the hours flown in the last 90 days or a 10% penalty is a near miss, however close its
words come. So the passage an answer would quote must hold each such number (`unstated`), in the chunk it comes
from, its section heading or its document's title, or else in the rest of its section ("In 1973, ..." a few
sentences before); a year, anywhere in the document ("After the 2018 token leak, ...?": it says which event is
meant). A quantity follows a common word, a sign or nothing; a number
after another word is part of a name ("Xbox 360", "World War 1", "version 0.20"), one glued to letters or hyphens
part of a code ("PA-22", "COVID-19": `unmentioned`'s), and one in a date or a time ("11/29/2007", "10:30") no
quantity. The chunk may write it with thousands separators ("2,640"), as one of
a list ("3, 6"), in words up to twenty and the tens ("four"), or, a year, in a date written with dots ("06.2014").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence

from index import Store
from index.doc_terms import key, of_text
from index.lexical import STOPWORDS, terms

from .detect import is_year
from .words import common_words

# a quantity a question states: a number standing alone, not glued to letters, hyphens, slashes or colons
_QUANTITY = re.compile(r"(?<![\w./:-])\d+(?:[.,]\d+)*%?(?![\w/:-])")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_UNITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
          "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")
_TENS = ("thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_NUMBER_WORDS = {w: str(n) for n, w in enumerate(_UNITS)} | {w: str(30 + 10 * n) for n, w in enumerate(_TENS)}
_WORD = re.compile(r"[A-Za-z]+")
_TOKEN = re.compile(r"[^\W_][\w.+'’-]*[\w+]|[^\W_]")
_POSSESSIVE = re.compile(r"['’]s?$")


def coded(question: str, short: bool = False) -> list[str]:
    """The terms of `question` written as codes or acronyms are (see the module docstring), in order; with
    `short`, also the abbreviations mixing cases in four letters or fewer ("PhD", "MSc": `_short`)."""
    letters_all = [c for c in question if c.isalpha()]
    if sum(c.isupper() for c in letters_all) > len(letters_all) / 2:
        return []  # a question typed in capitals: its capitals say nothing of its words
    out = []
    for token in _TOKEN.findall(question):
        token = _POSSESSIVE.sub("", token)
        if any(_is_code(part) or (short and _short(part)) for part in token.split("-")):
            out.append(token)
    return list(dict.fromkeys(out))


def _short(part: str) -> bool:
    """An abbreviation mixing cases in four letters or fewer, opening with a capital: "PhD", "MSc", "BSc"."""
    letters = [c for c in part if c.isalpha()]
    return (len(part) == len(letters) and 3 <= len(letters) <= 4 and part[0].isupper()
            and 2 <= sum(c.isupper() for c in letters) < len(letters))


def _is_code(part: str) -> bool:
    """An acronym in capitals ("GPU", "BERT"), a name with capitals inside it ("CatBoost", "LightGBM"), or a
    capital and a digit ("FP8", "GPT4"); not an abbreviation mixing cases in four letters or fewer ("PhD",
    "MSc": a CV writes "Ph.D.", "M.S.", "Master of Science" or "doctorate" as often), nor two letters."""
    letters = [c for c in part if c.isalpha()]
    capitals = sum(c.isupper() for c in letters)
    if any(c.isdigit() for c in part):
        return capitals >= 1 and len(part) >= 3
    if len(letters) >= 3 and capitals == len(letters):
        return True
    return capitals >= 2 and len(letters) >= 5


def _runs(term: str) -> list[str]:
    """The letter and number runs of a code, a version's "v" left out: "GPLv3" -> "gpl", "3"; "FP8" -> "fp", "8"."""
    runs = re.findall(r"[^\W\d_]+|\d+(?:\.\d+)*", term)
    return [key(re.sub(r"(?<=\w{3})v$", "", r) if i + 1 < len(runs) and runs[i + 1][0].isdigit() else r)
            for i, r in enumerate(runs)]


def _held(term: str, held: set[str]) -> bool:
    whole = key(term).replace("-", "")
    if whole in held or f"{whole}s" in held or (whole.endswith("s") and whole[:-1] in held):
        return True
    for pieces in ([p for p in map(key, terms(term)) if p and p != whole], _runs(term)):
        if len(pieces) > 1 and all(p in held for p in pieces):
            return True
    return False


def _spelled_out(acronym: str, texts: Sequence[str]) -> bool:
    """Does a text spell out `acronym` ("GPU"): consecutive words whose initials, in any case, are its letters?
    A short abbreviation mixing cases (`_short`) is spelled out by the words of its capitals, in its order or,
    as English writes a Latin degree, the other way round, each word opening with the capital and the small
    letters after it, as a name is written or in capitals: "Master of Science" for "MSc", "Doctor of
    Philosophy" for "PhD" (Philosophiae Doctor), not "the department of physics"."""
    letters = [c for c in acronym if c.isalpha()]
    between = rf"(?:[\s-]+(?i:{'|'.join(sorted(STOPWORDS))}))*[\s-]+"  # "University of North Carolina": UNC
    word = r"[\w'’]*"  # the rest of a word
    if _short(acronym):  # each word opens with a capital and the small letters after it: "Ph", "D"
        parts = re.findall(r"[A-Z][a-z]*", acronym)
        # as a name is written, or in capitals; not in lower case ("the department of physics")
        orders = (parts, parts[::-1], [w.upper() for w in parts], [w.upper() for w in parts[::-1]])
        patterns = [re.compile(r"\b" + between.join(w + word for w in order) + r"\b") for order in orders]
    elif 2 <= len(letters) <= 6 and all(c.isupper() for c in letters):
        patterns = [re.compile(r"\b" + between.join(c + word for c in letters) + r"\b", re.IGNORECASE)]
    else:
        return False
    return any(p.search(t) for p in patterns for t in texts)


def unmentioned(question: str, docs: Collection[str], store: Store | None, skip: Collection[str] = ()) -> list[str]:
    """The code-like terms of `question` (`coded`) that none of `docs` mentions; `skip`: terms that are no
    evidence either way (the words that located the documents, the names of their owners). [] when the index
    keeps no document terms (an older index) or nothing is read."""
    if store is None or not docs:
        return []
    skipped = {key(s) for s in skip}
    asked = [t for t in coded(question, short=True) if key(t) not in skipped]
    if not asked:
        return []
    keys = sorted({k for t in asked for w in [key(t).replace("-", "")]
                   for k in (w, f"{w}s", w[:-1], *(key(p) for p in terms(t)), *_runs(t))} - {""})
    holding = store.docs_holding(keys)
    if holding is None:
        return []
    wanted = set(docs)
    held = {k for k, paths in holding.items() if wanted.intersection(paths)}
    anywhere = {k for k, paths in holding.items() if paths}
    # a short abbreviation ("PhD") counts where the collection writes it so: its other documents say how
    missing = [t for t in asked if not _held(t, held)
               and (any(_is_code(part) for part in t.split("-")) or _held(t, anywhere))]
    if not missing:
        return []
    texts = [t for d in sorted(wanted) if (t := store.document_text(d))]
    return [t for t in missing if not _spelled_out(t, texts)]


def _numbers(value: str) -> list[str]:
    """A number as its parts: thousands separators dropped ("2,640" -> "2640"), a list read apart ("3,6" -> "3",
    "6"), a trailing stop or percent sign left out; decimals stay whole ("0.20")."""
    value = value.rstrip("%.,")
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", value):
        return [value.replace(",", "")]
    return [v for v in value.split(",") if v]


def quantities(question: str) -> list[str]:
    """The numbers `question` states as quantities (see the module docstring), as written, in order: after a
    common word ("in the 24 hours", "a 50% penalty", "in 1970"), a sign or the start, not after another word, of
    which it is part of a name ("Xbox 360", "Cessna 172", "World War 1", "version 0.20")."""
    common = common_words()
    out = []
    for m in _QUANTITY.finditer(question):
        before = re.search(r"([^\W\d_]+)[ \t]+$", question[: m.start()])
        if before is None or before.group(1).lower() in common:
            out.append(m.group())
    return list(dict.fromkeys(out))


def unstated(question: str, texts: Sequence[str]) -> list[str]:
    """The quantities of `question` that none of `texts` (the passage's chunk, its section, its document's title)
    holds, in any of the forms the module docstring lists."""
    asked = quantities(question)
    if not asked:
        return []
    held = {n for t in texts for m in _NUMBER.finditer(t) for n in _numbers(m.group())}
    # a date written with dots ("06.2014", "2021.10"): its year is held too
    held |= {n for t in texts for m in _NUMBER.finditer(t) if "." in m.group()
             for n in m.group().split(".") if is_year(n)}
    held |= {_NUMBER_WORDS[w.lower()] for t in texts for w in _WORD.findall(t) if w.lower() in _NUMBER_WORDS}
    return [q for q in asked if not all(n in held for n in _numbers(q))]


def unsaid(question: str, texts: Sequence[str], skip: Collection[str] = ()) -> list[str]:
    """The code-like terms of `question` (`coded`, less `skip`: the words that located the document, its owner's
    name) that none of `texts` holds, as `unmentioned` reads a document."""
    skipped = {key(s) for s in skip}
    asked = [t for t in coded(question) if key(t) not in skipped]
    if not asked:
        return []
    held = set().union(*(of_text(t) for t in texts)) if texts else set()
    return [t for t in asked if not _held(t, held) and not _spelled_out(t, texts)]


def unheld(question: str, near: Sequence[str], section: Callable[[], Sequence[str]], skip: Collection[str] = (),
           document: Callable[[], Sequence[str]] = lambda: ()) -> str:
    """Why `question` cannot be answered from a passage (`near`: its chunk, section heading and document title),
    or "": a quantity it states (`unstated`) or a code-like term it names (`unsaid`, `skip` aside) that neither
    the passage nor the rest of its section holds (`section()`: the section's chunks, read only when needed). A
    year the question states may be anywhere in the document (`document()`: its text): it says which event or
    document is meant ("After the 2018 token leak, what happened to ...?" of a report dated 2018), as the words
    that located the document do."""
    if not unstated(question, near) and not unsaid(question, near, skip):
        return ""
    wider = [*section(), *near[1:]]
    stated = unstated(question, wider)
    if stated and all(is_year(q) for q in stated):
        stated = unstated(question, [*wider, *document()])
    if stated:
        return f"the passage it would quote does not hold “{stated[0]}”, which the question states"
    if missing := unsaid(question, wider, skip):
        return f"the passage it would quote does not mention “{missing[0]}”, which the question asks about"
    return ""
