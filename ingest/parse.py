"""Files in, `Document`s out: format sniffing, decoding and the per-format parsers.

Formats are chosen from the file's first bytes as well as its extension. This module holds the
text and markdown parsers; richer formats register theirs in `PARSERS` under the same contract.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from charset_normalizer import from_bytes

from .clean import clean_text
from .document import Document, PageSpan
from .errors import ParseError
from .owner import detect_owner
from .structure import SECTION_NAMES, detect_sections, heading_key, rule_headings

MAX_FILE_BYTES = 64 * 1024 * 1024  # larger files are refused with a clear reason


@dataclass(frozen=True)
class Parsed:
    """What a format parser returns: text, page spans in that text, headings it is sure of."""

    text: str
    pages: tuple[PageSpan, ...] = ()
    headings: tuple[str, ...] = ()
    markdown: bool = False
    title: str | None = None


Parser = Callable[[Path, bytes], Parsed]


def decode_text(path: Path, data: bytes) -> str:
    """Decode bytes of a text file: BOMs, UTF-8, then charset detection; binary is refused."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace")
    if b"\x00" in data[:8192]:
        raise ParseError(str(path), "looks like a binary file, not text (NUL bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        best = from_bytes(data[: 1 << 20]).best()
        if best is None or best.encoding is None:
            raise ParseError(str(path), "not text in any known encoding") from None
        return data.decode(best.encoding, errors="replace")


def parse_text(path: Path, data: bytes) -> Parsed:
    text = decode_text(path, data)
    return Parsed(text=text, headings=tuple(rule_headings(text)))


def parse_markdown(path: Path, data: bytes) -> Parsed:
    return Parsed(text=decode_text(path, data), markdown=True)


PARSERS: dict[str, Parser] = {"text": parse_text, "markdown": parse_markdown}
EXTENSIONS: dict[str, str] = {".txt": "text", ".text": "text", ".md": "markdown", ".markdown": "markdown"}


def sniff(path: Path, head: bytes) -> str | None:
    """The format of a file from its first bytes, falling back on its extension."""
    if head.startswith(b"%PDF-"):
        return "pdf"
    if head.startswith(b"PK\x03\x04") and path.suffix.lower() == ".docx":
        return "docx"
    lowered = head[:512].lstrip().lower()
    if lowered.startswith((b"<!doctype html", b"<html")):
        return "html"
    return EXTENSIONS.get(path.suffix.lower())


def _title(path: Path, parsed: Parsed, cleaned: str) -> str:
    if parsed.title:
        return parsed.title
    for line in cleaned.splitlines():
        line = line.strip().lstrip("# ").strip()
        if line:
            if len(line) <= 80 and heading_key(line) not in SECTION_NAMES:
                return line
            break
    return path.stem


def load_document(path: str | os.PathLike[str]) -> Document:
    """Parse and clean one file. Raises `ParseError` naming the file and the cause."""
    p = Path(path).resolve()
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ParseError(str(p), f"file is {size / 2**20:.0f} MB, above the {MAX_FILE_BYTES // 2**20} MB limit")
        data = p.read_bytes()
    except OSError as exc:
        raise ParseError(str(p), exc.strerror or str(exc)) from exc
    if not data.strip():
        raise ParseError(str(p), "file is empty")
    fmt = sniff(p, data[:1024])
    if fmt is None or fmt not in PARSERS:
        raise ParseError(str(p), f"unsupported file type {p.suffix or '(no extension)'!r}")
    try:
        parsed = PARSERS[fmt](p, data)
    except ParseError:
        raise
    except Exception as exc:  # a parser library failing on a bad file must not stop a batch
        raise ParseError(str(p), f"could not parse as {fmt}: {exc}") from exc
    cleaned = clean_text(parsed.text)
    if not cleaned.text.strip():
        raise ParseError(str(p), "no text could be extracted")
    pages = tuple(
        PageSpan(pg.number, _map_forward(cleaned.char_map, pg.start), _map_forward(cleaned.char_map, pg.end))
        for pg in parsed.pages
    )
    sections = detect_sections(cleaned.text, markdown=parsed.markdown, known_headings=parsed.headings)
    return Document(
        path=str(p),
        sha256=hashlib.sha256(data).hexdigest(),
        format=fmt,
        title=_title(p, parsed, cleaned.text),
        text=cleaned.text,
        source=parsed.text,
        char_map=cleaned.char_map,
        pages=pages,
        sections=sections,
        owner=detect_owner(parsed.text, cleaned.text),
    )


def _map_forward(char_map: object, source_offset: int) -> int:
    """The first cleaned offset whose source offset is >= `source_offset`."""
    import bisect

    return bisect.bisect_left(char_map, source_offset)  # type: ignore[arg-type]
