"""People tables: a row per person, a column per field, every cell the reader's answer with its quote.

A `Field` is a label and a question about a person ("Current position" = "What is {name}'s current
position?"). `build_row` asks each field's question about each person through the answer path
(`Assistant.ask`: a question naming a person searches only that person's documents) and keeps, per
cell, the answer's lead phrase (`Answer.fact`, else the start of its first quote), the reader's
confidence and the citation; an abstention is an empty cell ("not stated"), never a guess. A cell
only quotes the person's own documents: an answer citing someone else's leaves it empty. A table's columns
are then read as a whole (`assistant.columns`, which builds the table: `build_table`).
Fields come from a named preset shipped in `assistant/fields/NAME.toml` (`cv` by default), from a
TOML file of the same shape, or from "Label=question" strings that add or replace fields.
`citewise profile NAME` is one row of the same table, shown vertically (`card_text`).
Left out: a cell holding several answers (every publication, every past position), and people who
own no document (a document without an owner has no row).
"""

from __future__ import annotations

import csv
import io
import os
import re
import textwrap
import tomllib
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from index.lemmas import lemmas
from index.lexical import STOPWORDS
from ingest import CitewiseError
from ingest.names import names_match

from .answer import Answer, Citation
from .answer.candidates import BULLETS, MARKDOWN_LINK  # list and Markdown markers a value does not start with
from .answer.features import without_names
from .answer.segments import sentences
from .people import Person
from .render import confidence_words, where

FIELDS_DIR = Path(__file__).resolve().parent / "fields"
DEFAULT_FIELDS = "cv"  # assistant/fields/cv.toml
NAME = "{name}"  # where a field's question puts the person's name
VALUE_CHARS = 120  # a cell without a lead phrase shows at most this much of its quote
PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
FIELD_EXAMPLE = "\"Advisor=Who was {name}'s PhD advisor?\""
# Markdown's marks in a value: emphasis stars and backticks, an escape before them, a pair of underscores or one
# at a word's edge (not inside "snake_case"), a setext heading's underline (a link shows its text: MARKDOWN_LINK)
_MARKUP = re.compile(r"\\?[*`]+|(?<!\w)__?|__?(?!\w)|^[=-]{3,}$|(?<=\s)[=-]{3,}(?=\s)", re.M)
Ask = Callable[[str], Answer]
Progress = Callable[[int, int, str], None]  # (cells done, cells in all, "person: field")


class TableError(CitewiseError):
    """Bad input to a table (a field, a fields file or preset, a person's name); the message names it."""


@dataclass(frozen=True)
class Field:
    label: str
    question: str  # holds "{name}"

    def ask(self, name: str) -> str:
        """The question about the person `name`."""
        return self.question.replace(NAME, name)

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "question": self.question}


@dataclass(frozen=True)
class Cell:
    field: str  # the field's label
    value: str = ""  # the lead phrase, or the start of the quote (a slice of it); "" = not stated
    confidence: float | None = None  # the reader's probability for its best passage (None: no reader)
    citation: Citation | None = None  # None when the documents do not state it
    note: str = ""  # why a cell with an answer was left empty (UNSURE, or the key word its passage lacks), else ""

    @property
    def source(self) -> str:
        """Where the quote is: "cv.pdf p.3", "cv.md · Education", or "" for an empty cell."""
        c = self.citation
        if c is None:
            return ""
        name = os.path.basename(c.doc)
        return f"{name} p.{c.page}" if c.page is not None else f"{name} · {c.section}" if c.section else name

    @property
    def shown(self) -> str:
        """The value as the table shows it: on one line, without the Markdown marks a CV's source writes around and
        inside it ("*2011 – 2015*", "May 2013*", a heading's "======" underline), a link as its text. `value` stays the verbatim slice of the quote (the JSON keeps it)."""
        text = MARKDOWN_LINK.sub(r"\1", self.value)
        text = _MARKUP.sub("", text)
        return " ".join(text.split()).strip()

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "value": self.value,
                "confidence": None if self.confidence is None else round(self.confidence, 4),
                "source": self.source, "citation": self.citation.to_dict() if self.citation else None,
                **({"note": self.note} if self.note else {})}


@dataclass(frozen=True)
class Row:
    person: str
    docs: tuple[str, ...]
    cells: tuple[Cell, ...]  # one per field, in the table's field order

    def cell(self, label: str) -> Cell:
        found = next((c for c in self.cells if c.field == label), None)
        if found is None:
            raise KeyError(f"no field {label!r} in this row")
        return found

    def to_dict(self) -> dict[str, Any]:
        return {"person": self.person, "docs": list(self.docs), "cells": [c.to_dict() for c in self.cells]}


@dataclass(frozen=True)
class Table:
    fields: tuple[Field, ...]
    rows: tuple[Row, ...]

    def to_dict(self) -> dict[str, Any]:
        """Everything: the fields with their questions, and every cell with its confidence and citation."""
        return {"fields": [f.to_dict() for f in self.fields], "rows": [r.to_dict() for r in self.rows]}

    def to_records(self) -> list[dict[str, str]]:
        """One flat dict per person, the CSV's rows: "person", then per field its value ("Email") and
        where it is quoted from ("Email source")."""
        out = []
        for row in self.rows:
            record = {"person": row.person}
            for cell in row.cells:
                record[cell.field] = cell.shown
                record[f"{cell.field} source"] = cell.source
            out.append(record)
        return out

    def to_csv(self) -> str:
        """The table as CSV: a person column, then a value and a source column per field."""
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["person", *(h for f in self.fields for h in (f.label, f"{f.label} source"))])
        for record in self.to_records():
            writer.writerow(record.values())
        return buf.getvalue()

    def to_markdown(self) -> str:
        """A Markdown table: each cell's value with its source in italics; "–" for not stated."""
        def esc(text: str) -> str:
            return " ".join(text.split()).replace("|", "\\|")

        out = ["| person | " + " | ".join(esc(f.label) for f in self.fields) + " |",
               "|---" * (len(self.fields) + 1) + "|"]
        for row in self.rows:
            cells = [f"{esc(c.shown)} _({esc(c.source)})_" if c.citation else "–" for c in row.cells]
            out.append(f"| {esc(row.person)} | " + " | ".join(cells) + " |")
        return "\n".join(out)


# -- fields ---------------------------------------------------------------------------------------

def field_presets() -> dict[str, Path]:
    """The packaged field presets by name (`assistant/fields/NAME.toml`)."""
    return {p.stem: p for p in sorted(FIELDS_DIR.glob("*.toml"))}


def _field(label: str, question: str, source: str) -> Field:
    label, question = " ".join(label.split()), " ".join(question.split())
    if not label or not question:
        raise TableError(f"{source}: a field needs a label and a question, as in {FIELD_EXAMPLE}")
    if NAME not in question:
        raise TableError(f"{source}: the question {question!r} has no {NAME}: write where the person's name "
                         f"goes, as in {FIELD_EXAMPLE}")
    return Field(label, question)


def parse_field(spec: str) -> Field:
    """A field from "Label=question with {name}"."""
    label, sep, question = spec.partition("=")
    if not sep:
        raise TableError(f"bad field {spec!r}: write it as \"Label=question with {NAME}\", e.g. {FIELD_EXAMPLE}")
    return _field(label, question, f"bad field {spec!r}")


def fields_from(data: dict[str, Any], source: str) -> tuple[Field, ...]:
    """The fields of a parsed TOML document `{"description": ..., "fields": {label: question}}`."""
    fields = data.get("fields")
    unknown = sorted(set(data) - {"description", "fields"})
    if unknown or not isinstance(fields, dict) or not fields:
        raise TableError(f"{source}: expected a [fields] table of \"Label\" = \"question with {NAME}\" lines "
                         "(and an optional description)" + (f"; unknown keys: {', '.join(unknown)}" if unknown else ""))
    out: list[Field] = []
    for label, question in fields.items():
        if not isinstance(question, str):
            raise TableError(f"{source}: field {label!r} must be a question (a string), not {type(question).__name__}")
        out.append(_field(label, question, f"{source}: field {label!r}"))
    return tuple(out)


def load_fields(name_or_path: str | os.PathLike[str] = DEFAULT_FIELDS) -> tuple[Field, ...]:
    """The fields of the packaged preset `name_or_path` (see `field_presets`), else of that TOML file."""
    presets = field_presets()
    given = str(name_or_path)
    path = presets.get(given) or Path(given).expanduser()
    if not path.is_file():
        raise TableError(f"unknown fields {given!r}: not a preset ({', '.join(presets)}) and no such file; "
                         "give a preset name or a TOML file with a [fields] table")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TableError(f"cannot read fields file {path}: {exc.strerror or exc}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TableError(f"fields file {path} is not valid TOML: {exc}") from exc
    return fields_from(data, str(path))


def choose_fields(base: str | os.PathLike[str] | None = None, extra: Sequence[str] = ()) -> tuple[Field, ...]:
    """The fields of the preset or file `base` (default: `DEFAULT_FIELDS`), then each "Label=question"
    of `extra`: a label already there (case ignored) gets the new question, a new label is added last."""
    fields = list(load_fields(base or DEFAULT_FIELDS))
    for spec in extra:
        new = parse_field(spec)
        at = next((i for i, f in enumerate(fields) if f.label.casefold() == new.label.casefold()), None)
        if at is None:
            fields.append(new)
        else:
            fields[at] = Field(fields[at].label, new.question)
    return tuple(fields)


# -- people ---------------------------------------------------------------------------------------

def pick_people(everyone: Sequence[Person], names: Sequence[str] | None = None) -> list[Person]:
    """The people `names` name (any written form: "Balin", "M. F. Balin"), in that order; without
    names every document owner. An unknown or ambiguous name is a `TableError` naming it."""
    known = [p for p in everyone if p.owner_known]
    if not names:
        return known
    out: list[Person] = []
    for name in names:
        matches = [p for p in known if names_match(name, p.name)]
        if not matches:
            listed = ", ".join(p.name for p in known[:12]) + (f", … ({len(known)} in all)" if len(known) > 12 else "")
            raise TableError(f"no person named {name!r} owns a document in this index (people: {listed or 'none'})")
        if len(matches) > 1:
            raise TableError(f"{name!r} could be {' or '.join(p.name for p in matches)}: give more of the name")
        if matches[0] not in out:
            out.append(matches[0])
    return out


# -- cells ----------------------------------------------------------------------------------------

_MARKS = "#*_=-"  # a Markdown heading's or emphasis's marks around a line


def lead(quote: str, section: str = "", limit: int = VALUE_CHARS, question: str = "") -> str:
    """The start of `quote` as a cell value: an exact slice of it, without the section heading a chunk
    repeats at its top, a heading line in capitals or a list item's bullet, its first paragraph (up to a
    blank line) when that holds two words or more, at most `limit` characters, cut at a space. When its first
    line is prose too long to show whole, the sentence of that line sharing the most words with `question`
    (the first on a tie) instead: "He received a PhD from Princeton in 1942; ..." rather than the seminar
    the paragraph opens with. A CV's short lines keep their order (the institution above its degree)."""
    text = quote.lstrip(BULLETS + " \t\r\n")
    heading = section.split(" > ")[-1].strip().casefold()
    first, _, rest = text.partition("\n")
    if heading and first.strip(_MARKS + " \t\r").casefold() == heading and rest.strip():
        # the heading's own line ("### January 2025 – present"), not a word that starts like it: what it heads
        # follows. An outer heading above it stays: it may be what is asked ("Senior Research Engineer" over "2011-")
        text = rest.lstrip(BULLETS + " \t\r\n")
        first, _, rest = text.partition("\n")
    while len(first.split()) >= 2 and first.isupper() and rest.strip():  # "ACADEMIC EMPLOYMENT": a heading too
        text = rest.lstrip(BULLETS + " \t\r\n")
        first, _, rest = text.partition("\n")
    paragraph = PARAGRAPH_BREAK.split(text, maxsplit=1)[0].rstrip()
    if len(paragraph) < len(text.rstrip()) and len(paragraph.split()) >= 2:
        text = paragraph  # a CV entry ends at its blank line: "Emeritus Faculty, 2024–present.", not the next post
    if len(text) <= limit:
        return text.rstrip()
    first = text.split("\n", 1)[0]
    if question and len(first) > limit:
        wanted = lemmas(question) - STOPWORDS
        parts = sentences(first, 0, len(first), limit)
        if len(parts) > 1:
            a, b = max(parts, key=lambda sp: (len(wanted & lemmas(first[sp[0]:sp[1]])), -sp[0]))
            if wanted & lemmas(first[a:b]):
                return first[a:b].rstrip()
    cut = text.rfind(" ", 0, limit + 1)
    return text[: cut if cut > limit // 2 else limit].rstrip()


def cell_of(field: Field, answer: Answer, docs: Collection[str], person: str = "") -> Cell:
    """The cell for `field` from the answer about `person`, who owns `docs`: empty on an abstention
    or when no citation is from their documents."""
    own = [c for c in answer.citations if c.doc in docs]
    if answer.abstained or not own:
        return Cell(field.label, confidence=answer.confidence)
    fact = answer.fact.strip()
    cite = next((c for c in own if fact and fact in c.quote), None)
    if cite is None:
        cite, fact = own[0], ""
    asked = without_names(answer.question, [person]) if person else answer.question  # their name says who, not what
    value = fact or lead(cite.quote, cite.section, question=asked) or cite.quote.strip()
    return Cell(field.label, value, answer.confidence, cite)


def build_row(ask: Ask, person: Person, fields: Sequence[Field], progress: Callable[[str], None] | None = None) -> Row:
    """`person`'s row: each field's question asked with `ask` (e.g. `Assistant.ask`)."""
    cells = []
    for f in fields:
        cells.append(cell_of(f, ask(f.ask(person.name)), person.docs, person.name))
        if progress:
            progress(f"{person.name}: {f.label}")
    return Row(person.name, person.docs, tuple(cells))


# -- text -----------------------------------------------------------------------------------------

def _wrap(text: str, width: int, lines: int = 3) -> list[str]:
    out = textwrap.wrap(" ".join(text.split()), width) or [""]
    if len(out) > lines:
        out = out[:lines]
        out[-1] = out[-1][: width - 1].rstrip() + "…"
    return out


def table_text(table: Table, width: int = 120) -> str:
    """The table for a terminal `width` columns wide: a person column and a column per field, each
    value wrapped on up to three lines; "–" where the documents do not state it."""
    n = len(table.fields)
    person_w = min(max([6, *(len(r.person) for r in table.rows)]), 24)
    col = max(10, (width - person_w - 2 * n) // max(n, 1))
    lines: list[str] = []

    def put(first: str, cells: list[str]) -> None:
        wrapped = [_wrap(first, person_w), *(_wrap(c, col) for c in cells)]
        for i in range(max(len(w) for w in wrapped)):
            parts = [(w[i] if i < len(w) else "") for w in wrapped]
            lines.append(f"{parts[0]:<{person_w}}" + "".join(f"  {p:<{col}}" for p in parts[1:]).rstrip())

    put("person", [f.label for f in table.fields])
    lines.append("-" * min(width, person_w + n * (col + 2)))
    for row in table.rows:
        put(row.person, [c.shown if c.citation else "–" for c in row.cells])
    return "\n".join(lines)


def card_text(row: Row) -> str:
    """One row shown vertically, as `citewise profile` prints it: "label: value", how sure, and the
    quote with where it is; "not stated" for an empty cell."""
    out = [row.person, "  " + ", ".join(os.path.basename(d) for d in row.docs), ""]
    for cell in row.cells:
        if cell.citation is None:
            out.append(f"{cell.field}: not stated")
            continue
        sure = confidence_words(cell.confidence)
        c = cell.citation
        quote = " ".join(c.quote.split())
        out.append(f"{cell.field}: {cell.shown}" + (f"  · {sure}" if sure else ""))
        out.append(f"    \"{quote[:197] + '…' if len(quote) > 198 else quote}\" {where(c.doc, c.page, c.section)}")
    return "\n".join(out)
