"""Cleaning of parsed text, keeping a character map back to the source.

Every rule is a regex substitution applied through `_sub`, which carries the map: characters a
rule keeps keep their source offsets, characters a rule inserts point at the start of the match.
Rules target what text extracted from PDFs and web pages carries: heading rules (`Education _`),
icon glyphs (`□`, `™`, private-use characters), LaTeX remnants (`$GPA \\ 4.0/4.0$`, `\\circ`),
inline HTML tags, accents set apart from their letters, hyphenation across line breaks (a hyphen before a
line break, or the U+FFFE some PDF text layers leave in its place) and page furniture. It leaves out anything that
needs layout (columns, tables); that is the parsers' job.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from collections.abc import Callable
from dataclasses import dataclass

import ftfy

from .names import join_spacing_accents


@dataclass(frozen=True)
class Cleaned:
    text: str
    char_map: array  # array('q'): cleaned index -> source index


Repl = str | Callable[[re.Match[str]], str]


def _sub(text: str, cmap: array, pattern: re.Pattern[str], repl: Repl) -> tuple[str, array]:
    out: list[str] = []
    omap = array("q")
    pos = 0
    for m in pattern.finditer(text):
        out.append(text[pos : m.start()])
        omap.extend(cmap[pos : m.start()])
        new = repl(m) if callable(repl) else m.expand(repl)
        if new:
            # Keep the source offsets of the characters a rule merely keeps (e.g. a group).
            matched = m.group(0)
            j = matched.find(new)
            if j >= 0:
                omap.extend(cmap[m.start() + j : m.start() + j + len(new)])
            else:
                anchor = cmap[m.start()] if m.start() < len(cmap) else (cmap[-1] + 1 if cmap else 0)
                omap.extend([anchor] * len(new))
            out.append(new)
        pos = m.end()
    out.append(text[pos:])
    omap.extend(cmap[pos:])
    return "".join(out), omap


def _fix_unicode(text: str, cmap: array) -> tuple[str, array]:
    """ftfy and NFKC (ligatures like `ﬁ`) line by line; a changed line maps to its own source span."""
    out: list[str] = []
    omap = array("q")
    pos = 0
    for line in text.splitlines(keepends=True):
        fixed = unicodedata.normalize("NFKC", ftfy.fix_text(line, normalization="NFC"))
        if fixed == line:
            omap.extend(cmap[pos : pos + len(line)])
        else:
            n = len(line)
            for i in range(len(fixed)):
                omap.append(cmap[pos + min(i * n // max(len(fixed), 1), n - 1)])
        out.append(fixed)
        pos += len(line)
    return "".join(out), omap


_PRIVATE_USE = "\ue000-\uf8ff"
_ICON_GLYPHS = "□■▪▫◆◇○●☐☎✉✆⌂⎋™®©"  # glyphs PDF exports put in place of icon fonts
_LATEX_SYMBOLS = {
    "times": "×", "cdot": "·", "circ": "", "bullet": "", "pm": "±", "leq": "≤", "geq": "≥",
    "approx": "≈", "sim": "~", "lambda": "λ", "alpha": "α", "beta": "β", "mu": "µ", "%": "%",
    "&": "&", "_": "_", "#": "#", "$": "$", "prime": "′", "ldots": "…", "dots": "…",
}


def _latex_command(m: re.Match[str]) -> str:
    name = m.group(1)
    return _LATEX_SYMBOLS.get(name, m.group(0))


_RULES: list[tuple[re.Pattern[str], Repl]] = [
    # Control characters other than tab/newline, zero-width and private-use characters, soft hyphens, and
    # the noncharacters U+FFFE/U+FFFF, which PDF text layers put where a word was hyphenated across a line
    # ("Lan\ufffeguage", "Ser\ufffevices"): the word is whole again, as a reader sees it.
    (re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u00ad\u200b-\u200d\ufeff\ufffe\uffff{_PRIVATE_USE}]"), ""),
    (re.compile(r"\r\n?"), "\n"),
    # Icon glyphs, with any markdown emphasis around them: `**™**`, `□`.
    (re.compile(rf"\*{{0,2}}[{_ICON_GLYPHS}]\*{{0,2}}[ \t]?"), ""),
    # Inline HTML tags that leaked into text: <i>, </b>, <br/>.
    (re.compile(r"</?(?:i|b|em|strong|u|sup|sub|span|br|small)\s*/?>", re.I), ""),
    # LaTeX: \textsc{X} -> X, \circ -> "", \% -> %, $...$ math delimiters around short text.
    (re.compile(r"\\(?:textsc|textbf|textit|emph|mathrm|text|mathbf)\{([^{}]*)\}"), r"\1"),
    (re.compile(r"\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}"), r"\1/\2"),
    (re.compile(r"([\^_])\{([^{}]{1,40})\}"), r"\1\2"),
    # Math delimiters, before the commands inside them are read, as Pandoc reads TeX math: the opening "$" has a
    # character right after it, the closing one a character right before it and no digit after, so two prices on a
    # line ("$892.7 million. The request is $527.8 million") keep their signs.
    (re.compile(r"\$(?=\S)([^$\n]{0,240})(?<=\S)\$(?!\d)"), lambda m: re.sub(r"\s*\\\s+", " ", m.group(1)).strip()),
    (re.compile(r"\\([A-Za-z]+|[%&_#$])"), _latex_command),
    (re.compile(r"\\ "), " "),
    # Markdown bold/italic markers inside text files: **Baolin Li** -> Baolin Li.
    (re.compile(r"\*\*([^*\n]+)\*\*"), r"\1"),
    # ... and strong emphasis written with underscores, as CommonMark reads it: opening after a space or an opening
    # bracket or quote, closing before a space or a punctuation mark, a space inside ("__AWS Certified Solutions
    # Architect__"). Underscores are word characters, so "__AWS" was a word no question's "AWS" met. A word's own
    # underscores (snake_case, "ASN1_MAX_NAME_SIZE") and a name in double underscores with no space inside
    # ("__init__", "defined(__CYGWIN__)") open nothing; italics in single underscores stay as written (taking them
    # out too moved the people table's column statistics: docs/measured.md, twenty-eighth session).
    (re.compile(r"""(?<![^\s(\["'“‘])__(?=[^\s_])([^_\n]*\s[^_\n]*[^\s_])__(?=[\s.,;:!?)\]"'’”]|$)"""), r"\1"),
    # Heading rules: "Education _", "Honors & Awards _____", "Skills." keeps its text.
    (re.compile(r"(?m)^([^\n_]{2,60}?)[ \t]+_{1,}[ \t]*$"), r"\1"),
    (re.compile(r"(?m)^[ \t]*_{3,}[ \t]*$"), ""),
    # Page furniture: "January 25, 2025 M. Fatih Balin · Résumé 2", "Page 3 of 7", a lone page number.
    (re.compile(r"(?m)^[^\n]{0,60}(?:Résumé|Resume|CV|Curriculum Vitae)[ \t]*(?:·[ \t]*)?\d{1,3}[ \t]*$"), ""),
    (re.compile(r"(?im)^[ \t]*(?:page[ \t]+)?\d{1,3}(?:[ \t]+of[ \t]+\d{1,3})?[ \t]*$"), ""),
    # Accents TeX-made PDFs set apart from their letter: "Universit ́e" (a combining mark after a
    # space), "Pˆarvulescu" (a spacing modifier): joined to the letter that follows and composed.
    (re.compile(" ([\u0300-\u036f]+)([^\\W\\d_])"), lambda m: unicodedata.normalize("NFC", m.group(2) + m.group(1))),
    (re.compile("[\u02c6\u02c7\u02c9\u02ca\u02cb] ?[A-Za-z\u0131]"), lambda m: join_spacing_accents(m.group(0))),
    # Hyphenation across a line break: "distri-\nbuted" -> "distributed".
    (re.compile(r"([a-z])-\n[ \t]*([a-z])"), r"\1\2"),
    # Bullets to one form; spacing.
    (re.compile(r"(?m)^[ \t]*(?:-[ \t]+)?[•·◦▸►‣⁃∙][ \t]*"), "- "),
    # A markdown quote marker left at the start of a line by an export: "> Baolin Li, ...".
    (re.compile(r"(?m)^[ \t]*>[ \t]+"), ""),
    (re.compile(r"[ \t\u00a0]{2,}|\t"), " "),
    (re.compile(r"(?m)[ \t]+$|^[ \t]+"), ""),
    (re.compile(r"\n{3,}"), "\n\n"),
]


def clean_text(source: str) -> Cleaned:
    """Clean `source`; the result's `char_map` maps every cleaned character to a source offset."""
    cmap = array("q", range(len(source)))
    # Icon glyphs go before Unicode normalisation, which would turn `™` into the letters "TM".
    text, cmap = source, cmap
    for pattern, repl in _RULES[:1] + _RULES[2:3]:
        text, cmap = _sub(text, cmap, pattern, repl)
    text, cmap = _fix_unicode(text, cmap)
    for pattern, repl in _RULES:
        text, cmap = _sub(text, cmap, pattern, repl)
    # Trim leading/trailing blank space while keeping the map aligned.
    lead = len(text) - len(text.lstrip())
    text = text.strip()
    cmap = cmap[lead : lead + len(text)]
    return Cleaned(text=text, char_map=cmap)
