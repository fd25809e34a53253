"""Publication entries in CVs, profiles and publication lists, as (title, authors, venue, year).

Three shapes are read, each a common way of writing a reference:
- quoted titles: `A. Author, B. Author, "Title", Venue, Jun 2019.` (IEEE-like, LaTeX CVs);
- year in parentheses: `Author, A., Author, B. (2020). Title. Venue.` (APA-like);
- line-structured entries: a title line, then a line that is a list of person names, then
  optionally a venue line (`Proceedings of ...`), with a year on the title or a date line before it
  (profile pages, `SC 2023 Title, / Authors. / Proceedings ...`).
Every `Publication` keeps the span `[start, end)` of its entry in the text it was parsed from, so a
card can quote it. Left out: BibTeX, numbered reference lists without authors, and author names
written surname-first without initials.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Publication", "parse_publications"]


@dataclass(frozen=True)
class Publication:
    title: str
    authors: tuple[str, ...]
    venue: str | None
    year: int | None
    start: int  # the entry is text[start:end]
    end: int


_L = r"[^\W\d_]"  # a letter, any script
_NAME_TOKEN = rf"(?:{_L}\.|[A-Z]{_L}*(?:[-'’]{_L}+)*\.?|(?:van|von|de|der|del|da|di|le|la|bin|al))"
_NAME_PART = re.compile(
    rf"^(?:and\s+|&\s*)?\**\s*((?:{_NAME_TOKEN}\s+){{0,4}}[A-Z]{_L}+(?:[-'’]{_L}+)*)\s*\**(\s+et\s+al\.?)?$"
)
_NOT_NAME = re.compile(
    r"\b(?:University|Institute|Conference|Proceedings|Journal|Symposium|Workshop|Transactions|IEEE|ACM|"
    r"Learning|Networks?|Systems?|Computing|Award|Paper|Using|Toward|Towards|With|For|Of|The|On|In|Via)\b"
)
_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")
_VENUE_START = re.compile(
    r"^(?:Proceedings|Proc\.|In\s|Journal|Transactions|IEEE|ACM|USENIX|arXiv|Conference|Workshop|Symposium|"
    r"International|Annual|Advances|Findings|Nature|Science|Physical Review|Technical Report|Preprint)",
)
_QUOTED = re.compile(r"^(?P<authors>[^\"“”\n]{3,600}?),?\s*[\"“](?P<title>[^\"“”\n]{6,400}?)[,.]?[\"”],?\s*(?P<venue>[^\n]*)$")
_APA = re.compile(
    r"^(?P<authors>[^()\n]{3,600}?)\s*\((?P<year>(?:19|20)\d\d)[a-z]?\)\.\s*(?P<title>[^\n]+?[.?!])\s+(?P<venue>[^\n]*)$"
)
_PREFIX = re.compile(r"^[-•*>\s]*(?:(?P<venue>[A-Z][A-Za-z]{1,12})\s+(?P<year>(?:19|20)\d\d)\s+)?")


def _is_name(part: str) -> str | None:
    part = part.strip().strip("*").strip()
    m = _NAME_PART.match(part)
    if not m or _NOT_NAME.search(m.group(1)):
        return None
    tokens = m.group(1).split()
    if not 2 <= len(tokens) <= 5 or any(len(t) > 1 and t.isupper() and t.isalpha() for t in tokens):
        return None
    return m.group(1) + (" et al." if m.group(2) else "")


def _author_run(line: str) -> tuple[int, int, tuple[str, ...], str] | None:
    """The first run of >= 2 comma-separated names in `line` (or one name with "et al."):
    (start, end, names, rest after the run)."""
    parts: list[tuple[int, int]] = []
    pos = 0
    for m in re.finditer(r",\s*|\s+and\s+", line):
        parts.append((pos, m.start()))
        pos = m.end()
    parts.append((pos, len(line)))
    i = 0
    while i < len(parts):
        names: list[str] = []
        j = i
        rest = ""
        end = parts[i][0]
        while j < len(parts):
            a, b = parts[j]
            seg = line[a:b]
            # The last author often ends the sentence: "Devesh Tiwari. Proceedings of ..."
            cut = None if _is_name(seg) else re.search(r"(?<![A-Z])\.(?:\s+|$)", seg)
            head = seg[: cut.start()] if cut else seg
            name = _is_name(head)
            if not name:
                break
            names.append(name)
            end = a + len(head)
            j += 1
            if cut:
                rest = line[a + cut.end() :]
                break
        if len(names) >= 2 or (names and names[-1].endswith("et al.")):
            if not rest and j < len(parts):
                rest = line[parts[j][0] :]
            return parts[i][0], end, tuple(n.removesuffix(" et al.") for n in names), rest.strip()
        i = max(j, i + 1)
    return None


def _year(*texts: str | None) -> int | None:
    for t in texts:
        if t:
            years = _YEAR.findall(t)
            if years:
                return int(years[-1])
    return None


def _clean_title(t: str) -> str:
    return t.strip().strip(",;").strip().strip("\"“”").strip()


def _one_line_entry(body: str) -> tuple[str, tuple[str, ...], str | None, int | None] | None:
    """(title, authors, venue, year) of a one-line quoted-title or APA entry, or None."""
    m = _QUOTED.match(body)
    if m:
        names, year = re.split(r",\s*|\s+and\s+", m.group("authors")), _year(m.group("venue"))
    else:
        m = _APA.match(body)
        if not m:
            return None
        names, year = _apa_authors(m.group("authors")), int(m.group("year"))
    authors = tuple(a for a in (_is_name(p) for p in names) if a)
    if not authors:
        return None
    return _clean_title(m.group("title")), authors, m.group("venue").strip(" ,.") or None, year


def parse_publications(text: str) -> list[Publication]:
    """Publication entries found in `text`, in order (see the module docstring for the shapes)."""
    lines = [(m.start(), m.group(0)) for m in re.finditer(r"[^\n]+", text)]
    pubs: list[Publication] = []
    used_until = 0
    for k, (off, raw) in enumerate(lines):
        if off < used_until:
            continue
        line = raw.strip()
        lead = len(raw) - len(raw.lstrip())
        body = re.sub(r"^[-•*>]\s*", "", line)
        shift = off + lead + (len(line) - len(body))
        entry = _one_line_entry(body)
        if entry is not None:
            title, authors, venue, year = entry
            pubs.append(Publication(title, authors, venue, year, off + lead, off + len(raw.rstrip())))
            used_until = off + len(raw)
            continue
        run = _author_run(body)
        if run is None:
            continue
        a, _, run_authors, rest = run
        before = body[:a].strip()
        start = shift
        title_line = before
        date_line = None
        if len(before.split()) < 3:  # the title is on an earlier line
            prev = [ln for ln in lines[max(0, k - 3) : k] if ln[0] >= used_until and ln[1].strip()]
            if not prev or _author_run(prev[-1][1]) is not None:
                continue
            t_off, t_raw = prev[-1]
            title_line = t_raw.strip()
            start = t_off + len(t_raw) - len(t_raw.lstrip())
            if len(prev) >= 2 and len(prev[-2][1].strip()) <= 40 and _YEAR.search(prev[-2][1]):
                date_line = prev[-2][1]
                start = prev[-2][0] + len(date_line) - len(date_line.lstrip())  # the entry opens with its date
        title_body = re.sub(r"^[-•*>]\s*", "", title_line)
        pm = _PREFIX.match(title_body)
        prefix_venue = pm.group("venue") if pm else None
        prefix_year = pm.group("year") if pm else None
        title = _clean_title(title_body[pm.end() if pm else 0 :])
        if len(title.split()) < 2 or len(title) > 300 or _is_name(title):
            continue
        end = off + len(raw.rstrip())
        venue = rest.strip(" .,") or None
        if venue is None and k + 1 < len(lines):
            n_off, n_raw = lines[k + 1]
            nxt = n_raw.strip().lstrip("-•*> ")
            if _VENUE_START.match(nxt) and len(nxt) < 400:
                venue = nxt.strip(" .,")
                end = n_off + len(n_raw.rstrip())
        pubs.append(Publication(
            title, run_authors, venue or prefix_venue, _year(venue, prefix_year, date_line), start, end,
        ))
        used_until = end
    return pubs


def _apa_authors(s: str) -> list[str]:
    """"Smith, J., Doe, A. B., & Roe, C." -> ["J. Smith", "A. B. Doe", "C. Roe"]."""
    s = s.replace("&", ",")
    parts = [p.strip() for p in s.split(",") if p.strip()]
    out: list[str] = []
    i = 0
    while i < len(parts):
        if i + 1 < len(parts) and re.fullmatch(r"(?:[A-Z]\.\s*){1,3}", parts[i + 1]):
            out.append(f"{parts[i + 1].strip()} {parts[i]}")
            i += 2
        else:
            out.append(parts[i])
            i += 1
    return out
