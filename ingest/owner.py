"""Whose document is this? For CVs, profiles and publication lists, the person it is about.

Evidence, strongest first: a name alone on the first line; a name the source sets in bold
(`**Baolin Li**`, how CV exports mark the owner in author lists); a name that recurs across the
document's author lists far more than any other. Returns None when the evidence is weak: a wrong
owner is worse than none.
"""

from __future__ import annotations

import re
from collections import Counter

_WORD = r"[A-Z][a-zà-ÿ'’-]+"
_INITIAL = r"[A-Z]\."
_NAME = rf"(?:(?:{_INITIAL}\s?){{0,2}}{_WORD}(?:\s(?:{_WORD}|{_INITIAL})){{1,3}})"
_NAME_LINE = re.compile(rf"^\s*({_NAME})\s*$")
_BOLD_NAME = re.compile(rf"\*\*({_NAME})\*\*")
_AUTHOR = re.compile(rf"(?:^|[,;:\"]\s*|\band\s)({_NAME})(?=\s*(?:,|;|\bet al\b|\band\b|\.|$))", re.M)

# Capitalised phrases that look like names but never are.
_NOT_NAMES = re.compile(
    r"\b(University|Institute|College|School|Laboratory|Lab|Research|Conference|Journal|Award|"
    r"Technologies|Inc|Corp|Department|Center|Centre|Workshop|Symposium|Proceedings|Education|"
    r"Experience|Publications|Network|Learning|Computing|Systems|Science|Engineering)\b"
)


def _plausible(name: str) -> bool:
    return not _NOT_NAMES.search(name) and 2 <= len(name.split()) <= 5


def detect_owner(source: str, cleaned: str) -> str | None:
    """The person `source` is about, or None when that is not clear."""
    first = next((ln for ln in cleaned.splitlines() if ln.strip()), "")
    m = _NAME_LINE.match(first)
    if m and _plausible(m.group(1)):
        return m.group(1).strip()
    bold = Counter(n for n in _BOLD_NAME.findall(source) if _plausible(n))
    if bold:
        name, count = bold.most_common(1)[0]
        if count >= 2:
            return name
    authors = Counter(n.strip() for n in _AUTHOR.findall(cleaned) if _plausible(n.strip()))
    if authors:
        (name, count), *rest = authors.most_common(2)
        runner_up = rest[0][1] if rest else 0
        if count >= 3 and count >= 2 * runner_up:
            return name
    return None
