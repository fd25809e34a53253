"""reStructuredText (`.rst`): the text as written, minus markup a reader never sees, and its section
titles as an outline.

A section title is an unindented line underlined (optionally also overlined) by one punctuation
character repeated at least as long as the title; levels follow the order in which the styles first
appear, as docutils numbers them. The adornment lines and simple-table borders are blanked.

Explicit markup is read, never run: comments, hyperlink targets (`.. _name: url`), substitution
definitions and a directive's option lines are blanked; a directive's argument stays as text
(`.. rubric:: References` -> `References`) unless it names a file or a language (`image`, `include`,
`code-block`, ...). No file is included and nothing is executed: docutils itself is not used, since
its `include` and `raw` directives read other files and it drops the content of the directives it
does not know (Sphinx's `dropdown`, `note`, ...), which here stays.

Inline markup keeps what it displays: a role's title (`:ref:`Title <label>`` -> `Title`,
`:func:`~pkg.mod.fetch`` -> `fetch`), a link's text and address (`` `homepage <https://x>`_ `` ->
`homepage (https://x)`), literals and strong emphasis without their marks, a field list's name
without its leading colon (`:Creator: R.A. Fisher` -> `Creator: R.A. Fisher`).
"""

from __future__ import annotations

import re
from pathlib import Path

from .parsed import Parsed

_ADORNMENT = re.compile(r"""([!-/:-@\[-`{-~])\1{2,}""")  # one punctuation mark, three or more times
_BORDER = re.compile(r"[ \t]*[=+\-~][=+\-~ \t]*")  # simple and grid table borders
_MARKUP = re.compile(r"^([ \t]*)\.\.(?:[ \t]+(.*))?$")
_DIRECTIVE = re.compile(r"([\w:+.-]+)::(?:[ \t]+(.*))?$")
_NO_TEXT_ARG = frozenset({"image", "figure", "include", "literalinclude", "raw", "code", "code-block",
                          "sourcecode", "highlight", "csv-table", "currentmodule", "module", "toctree"})
_ROLE = re.compile(r":(?:[\w.+-]+:)+`([^`]+)`|`([^`]+)`:(?:[\w.+-]+:)+")
_LINK = re.compile(r"`([^`<]*?)\s*<([^`>]+)>`__?")
_REF = re.compile(r"`([^`]+)`__?")
_LITERAL = re.compile(r"``([^`]+)``")
_STRONG = re.compile(r"\*\*([^*]+)\*\*")
_FOOTNOTE_REF = re.compile(r"(\[[\w#*-]+\])_")
_FIELD = re.compile(r"^([ \t]*):([^:`\n]+):(?=[ \t]|$)")


def _role_text(m: re.Match[str]) -> str:
    body = (m.group(1) or m.group(2)).strip()
    title = re.match(r"(.*?)\s*<([^<>]+)>$", body)
    if title:
        return title.group(1) or title.group(2)
    if body.startswith("~"):
        return body[1:].rsplit(".", 1)[-1]
    return body.lstrip("!")


def inline(line: str) -> str:
    """`line` with its inline markup replaced by what docutils would display."""
    line = _LITERAL.sub(r"\1", line)
    line = _ROLE.sub(_role_text, line)
    line = _LINK.sub(lambda m: f"{m.group(1)} ({m.group(2)})" if m.group(1) else m.group(2), line)
    line = _REF.sub(r"\1", line)
    line = _STRONG.sub(r"\1", line)
    line = re.sub(r"(?<=\S)::[ \t]*$", ":", line)  # "as follows::" opens a literal block, shown "as follows:"
    line = re.sub(r"^[ \t]*::[ \t]*$|[ \t]+::[ \t]*$", "", line)
    line = _FIELD.sub(r"\1\2:", line)  # a field list's `:Creator: R.A. Fisher` reads "Creator: R.A. Fisher"
    return _FOOTNOTE_REF.sub(r"\1", line)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _explicit_markup(lines: list[str]) -> list[str]:
    """Comments, targets, substitution definitions and directive options blanked; directive
    arguments and footnote bodies kept. Blank lines stay, so the outline matches line by line."""
    out = list(lines)
    i = 0
    while i < len(lines):
        m = _MARKUP.match(lines[i])
        if not m:
            i += 1
            continue
        indent, rest = len(m.group(1)), (m.group(2) or "").strip()
        directive = _DIRECTIVE.match(rest)
        footnote = re.match(r"\[[\w#*-]+\][ \t]+", rest)
        if footnote:  # `.. [2] Lippmann et al.`: the note is text
            out[i] = " " * indent + rest
            i += 1
            continue
        if directive and not rest.startswith("|"):
            name, arg = directive.group(1), (directive.group(2) or "").strip()
            out[i] = " " * indent + arg if arg and name not in _NO_TEXT_ARG else ""
            i += 1
            while i < len(lines) and _indent(lines[i]) > indent and re.match(r"[ \t]*:[\w -]+:", lines[i]):
                out[i] = ""  # `:class: sphx-glr` options
                i += 1
            continue
        # a comment, a target or a substitution definition, with any indented continuation
        out[i] = ""
        i += 1
        while i < len(lines) and lines[i].strip() and _indent(lines[i]) > indent:
            out[i] = ""
            i += 1
    return out


def _titles(lines: list[str]) -> tuple[list[str], list[tuple[int, str]]]:
    """The lines with title adornments blanked, and the (level, title) outline in order."""
    styles: dict[tuple[str, bool], int] = {}
    outline: list[tuple[int, str]] = []
    out = list(lines)
    for i in range(1, len(lines)):
        under, title = lines[i].rstrip(), lines[i - 1].rstrip()
        if not _ADORNMENT.fullmatch(under) or not title.strip() or title[:1].isspace() or _ADORNMENT.fullmatch(title):
            continue
        if len(under) < min(len(title), 4) or (i >= 2 and lines[i - 2].strip() and lines[i - 2].rstrip() != under):
            continue  # too short to be a title's underline, or the end of a paragraph's line
        over = i >= 2 and lines[i - 2].rstrip() == under
        level = styles.setdefault((under[0], over), len(styles) + 1)
        outline.append((level, title.strip()))
        out[i] = ""
        if over:
            out[i - 2] = ""
    out = ["" if _BORDER.fullmatch(line) and len(line.strip()) >= 3 else line for line in out]
    return out, outline


def parse_rst(path: Path, data: bytes) -> Parsed:
    from .parse import decode_text

    lines = decode_text(path, data).split("\n")
    lines = [inline(line) for line in _explicit_markup(lines)]
    lines, outline = _titles(lines)
    first = next((line.strip() for line in lines if line.strip()), "")
    title = outline[0][1] if outline and first == outline[0][1] else None
    return Parsed(text="\n".join(lines), outline=tuple(outline), title=title)
