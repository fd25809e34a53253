"""Whose document is this? For CVs, profiles and publication lists, the person it is about.

Evidence, strongest first:
1. a name alone on the first line, *confirmed* by the rest of the document: it has CV sections
   (Education, Experience, Publications...), contact details near the top, or the same person
   recurs in its author lists ("M. F. Balin" confirms "Muhammed Fatih Balin");
2. a name the source sets in bold at least twice (`**Baolin Li**`: how CV exports mark the owner
   inside author lists);
3. a name that recurs across the document's author lists far more than any other, in a document
   with CV sections.
Variants of one name are counted together (`names.names_match`). Returns None when the evidence is
weak: a wrong owner is worse than none. Left out: names only in e-mail addresses or URLs, and
documents about several people (they get None).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from .document import Section
from .names import names_match
from .structure import SECTION_NAMES

_WORD = r"[A-Z][a-zà-ÿ'’-]+"
_INITIAL = r"[A-Z]\."
_NAME = rf"(?:(?:{_INITIAL}\s?){{1,3}}{_WORD}(?:\s{_WORD})?|{_WORD}(?:\s(?:{_WORD}|{_INITIAL})){{1,3}})"
_NAME_LINE = re.compile(rf"^\s*({_NAME})\s*$")
_BOLD_NAME = re.compile(rf"\*\*({_NAME})\*\*")
_AUTHOR = re.compile(
    rf"(?:^[ \t]*(?:[-•*>][ \t]*)?|[,;:\"]\s*|\band\s)({_NAME})(?=\s*(?:,|;|\bet al\b|\band\b|\.|$))", re.M
)
_CONTACT = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+|\+?\(?\d{1,3}\)?[ -]?\d{3}[ -]\d{3,4}[ -]?\d{0,4}|linkedin|github\.com", re.I)

# Capitalised phrases that look like names but never are.
_NOT_NAMES = re.compile(
    r"\b(University|Institute|College|School|Laboratory|Lab|Research|Conference|Journal|Award|"
    r"Technologies|Inc|Corp|Department|Center|Centre|Workshop|Symposium|Proceedings|Education|"
    r"Experience|Publications|Network|Networks|Learning|Computing|Systems|Science|Engineering|Report|"
    r"Annual|Introduction|Abstract|Chapter|Section|Table|Figure|Summary|Overview|Guide|Manual|"
    r"Analysis|Study|Review|Notes|Project|Policy|Agreement|Company|Group|Team|Services|Street|Road|"
    r"Avenue|City|State|County|United|National|International|Foundation|Association|Society|Press|"
    r"Model|Models|Data|Theory|Method|Methods|Paper|Papers|Profile|Resume|Curriculum|Vitae|The|Of|And)\b"
)
_CV_SECTIONS = frozenset(
    {"education", "experience", "work experience", "professional experience", "employment", "publications",
     "selected publications", "skills", "awards", "honors & awards", "honors", "research experience",
     "teaching experience", "talks", "invited talks", "services", "service", "employment history", "interests",
     "areas of interest", "research interests"}
)


def _plausible(name: str) -> bool:
    return not _NOT_NAMES.search(name) and 2 <= len(name.split()) <= 5


def _clusters(names: list[str]) -> list[tuple[str, int]]:
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


def _cv_like(cleaned: str, sections: Sequence[Section] | None) -> bool:
    if sections is not None:
        heads = {s.path[-1].lower() for s in sections}
    else:
        heads = {ln.strip().lower().rstrip(" _.:") for ln in cleaned.splitlines() if len(ln) < 60}
        heads &= SECTION_NAMES
    return len(heads & _CV_SECTIONS) >= 2


def detect_owner(source: str, cleaned: str, sections: Sequence[Section] | None = None) -> str | None:
    """The person `source` is about, or None when that is not clear."""
    authors = [n.strip() for n in _AUTHOR.findall(cleaned) if _plausible(n.strip())]
    cv_like = _cv_like(cleaned, sections)

    first = next((ln for ln in cleaned.splitlines() if ln.strip()), "")
    m = _NAME_LINE.match(first)
    if m and _plausible(m.group(1)):
        name = m.group(1).strip()
        in_authors = sum(1 for a in authors if names_match(a, name))
        contact = bool(_CONTACT.search(cleaned[:600]))
        if cv_like or contact or in_authors >= 2:
            return name

    bold = _clusters([n for n in _BOLD_NAME.findall(source) if _plausible(n)])
    if bold and bold[0][1] >= 2 and (len(bold) == 1 or bold[0][1] >= 2 * bold[1][1]):
        return bold[0][0]

    if cv_like and authors:
        ranked = _clusters(authors)
        (name, count), runner_up = ranked[0], (ranked[1][1] if len(ranked) > 1 else 0)
        if count >= 3 and count >= 2 * runner_up:
            return name
    return None


def author_counts(cleaned: str) -> Counter[str]:
    """How often each (clustered) author name occurs in `cleaned`'s author lists."""
    return Counter(dict(_clusters([n.strip() for n in _AUTHOR.findall(cleaned) if _plausible(n.strip())])))
