"""Markdown front matter (Jekyll, Hugo, Pandoc): a YAML block between `---` lines at the very top.

The block is parsed with `yaml.safe_load` and removed from what gets indexed as written, but for its lines
holding an e-mail or web address, which a site's template shows in the page's header (`parse.parse_markdown`);
the content it holds (a role, a bio, a list of jobs or degrees) is indexed as its template would print it
(`frontmatter_text`). Its `title` becomes the format's title, its `author` (or `name`) the author property
and its `description` (`seo_title`, `subtitle`, `summary`) the description property ("CV of Jane Roe"), all only
evidence for the owner/title decision (`ingest.owner`). A block that is not valid YAML, or not a mapping, is left in
the text untouched.

Also read: MultiMarkdown / Python-Markdown / Pelican metadata, "Key: value" lines at the very top up to the
first blank line ("Title: Curriculum Vitae" / "Authors: Kyle Cranmer"). Since any text may open with such a
line ("Name: Jane Roe" / "Email: ..." in a CV), a block is metadata only when it has two lines or more and a
`title` key. TOML front matter between `+++` lines (Hugo, Zola) is read with `tomllib`, its author also from a
table (`[extra]`). Left out: JSON front matter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .addresses import shapes
from .frontmatter_text import render

_BLOCK = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)(?:\r?\n)(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
_TOML_BLOCK = re.compile(r"\A\ufeff?\+\+\+[ \t]*\r?\n(.*?)(?:\r?\n)\+\+\+[ \t]*(?:\r?\n|\Z)", re.S)  # Hugo, Zola
MAX_BLOCK = 64 * 1024  # a longer "front matter" is not one
# the keys a site generator's themes read for what a page is (Jekyll's SEO tag, Hugo, Pelican): its description
DESCRIPTION_KEYS = ("description", "seo_title", "subtitle", "summary")
_LINK = re.compile(r"\bhttps?://|\bwww\.", re.IGNORECASE)  # a web address as front matter writes one (not "main.bib")
_YAML_COMMENT = re.compile(r"(?:^|[ \t])#(?:[ \t].*)?$|^[ \t]*#.*$")  # a whole-line or trailing "# ..." comment
# MultiMarkdown metadata: "Key: value" lines (a value may go on over indented lines), then a blank line
_META_LINE = re.compile(r"([A-Za-z][\w-]*)[ \t]*:[ \t]*(.*)")


@dataclass(frozen=True)
class FrontMatter:
    title: str | None
    author: str | None
    end: int  # offset in the text where the body starts (0: no front matter)
    byline: tuple[str, ...] = ()  # a paper's authors, each with their affiliations, as its first page prints them
    descriptions: tuple[str, ...] = ()  # what the page says it is ("Jane Roe's personal CV", "CV of Jane Roe")
    # the content it holds, as its template prints it (`frontmatter_text`): "Label: value" lines for the top of
    # the page, and (level, heading, lines) sections for after the body
    top: tuple[str, ...] = ()
    sections: tuple[tuple[int, str, tuple[str, ...]], ...] = ()


def shown_lines(text: str, fm: FrontMatter) -> str:
    """What a page shows of its front matter `text[:fm.end]`, in as many lines or more: its lines holding an e-mail or
    web address where they stand (a template shows them in the page's header; comments left out), a paper's byline
    and the page's own values ("Role: PhD student") in the blank lines between, the rest blank."""
    lines = [_YAML_COMMENT.sub("", line) for line in text[: fm.end].split("\n")]  # a comment is no value
    shown = [line if shapes("email", line) or _LINK.search(line) else "" for line in lines]
    free = iter([i for i, line in enumerate(shown) if not line.strip()][1:])  # not the opening "---" line
    extra = []
    for line in (*fm.byline, *fm.top):
        i = next(free, None)
        if i is None:
            extra.append(line)
        else:
            shown[i] = line
    return "\n".join(extra + shown)


def _scalar(value: Any) -> str | None:
    """A short string from a YAML value: a string, the first of a list, or a mapping's `name`."""
    if isinstance(value, list) and value:
        value = value[0]
    if isinstance(value, dict):
        value = value.get("name")
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        text = " ".join(str(value).split())
        return text[:200] or None
    return None


def split_front_matter(text: str) -> FrontMatter:
    """The front matter's title and author, and where the body starts; `end == 0` when there is none."""
    m = _BLOCK.match(text)
    if m and len(m.group(1)) <= MAX_BLOCK:
        import yaml

        try:
            data = yaml.safe_load(m.group(1))
        except yaml.YAMLError:
            return FrontMatter(None, None, 0)
        return _properties(data, m.end())
    m = _TOML_BLOCK.match(text)
    if m and len(m.group(1)) <= MAX_BLOCK:
        import tomllib

        try:
            return _properties(tomllib.loads(m.group(1)), m.end())
        except tomllib.TOMLDecodeError:
            return FrontMatter(None, None, 0)
    return _metadata_lines(text)


def _properties(data: Any, end: int) -> FrontMatter:
    """Title and author of a parsed block: top-level keys, else an author in a table of it (Zola's `[extra]`,
    Hugo's `params`); not a mapping: no front matter."""
    if not isinstance(data, dict):
        return FrontMatter(None, None, 0)
    keys = {str(k).lower(): v for k, v in data.items()}
    found = [a for k in ("author", "authors", "name") if (a := _scalar(keys.get(k)))]
    # a name written in words before a user name ("name: Patrick Sadil" beside Hugo's "authors: [psadil]")
    author = next((a for a in found if " " in a), found[0] if found else None)
    if author is None:
        nested = [{str(k).lower(): v for k, v in v.items()} for v in keys.values() if isinstance(v, dict)]
        author = next((a for t in nested for k in ("author", "authors") if (a := _scalar(t.get(k)))), None)
    descriptions = tuple(d for k in DESCRIPTION_KEYS if isinstance(keys.get(k), str) and (d := _scalar(keys[k])))
    top, sections = render(data)
    return FrontMatter(_scalar(keys.get("title")), author, end, byline(keys), descriptions, top, sections)


# where a paper's front matter lists the affiliations its authors refer to by index or id (Pandoc, Quarto: `affiliations`;
# pandoc-scholar: `institute`; ReScience: `address`, each with a `code`)
AFFILIATION_LISTS = ("affiliations", "affiliation", "institute", "institutes", "address", "addresses")
MARKS = "*†‡§"  # a byline's marks beside an affiliation's index: corresponding author, equal contribution


def byline(keys: dict[str, Any]) -> tuple[str, ...]:
    """A paper's byline from Pandoc-style front matter (JOSS, Quarto, R Markdown): a line per author of a list of
    authors written as mappings ("- name: Jane Roe / affiliation: 1"), with the names of their affiliations,
    looked up by index or id in the top-level `affiliations` list when the author gives those ("Jane Roe
    (affiliation: University of Oslo; CERN)"). What a rendered paper prints under its title, so its text holds
    who wrote it and where they work. A single `author: Jane Roe` (a CV's, a blog's) or a list of plain names
    gives none: it is the owner's evidence, not a byline."""
    authors = keys.get("authors", keys.get("author"))
    if not isinstance(authors, list) or not authors or not all(isinstance(a, dict) for a in authors):
        return ()
    known: dict[str, str] = {}
    listed = next((v for k in AFFILIATION_LISTS if isinstance(v := keys.get(k), list)), [])
    for n, aff in enumerate(listed, 1):
        if isinstance(aff, dict) and (name := _scalar(aff) or next(
                (t for k in ("address", "institution", "organization") if (t := _scalar(aff.get(k)))), None)):
            for ref in (aff.get("index"), aff.get("id"), aff.get("ref"), aff.get("code"),
                        n if aff.get("index") is None else None):
                if ref is not None:
                    known.setdefault(str(ref).strip(), name)
    lines = []
    for author in authors:
        fields = {str(k).lower(): v for k, v in author.items()}
        name = _scalar(fields.get("name", fields.get("author")))  # Distill's front matter: {"author": ..., "affiliation": ...}
        if isinstance(fields.get("name"), dict):  # Quarto: name: {given: ..., family: ...}
            parts = {str(k).lower(): v for k, v in fields["name"].items()}
            name = _scalar(parts.get("literal")) or " ".join(
                p for k in ("given", "family") if (p := _scalar(parts.get(k)))) or None
        if not name:
            continue
        places = list(dict.fromkeys(_affiliations(fields.get("affiliation", fields.get("affiliations")), known)))
        lines.append(f"{name} (affiliation: {'; '.join(places)})" if places else name)
    return tuple(lines)


def _affiliations(value: Any, known: dict[str, str]) -> list[str]:
    """The affiliation names an author's `affiliation` value gives: indices or ids ("1, 2", 1, [1, 2], "a")
    looked up in `known`, mappings by their `name` (or `ref`), and any other text as written."""
    if value is None or isinstance(value, bool):
        return []
    if isinstance(value, list):
        return [n for v in value for n in _affiliations(v, known)]
    if isinstance(value, dict):
        ref = value.get("ref", value.get("id"))
        if ref is not None and str(ref).strip() in known:
            return [known[str(ref).strip()]]
        name = _scalar(value)
        return [name] if name else []
    text = " ".join(str(value).split())
    # "1, 2", and "1,*": a mark after an index says who is the corresponding author, not where they work
    refs = [r for part in text.split(",") if (r := part.strip().strip(MARKS).strip())]
    if refs and all(r in known for r in refs):
        return [known[r] for r in refs]
    return [text] if text and not all(r.isdigit() for r in refs) else []


def _metadata_lines(text: str) -> FrontMatter:
    """MultiMarkdown-style "Key: value" lines at the top (see the module docstring)."""
    keys: dict[str, str] = {}
    last = ""
    pos = 1 if text.startswith("\ufeff") else 0
    while pos < min(len(text), MAX_BLOCK):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end + 1
        line = text[pos:end].rstrip("\r\n")
        if not line.strip():
            break
        if line[0] in " \t" and last:
            keys[last] += " " + line.strip()
        elif m := _META_LINE.fullmatch(line):
            last = m.group(1).lower()
            keys[last] = m.group(2).strip()
        else:
            return FrontMatter(None, None, 0)
        pos = end
    else:
        return FrontMatter(None, None, 0)  # no blank line after it: the text is not metadata
    if len(keys) < 2 or not keys.get("title"):
        return FrontMatter(None, None, 0)
    author = next((_scalar(keys[k]) for k in ("author", "authors") if keys.get(k)), None)
    return FrontMatter(_scalar(keys["title"]), author, pos)
