"""Author names in a document's text: author lists ("A. Quillfeather, Bo Tran and C. Diaz", also as an item of
a numbered list: "1. C. Cummins, P. Petoumenos, H. Leather.") and
names set in bold (`**Baolin Li**`, how CV exports mark the owner inside author lists).

Evidence for `ingest.owner`: the owner of a publication list recurs in its author lists far more
than any co-author. Variants of one name are counted together (`names.names_match`). Left out:
surname-first lists without commas, and author lists inside tables.
"""

from __future__ import annotations

import re

from .names import names_match

_WORD = r"[A-Z][a-zà-ÿ'’-]+"
_INITIAL = r"[A-Z]\."
_NAME = rf"(?:(?:{_INITIAL}\s?){{1,3}}{_WORD}(?:\s{_WORD})?|{_WORD}(?:\s(?:{_WORD}|{_INITIAL})){{1,3}})"
_BOLD_NAME = re.compile(rf"\*\*({_NAME})\*\*")
# a surname before its initials, as a reference list writes an author ("Lin, B.", "Hobert, J. P."); in bold with
# its last stop inside or just outside the marks ("**Lin, B.**", "**Lin, B**.")
_SURNAME_FIRST = re.compile(rf"\b({_WORD}),\s((?:[A-Z]\.\s?){{0,2}}[A-Z]\.)")
_BOLD_SURNAME_FIRST = re.compile(rf"\*\*({_WORD}),\s((?:[A-Z]\.\s?){{0,2}}[A-Z])\.?\*\*")
# initials without stops, as Google Scholar ("AS Barente, J Villén") and Vancouver references ("Barente AS, Villén J")
# write every author: a list of two or more such names, comma-separated; its bold one is the owner's mark
_BARE = r"[A-Z]{1,3}"
_BARE_NAME = rf"(?:{_BARE}\s{_WORD}(?:-{_WORD})?|{_WORD}(?:-{_WORD})?\s{_BARE})"
_BARE_AUTHOR = re.compile(rf"(?:^|(?<=,))\s*(?:[-•*]\s+)?\**({_BARE_NAME})\**[*†‡]*(?=\s*(?:,|\.|$))", re.M)
_BOLD_BARE = re.compile(rf"\*\*({_BARE_NAME})\*\*")
_AUTHOR = re.compile(
    rf"(?:^[ \t]*(?:(?:[-•*>]|\d{{1,3}}[.)])[ \t]*)?|[,;:\"][*†‡]?\s*|\band\s)({_NAME})(?=[*†‡§¹²³⁴⁵⁶⁷⁸⁹⁰]*\s*(?:,|;|\bet al\b|\band\b|\.|$))", re.M
)
# Capitalised phrases that look like names in author lists but never are.
_NOT_NAMES = re.compile(
    r"\b(University|Institute|College|School|Laboratory|Lab|Research|Conference|Journal|Award|"
    r"Technologies|Inc|Corp|Department|Center|Centre|Workshop|Symposium|Proceedings|Education|"
    r"Experience|Publications|Network|Networks|Learning|Computing|Systems|Science|Engineering|Report|"
    r"Annual|Introduction|Abstract|Chapter|Section|Table|Figure|Summary|Overview|Guide|Manual|"
    r"Analysis|Study|Review|Notes|Project|Policy|Agreement|Company|Group|Team|Services|Street|Road|"
    r"Avenue|City|State|County|United|National|International|Foundation|Association|Society|Press|"
    r"Model|Models|Data|Theory|Method|Methods|Paper|Papers|Profile|Resume|Curriculum|Vitae|The|Of|And)\b"
)


def _plausible(name: str) -> bool:
    return not _NOT_NAMES.search(name) and 2 <= len(name.split()) <= 5


def author_names(cleaned: str) -> list[str]:
    """Every name found in an author-list position, in text order; a line must list at least two
    names to count as an author list (one capitalised phrase after "and" is not a list)."""
    by_line: dict[int, list[str]] = {}
    line, pos = 0, 0
    for m in _AUTHOR.finditer(cleaned):  # one pass over the text; matches grouped by their line
        line += cleaned.count("\n", pos, m.start(1))
        pos = m.start(1)
        name = m.group(1).strip()
        if _plausible(name):
            by_line.setdefault(line, []).append(name)
    return [n for names in by_line.values() if len(names) >= 2 for n in names]


def bold_names(source: str) -> list[str]:
    """Names the source sets in bold (`**Name**`) inside an author list: on a line that lists at least two names
    (`author_names`), as a CV's export marks its owner among co-authors. A role a CV bolds at the head of each
    entry ("**Postdoctoral Scholar** (September 2019 - present)") names no one. A list that writes each surname
    before its initials ("Yuan, M., Wang, C., **Lin, B.** and Li, P.") gives its bold name as "B. Lin", and one that
    writes initials without stops ("F Chu, **AS Barente**, J Villén", "Chu F, **Barente AS**") as "A. S. Barente"."""
    out = []
    for line in source.splitlines():
        if "**" not in line:
            continue
        found = [n for n in _BOLD_NAME.findall(line) if _plausible(n)]
        if found and len(author_names(line.replace("**", ""))) >= 2:
            out += found
        elif (turned := _BOLD_SURNAME_FIRST.findall(line)) and len(_SURNAME_FIRST.findall(line.replace("**", ""))) >= 2:
            out += [" ".join([*(f"{c}." for c in re.findall(r"[A-Z]", initials)), surname]) for surname, initials in turned]
        elif (bare := [n for n in _BOLD_BARE.findall(line) if _plausible(n)]) and len(
                [n for n in _BARE_AUTHOR.findall(line) if _plausible(n)]) >= 2:
            out += [_dotted(n) for n in bare]
    return out


def _dotted(name: str) -> str:
    """A name with initials written without stops, initials first and with stops: "AS Barente", "Barente AS" ->
    "A. S. Barente"."""
    first, last = name.split(None, 1)
    initials, surname = (first, last) if re.fullmatch(_BARE, first) else (last, first)
    return " ".join([*(f"{c}." for c in initials), surname])


def clusters(names: list[str]) -> list[tuple[str, int]]:
    """Group names that match each other; (fullest form, count) by count, highest first."""
    groups: list[list[str]] = []
    for n in names:
        for g in groups:
            if names_match(n, g[0]) and len(n.split()) > 1:
                g.append(n)
                break
        else:
            groups.append([n])
    out = []
    for g in groups:
        full = max(g, key=lambda s: (sum(len(t) > 2 for t in s.replace(".", " ").split()), len(s)))
        out.append((full, len(g)))
    return sorted(out, key=lambda x: -x[1])
