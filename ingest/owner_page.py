"""What page 1 and the header of a document offer the owner decision (`ingest.owner`): its first
lines, with which is set largest, in bold or apart from the body text; the contact handles near the
top (e-mail local parts, URLs) and the file name; and whether the document looks like a person's (CV
sections, contact details at the top). The title decision (`ingest.title`) reads the same lines.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .addresses import EMAIL, own_part
from .document import Section
from .owner_names import _handle_words, normalise
from .parsed import Parsed
from .structure import SECTION_NAMES, heading_key

TOP_LINES = 12  # lines of page 1 read for candidates
MAX_LINE = 160  # characters: a longer line is a paragraph of prose, not a name line
HEADER_CHARS = 1000  # where contact details (e-mail, homepage) of the owner are looked for

# Bare host names only under the common top-level domains here: the general shape (`addresses.URL`, any
# dotted name ending in letters) gave a package description a wrong owner ("Gguf Dump") and cost four
# right ones on 60 of them, with realdocs, papers and the profiles unchanged.
URL = re.compile(r"(?:https?://|www\.)[^\s<>()\[\]\"']+|\b[\w-]+(?:\.[\w-]+)*\.(?:github\.io|com|org|net|edu|io|me|ch|de|fr|uk|ca)(?:/[^\s<>()\[\]\"']*)?", re.I)
LINK = re.compile(r"(?:https?://|www\.)[^\s<>()\[\]\"']+", re.I)
# a Markdown link to a path on the same site ("[Download CV](/cv/jane-roe-cv.pdf)"): a link as well
SITE_LINK = re.compile(r"\]\((/[^\s<>()\[\]\"']+)\)")
_CONTACT = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+|\+?\(?\d{1,3}\)?[ -]?\d{3}[ -]\d{3,4}[ -]?\d{0,4}|linkedin|github\.com", re.I)
_CV_SECTIONS = frozenset(
    {"education", "experience", "work experience", "professional experience", "employment", "publications",
     "selected publications", "skills", "awards", "honors & awards", "honors", "research experience",
     "teaching experience", "talks", "invited talks", "services", "service", "employment history", "interests",
     "areas of interest", "research interests", "academic positions", "positions", "teaching", "research"}
)


@dataclass(frozen=True)
class Line:
    text: str
    rank: int
    prominent: bool
    bold: bool
    set_apart: bool = False  # bold, or larger than the body text of page 1 (known only from a layout)


def top_lines(parsed: Parsed, cleaned: str) -> list[Line]:
    """The first lines of page 1, with which of them is set largest."""
    if parsed.lines:
        first_page = min(ln.page for ln in parsed.lines)
        lines = [ln for ln in parsed.lines if ln.page == first_page and len(ln.text.strip()) > 1][:TOP_LINES * 3]
        sizes = [ln.size for ln in lines if ln.size > 0]
        biggest = max(sizes) if sizes else 0.0
        # Several lines at the top size (a form's headings, a CV whose name is set like its sections)
        # are not "the largest line": then only the first of them counts as prominent.
        at_top = [i for i, ln in enumerate(lines) if biggest and ln.size >= biggest * 0.97]
        unique_top = len(at_top) <= 3
        body_size = statistics.median(sizes) if sizes else 0.0
        out = [Line(ln.text, i, bool(biggest) and ln.size >= biggest * 0.97 and (unique_top or i == at_top[0]), ln.bold,
                     ln.bold or bool(body_size) and ln.size * 0.97 > body_size)
               for i, ln in enumerate(lines)]
        return [ln for ln in out if ln.rank < TOP_LINES or ln.prominent]
    out = []
    raw_lines = cleaned.splitlines()
    first_alone = False
    for n, raw in enumerate(raw_lines):
        text = raw.strip()
        if not text:
            continue
        heading = text.startswith("# ")
        text = text.lstrip("#*-> ").strip()
        if text:
            prominent = heading or (parsed.title is not None and normalise(text) == normalise(parsed.title))
            first_alone = first_alone or (not out and n + 1 < len(raw_lines) and not raw_lines[n + 1].strip())
            out.append(Line(text, len(out), prominent, False))
        if len(out) >= TOP_LINES:
            break
    # Without a layout or a marked title, a first line standing alone (a blank line under it) is the title,
    # as plain text and Markdown write one ("Ada Lovelace" over "## Education").
    if first_alone and parsed.title is None and not any(ln.prominent for ln in out):
        out[0] = Line(out[0].text, 0, True, False)
    return out


def looks_personal(cleaned: str, sections: Sequence[Section] | None, titled: bool = False) -> bool:
    """Two CV sections, or a CV section under a title that is a person's name (`titled`), or contact
    details near the top: the document is about a person."""
    if sections:
        heads = {heading_key(s.path[-1]) for s in sections}
    else:
        heads = {heading_key(ln) for ln in cleaned.splitlines() if len(ln) < 60} & SECTION_NAMES
    # a heading counts in the singular as in the plural ("Position" as "Positions", "Award" as "Awards")
    cv = sum(bool({h, h + "s"} & _CV_SECTIONS) for h in heads)
    return cv + titled >= 2 or bool(_CONTACT.search(cleaned[:600]))


def contact_handles(cleaned: str, path: Path) -> dict[str, list[str]]:
    """E-mail local parts and URLs near the top (contact details), and the file name."""
    header = cleaned[:HEADER_CHARS]
    emails = [own_part(m.group(0)) for m in EMAIL.finditer(header)]
    urls = [u for u in URL.findall(header) if "@" not in u]
    return {"email": emails, "url": urls, "filename": [path.stem]}


def url_words(url: str) -> list[list[str]]:
    """Word groups of a URL: each host label and path segment split into words (not its query or
    fragment: "?term=Roe+Jane" is a search, not the page's name)."""
    url = re.sub(r"^(?:https?://)?(?:www\.)?", "", url, flags=re.I)
    url = re.split(r"[?#]", url, maxsplit=1)[0]
    host, _, rest = url.partition("/")
    labels = host.split(".")[:-1]
    # a number parts a segment's words: "sadil-2021-nmm" (a publication's slug) names no "Sadil Nmm"
    return [_handle_words(part) for seg in [*labels, *rest.split("/")] for part in re.split(r"\d+", seg) if part]
