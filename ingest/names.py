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

__all__ = ["name_variants", "names_match", "split_name"]

_PARTICLES = frozenset({"van", "von", "der", "den", "de", "del", "della", "da", "di", "du", "le", "la", "bin", "al"})


def _fold(s: str) -> str:
    s = unicodedata.normalize("NFKD", s)
    return "".join(c for c in s if not unicodedata.combining(c)).lower()


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
