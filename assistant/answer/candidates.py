"""Step 2 of the reader: answer candidates cut from the retrieved chunks.

A chunk is cut into pieces (`segments`): its non-empty lines, and a line longer than `limit` characters
into its sentences (a sentence still longer is cut at a word boundary). A candidate is a run of one to
`max_pieces` consecutive pieces of one chunk, at most `limit` characters from first to last, kept as
offsets into `hit.text`, so every quote is an exact substring of the stored chunk.

Each candidate carries its context: the chunk's section heading (from ingest) and its entry header,
the nearest preceding piece that looks like a header by layout alone: short, not ending like a
sentence or a list item (no trailing `.`, `,` or `;`), within a few lines above. Left out: page
layout (fonts, indentation), which the chunk text does not carry.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from index import Hit
from ingest.chunk import table_row

from . import segments
from .segments import LIMIT


@dataclass(frozen=True)
class Piece:
    hit: int  # index into the hits
    start: int  # offsets into hits[hit].text
    end: int
    line: int  # the line it belongs to (a long line has several pieces)


@dataclass(frozen=True)
class Candidate:
    hit: int
    start: int
    end: int
    pieces: tuple[int, ...]  # indices into the question's pieces
    header: int | None  # the piece of its entry header, if any (above the candidate)


def pieces_of(hits: Sequence[Hit], limit: int = LIMIT) -> list[Piece]:
    return [Piece(i, a, b, n) for i, h in enumerate(hits) for a, b, n in segments.pieces(h.text, limit)]


def header_like(text: str) -> bool:
    t = text.strip()
    return 0 < len(t) <= 80 and t[-1] not in ".,;" and any(c.isalpha() for c in t)


BULLETS = "-–—•·*▪◦○➔>#"  # list and Markdown markers a line's text does not start with


def is_item(line: str) -> bool:
    """Is `line` an item of a list: it opens with a bullet or a dash ("- Sampling", "• Chins"), not a heading's or a
    quote's mark? A hyphen or an asterisk opens one before a space only, as in Markdown: "*Some University*" is
    emphasis, "-2" a number."""
    t = line.lstrip()
    return bool(t) and t[0] in BULLETS and t[0] not in "#>" and (t[0] not in "-*" or t[1:2] in (" ", "\t"))
MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\((?:[^()]|\([^()]*\))*\)")  # a Markdown link: group 1 its text
_LEADER = re.compile(r"(?:\s*[.·…]){2,}\s*[\divxlcIVXLC]*\s*$|\s+\d+\s*$")  # "Introduction ..... 3", "Methods 12"
_NUMBERING = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.|[A-Z]\.)\s+")  # "2.1 ", "IV. ", "A. "


def echo_key(text: str) -> str:
    """`text` as a line of a table of contents would write a heading: no bullet, link syntax, leader dots,
    page number or section number; case and spacing folded."""
    t = MARKDOWN_LINK.sub(r"\1", text).strip().lstrip(BULLETS).strip()
    t = _NUMBERING.sub("", _LEADER.sub("", t))
    return " ".join(t.split()).casefold()


def navigation(hits: Sequence[Hit], pieces: Sequence[Piece], cands: Sequence[Candidate],
               headings: Callable[[str], frozenset[str]]) -> list[bool]:
    """For each candidate: is it a run of two or more lines that each only repeat a heading of its own
    document (`headings(doc)`: the `echo_key`s of the document's section headings)? That is a table of
    contents, which points at where the answer is and never says it ("* [Support](#support)",
    "1 Introduction ..... 3")."""
    out = []
    for c in cands:
        if len(c.pieces) < 2:
            out.append(False)
            continue
        text = hits[c.hit].text
        known = headings(hits[c.hit].doc)
        out.append(bool(known) and all((k := echo_key(text[pieces[j].start:pieces[j].end])) and k in known
                                       for j in c.pieces))
    return out


def table_heads(text: str, pieces: Sequence[Piece], ids: Sequence[int]) -> dict[int, int]:
    """For each piece (of `ids`, one chunk's pieces in order) on a row of a table below its first row, that
    first row's first piece: a table is a run of consecutive lines that are each a row (`ingest.chunk.table_row`:
    a Markdown pipe table, or an HTML table's cells joined by " | "), and its first row names the columns,
    which a row's cells ("| FY2023 | 716 | 186 (26.0%) |") never repeat."""
    if "|" not in text:
        return {}
    spans: dict[int, list[int]] = {}  # line -> [start of its first piece, end of its last]
    first_piece: dict[int, int] = {}
    for j in ids:
        spans.setdefault(pieces[j].line, [pieces[j].start, pieces[j].end])[1] = pieces[j].end
        first_piece.setdefault(pieces[j].line, j)
    top: dict[int, int] = {}  # a row's line -> its table's first line
    for n, (a, b) in spans.items():  # lines in order
        if table_row(text[a:b]):
            top[n] = top.get(n - 1, n)
    return {j: first_piece[top[pieces[j].line]] for j in ids if top.get(pieces[j].line, pieces[j].line) < pieces[j].line}


def column_names(hits: Sequence[Hit], pieces: Sequence[Piece], cands: Sequence[Candidate]) -> list[bool]:
    """For each candidate: is it a table's first row alone (`table_heads`), the names of columns whose values the
    rows below give? It restates what a question about them asks ("Number of Applications Selected for Funding")
    and answers nothing; the row that holds the value does, with it as its header."""
    heads: set[tuple[int, int]] = set()  # (hit, line) of each table's first row
    by_hit: dict[int, list[int]] = {}
    for j, p in enumerate(pieces):
        by_hit.setdefault(p.hit, []).append(j)
    for i, ids in by_hit.items():
        heads |= {(i, pieces[h].line) for h in table_heads(hits[i].text, pieces, ids).values()}
    return [bool(heads) and all((c.hit, pieces[j].line) in heads for j in c.pieces) for c in cands]


def candidates(hits: Sequence[Hit], pieces: Sequence[Piece], limit: int = LIMIT, max_pieces: int = 3,
               header_reach: int = 6) -> list[Candidate]:
    out: list[Candidate] = []
    by_hit: dict[int, list[int]] = {}
    for j, p in enumerate(pieces):
        by_hit.setdefault(p.hit, []).append(j)
    for i, ids in by_hit.items():
        text = hits[i].text
        heads = table_heads(text, pieces, ids)
        for k, j in enumerate(ids):
            header = heads.get(j)
            for back in range(k - 1, max(-1, k - 1 - header_reach), -1):
                if header is not None:
                    break
                p = pieces[ids[back]]
                if p.line != pieces[j].line and header_like(text[p.start:p.end]):
                    header = ids[back]
                    break
            for n in range(1, max_pieces + 1):
                if k + n > len(ids):
                    break
                last = pieces[ids[k + n - 1]]
                if n > 1 and last.end - pieces[j].start > limit:
                    break
                out.append(Candidate(i, pieces[j].start, last.end, tuple(ids[k:k + n]), header))
    return out
