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
class Parsed:
    """Text, page spans in that text, and the headings the format marks, with their levels."""

    text: str
    pages: tuple[PageSpan, ...] = ()
    headings: tuple[str, ...] = ()  # headings without a level (level 1)
    markdown: bool = False
    title: str | None = None
    outline: tuple[tuple[int, str], ...] = ()  # (level, heading) in document order, 1 = outermost


class Parser(Protocol):
    """Turns a file (its path and its bytes) into `Parsed`; raises `ParseError` naming the cause."""

    def __call__(self, path: Path, data: bytes) -> Parsed: ...
