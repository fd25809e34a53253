"""Person-name matching: does "M. F. Balin" name the same person as "Muhammed Fatih Balin"?

Names match when their surnames are equal (accents and case ignored) and the given names of the
shorter form fit, in order, into those of the longer one, each either in full or as an initial:
"Fatih Balin", "M. Fatih Balin", "M. F. Balin", "MF Balin", "Balin, M. F." and "Balin" all match
"Muhammed Fatih Balin"; "A. Balin" and "Fatih Baldwin" do not. Left out: nicknames (Bob/Robert),
transliteration variants and surname-first orders without a comma (common for some languages);
a bare surname matches any name with that surname, so callers decide how much a surname proves.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["fold", "join_spacing_accents", "name_aliases", "name_variants", "names_match", "split_name"]

_PARTICLES = frozenset({"van", "von", "der", "den", "de", "del", "della", "da", "di", "du", "le", "la", "bin", "al"})


def _fold(s: str) -> str:
    s = unicodedata.normalize("NFKD", s)
    return "".join(c for c in s if not unicodedata.combining(c)).lower()


def fold(s: str) -> str:
    """Accent-free, case-folded, NFKC form of `s` ("Pârvulescu" -> "parvulescu")."""
    return _fold(unicodedata.normalize("NFKC", join_spacing_accents(s)))


# Spacing accent glyphs that TeX-made PDFs emit beside the letter they belong to ("Pˆarvulescu"),
# and the combining mark each one stands for. The cedilla follows its letter; the others precede it.
_SPACING_ACCENTS = {
    "\u02c6": "\u0302", "\u00b4": "\u0301", "\u02ca": "\u0301", "\u02cb": "\u0300",
    "\u00a8": "\u0308", "\u02dc": "\u0303", "\u02c7": "\u030c", "\u02d8": "\u0306", "\u02da": "\u030a",
    "\u02dd": "\u030b", "\u00af": "\u0304", "\u02c9": "\u0304", "\u02d9": "\u0307",
}
_ACCENT_BEFORE = re.compile("([" + re.escape("".join(_SPACING_ACCENTS)) + "]) ?([A-Za-z\u0131])")
_CEDILLA_AFTER = re.compile("([CcSsTt]) ?\u00b8")
_ANY_ACCENT = re.compile("[" + re.escape("".join(_SPACING_ACCENTS)) + "\u00b8]")


def join_spacing_accents(s: str) -> str:
    """Join a spacing accent glyph to the letter it was meant for and compose the result (NFC):
    "Pˆarvulescu" -> "Pârvulescu", "Bˆatiment" -> "Bâtiment", "c¸" -> "ç". Text without such
    glyphs comes back unchanged (apart from NFC)."""
    if not _ANY_ACCENT.search(s):
        return unicodedata.normalize("NFC", s)
    s = _ACCENT_BEFORE.sub(lambda m: m.group(2).replace("\u0131", "i") + _SPACING_ACCENTS[m.group(1)], s)
    s = _CEDILLA_AFTER.sub(lambda m: m.group(1) + "\u0327", s)
    return unicodedata.normalize("NFC", s)


@lru_cache(maxsize=16384)
def split_name(name: str) -> tuple[tuple[str, ...], str]:
    """(given-name tokens, surname), accent-folded and lowercased; initials are single letters.

    "Balin, M. F." and "MF Balin" give (("m", "f"), "balin"); particles stay with the surname
    ("Ludwig van Beethoven" -> (("ludwig",), "van beethoven")).
    """
    name = " ".join(name.replace("*", " ").split())
    if "," in name:
        last, _, first = name.partition(",")
        name = f"{first.strip()} {last.strip()}"
    raw = [t for t in re.split(r"[\s.]+", name) if t]
    tokens: list[str] = []
    for t in raw[:-1]:
        # "MF" (two or three capitals) is a run of initials; "Li" or "JJ-Ab" are not split.
        if 2 <= len(t) <= 3 and t.isupper() and t.isalpha():
            tokens.extend(t.lower())
        else:
            tokens.extend(_fold(p) for p in t.split("-") if p)
    if not raw:
        return (), ""
    surname = _fold(raw[-1])
    while tokens and tokens[-1] in _PARTICLES:
        surname = f"{tokens.pop()} {surname}"
    return tuple(tokens), surname


def _given_fit(short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    """Each token of `short` matches a later token of `long` (full name or initial), in order."""
    j = 0
    for tok in short:
        while j < len(long):
            cand = long[j]
            j += 1
            if tok == cand or (len(tok) == 1 and cand.startswith(tok)) or (len(cand) == 1 and tok.startswith(cand)):
                break
        else:
            return False
    return True


def names_match(a: str, b: str) -> bool:
    """True when `a` and `b` can name the same person (see the module docstring)."""
    ga, sa = split_name(a)
    gb, sb = split_name(b)
    if not sa or sa != sb:
        return False
    short, long = (ga, gb) if len(ga) <= len(gb) else (gb, ga)
    return _given_fit(short, long)


def name_variants(name: str) -> tuple[str, ...]:
    """The usual ways `name` is written, fullest first: "Muhammed Fatih Balin" gives
    "Muhammed Fatih Balin", "M. F. Balin", "M. Fatih Balin", "Fatih Balin", "Muhammed Balin",
    "M. Balin", "MF Balin", "Balin, M. F.", "Balin", ... Useful for search and highlighting."""
    words = name.split()
    if len(words) < 2:
        return (name,) if name else ()
    given, surname = words[:-1], words[-1]
    while given and given[-1].lower() in _PARTICLES:
        surname = f"{given.pop()} {surname}"
    initials = [g[0].upper() + "." for g in given]
    out = [
        " ".join([*given, surname]),
        " ".join([*initials, surname]),
    ]
    if len(given) > 1:
        out.append(" ".join([initials[0], *given[1:], surname]))
        out.extend(f"{g} {surname}" for g in given)
        out.extend(f"{i} {surname}" for i in initials)
        out.append("".join(i[0] for i in initials) + f" {surname}")
    else:
        out.append(f"{initials[0]} {surname}")
    out.append(f"{surname}, {' '.join(initials)}")
    out.append(f"{surname}, {' '.join(given)}")
    out.append(surname)
    seen: dict[str, None] = {}
    for v in out:
        seen.setdefault(v, None)
    return tuple(seen)


def name_aliases(name: str, others: tuple[str, ...] | list[str] = ()) -> tuple[str, ...]:
    """The ways a question may name the owner `name`, fullest first and each once: the full name,
    its accent-free spelling, initials + surname ("R. A. Pârvulescu", "R. Pârvulescu"), the surname,
    and the given name when no other owner in `others` shares it (a given name alone is only an
    alias while it is unique in the index). Particles stay with the surname ("De Dominicis")."""
    words = [w for w in name.replace(",", " ").split() if w]
    if not words:
        return ()
    given, surname = words[:-1], words[-1]
    while given and given[-1].lower() in _PARTICLES:
        surname = f"{given.pop()} {surname}"
    out = [" ".join(words)]
    plain = "".join(c for c in unicodedata.normalize("NFKD", out[0]) if not unicodedata.combining(c))
    out.append(plain)
    full_given = [g for g in given if len(g.rstrip(".")) > 1]
    if given:
        out.append(" ".join([*(g[0].upper() + "." for g in given), surname]))
        out.append(f"{given[0][0].upper()}. {surname}")
        if len(given) > 1 and full_given:
            out.append(f"{full_given[0]} {surname}")
    out.append(surname)
    if full_given:
        first = _fold(full_given[0])
        if not any(_fold(o) != _fold(name) and first in {_fold(w) for w in o.split()[:-1]} for o in others):
            out.append(full_given[0])
    for v in list(out):
        p = "".join(c for c in unicodedata.normalize("NFKD", v) if not unicodedata.combining(c))
        out.append(p)
    seen: dict[str, None] = {}
    for v in out:
        seen.setdefault(v, None)
    return tuple(seen)
