"""PDF text with page numbers, paragraph breaks and headings, through PDFium (`pypdfium2`).

PDFium was chosen over pypdf and pdfplumber by measurement on generated CV-like PDFs: the same text,
about 10x the speed of pypdf and 100x that of pdfplumber (see bench/ingest.py). Per line we read the
first character's box and font size: a vertical gap wider than usual becomes a blank line (a
paragraph break), a line set clearly larger than the body text (or, in bold over a body that is not, a small
step larger, in a style of at least three lines none of which holds a digit: a CV's bold entry lines carry
dates), in a style (size and weight) whose
lines stand alone rather than run on into each other, becomes a heading, when it is also printed larger
(its size times the scale it is drawn at: a chart's 14 pt labels in a figure scaled to 40 % are no headings);
a heading wrapped onto the next line in the same style is one heading, on one line; a margin label beside
the text it labels, on one baseline ("Education" in a CV's left column), is a line of its own
(`_margin_labels`); and lines repeated at the top or bottom of most pages (running headers, footers, page
numbers) are dropped. The kept
lines also come out as `Parsed.lines` (size, bold, baseline) and the Info dictionary's Title and
Author as `meta_title`/`meta_author`, as evidence for titles and owners. Left out:
columns, tables and reading order beyond PDFium's own, OCR of scanned pages (they yield no text).
"""

from __future__ import annotations

import ctypes
import logging
import re
import statistics
from collections import Counter
from pathlib import Path

from .document import PageSpan
from .errors import ParseError
from .parsed import LayoutLine, Parsed

log = logging.getLogger(__name__)

MAX_PAGES = 5000  # a longer PDF is cut here, with a warning
HEADING_RATIO = 1.15  # a line this much larger than the body font is a heading
BOLD_HEADING_RATIO = 1.05  # a bold line (in a body that is not bold) needs to be only this much larger
MIN_BOLD_HEADINGS = 3  # ... when its style sets at least this many lines, none with a digit
BOLD_WEIGHT = 600  # a font weight from here up is bold (400 regular, 700 bold)
MARGIN_COLUMN_LINES = 4  # a left edge this many lines of a page start at is a column of text (`_margin_labels`)
MARGIN_LABEL_WORDS = 4  # a margin label is at most this many words
_SPACE = re.compile(r"\s+")


def _is_bold(textpage, index: int) -> bool:  # type: ignore[no-untyped-def]
    """Whether character `index` is set in a bold font: its weight, else its font's name."""
    import pypdfium2.raw as raw

    if raw.FPDFText_GetFontWeight(textpage.raw, index) >= BOLD_WEIGHT:
        return True
    buf = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    n = raw.FPDFText_GetFontInfo(textpage.raw, index, buf, len(buf), ctypes.byref(flags))
    name = buf.value.decode("latin-1", "replace").lower() if n else ""
    return any(w in name for w in ("bold", "black", "heavy"))


def _origin(textpage, index: int) -> tuple[float, float] | None:  # type: ignore[no-untyped-def]
    """The origin (x, baseline y) of character `index`, or None where PDFium has none."""
    import pypdfium2.raw as raw

    x, y = ctypes.c_double(), ctypes.c_double()
    return (float(x.value), float(y.value)) if raw.FPDFText_GetCharOrigin(textpage.raw, index, ctypes.byref(x),
                                                                          ctypes.byref(y)) else None


def _printed_size(textpage, index: int) -> float:  # type: ignore[no-untyped-def]
    """Character `index`'s font size as printed: times the scale of its text matrix (word processors often
    set size 1 and scale the text)."""
    import pypdfium2.raw as raw

    m = raw.FS_MATRIX()
    scale = abs(m.a * m.d - m.b * m.c) ** 0.5 if raw.FPDFText_GetMatrix(textpage.raw, index, ctypes.byref(m)) else 1.0
    return float(raw.FPDFText_GetFontSize(textpage.raw, index)) * (scale or 1.0)


def _first_letter(line: str) -> int:
    """Where a line's type is read: its first letter. A margin line number ("12" at 5 pt before every line
    of a submitted paper) or a bullet in a symbol font is not the line's type."""
    lead = len(line) - len(line.lstrip())
    return lead + next((i for i, ch in enumerate(line.lstrip()) if ch.isalpha()), 0)


def _margin_labels(textpage, spans: list[tuple[int, str]]) -> list[tuple[int, str]]:  # type: ignore[no-untyped-def]
    """`spans` (start in the page's text, line) with each margin label split off onto a line of its own.

    Many CV and form layouts set a short label in a left column ("Education", "Study design") and the
    text it labels in a column to its right, on the same baseline: PDFium reads the two as one line
    ("Education Sorbonne Université"), so the label never stands as a heading and runs into the entry. A
    line is split where, after a short run of words without digits (a label, not a date: a date column
    beside its entries stays as it is) and a gap wider than two font sizes, its text resumes on the same
    baseline at a left edge that several lines of the page start at (the text column). A label ending in
    a colon ("Location: Seward, AK") already says where it ends and is left alone."""
    n = textpage.count_chars()
    left: list[float | None] = []  # each line's left edge
    starts: Counter[int] = Counter()
    for start, line in spans:
        edges = [o[0] for at in {start + len(line) - len(line.lstrip()), start + _first_letter(line)}  # bullet, text
                 if at < n and (o := _origin(textpage, at)) is not None]
        left.append(min(edges) if edges else None)
        starts.update({round(x) for x in edges})
    columns = sorted(x for x, k in starts.items() if k >= MARGIN_COLUMN_LINES)
    out: list[tuple[int, str]] = []
    for (start, line), x0 in zip(spans, left, strict=True):
        split = None
        if columns and x0 is not None and x0 < columns[-1] and len(line.split()) > 1 and start + len(line) <= n:
            split = _label_end(textpage, start, line, columns)
        if split is None:
            out.append((start, line))
        else:
            out.append((start, line[:split].rstrip()))
            out.append((start + split, line[split:]))
    return out


def _label_end(textpage, start: int, line: str, columns: list[int]) -> int | None:  # type: ignore[no-untyped-def]
    """Where the text column resumes after a margin label at the start of `line` (see `_margin_labels`).
    Only the letters on either side of each space are looked at (PDFium is asked one character at a time)."""
    size = _printed_size(textpage, start + _first_letter(line)) or 10.0
    for m in _SPACE.finditer(line, len(line) - len(line.lstrip())):
        if len(line[:m.start()].split()) > MARGIN_LABEL_WORDS or m.end() == len(line):
            return None
        before, after = _origin(textpage, start + m.start() - 1), _origin(textpage, start + m.end())
        if before is None or after is None:
            return None
        if (after[0] - before[0] > 2 * size and abs(after[1] - before[1]) < 1
                and any(abs(after[0] - x) <= 1.5 for x in columns)):
            label = line[:m.start()]
            plain = any(c.isalpha() for c in label) and not any(c.isdigit() for c in label)
            return m.end() if plain and not label.endswith(":") else None
    return None


def _lines(textpage, text: str, style: list[tuple[bool, float]] | None = None) -> list[tuple[str, float, float]]:  # type: ignore[no-untyped-def]
    """(line, font size, baseline y) for each non-empty line of a page's text, margin labels on lines of
    their own (`_margin_labels`). When `style` is given, (bold, size as printed) of each line's first
    letter is appended to it: the printed size includes the text matrix's scale (word processors often
    set size 1 and scale the text)."""
    import pypdfium2.raw as raw

    spans: list[tuple[int, str]] = []
    pos = 0
    for line in text.split("\n"):
        start = pos
        pos += len(line) + 1
        stripped = line.rstrip("\r")
        if stripped.strip():
            spans.append((start, stripped))
    out = []
    n = textpage.count_chars()
    for start, stripped in _margin_labels(textpage, spans):
        first = start + _first_letter(stripped)
        if first >= n:
            out.append((stripped, 0.0, 0.0))
            if style is not None:
                style.append((False, 0.0))
            continue
        size = raw.FPDFText_GetFontSize(textpage.raw, first)
        if style is not None:
            style.append((_is_bold(textpage, first), _printed_size(textpage, first)))
        # The baseline, not the glyph box: box tops move with letter shapes.
        o = _origin(textpage, first)
        out.append((stripped, float(size), o[1] if o is not None else 0.0))
    return out


_NUMBERED = re.compile(r"(\d{1,4})(?:\s+|$)")


def _numbered(lines: list[tuple[str, float, float]]) -> list[tuple[int, int, int]]:
    """(line index, number, where the rest of the stripped line starts) of the lines that open with a number."""
    return [(i, int(m.group(1)), m.end()) for i, (t, _, _) in enumerate(lines) if (m := _NUMBERED.match(t.strip()))]


def _numbered_page(lines: list[tuple[str, float, float]]) -> bool:
    """Most lines open with a number, one more than the last numbered line's."""
    numbers = [n for _, n, _ in _numbered(lines)]
    if all(1900 <= n <= 2100 for n in numbers):
        return False  # a run of years ("2019 Fellow", "2020 Lecturer", ...) is content, not numbering
    steps = sum(b - a == 1 for a, b in zip(numbers, numbers[1:], strict=False))
    return len(numbers) >= 10 and len(numbers) >= 0.6 * len(lines) and steps >= 0.7 * (len(numbers) - 1)


def _without_line_numbers(pages: list[list[tuple[str, float, float]]], styles: list[list[tuple[bool, float]]]
                          ) -> tuple[list[list[tuple[str, float, float]]], list[list[tuple[bool, float]]]]:
    """The pages of a document whose lines are numbered in the margin, as papers under review are ("12 The
    results show"), without those numbers; a line that held only its number goes. On a page that is
    numbered (`_numbered_page`) every opening number goes; when most pages are, so does, on the others
    (a page of figures or tables), each opening number one off from the numbered line before or after
    it. Other documents as they are."""
    flags = [_numbered_page(lines) for lines in pages]
    if not any(flags):
        return pages, styles
    most = sum(flags) * 2 >= len(pages)
    out_pages, out_styles = [], []
    for lines, style, numbered in zip(pages, styles, flags, strict=True):
        numbers = _numbered(lines)
        chained = {i: end for k, (i, n, end) in enumerate(numbers)
                   if (k and numbers[k - 1][1] == n - 1) or (k + 1 < len(numbers) and numbers[k + 1][1] == n + 1)}
        drop = {i: end for i, _, end in numbers} if numbered else chained if most else {}
        kept, kept_style = [], []
        for i, ((text, size, y), st) in enumerate(zip(lines, style, strict=True)):
            rest = text.strip()[drop[i]:] if i in drop else text
            if rest.strip():
                kept.append((rest, size, y))
                kept_style.append(st)
        out_pages.append(kept)
        out_styles.append(kept_style)
    return out_pages, out_styles


def _furniture(pages: list[list[tuple[str, float, float]]]) -> set[tuple[str, int]]:
    """Lines that open or close most pages at the same height, digits ignored: running headers,
    footers, page numbers. With two pages only a line with a number in it (a page number) counts."""
    if len(pages) < 2:
        return set()
    counts: Counter[tuple[str, int]] = Counter()
    for lines in pages:
        counts.update({_key(ln) for ln in lines[:2] + lines[-2:]})
    need = max(2, len(pages) * 0.6)
    return {k for k, c in counts.items() if k[0] and c >= need and (len(pages) > 2 or "#" in k[0])}


def _key(line: tuple[str, float, float]) -> tuple[str, int]:
    return re.sub(r"\d+", "#", line[0].strip().lower()), round(line[2] / 4)


def parse_pdf(path: Path, data: bytes) -> Parsed:
    """Text of every page, pages joined by a blank line; headings found by font size."""
    import pypdfium2 as pdfium

    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        msg = str(exc)
        if "password" in msg.lower():
            raise ParseError(str(path), "PDF is encrypted (password protected); decrypt it first") from exc
        raise ParseError(str(path), f"not a readable PDF: {msg.rstrip('.')}") from exc
    try:
        meta = _metadata(doc)
        n_pages = len(doc)
        if n_pages > MAX_PAGES:
            log.warning("%s: %d pages, only the first %d are read", path, n_pages, MAX_PAGES)
        page_lines: list[list[tuple[str, float, float]]] = []
        page_style: list[list[tuple[bool, float]]] = []
        for i in range(min(n_pages, MAX_PAGES)):
            page = doc[i]
            textpage = page.get_textpage()
            try:
                page_style.append([])
                page_lines.append(_lines(textpage, textpage.get_text_range(), page_style[-1]))
            finally:
                textpage.close()
                page.close()
    finally:
        doc.close()

    page_lines, page_style = _without_line_numbers(page_lines, page_style)
    sizes = [s for lines in page_lines for ln, s, _ in lines for _ in range(len(ln)) if s > 0]
    body = statistics.median(sizes) if sizes else 0.0
    printed = [p for lines, style in zip(page_lines, page_style, strict=True)
               for (ln, _, _), (_, p) in zip(lines, style, strict=True) for _ in range(len(ln)) if p > 0]
    body_printed = statistics.median(printed) if printed else 0.0
    bold_chars = sum(len(ln) for lines, style in zip(page_lines, page_style, strict=True)
                     for (ln, _, _), (b, _) in zip(lines, style, strict=True) if b)
    # where the body is not bold, a bold line stands out at a smaller step ("Degrees" in 12 pt bold over 11 pt text)
    plain_body = bold_chars * 2 < sum(len(ln) for lines in page_lines for ln, _, _ in lines)
    bold_step = BOLD_HEADING_RATIO if plain_body else HEADING_RATIO
    furniture = _furniture(page_lines)
    styles = _heading_styles(page_lines, page_style, body, body_printed, bold_step)
    heading_sizes = sorted({size for size, _ in styles}, reverse=True)
    level_of = {s: i + 1 for i, s in enumerate(heading_sizes[:4])}

    parts: list[str] = []
    pages: list[PageSpan] = []
    outline: list[tuple[int, str]] = []
    layout: list[LayoutLine] = []
    pos = 0
    for number, lines in enumerate(page_lines, 1):
        kept = [ln for ln in lines if _key(ln) not in furniture]
        bold_of = {(number, ln[0]): b for ln, (b, _) in zip(lines, page_style[number - 1], strict=True)}
        large = {ln[0] for ln, (b, p) in zip(lines, page_style[number - 1], strict=True)
                 if _printed_large(p, body_printed, bold_step if b else HEADING_RATIO)}
        layout.extend(
            LayoutLine(ln[0].strip(), number, round(size, 2), bold, round(ln[2], 2))
            for ln, (bold, size) in zip(lines, page_style[number - 1], strict=True) if _key(ln) not in furniture
        )
        # Line spacing inside a paragraph: a low quantile of the gaps between same-size lines
        # (the median would be a paragraph gap on a page of short paragraphs).
        gaps = sorted(
            abs(a[2] - b[2]) for a, b in zip(kept, kept[1:], strict=False)
            if a[2] and b[2] and abs(a[1] - b[1]) < 0.5 and a[2] != b[2]
        )
        usual = gaps[len(gaps) // 4] if gaps else 0.0
        out: list[str] = []
        prev_top = None
        heading_style = None  # the style of the line just written, when it was a heading
        for line, size, top in kept:
            style = (round(size, 1), bold_of.get((number, line)))
            level = level_of.get(style[0]) if len(line) <= 100 and style in styles and line in large else None
            if level is not None and style == heading_style and len(out[-1]) + len(line) < 200:
                # A heading wrapped onto the next line ("Integrating Personalized PageRank / into Neural
                # Word Sense Disambiguation") is one heading, on one line
                out[-1] = f"{out[-1].rstrip()} {line.strip()}"
                outline[-1] = (level, out[-1].strip())
                prev_top = top
                continue
            if out and prev_top is not None and usual and abs(prev_top - top) > usual * 1.25:
                out.append("")  # a wider gap than between the lines of a paragraph
            if level is not None:
                outline.append((level, line.strip()))
                if out and out[-1] != "":
                    out.append("")
            out.append(line)
            prev_top = top
            heading_style = style if level is not None else None
        page_text = "\n".join(out)
        if parts:
            parts.append("\n\n")
            pos += 2
        pages.append(PageSpan(number, pos, pos + len(page_text)))
        parts.append(page_text)
        pos += len(page_text)
    text = "".join(parts)
    if not text.strip() and page_lines:
        raise ParseError(str(path), f"no text layer in {len(page_lines)} page(s) (scanned? OCR is not supported)")
    return Parsed(
        text=text, pages=tuple(pages), outline=tuple(outline), lines=tuple(layout),
        meta_title=meta.get("Title"), meta_author=meta.get("Author"),
    )


def _printed_large(printed: float, body_printed: float, ratio: float = HEADING_RATIO) -> bool:
    """Is a line printed larger than the body text? Its font size alone can say so of a figure's labels:
    a chart drawn with 14 pt labels and placed in the page at 40 % prints them at 6 pt, below the body's
    10 pt, and they are no headings ("Density", "X Y" above a paper's conclusions). Without printed sizes
    (0), the font size decides alone."""
    return not body_printed or printed >= body_printed * ratio


def _heading_styles(page_lines: list[list[tuple[str, float, float]]], page_style: list[list[tuple[bool, float]]],
                    body: float, body_printed: float = 0.0,
                    bold_step: float = HEADING_RATIO) -> set[tuple[float, bool]]:
    """The (size, bold) styles of headings: larger than the body text, and standing alone.

    A style whose lines mostly run on into another line of the same style is body text set large
    (a report's narrative in 12 pt beside 9 pt form fields), not a heading: a heading is followed
    by text of another style. Each line's style is its first character's size and weight. A line
    printed no larger than the body text (`_printed_large`: a figure's label) counts for no style.
    """
    seen: Counter[tuple[float, bool]] = Counter()
    runs_on: Counter[tuple[float, bool]] = Counter()
    dated: set[tuple[float, bool]] = set()  # styles with a line holding a digit
    for lines, style in zip(page_lines, page_style, strict=True):
        keyed = [((round(s, 1), b), ln) for (ln, s, _), (b, _) in zip(lines, style, strict=True)]
        for n, (key, ln) in enumerate(keyed):
            step = bold_step if key[1] else HEADING_RATIO
            if not body or key[0] < body * step or len(ln) > 100 or not _printed_large(style[n][1], body_printed, step):
                continue
            seen[key] += 1
            if any(ch.isdigit() for ch in ln):
                dated.add(key)
            if n + 1 < len(keyed) and keyed[n + 1][0] == key:
                runs_on[key] += 1
    # a bold style only a small step larger (`BOLD_HEADING_RATIO`) is also how a CV sets its entries' first lines,
    # which carry dates: it counts only with at least MIN_BOLD_HEADINGS lines and no digit in any of them
    small = {key for key in seen if key[0] < body * HEADING_RATIO}
    return {key for key, n in seen.items() if runs_on[key] * 2 <= n
            and (key not in small or (n >= MIN_BOLD_HEADINGS and key not in dated))}


def _metadata(doc) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """The Info dictionary's non-empty entries, whitespace collapsed; {} when it cannot be read."""
    try:
        meta = doc.get_metadata_dict(skip_empty=True)
    except Exception:  # a damaged Info dictionary must not cost the text
        return {}
    return {k: " ".join(str(v).split()) for k, v in meta.items() if str(v).strip()}
