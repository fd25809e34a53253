"""What a page's front matter holds as content, as the text its site's template would print.

Site generators keep some pages' content in the front matter itself: a Hugo Academic author page's
`role`, `organizations`, `interests` and `education.courses`, a Jekyll CV's `experience` list of jobs
rendered by an HTML template. Left out of the text, a CV kept that way answers nothing. Rendered:

- a top-level value that is text ("role: PhD student", "bio: My research ...") becomes a line
  "Role: PhD student" at the top of the page, where a template shows it;
- a list or a mapping becomes a section headed by its key ("Education", "Experience"), after the
  body: one item per entry, the entry's text values joined with ", " in the order written ("- PhD in
  Statistics, ENSAI, 2021"), a period's two ends as one ("Jan 2020 – Present"); an entry with a list of
  its own is a head line with that list's items under it ("- Led a team of five"); a mapping inside a
  mapping is a sub-section ("Education > Courses").

Configuration is not content, and general shapes tell it apart: booleans, numbers and dates alone,
one token in lower case (an identifier or an option: "admin", "fas", "margin=1in"), paths and file names ("/cv/",
"files/cv.pdf"), LaTeX ("\\thepage"), and e-mail or web addresses (the lines holding those already stay in the text:
`frontmatter.shown_lines`).
Keys the pipeline reads as properties (title, author, name, the description keys) are not repeated.
An entry with no text value (a social link: icon, icon pack, address) is no line, and a list with no
entry no section.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any

from .addresses import shapes

# keys read as the document's properties (`frontmatter`), and a paper's authors and affiliations (its byline)
PROPERTY_KEYS = frozenset({"title", "author", "authors", "name", "affiliations",
                           "description", "seo_title", "subtitle", "summary"})
_PATH = re.compile(r"[^\s]*[/\\][^\s]*|[^\s]+\.[A-Za-z0-9]{2,5}")  # "/cv/", "files/cv.pdf", "me.jpg"
_LINK = re.compile(r"\bhttps?://|\bwww\.|^mailto:", re.IGNORECASE)
_LATEX = re.compile(r"\\[A-Za-z]+")  # typesetting ("\\thepage", "\\usepackage{...}"): a PDF template's setting
MAX_DEPTH = 6  # nesting below which nothing more is rendered (a list and its entries are a level each)
MAX_LINE = 600  # characters of one value


def _text(value: Any, *, in_entry: bool = False) -> str | None:
    """`value` as a line of text when it is content, else None (see the module docstring). Numbers and dates are
    content inside an entry ("year: 2021"), configuration at the top ("weight: 10")."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float | _dt.date):
        return str(value) if in_entry else None
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())[:MAX_LINE]
    if not re.search(r"[^\W\d_]", text):
        return text if (in_entry and text) else None
    if " " not in text and text == text.lower():
        return None  # one token in lower case is a setting ("admin", "fas", "xelatex", "margin=1in"), not a page's words
    if _PATH.fullmatch(text) or _LINK.search(text) or _LATEX.search(text) or shapes("email", text):
        return None
    return text


def _label(key: Any) -> str:
    """A key as a heading or a label: "research_interests" -> "Research interests"."""
    words = re.sub(r"[_-]+", " ", str(key)).strip()
    return words[:1].upper() + words[1:]


_YEAR = re.compile(r"\b(?:1[89]|2[01])\d\d\b")


def _ranges(values: list[str]) -> list[str]:
    """Adjacent values that are a period's two ends ("start: Jan 2020", "end: Present") as one "Jan 2020 – Present":
    a value with a year, then one with a year or a single capitalised word."""
    out: list[str] = []
    for text in values:
        prev = out[-1] if out else ""
        if (_YEAR.search(prev) and len(prev) <= 20 and " – " not in prev
                and (_YEAR.search(text) and len(text) <= 20 or re.fullmatch(r"[A-Z][a-z]+", text))):
            out[-1] = f"{prev} – {text}"
        else:
            out.append(text)
    return out


def _entry(value: Any, depth: int) -> list[str]:
    """The lines of one entry of a list: an item ("- PhD in Statistics, ENSAI, 2021"), or, when it has a list of
    its own, its head line (its text values joined) with that list's items under it and a blank line after."""
    if depth > MAX_DEPTH:
        return []
    if not isinstance(value, dict):
        if isinstance(value, list):
            return [line for v in value for line in _entry(v, depth + 1) if line]
        text = _text(value, in_entry=True)
        return [f"- {text}"] if text else []
    head = _ranges([t for v in value.values() if (t := _text(v, in_entry=True))])
    below = [line for v in value.values() if isinstance(v, list | dict) for line in _entry(v, depth + 1) if line]
    # an entry of numbers, dates and settings alone ("year: 2021", "icon: envelope, icon_pack: fas") says nothing;
    # a date heading lines of its own ("label: 2019-20" over "text: [Researcher, University of Hamburg]") dates them
    if not any(re.search(r"[^\W\d_]", t) for t in head) and not any(re.search(r"[^\W\d_]", b) for b in below):
        head = []
    if not head:
        return below if any(re.search(r"[^\W\d_]", b) for b in below) else []
    if not below:
        return [f"- {', '.join(head)}"]
    return [", ".join(head), *below, ""]


def _section(key: Any, value: Any, level: int, out: list[tuple[int, str, tuple[str, ...]]]) -> None:
    """Append the sections `value` makes under the heading `key` (a mapping of lists: sub-sections)."""
    if level > MAX_DEPTH:
        return
    if isinstance(value, list):
        lines = [line for v in value for line in _entry(v, level)]
        if lines:
            out.append((level, _label(key), tuple(lines)))
        return
    if isinstance(value, dict):
        flat = [f"{_label(k)}: {t}" for k, v in value.items() if str(k).lower() not in PROPERTY_KEYS and (t := _text(v))]
        mark = len(out)
        for k, v in value.items():
            if isinstance(v, list | dict):
                _section(k, v, level + 1, out)
        if flat or len(out) > mark:
            out.insert(mark, (level, _label(key), tuple(flat)))


def render(data: dict[str, Any]) -> tuple[tuple[str, ...], tuple[tuple[int, str, tuple[str, ...]], ...]]:
    """(top lines, sections) of a front matter's content: `top` the "Label: value" lines of its top-level text
    values, `sections` (level, heading, lines) for its lists and mappings, in the order written."""
    top: list[str] = []
    sections: list[tuple[int, str, tuple[str, ...]]] = []
    for key, value in data.items():
        if str(key).lower() in PROPERTY_KEYS:
            continue
        if isinstance(value, list | dict):
            _section(key, value, 1, sections)
        elif text := _text(value):
            top.append(f"{_label(key)}: {text}")
    return tuple(top), tuple(sections)


def as_markdown(sections: tuple[tuple[int, str, tuple[str, ...]], ...]) -> str:
    """The sections as Markdown: "# Education", "## Courses", then their lines."""
    parts = []
    for level, heading, lines in sections:
        parts.append("#" * level + " " + heading)
        parts.extend(lines)
        parts.append("")
    return "\n".join(parts)
