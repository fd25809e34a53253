"""Where the candidates for a document's owner come from (`gather`), for `ingest.owner` to weigh.

Every name a document offers is gathered into clusters of the same person (`names.names_match`, within one
surname): the first lines of page 1 with their place (`W_RANK`; the largest line, the format's title and a name
in a separated part of the title property weigh `W_PROMINENT`; a line under the first section heading, a byline
or a list of people none), the author property, a name in the description property whose surname a handle spells, a
self-introduction ("Hi, I'm Jane Roe"), the names the e-mail address, file name and links spell, a full name in the
text whose surname a handle spells, and the names that dominate the author lists or recur in bold.
What it gathers beside the clusters (the handles, the ranked author names, the names that are a title line, the
surnames of bylines) is what the weighing reads too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .names import names_match, split_name
from .owner_authors import author_names, bold_names, clusters
from .owner_names import (
    SURNAME_AGREES,
    _handle_names,
    _handle_words,
    agreement,
    credentialed,
    line_names,
    line_windows,
    listed_people,
    normalise,
    person_evidence,
    strip_title,
)
from .owner_page import LINK, MAX_LINE, SITE_LINK, TOP_LINES, contact_handles, top_lines, url_words
from .parsed import Parsed
from .structure import SECTION_NAMES, heading_key

FIRST_LINES = 2  # a name on one of these lines counts as first when no line above holds a person's name
W_PROMINENT = 1.0  # on the largest line of page 1, or the format's title
_POSSESSIVE = re.compile(r"['’]s$")
_INTRO = re.compile(r"\b(?:I['’]m|I am|[Mm]y name is)[ \t]+(?=[A-Z])")  # "Hi, I'm Jane Roe", "My name is Jane Roe"
INTRO_CHARS = 1000  # how far into the text a self-introduction is looked for
W_RANK = (1.0, 0.5, 0.5, 0.3, 0.3, 0.3, 0.3, 0.3)  # on the 1st, 2nd... line of page 1


@dataclass
class _Cluster:
    names: list[tuple[str, str, float]]  # (display form, source, position weight) of each occurrence
    position: float = 0.0
    bold: bool = False
    lines: set[int] | None = None
    credentialed: bool = False  # stands alone on the first or largest line with a degree or honorific

    def display(self) -> str:
        # The form on the most prominent line; else what the document prints over forms rebuilt from
        # handles; then the fullest.
        order = {"title": 0, "heading": 0, "meta": 1, "description": 1, "intro": 1, "text": 2, "authors": 2, "bold": 2, "email": 3, "url": 3,
                 "filename": 4}
        return max(self.names, key=lambda n: (n[2], -order.get(n[1], 5), len(n[0].split()), len(n[0])))[0]


@dataclass(frozen=True)
class Gathered:
    groups: list[_Cluster]  # every person named, in the order first met
    handles: dict[str, list[str]]  # "email", "url", "filename": the document's handles (`contact_handles`)
    ranked_authors: list[tuple[str, int]]  # the author lists' names, most listed first
    titles: list[str]  # names that are the largest line of page 1 or the format's title, whole
    bylines: set[str]  # surnames on header lines of page 1 that list several people


def gather(parsed: Parsed, cleaned: str, path: str | Path = "", source: str | None = None) -> Gathered:
    """Every candidate for the owner of the document, with what the weighing reads beside them."""
    path = Path(path)
    groups: list[_Cluster] = []
    by_surname: dict[str, list[_Cluster]] = {}  # clusters are only ever merged within one surname

    def add(name: str, src: str, position: float = 0.0, bold: bool = False, line: int | None = None) -> _Cluster:
        c: _Cluster
        name = strip_title(name)
        last = name.rsplit(" ", 1)[-1]
        if last.endswith(".") and len(last.rstrip(".")) >= 3:
            name = name[:-1]  # a sentence's full stop ("My name is Jane Roe."), not an initial's or "Jr."'s
        surname = split_name(name)[1]
        for c in by_surname.get(surname, ()):
            if names_match(c.names[0][0], name):
                break
        else:
            c = _Cluster([])
            groups.append(c)
            by_surname.setdefault(surname, []).append(c)
        c.names.append((name, src, position))
        c.position = max(c.position, position)
        c.bold = c.bold or bold
        if line is not None:
            c.lines = (c.lines or set()) | {line}
        return c

    lines = top_lines(parsed, cleaned)
    # The header ends at the first section heading ("Education"; a name set as a heading is not one).
    header_end = next((ln.rank for ln in lines if heading_key(ln.text) in SECTION_NAMES), TOP_LINES)
    named_lines = 0  # lines above that hold a name the tagger reads as a person's
    bylines: set[str] = set()  # surnames on header lines of page 1 that list several people
    titles: list[str] = []  # the largest line of page 1, or the format's title, when it is one person's name
    for ln in lines:
        windows = line_windows(ln.text) if len(ln.text) <= MAX_LINE else []  # a longer line is prose
        # The tagger reads the whole line as one person (degrees and honorifics included): a name line.
        name_line = bool(windows) and person_evidence(normalise(ln.text)) > 0
        # "Curriculum Vitae", a row of section labels, a role or an address above a name line do not
        # push it down: on the first lines, or set apart (bold, larger) in the header above the first section.
        lift = name_line and (ln.rank <= FIRST_LINES or (ln.set_apart and ln.rank < header_end and not named_lines))
        rank = min(ln.rank, named_lines) if lift else ln.rank
        pos = W_PROMINENT if ln.prominent else (W_RANK[rank] if rank < len(W_RANK) else 0.0)
        if ln.rank > header_end and not ln.prominent:
            pos = 0.0  # under the first section heading: an entry ("Associate Chair"), not the name line
        people = {split_name(n)[1] for n, alone in windows if alone == 1.0 and person_evidence(n) > 0}
        if len(people) > 1 or listed_people(ln.text) > 1:
            pos = 0.0  # a byline or a list of people: its place on the page says nothing about the owner
            if ln.rank < header_end:  # in the header, a byline; below it, an entry of a list (publications)
                bylines |= {split_name(n)[1] for n, _ in windows if person_evidence(n) > 0}
        degree = pos >= W_PROMINENT and name_line and credentialed(ln.text)
        for name, alone in windows:
            c = add(name, "title", pos * alone, ln.bold, ln.rank)
            c.credentialed = c.credentialed or (degree and alone == 1.0)
        if ln.prominent and name_line:
            titles += [n for n, alone in windows if alone == 1.0]
        named_lines += bool(people) or name_line  # (not "Associate Professor" inside a longer part)
    for i, (level, heading) in enumerate(parsed.outline[:3]):
        if level == 1:
            for name, alone in line_windows(heading):
                add(name, "heading", W_PROMINENT * alone)
            # the format's title (DOCX Title, HTML <h1>, Markdown #) is a person's name, or one of its separated
            # parts is ("Jane Roe - Curriculum Vitae"), as one of the title property's parts names its owner
            if i == 0 and len(heading) <= MAX_LINE:
                parts = line_windows(heading)
                whole = person_evidence(normalise(heading)) > 0
                titles += [n for n, alone in parts if alone == 1.0 and (whole or person_evidence(normalise(n)) > 0)]
    # the title property (front matter, PDF Info, HTML <title>) naming a person in one of its separated parts
    # ("cv | Frederik Roe") names its owner as a heading does; a title that is one part ("About Me") is no name,
    # unless it is a person's name whose surname a handle spells (a Hugo author page's `title: Jane Roe`)
    handles = contact_handles(cleaned, path)
    meta_title = " ".join((parsed.meta_title or "").split())
    if meta_title and len(meta_title) <= MAX_LINE:
        for name, alone in line_windows(meta_title):
            whole = normalise(name) == normalise(meta_title)
            if alone == 1.0 and (not whole or (person_evidence(normalise(name)) >= 0 and _spelled(name, handles))):
                add(name, "heading", W_PROMINENT)
    # a description property naming a person whose surname a handle spells ("Jane Roe's personal CV", "CV of
    # Jane Roe" over `roe_cv.md`): the page says whom it is about, as an author property does
    for phrase in parsed.descriptions:
        for name, _ in line_windows(phrase):
            name = _POSSESSIVE.sub("", name)
            if person_evidence(normalise(name)) > 0 and _spelled(name, handles):
                add(name, "description")
    # a self-introduction near the top ("Hi, I'm Jane Roe, a software engineer ..."): the writer names themself
    for m in _INTRO.finditer(cleaned, 0, INTRO_CHARS):
        windows = line_windows(cleaned[m.end():m.end() + 60].split("\n")[0])
        if windows and not _POSSESSIVE.search(windows[0][0]) and cleaned.startswith(windows[0][0], m.end()) \
                and person_evidence(normalise(windows[0][0])) > 0:
            add(windows[0][0], "intro")
    meta_author = normalise(parsed.meta_author or "")
    for name in line_names(meta_author):
        if normalise(name) == meta_author:  # the whole property is the name, not a phrase holding one
            add(name, "meta")
    # a title property that is the author property's name, whole: the person's own page (a paper's or a
    # report's title is never its author's name), as a title line that is a name is
    if meta_author and normalise(meta_title) == meta_author and person_evidence(meta_author) > 0:
        titles.append(meta_author)

    for kind in ("email", "filename"):
        for h in handles[kind]:
            for name in _handle_names(_handle_words(h)):
                add(name, kind)
    # explicit links anywhere (cheap), a Markdown link's path on the same site too; bare domains only in the header
    for url in [*LINK.findall(cleaned), *SITE_LINK.findall(cleaned)]:
        for words in url_words(url):
            for name in _handle_names(words):
                add(name, "url")
    # A full name in the text whose surname a handle spells (a CV that prints its owner only in a list).
    handle_words = {w.lower() for kind in ("email", "filename") for h in handles[kind] for w in _handle_words(h)
                    if len(w) >= 3}
    for w in sorted(handle_words):
        # (not a hyphenated surname's first part: "Fernando Rios" is no name in "Fernando Rios-Avila")
        pattern = re.compile(rf"\b([A-Z][^\W\d_]+(?:[ \t]+[A-Z]\.)?(?:[ \t]+[A-Z][^\W\d_]+)?)[ \t]+((?i:{re.escape(w)}))\b(?![-‐][^\W\d_])")
        for m in pattern.finditer(cleaned):
            name = f"{m.group(1)} {m.group(2)}"
            if m.group(2).istitle() and line_names(name) and person_evidence(name) > 0:
                add(name, "text")

    text = source if source is not None else parsed.text
    author_list = author_names(cleaned)
    ranked_authors = clusters(author_list)
    for found, src in ((_dominant(ranked_authors), "dominant"), (_dominant_bold(text), "bold")):
        if found:
            add(found, src)
    for found, count in ranked_authors[:5]:  # co-authors compete too (as rivals)
        if count >= 2:
            add(found, "authors")

    return Gathered(groups, handles, ranked_authors, titles, bylines)


def _spelled(name: str, handles: dict[str, list[str]]) -> bool:
    """Does a handle (an address, a link, the file name) spell `name`'s surname at least?"""
    return max((agreement(name, h) for kind in ("email", "url", "filename") for h in handles[kind]),
               default=0.0) >= SURNAME_AGREES


def _dominant(ranked: list[tuple[str, int]]) -> str | None:
    """The name that dominates clustered author names (>= 3 times and twice any other), else None."""
    if not ranked:
        return None
    (name, count), runner_up = ranked[0], (ranked[1][1] if len(ranked) > 1 else 0)
    return name if count >= 3 and count >= 2 * runner_up else None


# a name as an author list writes it, initials first ("A. S. Barente"): a person's, whatever the tagger knows of
# the surname
_INITIALS_FIRST = re.compile(r"(?:[A-Z]\.\s?){1,3}[A-Z][^\W\d_]+(?:-[A-Z][^\W\d_]+)?")


def _dominant_bold(source: str) -> str | None:
    """A name the source sets in bold (`**Name**`) at least twice and twice as often as any other, of those
    the tagger reads as a person's (not a role a CV bolds in each entry: "**Software Engineer**") or written
    initials first."""
    ranked = clusters([n for n in bold_names(source) if person_evidence(n) > 0 or _INITIALS_FIRST.fullmatch(n)])
    if ranked and ranked[0][1] >= 2 and (len(ranked) == 1 or ranked[0][1] >= 2 * ranked[1][1]):
        return ranked[0][0]
    return None
