"""What a format parser hands to the rest of the pipeline, and the `Parser` seam itself.

Parsers only extract: text, page spans and the headings their format marks (styles, tags, font
sizes). Cleaning, section spans, owners and titles are decided later, the same way for every format.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from .document import PageSpan


@dataclass(frozen=True)
class LayoutLine:
    """One line as laid out on a page, for decisions that need more than text (titles, owners,
    headings by font). `text` is the line stripped of surrounding spaces; `page` is 1-based; `size`
    is the printed size of its first character in points, text-matrix scale included (0.0 when
    unknown); `bold` is True when that
    character's font weight is >= 600 or its font name says bold; `y` is the baseline height in PDF
    points from the bottom of the page (larger is higher; 0.0 when unknown).

    Stable API: other modules (owner detection, layout-based headings) rely on these five fields."""

    text: str
    page: int
    size: float = 0.0
    bold: bool = False
    y: float = 0.0


@dataclass(frozen=True)
class Parsed:
    """Text, page spans in that text, and the headings the format marks, with their levels.

    `lines` is the layout of every kept line of every page in text order for PDF (running
    headers/footers dropped as in `text`), and of the first paragraphs for DOCX (size and weight
    from their runs or styles, `y` 0); empty for other formats. `meta_title`/`meta_author` are the document properties
    the format stores (PDF Info, DOCX core properties, HTML `<title>`/author meta, Markdown front
    matter), stripped, or None; `descriptions` the properties that say what the document is (front
    matter's `description`, HTML's meta description). They are evidence, not trusted as-is (they are often a file name or
    a tool's default)."""

    text: str
    pages: tuple[PageSpan, ...] = ()
    headings: tuple[str, ...] = ()  # headings without a level (level 1)
    markdown: bool = False
    title: str | None = None
    outline: tuple[tuple[int, str], ...] = ()  # (level, heading) in document order, 1 = outermost
    lines: tuple[LayoutLine, ...] = ()
    meta_title: str | None = None
    meta_author: str | None = None
    descriptions: tuple[str, ...] = ()  # what the document's properties say it is (front matter, HTML meta description)


class Parser(Protocol):
    """Turns a file (its path and its bytes) into `Parsed`; raises `ParseError` naming the cause."""

    def __call__(self, path: Path, data: bytes) -> Parsed: ...
