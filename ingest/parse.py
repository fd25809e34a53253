"""Files in, `Document`s out: format sniffing, decoding, size limits and the parser registry.

Formats are chosen from the file's first bytes as well as its extension: a PDF named `.txt` is read
as a PDF, a binary file named `.txt` is refused. Text and markdown parse here; PDF, DOCX and HTML
parsers live in their own modules and register in `PARSERS`. Sizes are checked before a file is
read (`stat`), so a 200 MB text file costs nothing to refuse; extracted text is capped too.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import zipfile
from collections.abc import Sequence
from pathlib import Path

from charset_normalizer import from_bytes

from .clean import clean_text
from .document import Document, PageSpan
from .docx_parser import parse_docx
from .errors import ParseError
from .frontmatter import shown_lines, split_front_matter
from .frontmatter_text import as_markdown
from .html_parser import parse_html
from .markdown_render import join_definitions, strip_html, strip_pandoc, strip_templates
from .owner import decide_owner
from .parsed import Parsed, Parser
from .pdf_parser import parse_pdf
from .rst_parser import parse_rst
from .structure import detect_sections, rule_headings
from .title import decide_title

__all__ = ["PARSERS", "Parsed", "Parser", "load_document", "sniff"]

# Per-format limits on the file size; text-like formats hold their whole text (and a character map
# of 8 bytes a character) in memory, so their limit is the tightest.
MAX_FILE_BYTES: dict[str, int] = {
    "text": 10 * 2**20, "markdown": 10 * 2**20, "rst": 10 * 2**20, "html": 20 * 2**20, "pdf": 200 * 2**20, "docx": 100 * 2**20,
}
MAX_TEXT_CHARS = 10_000_000  # extracted text above this is refused (about 4,000 dense pages)


def decode_text(path: Path, data: bytes) -> str:
    """Decode bytes of a text file: BOMs (UTF-8/16/32), UTF-8, then charset detection (latin-1,
    cp1252, ...). Binary data is refused: NUL bytes outside UTF-16/32, or mostly control characters."""
    for bom, codec in ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
                       (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"), (b"\xef\xbb\xbf", "utf-8-sig")):
        if data.startswith(bom):
            return data.decode(codec, errors="replace")
    if b"\x00" in data[:8192]:
        raise ParseError(str(path), "binary content, not text (NUL bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        best = from_bytes(data[: 1 << 20]).best()
        if best is None or best.encoding is None:
            raise ParseError(str(path), "binary content, not text in any known encoding") from None
        text = data.decode(best.encoding, errors="replace")
    sample = text[:65536]
    junk = sum(1 for c in sample if (c < " " and c not in "\t\n\r\f") or c == "\ufffd")
    if sample and junk / len(sample) > 0.05:
        raise ParseError(str(path), f"binary content, not text ({junk / len(sample):.0%} control characters)")
    return text


def parse_text(path: Path, data: bytes) -> Parsed:
    text = decode_text(path, data)
    return Parsed(text=text, headings=tuple(rule_headings(text)))




def parse_markdown(path: Path, data: bytes) -> Parsed:
    """Markdown text; front matter is removed from the text and kept as title/author properties, but for its
    lines holding an e-mail or web address ("email: jroe@example.org"), which a site's template shows in the
    page's header, a paper's byline (its authors with their affiliations: `frontmatter.byline`), which its
    first page prints, and the content it holds ("Role: PhD student" at the top, its lists of jobs or degrees
    after the body: `frontmatter_text`); raw HTML tags and comments are blanked out (`markdown_render`)."""
    text = decode_text(path, data)
    fm = split_front_matter(text)
    if fm.end:
        head = shown_lines(text, fm)
        body = text[fm.end :]
        if fm.sections:  # its lists and mappings, after the body (a template prints them beside it)
            body = body.rstrip("\n") + "\n\n" + as_markdown(fm.sections)
        text = head + body
    return Parsed(text=join_definitions(strip_pandoc(strip_templates(strip_html(text)))), markdown=True, meta_title=fm.title, meta_author=fm.author,
                  descriptions=fm.descriptions)


PARSERS: dict[str, Parser] = {
    "text": parse_text, "markdown": parse_markdown, "rst": parse_rst, "pdf": parse_pdf, "docx": parse_docx, "html": parse_html,
}
EXTENSIONS: dict[str, str] = {
    ".txt": "text", ".text": "text", ".md": "markdown", ".markdown": "markdown", ".rst": "rst",
    ".pdf": "pdf", ".docx": "docx", ".html": "html", ".htm": "html", ".xhtml": "html",
}


def sniff(path: Path, head: bytes) -> str | None:
    """The format of a file from its first bytes, falling back on its extension."""
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        if path.suffix.lower() == ".docx":
            return "docx"
        try:
            with zipfile.ZipFile(path) as z:
                if "word/document.xml" in z.namelist():
                    return "docx"
        except (OSError, zipfile.BadZipFile):
            pass
        return None
    lowered = head[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if lowered.startswith((b"<!doctype html", b"<html", b"<?xml")) and (
        b"<html" in lowered or path.suffix.lower() in (".html", ".htm", ".xhtml")
    ):
        return "html"
    return EXTENSIONS.get(path.suffix.lower())


def _read(p: Path) -> tuple[str, bytes]:
    """The file's format and bytes, refusing before reading what is too large or not a file."""
    try:
        st = p.stat()
        if not p.is_file():
            raise ParseError(str(p), "not a regular file")
        if st.st_size == 0:
            raise ParseError(str(p), "file is empty (0 bytes)")
        with open(p, "rb") as f:
            head = f.read(1024)
            fmt = sniff(p, head)
            if fmt is None or fmt not in PARSERS:
                kind = "a zip archive that is not a DOCX" if head.startswith(b"PK\x03\x04") else "file type"
                raise ParseError(
                    str(p), f"unsupported {kind} {p.suffix or '(no extension)'!r}; supported: {', '.join(sorted(PARSERS))}"
                )
            limit = MAX_FILE_BYTES[fmt]
            if st.st_size > limit:
                raise ParseError(
                    str(p), f"{fmt} file is {st.st_size / 2**20:.0f} MB, above the {limit // 2**20} MB limit for {fmt}"
                )
            data = head + f.read(limit + 1 - len(head))  # never more than the limit, even if it grew
    except OSError as exc:
        raise ParseError(str(p), exc.strerror or str(exc)) from exc
    if len(data) > limit:
        raise ParseError(str(p), f"{fmt} file grew above the {limit // 2**20} MB limit while being read")
    return fmt, data


def load_document(path: str | os.PathLike[str]) -> Document:
    """Parse and clean one file. Raises `ParseError` naming the file and the cause."""
    p = Path(path).resolve()
    fmt, data = _read(p)
    try:
        parsed = PARSERS[fmt](p, data)
    except ParseError:
        raise
    except MemoryError as exc:
        raise ParseError(str(p), f"out of memory while parsing as {fmt}") from exc
    except Exception as exc:  # a parser library failing on a bad file must not stop a batch
        raise ParseError(str(p), f"could not parse as {fmt}: {type(exc).__name__}: {exc}") from exc
    if len(parsed.text) > MAX_TEXT_CHARS:
        raise ParseError(str(p), f"{len(parsed.text):,} characters of text, above the {MAX_TEXT_CHARS:,} limit")
    if not parsed.text.strip():
        raise ParseError(str(p), "no text in the file" if fmt in ("text", "markdown", "rst") else f"no text could be extracted from the {fmt}")
    sha = hashlib.sha256(data).hexdigest()
    del data
    cleaned = clean_text(parsed.text)
    if not cleaned.text.strip():
        raise ParseError(str(p), "no text left after cleaning (only symbols or markup)")
    pages = tuple(
        PageSpan(pg.number, _map_forward(cleaned.char_map, pg.start), _map_forward(cleaned.char_map, pg.end))
        for pg in parsed.pages
    )
    sections = detect_sections(
        cleaned.text, markdown=parsed.markdown, known_headings=parsed.headings, outline=parsed.outline
    )
    decision = decide_owner(parsed, cleaned.text, p, sections=sections)
    owner = decision.owner
    return Document(
        path=str(p),
        sha256=sha,
        format=fmt,
        title=decide_title(parsed, cleaned.text, p, owner),
        text=cleaned.text,
        source=parsed.text,
        char_map=cleaned.char_map,
        pages=pages,
        sections=sections,
        owner=owner,
        owner_source=decision.source,
    )


def _map_forward(char_map: Sequence[int], source_offset: int) -> int:
    """The first cleaned offset whose source offset is >= `source_offset`."""
    return bisect.bisect_left(char_map, source_offset)
