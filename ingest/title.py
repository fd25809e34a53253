"""What is a document's title? Decided after its owner (`ingest.owner`), from the same layout.

Titles: the format's title (front matter, DOCX Title, HTML `<title>`), else the most prominent line
group of page 1 that is not an organisation's name (the issuer of a report), extended on form-like
pages (label: value lines) with the identifier-like values of the first fields (a report number, a
registration, a model), else the first short line that is not a header field ("Date: ..."); a
person's document whose title does not name its owner gets the owner appended ("CV — Nick Danis").
"""

from __future__ import annotations

import re
from pathlib import Path

from .names import fold, names_match
from .owner import _tokens
from .owner_names import _MONTHS, W_ORG, line_names, normalise, person_evidence
from .owner_page import MAX_LINE, TOP_LINES
from .parsed import Parsed
from .structure import SECTION_NAMES, heading_key

_LABEL_VALUE = re.compile(r"([A-Z][A-Za-z&/ ]{1,30}?):\s*(.*?)(?=\s+[A-Z][A-Za-z&/ ]{1,30}?:|$)")
_DATE = re.compile(r"\b\d{1,4}[/.-]\d{1,2}[/.-]\d{2,4}\b")


def _identifier_like(value: str) -> bool:
    """A form value that names this document among its kind: letters and digits, not a date."""
    value = value.strip(" ,;")
    if not value or len(value) > 40 or _DATE.search(value):
        return False
    if any(w.lower().strip(".,") in _MONTHS for w in value.split()):
        return False
    return bool(re.search(r"[A-Za-z]", value) and re.search(r"\d", value))


def _form_values(lines: list[str]) -> list[str]:
    """Identifier-like values of the first label/value lines of a form-like page, else []."""
    form_lines = [ln for ln in lines if _LABEL_VALUE.match(ln) and ":" in ln]
    if len(form_lines) < 3:
        return []
    values: list[str] = []
    for ln in form_lines[:3]:
        for _label, value in _LABEL_VALUE.findall(ln):
            if _identifier_like(value) and value.strip(" ,;") not in values:
                values.append(value.strip(" ,;"))
    return values[:3]


def _is_org(line: str) -> bool:
    return person_evidence(line) == W_ORG


def decide_title(parsed: Parsed, cleaned: str, path: str | Path, owner: str | None) -> str:
    """The document's title (see the module docstring)."""
    title = _base_title(parsed, cleaned)
    if title is None:
        title = owner or Path(path).stem
    title = " ".join(title.split())
    if owner and not (_tokens(owner) & _tokens_of(title)):
        title = f"{title} — {owner}"
    elif owner and not parsed.markdown and len(title) <= MAX_LINE and any(names_match(n, owner) for n in line_names(title)):
        # A title line that holds the owner's name (in capitals, or with a date or role fragment):
        # the name as the owner is written is the title.
        title = owner
    return title


def _tokens_of(text: str) -> set[str]:
    return {t for t in re.split(r"[^a-z0-9]+", fold(text)) if len(t) > 1}


def _base_title(parsed: Parsed, cleaned: str) -> str | None:
    if parsed.markdown:
        if parsed.meta_title and not _template(parsed.meta_title):
            return normalise(parsed.meta_title)
    elif parsed.title and parsed.title.strip():
        return normalise(parsed.title)
    if parsed.lines:
        first_page = min(ln.page for ln in parsed.lines)
        page = [ln for ln in parsed.lines if ln.page == first_page and len(ln.text.strip()) > 1]
        confirmed = _confirmed(parsed.meta_title, page[: TOP_LINES * 3])
        if confirmed:
            return confirmed
        # A section's heading ("ABSTRACT" set larger than a paper's title) names no document.
        sizes = [ln.size for ln in page[: TOP_LINES * 3] if ln.size > 0 and heading_key(ln.text) not in SECTION_NAMES]
        if sizes:
            biggest = max(sizes)
            groups: list[list[str]] = []
            prev = -2
            for i, ln in enumerate(page[: TOP_LINES * 3]):
                if ln.size >= biggest * 0.97 and len(ln.text) <= 200 and heading_key(ln.text) not in SECTION_NAMES:
                    cont = groups and i == prev + 1 and (ln.text[:1].islower() or _goes_on(groups[-1][-1]))
                    if cont:
                        groups[-1].append(ln.text)
                    else:
                        groups.append([ln.text])
                    prev = i
            texts = [normalise(" ".join(g)) for g in groups]
            texts = [t for t in texts if not _is_org(t)] or texts
            if texts:
                title = texts[0]
                after = [ln.text for ln in page if ln.size < biggest * 0.97][:TOP_LINES]
                values = _form_values(after)
                if values:
                    title = f"{title}: {', '.join(values)}"
                return title
    comment = False  # inside an HTML comment (a licence header above a README), which no reader sees
    for n, raw in enumerate(cleaned.splitlines()):
        if comment or raw.lstrip().startswith("<!--"):
            comment = "-->" not in raw
            continue
        line = raw.strip().lstrip("#*> ").strip()
        if not line or _template(line) or not any(c.isalpha() for c in line):
            continue  # (a rule of "=" under or over a reStructuredText heading is no title)
        if _FIELD.match(line):
            if n > _FIELD_LINES:
                break  # fields all the way down: the file's name is the better title
            continue  # a header field ("Metadata-Version: 2.1", "Date: 5 May 2024") names no document
        if len(line) <= 80 and heading_key(line) not in SECTION_NAMES:
            return normalise(line)
        break
    return None


# A line ending so goes on on the next line of the same size: a title wrapped after a comma, a hyphen or a
# colon before its subtitle, or after an English conjunction, preposition or article.
_GOES_ON = (",", "-", "–", ":")
# ("a" is left out: "Type A", "Vitamin A" end titles)
_GOES_ON_WORDS = frozenset(["and", "or", "of", "for", "in", "on", "at", "to", "with", "from", "by", "via", "the", "an"])


def _goes_on(line: str) -> bool:
    line = line.rstrip()
    words = _words(line[-12:])
    return line.endswith(_GOES_ON) or bool(words) and words[-1] in _GOES_ON_WORDS


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", fold(text))


def _confirmed(meta_title: str | None, top: list) -> str | None:  # type: ignore[type-arg]
    """The file's title property when the top of page 1 also prints it, as consecutive lines that hold
    its words in order and nothing else (so "Microsoft Word - cv.docx" or a title left over from a
    template never counts): the printed title, in the property's spelling."""
    want = _words(meta_title or "")
    if len(want) < 2 or _template(meta_title or ""):
        return None
    for i in range(len(top)):
        got: list[str] = []
        for ln in top[i:i + 4]:
            got += _words(ln.text)
            if got == want:
                return normalise(meta_title or "")
            if got != want[: len(got)]:
                break
    return None


_FIELD_LINES = 200  # header fields skipped before the title at most
# a "Label: value" field: one to four words, a colon, a value (not a sentence that has a colon in it)
_FIELD = re.compile(r"[A-Za-z][\w-]*(?:[ \t][\w-]+){0,3}:[ \t]+\S")  # ("email: ..." kept from front matter too)


def _template(line: str) -> bool:
    """Template code (Jekyll/Liquid `{% %}`, `{{ }}`), a YAML fence or markup, not prose."""
    s = line.strip()
    return s.startswith(("{%", "{{", "---", "<!--", "<")) or s in ("***", "___")
