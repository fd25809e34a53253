"""Markdown read as a renderer shows it: raw HTML tags and comments hidden (`strip_html`), template tags
hidden (`strip_templates`), Pandoc's citations, cross-references and image markup hidden (`strip_pandoc`), a
definition list's term and definition on one line (`join_definitions`).

Markdown lets a writer drop into HTML (`<table><tr><td>...`, `<a href="mailto:...">`, `<!-- an old entry -->`);
a renderer shows the text between the tags and hides the tags, their attributes and the comments. Indexed
as text they are noise in quotes ("<td>The Annual ...") and, worse, hidden words read as content: an
address obfuscated in an `href` for spam bots, or a CV entry the writer commented out.

`strip_html` blanks them out in place: every character of a tag or comment becomes a space (a newline
stays a newline), so every offset into the text is unchanged, and a tag that ends a block (`<br>`, `</p>`,
`</td>`, `</tr>`, `</li>`, `</div>`, `</table>`, headings) leaves a line break, as a renderer would. Code is
left alone: fenced blocks (``` and ~~~), indented blocks after a blank line, and `inline code`, where
`<div>` is what the writer means. Autolinks (`<https://...>`, `<jane@example.org>`) are Markdown, not
HTML, and stay. Left out: HTML entities (`&amp;`), which the cleaner's Unicode repair reads.
"""

from __future__ import annotations

import re

# a tag as CommonMark defines one: "<" a name, attributes (name, and "=" a quoted or bare value), "/"?, ">";
# a closing tag; or a comment. "<Jane Roe, Some Book, 1991>" (a citation in angle brackets) is none.
_ATTRIBUTE = r"""\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?"""
_TAG = re.compile(rf"<!--.*?(?:-->|\Z)|<[A-Za-z][A-Za-z0-9-]*(?:{_ATTRIBUTE})*\s*/?>|</[A-Za-z][A-Za-z0-9-]*\s*>", re.S)
_BLOCK_END = re.compile(r"<(?:br|hr)\b|</(?:p|div|li|tr|td|th|table|h[1-6]|ul|ol|dd|dt|section|blockquote)\s*>", re.I)
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)


def _code_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of the fenced and indented code blocks and the inline code of `text`."""
    spans: list[tuple[int, int]] = []
    fence = ""
    start = 0
    pos = 0
    blank_before = True
    for line in text.splitlines(keepends=True):
        end = pos + len(line)
        m = _FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                spans.append((start, end))
                fence = ""
        elif m:
            fence, start = m.group(1), pos
        elif blank_before and (line.startswith("    ") or line.startswith("\t")) and line.strip():
            spans.append((pos, end))  # an indented code line (after a blank line or another code line)
            pos = end
            continue
        blank_before = not line.strip()
        pos = end
    if fence:
        spans.append((start, len(text)))
    inline = [(m.start(), m.end()) for m in _CODE_SPAN.finditer(text)
              if not any(a <= m.start() < b for a, b in spans)]
    return sorted(spans + inline)


def strip_html(text: str) -> str:
    """`text` with its HTML tags and comments blanked out, outside code (see the module docstring); the same
    length, every offset kept."""
    if "<" not in text:
        return text
    out = list(text)
    for m in _blank(text, _TAG, out):
        if _BLOCK_END.match(m.group(0)) and "\n" not in m.group(0):
            out[m.start()] = "\n"
    return "".join(out)


def _blank(text: str, pattern: re.Pattern[str], out: list[str], groups: tuple[int, ...] = (0,)) -> list[re.Match[str]]:
    """Blank out in `out` (the characters of `text`) each match of `pattern` outside code (of each, the spans of
    `groups`: the whole match by default), its line breaks kept; the matches blanked."""
    code = _code_spans(text)
    done = []
    for m in pattern.finditer(text):
        if any(x <= m.start() < y for x, y in code):
            continue
        for g in groups:
            for i in range(m.start(g), m.end(g)):
                if out[i] != "\n":
                    out[i] = " "
        done.append(m)
    return done


# a template tag of the site generators that render Markdown pages: Liquid/Jekyll and Jinja ("{% include cv.html %}",
# "{{ site.email }}", "{%- if x -%}"), Hugo shortcodes ("{{< figure ... >}}", "{{% note %}}"); at most 400 characters
_TEMPLATE = re.compile(r"\{%.{0,400}?%\}|\{\{.{0,400}?\}\}", re.S)


def strip_templates(text: str) -> str:
    """`text` with its template tags blanked out, outside code, the same length, every offset kept: a site
    generator (Jekyll, Hugo) replaces them when it renders the page, so a reader never sees them ("CV: {% include
    archive-single-cv.html %}" was quoted as an answer). What a tag would put there is unknown here and left out."""
    if "{%" not in text and "{{" not in text:
        return text
    out = list(text)
    _blank(text, _TEMPLATE, out)
    return "".join(out)


# Pandoc's scholarly Markdown (JOSS, R Markdown, Quarto papers): a bracketed citation ("[@menzel2020]", "[see
# @a; @b, p. 3]", "[-@key]") and a LaTeX cross-reference ("\\label{fig:1}", "\\autoref{fig:1}"), which a renderer
# prints as a reference number or a figure number; an image's markup around its caption ("![" and
# "](figure.pdf){width=100%}"), of which it prints the caption alone.
_PANDOC = re.compile(
    r"\[(?:[^\[\]\n`@]*[\s;])?-?@[\w:.#$%&+?<>~/-]+(?:[;,][^\[\]\n`]*)?\](?![(\[])"  # a citation, not "[jroe@x.org]", "[@jroe](url)"
    r"|\\(?:label|ref|autoref|cref|Cref|eqref|pageref)\{[^{}\n]*\}")  # a LaTeX cross-reference
_IMAGE = re.compile(r"(!\[)(?:[^\[\]\n]|\[[^\[\]\n]*\])*(\]\([^()\s]*(?:\s+\"[^\"\n]*\")?\)(?:\{[^{}\n]*\})?)")
# Pandoc's markup that a renderer lays out and never prints: a bracketed span's attributes ("[2004-2009]{.cvfloat}",
# of which the text stays), a heading's or a block's attributes at the end of its line ("# Education {#edu}"), LaTeX's
# layout commands ("\\hfill", "\\vspace{2mm}"), a hard line break (a backslash ending a line), and a control word
# opening a line with no argument
_SPAN = re.compile(r"(?<![\]!])(\[)[^\[\]\n]*(\]\{[.#][^{}\n]*\})")
_LAYOUT = re.compile(r"[ \t]\{#[\w:.-]+(?:[ \t]+[.#]?[\w:.=\"-]+)*\}(?=[ \t]*$)"
                     r"|\\(?:hfill|hfil|vfill|newline|linebreak|noindent|smallskip|medskip|bigskip|newpage|clearpage|"
                     r"centering|raggedright|raggedleft)(?![A-Za-z])"
                     r"|\\[hv]space\*?\{[^{}\n]*\}"
                     r"|\\{1,2}(?=[ \t]*$)"
                     # a control word opening a line before a space, with no argument: raw TeX, a macro of the document's
                     # own LaTeX template ("\\ind 2013. PhD, Sociology, ..."), which Pandoc passes to LaTeX and no other
                     # output prints
                     r"|^[ \t]*\\[A-Za-z]+(?=[ \t]|$)", re.M)


def strip_pandoc(text: str) -> str:
    """`text` with Pandoc's citations and LaTeX cross-references blanked out, and of each image its markup but
    not its caption, outside code, the same length, every offset kept (see `_PANDOC`, `_IMAGE`): "... the corona
    radiata [@menzel2020-NeuroImage]." reads "... the corona radiata .". A link's address stays: it can name the
    person a page is about."""
    if "@" not in text and "\\" not in text and "![" not in text and "]{" not in text and "{#" not in text:
        return text
    out = list(text)
    _blank(text, _PANDOC, out)
    _blank(text, _IMAGE, out, groups=(1, 2))  # "![" and "](file){size}": the caption between stays
    _blank(text, _SPAN, out, groups=(1, 2))  # "[" and "]{.class}": the text between stays
    _blank(text, _LAYOUT, out)
    return "".join(out)


# a definition list's tight form (Pandoc, PHP Markdown Extra, kramdown): a term line, then ": definition"
_DEFINITION = re.compile(r"(?<=[^\n])\n(?=:[ \t]+\S)")


def join_definitions(text: str) -> str:
    """`text` with each definition of a tight definition list on its term's line ("2014-" / ": Associate
    Professor, University of Oregon" -> "2014- : Associate Professor, ..."), as a renderer sets them side by
    side in a CV: read apart, the term is a date that says nothing and its entry a line without a date. Only a
    term's first definition joins it (a second one, after a definition line, stays on its own line), code is
    left alone, and the length and every offset are kept (the line break becomes a space)."""
    if "\n:" not in text:
        return text
    out = list(text)
    code = _code_spans(text)
    for m in _DEFINITION.finditer(text):
        if any(a <= m.start() < b for a, b in code):
            continue
        line_start = text.rfind("\n", 0, m.start()) + 1
        if not text[line_start:m.start()].lstrip().startswith(":"):  # the line above is a term, not a definition
            out[m.start()] = " "
    return "".join(out)
