"""The `Document`: one source file, parsed and cleaned, with its pages and sections.

`text` is the cleaned text every chunk slices into; `char_map[i]` is the offset in the
parsed source text (`source`) of cleaned character `i`, so a quote can be shown where it came from.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field

# The version of what ingest makes of a file (parsing, cleaning, structure, chunking, owners). Bump it
# when a change alters the documents or chunks an unchanged file yields: `citewise index` then
# re-reads files an older version read, instead of keeping their old parse beside new ones.
# 2: soft hyphens and U+FFFE/U+FFFF removed (`clean`); 3: a name the text also writes in lower case is no
# owner, and a header field ("Metadata-Version: 2.1") no title; 4: ... nor one whose hyphenated words it
# writes in lower case piece by piece ("Shared MIME-info"); 5: owners from a name in capitals with a degree
# agreeing with the file name, a name line under a row of labels, a format title that is a name; a byline
# run together names several people (no owner); 6: an e-mail written against robots ("jroe [at] example
# (dot) org") near the top is a contact handle too (`addresses`); 7: a PDF's title property printed at the top
# of page 1 is its title, a section heading ("ABSTRACT") never is, and a title line ending in a colon or a
# preposition goes on on the next line (`title`); 8: an HTML heading's permalink ("¶") is no text; 9: a PDF
# line is set in its first letter's size, and margin line numbers ("12 The results show") are dropped; 10: in
# a document that does not look like a person's, a name with a word its text uses as an ordinary word is no
# owner unless author lists or the author property give it ("Apache License" over apache.org/licenses); 11: in
# such a document the author property says who wrote it, not whom it is about (a single-author paper has no owner);
# 12: a PDF line printed no larger than the body text is no heading, whatever its font size (a figure's labels);
# 13: a PDF heading wrapped onto the next line in the same style is one heading, on one line; 14: a margin label
# ("Education" in a left column, on the baseline of the text it labels) is a line of its own, and a DOCX laid out
# in a table is read cell by cell, its first page's header and its text boxes too; a paper's numbered section
# headings ("2.1 Data", "IV. EVALUATION") are sections; a chunk does not end with a heading-like line; 15: a PDF
# whose body is not bold sets headings in bold only a small step larger (`pdf_parser.BOLD_HEADING_RATIO`); 16: an article named after its title has no owner when the tagger does not read
# the title as a person's name and nothing but the file name agrees ("Sky (United Kingdom)" over `sky_united_kingdom.md`);
# 17: MultiMarkdown "Title: / Authors:" metadata lines are front matter; a line under the first section heading is
# no name line; a one-word Markdown link label is a handle, not lower-case words; a hyphenated surname is one name;
# 18: raw HTML tags and comments in Markdown are blanked out (`markdown_render`), code left alone; 19: a Markdown
# definition list's term and first definition are one line; 20: TOML front matter (`+++`, an author in `[extra]`);
# a name in a separated part of the title property ("cv | Jane Roe") is a heading's evidence; a sentence's full stop
# after a name is not the name's; 21: a front matter line holding an e-mail or web address stays in the text;
# 22: owners: a role nameparser knows word by word ("Software Engineer") is no name, bolded or not; a link's query
# string is no handle; a title property that is the author property's name makes the page the person's; 23:
# Markdown's template tags (Liquid, Jinja, Hugo shortcodes) are not text; 24: a paper's byline from Pandoc-style
# front matter (authors as mappings, with their affiliations) is text; 25: Pandoc's citations, LaTeX
# cross-references and image markup in Markdown are not text (an image's caption is); 26: an author list that is
# an item of a numbered list ("1. C. Cummins, P. Petoumenos.") counts its first author; 27: Pandoc's span, heading and
# block attributes ("[2004-2009]{.cvfloat}"), LaTeX's layout commands ("\\hfill") and hard line breaks in Markdown are
# not text (a span's text is); a name bolded counts as the owner's mark only inside an author list (a role bolded at
# the head of each entry, "**Postdoctoral Scholar**", is none); 28: a bold surname before its initials in an author
# list that writes every author so ("Yuan, M., **Lin, B.** and Li, P.") is the owner's mark, as "B. Lin"; 29: owners:
# a description property naming a person whose surname a handle spells ("CV of Jane Roe" over `roe_cv.md`), a
# self-introduction near the top ("Hi, I'm Jane Roe"), and a CV section named in the singular ("Position"); 30: the
# content a page's front matter holds is text as its template prints it ("Role: PhD student" at the top, a list of
# degrees or jobs as a section after the body), in Markdown and in an HTML template; its comments are not; an
# HTML line with no letter or digit ("-" of an empty item) is none; a bold name in author lists that write initials
# without stops ("F Chu, **AS Barente**", "Chu F, **Barente AS**") is the owner's mark; 31: owners: a Markdown link's
# path on the same site ("/cv/jane-roe-cv.pdf") spells a name as a link does; a title the tagger classes as a
# person's while labelling its words an organisation's is no evidence either way; 32: chunks: a section holding only
# its heading goes with the section after it (no chunk is a heading alone; a line before the first heading stays
# apart), and a block without a letter or digit ("---") is none; 33: owners: a nickname in brackets inside a name
# ("Yuxiao (Rain) Luo") is no separator; 34: owners: front matter's name written in words before a user name
# (`authors: [psadil]`), a number parts a link's words ("sadil-2021-nmm"), a two-letter surname spelled by a handle's
# word ("hu_cv"), a person's name in one separated part of the format's title ("Jane Foxall - Curriculum Vitae");
# 35: a paper's byline an HTML page keeps as metadata (Highwire `citation_author` tags, JSON-LD, Distill's JSON front
# matter) is text; a byline's affiliations are looked up in a front matter's `institute` or `address` list too, past
# the marks beside their index ("1,*"); 36: owners: a word glued to an "@" is an address or a handle, not the text
# writing a name's word in lower case ("roe.boris@@example.org", an address written to fool harvesters); 37: front
# matter content is rendered two levels deeper (a section's dated items' lines), and a date heading lines of its own
# stays ("label: 2019-20" over a job's lines); 38: owners: the words a document writes in lower case are read outside
# addresses as `addresses.without_addresses` finds them (the index's lemma counts read the same)
# 39: a "$" opens TeX math only before a character and closes it only after one, with no digit next (Pandoc's
# rule): two prices on a line keep their dollar signs; a table's rows are one block, kept whole in a chunk up to
# twice the chunk size (`chunk.TABLE_CHUNK`); 40: in Markdown, a control word opening a line with no argument is raw
# TeX ("\\ind 2013. PhD, ...": a macro of the document's own LaTeX template), not text; 41: Markdown strong emphasis
# written with underscores ("__AWS Certified__") is markup, as "**" was: "__AWS" was a word of its own
INGEST_VERSION = 41


@dataclass(frozen=True)
class PageSpan:
    """Page `number` (1-based) covers cleaned text `[start, end)`."""

    number: int
    start: int
    end: int


@dataclass(frozen=True)
class Section:
    """A heading path (outermost first) covering cleaned text `[start, end)`."""

    path: tuple[str, ...]
    start: int
    end: int

    @property
    def title(self) -> str:
        return " > ".join(self.path)


@dataclass(frozen=True)
class Document:
    path: str  # the source file's path as given by the user (resolved, absolute)
    sha256: str  # of the file's bytes: the identity used for incremental indexing
    format: str  # "text", "markdown", "rst", "pdf", "docx", "html"
    title: str
    text: str  # cleaned text
    source: str = field(repr=False)  # parsed, uncleaned text
    char_map: Sequence[int] = field(repr=False, default=())  # cleaned index -> source index
    pages: tuple[PageSpan, ...] = ()
    sections: tuple[Section, ...] = ()
    owner: str | None = None  # the person the document is about, when it is clearly one person's
    owner_source: str = ""  # the evidence for `owner`, "+"-joined ("title+email+filename"); "" without owner

    def page_at(self, offset: int) -> int | None:
        """The page number holding cleaned offset `offset`, or None for unpaginated formats."""
        if not self.pages:
            return None
        starts = [p.start for p in self.pages]
        i = max(0, bisect.bisect_right(starts, offset) - 1)
        return self.pages[i].number

    def section_at(self, offset: int) -> Section | None:
        """The innermost section holding `offset`, if any."""
        best: Section | None = None
        for s in self.sections:
            if s.start <= offset < s.end and (best is None or len(s.path) >= len(best.path)):
                best = s
        return best

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """Map cleaned `[start, end)` back to the source text."""
        if not self.char_map or start >= end:
            return start, end
        return self.char_map[start], self.char_map[end - 1] + 1
