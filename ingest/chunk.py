"""Structure-aware chunking.

A chunk never crosses a section boundary and never splits a block (a paragraph or a list entry)
when the block fits; consecutive blocks of one section are packed up to `size` characters. A
block longer than `size` is split on sentence boundaries with about `overlap` characters repeated.
Chunk text is always an exact slice `document.text[start:end]`, so quotes taken from a chunk are
quotes of the document. Token-exact sizing is left out: characters are a close enough proxy.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from .document import Document
from .publications import parse_publications

# Chosen by measurement (real pipeline, default hybrid search; /tmp sweep of 400-1200 characters):
# 600 gave seed_dev Recall@1 0.97 / MRR@10 1.00 (800: 0.79 / 0.89; 400: 0.74 / 0.87) and Cranfield
# nDCG@10 0.431 (400: 0.429), Recall@100 0.802 (400: 0.782). About 150 tokens: well inside MiniLM's 256.
DEFAULT_CHUNK_SIZE = 600
DEFAULT_CHUNK_OVERLAP = 100


@dataclass(frozen=True)
class Chunk:
    chunk_id: str  # content-derived: the same file content gives the same ids wherever it lives
    doc: str  # source path
    doc_sha256: str
    ord: int  # position in the document
    start: int  # [start, end) in the cleaned document text
    end: int
    text: str
    page: int | None
    section: str  # heading path joined with " > ", "" when the chunk is before any heading
    title: str  # document title
    owner: str | None
    entry: str = ""  # the head line of the entry this chunk continues ("" when it holds its own head)

    @property
    def context(self) -> str:
        """What retrieval sees besides the text: document title, owner, section and, for the later
        pieces of a long entry (a paper's abstract, a job), the entry's head line."""
        parts = [self.title]
        if self.owner and self.owner not in self.title:
            parts.append(self.owner)
        if self.section:
            parts.append(self.section)
        if self.entry:
            parts.append(self.entry)
        return " | ".join(parts)

    def embed_text(self) -> str:
        return f"{self.context}\n{self.text}"


def chunk_id_for(doc_sha256: str, start: int, end: int) -> str:
    return hashlib.sha1(f"{doc_sha256}:{start}:{end}".encode()).hexdigest()[:16]


# Blocks end at blank lines, before list items, and after a line long enough to be a paragraph of
# its own (text that puts paragraphs on consecutive lines); wrapped lines are shorter than that.
_BLOCK_SPLIT = re.compile(r"\n[ \t]*\n|\n(?=- )|(?<=[^\n]{160})\n")
# A sentence ends before a capital, or at a spaced-out stop (" . ", tokenised lowercase text).
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[\"'(\[]?[A-Z0-9])|(?<= [.!?])\s+|\n")


def _blocks(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """The blocks of `text[start:end]`; one without a letter or digit (a rule "---", a row of marks) is
    none: it says nothing, and a chunk of it alone would be found for nothing. A table's rows are one block
    (`table_row`), however long its header row: a row is read by the names its header gives the columns."""
    spans: list[tuple[int, int]] = []
    pos = start
    for m in _BLOCK_SPLIT.finditer(text, start, end):
        if _says(text, pos, m.start()):
            spans.append((pos, m.start()))
        pos = m.end()
    if _says(text, pos, end):
        spans.append((pos, end))
    out: list[tuple[int, int]] = []
    for bs, be in spans:
        if out and text.count("\n", out[-1][1], bs) == 1 and table_row(text[out[-1][0]:out[-1][1]].rsplit("\n", 1)[-1]) \
                and table_row(text[bs:be].split("\n", 1)[0]):
            out[-1] = (out[-1][0], be)  # the next line of the same table
        else:
            out.append((bs, be))
    yield from out


_BAR = re.compile(r"(?<!\\)\|")  # a table's cell separator; "\|" is a bar written as text
TABLE_CHUNK = 2  # a table is kept whole in one chunk up to this many times the chunk size


def table_row(line: str) -> bool:
    """Is `line` a row of a table: two bars or more (a Markdown pipe table's "| a | b |", or an HTML table's
    cells joined by " | ")?"""
    return len(_BAR.findall(line)) >= 2


def _is_table(text: str, start: int, end: int) -> bool:
    """Is the block text[start:end] a table: two lines or more, each a row (`table_row`)?"""
    lines = [ln for ln in text[start:end].split("\n") if ln.strip()]
    return len(lines) >= 2 and all(table_row(ln) for ln in lines)


def _says(text: str, start: int, end: int) -> bool:
    return any(c.isalnum() for c in text[start:end])


def _split_long(text: str, start: int, end: int, size: int, overlap: int) -> Iterator[tuple[int, int]]:
    """Split `[start, end)` on sentence boundaries into pieces of at most ~`size` characters.

    Consecutive pieces share up to `overlap` characters of whole sentences; every piece ends
    further than the one before (no piece is contained in its predecessor).
    """
    bounds = sorted({start, end, *(m.end() for m in _SENTENCE_END.finditer(text, start, end))})
    i = 0
    while i < len(bounds) - 1:
        j = i + 1
        while j < len(bounds) - 1 and bounds[j + 1] - bounds[i] <= size:
            j += 1
        piece_end = bounds[j]
        if piece_end - bounds[i] > size * 1.5:  # one huge "sentence": cut on whitespace
            cut = text.rfind(" ", bounds[i] + size // 2, bounds[i] + size)
            piece_end = cut if cut > bounds[i] else bounds[i] + size
            bounds.insert(i + 1, piece_end)
            j = i + 1
        if end - piece_end < size // 4 and end - bounds[i] <= size * 1.3:
            piece_end, j = end, len(bounds) - 1  # a short remainder joins this piece
        yield bounds[i], piece_end
        if j >= len(bounds) - 1:
            break
        # Step back over whole sentences for the overlap, if the next piece still gets further.
        k = j
        while k - 1 > i and piece_end - bounds[k - 1] <= overlap:
            k -= 1
        i = k if k < j and bounds[j + 1] - bounds[k] <= size else j


def _strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _is_bullet(text: str, start: int) -> bool:
    return text.startswith(("- ", "* ", "+ "), start)


def _entries(text: str, blocks: list[tuple[int, int]], pubs: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """Group blocks into entries (one job, one degree, one paper with its abstract).

    A new entry starts where a parsed publication starts, after a bullet list when a non-bullet
    line follows (CVs: institution / place / degree / dates / bullets, then the next institution),
    after a long paragraph, and at a block that reads as a heading after a sentence (`_heading_block`). This works when blank lines carry no signal (PDF text where every
    line is its own paragraph) as well as for ordinary paragraphs.
    """
    groups: list[list[tuple[int, int]]] = []
    for bs, be in blocks:
        if groups:
            ps, pe = groups[-1][-1]
            starts_pub = any(bs <= s < be for s, _ in pubs)
            inside_pub = any(s < bs < e for s, e in pubs)  # e.g. the venue line of an entry
            list_ended = _is_bullet(text, ps) and not _is_bullet(text, bs)
            after_paragraph = pe - ps > _LONG_BLOCK and not _is_bullet(text, bs)
            heading = _heading_block(text, bs, be) and text[ps:pe].rstrip().endswith(".")
            if inside_pub or not (starts_pub or list_ended or after_paragraph or heading):
                groups[-1].append((bs, be))
                continue
        groups.append([(bs, be)])
    return groups


_LONG_BLOCK = 250  # characters: a block this long is a paragraph, not a line of an entry head
_HEADING_WORDS = 6  # the most words of a block read as the heading of what follows (`_heading_block`)


def _heading_block(text: str, start: int, end: int) -> bool:
    """Is the block text[start:end] a heading the layout did not mark ("PhD Students Directed" between
    blank lines): one line of at most `_HEADING_WORDS` words, no digit, not ending like a sentence or an item?
    After a block ending with a full stop it opens an entry of its own, so a chunk never ends with the
    heading of the list that the next one holds."""
    line = text[start:end].strip()
    return (0 < len(line.split()) <= _HEADING_WORDS and "\n" not in line and not any(c.isdigit() for c in line)
            and line[-1] not in ".,;:" and not _is_bullet(text, start) and line[0].isupper())


def _pack_blocks(text: str, blocks: list[tuple[int, int]], size: int, overlap: int) -> list[tuple[int, int]]:
    """Blocks packed up to `size`; a long block is split on sentences and takes the short blocks
    just before it (an entry's head: date, title, authors) into its first piece."""
    spans: list[tuple[int, int]] = []
    cur: tuple[int, int] | None = None
    for bs, be in blocks:
        if be - bs > size:
            start = bs
            if cur and cur[1] - cur[0] <= size // 3:
                start = cur[0]  # the head goes with the text it introduces
            elif cur:
                spans.append(cur)
            cur = None
            if be - bs <= size * TABLE_CHUNK and _is_table(text, bs, be):
                spans.append((start, be))  # a table whole: its rows with the header that names their columns
            else:
                spans.extend(_split_long(text, start, be, size, overlap))
        elif cur and (be - cur[0] <= size or _glues(cur, be, size)):
            cur = (cur[0], be)
        else:
            if cur:
                spans.append(cur)
            cur = (bs, be)
    if cur:
        spans.append(cur)
    return spans


def _glues(cur: tuple[int, int], end: int, size: int) -> bool:
    """A short head (a heading, a date line) goes with what follows, with up to 25% to spare."""
    return cur[1] - cur[0] <= size // 4 and end - cur[0] <= size * 5 // 4


def _head(text: str, entry: list[tuple[int, int]], pubs: list[tuple[int, int, str]], headings: set[int]) -> str:
    """A short name for an entry: the title of a publication starting in it, else its first line
    that is not a section heading."""
    es, ee = entry[0][0], entry[-1][1]
    for ps, _, title in pubs:
        if es <= ps < ee:
            return title[:_HEAD_CHARS]
    if es in headings and "\n" in text[es:ee]:
        es = text.index("\n", es, ee) + 1
        while es < ee and text[es].isspace():
            es += 1
    if _is_bullet(text, es):
        return ""  # a list is not an entry with a head: its first item names nothing
    line = text[es:ee].strip().split("\n", 1)[0]
    if len(line) > _HEAD_CHARS:
        cut = line.rfind(" ", 0, _HEAD_CHARS)
        line = line[: cut if cut > 0 else _HEAD_CHARS] + " …"
    return line


_HEAD_CHARS = 120


def chunk_plan(
    doc: Document, size: int = DEFAULT_CHUNK_SIZE, overlap: int = DEFAULT_CHUNK_OVERLAP
) -> list[tuple[int, int, str]]:
    """(start, end, entry head) of each chunk: entries whole when they fit, never across sections;
    the head is set on the pieces of a split entry that do not start with it."""
    return [(a, b, head) for a, b, head, _ in _plan(doc, size, overlap)]


def _plan(doc: Document, size: int, overlap: int) -> list[tuple[int, int, str, int]]:
    """`chunk_plan`'s chunks, each with the offset whose section it is in: its start, or where the text goes on
    after the headings alone it opens with (`bare_headings`)."""
    text = doc.text
    pubs = [(p.start, p.end, p.title) for p in parse_publications(text)]
    spans_of_pubs = [(a, b) for a, b, _ in pubs]
    # Section boundaries partition the text (a top-level section ends where the next one starts).
    headings = {s.start for s in doc.sections}
    cuts = sorted({0, len(text), *headings})
    runs = bare_headings(text, cuts, headings, size)
    cuts = [c for c in cuts if not any(a < c <= b for a, b in runs.items())]
    plan: list[tuple[int, int, str]] = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        cur: tuple[int, int] | None = None
        for entry in _entries(text, list(_blocks(text, a, b)), spans_of_pubs):
            es, ee = entry[0][0], entry[-1][1]
            if ee - es > size and not (cur and _glues(cur, ee, size)):
                lead = next((bs for bs, be in entry if be - bs > size), ee) - es  # the entry's own head
                if cur and cur[1] - cur[0] + lead <= size // 3:
                    entry = [cur, *entry]  # a short head goes with the long entry it precedes
                elif cur:
                    plan.append((*cur, ""))
                cur = None
                head = _head(text, entry, pubs, headings)
                for i, (ps, pe) in enumerate(_pack_blocks(text, entry, size, overlap)):
                    plan.append((ps, pe, head if i and head else ""))
            elif cur and (ee - cur[0] <= size or _glues(cur, ee, size)):
                cur = (cur[0], ee)
            else:
                if cur:
                    plan.append((*cur, ""))
                cur = (es, ee)
        if cur:
            plan.append((*cur, ""))
    out = []
    for s0, e0, head in plan:
        s1, e1 = _strip_span(text, s0, e0)
        if e1 > s1:
            body = runs.get(s1, s1)
            out.append((s1, e1, head if head and not text[s1:e1].startswith(head.rstrip(" …")) else "",
                        body if body < e1 else s1))
    return out


def bare_headings(text: str, cuts: list[int], headings: Collection[int], size: int = DEFAULT_CHUNK_SIZE) -> dict[int, int]:
    """Runs of sections holding nothing but a short heading line ("## Education" right above "### PhD, Utrecht
    University"; a job title heading right above its dates), each as where its first heading starts -> where the
    text it heads starts, among `cuts` (section starts, sorted, text start and end included; a section starts at
    one of `headings`). Such a run goes with the section after it, so no chunk is a heading alone, which answers
    nothing and is found for its words. A line before the first heading ("Download CV") is no heading."""
    runs: dict[int, int] = {}
    start = None  # where the current run of headings alone starts
    for a, b in zip(cuts, cuts[1:-1], strict=False):
        line = text[a:b].strip()
        if a in headings and line and "\n" not in line and len(line) <= size // 4:
            start = a if start is None else start
            runs[start] = b
        else:
            start = None
    return runs


def chunk_spans(doc: Document, size: int = DEFAULT_CHUNK_SIZE, overlap: int = DEFAULT_CHUNK_OVERLAP) -> list[tuple[int, int]]:
    """Spans of `doc.text` for the chunks (see `chunk_plan`)."""
    return [(a, b) for a, b, _ in chunk_plan(doc, size, overlap)]


def chunk_document(
    doc: Document, size: int = DEFAULT_CHUNK_SIZE, overlap: int = DEFAULT_CHUNK_OVERLAP
) -> list[Chunk]:
    """Split `doc` into chunks of about `size` characters that follow its sections and entries."""
    chunks = []
    for i, (start, end, head, at) in enumerate(_plan(doc, size, overlap)):
        section = doc.section_at(at)  # a chunk opening with headings alone is in the section its text goes on in
        chunks.append(
            Chunk(
                chunk_id=chunk_id_for(doc.sha256, start, end),
                doc=doc.path,
                doc_sha256=doc.sha256,
                ord=i,
                start=start,
                end=end,
                text=doc.text[start:end],
                page=doc.page_at(start),
                section=section.title if section else "",
                title=doc.title,
                owner=doc.owner,
                entry=head,
            )
        )
    return chunks
