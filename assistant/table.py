"""People tables: a row per person, a column per field, every cell the reader's answer with its quote.

A `Field` is a label and a question about a person ("Current position" = "What is {name}'s current
position?"). `build_table` asks each field's question about each person through the answer path
(`Assistant.ask`: a question naming a person searches only that person's documents) and keeps, per
cell, the answer's lead phrase (`Answer.fact`, else the start of its first quote), the reader's
confidence and the citation; an abstention is an empty cell ("not stated"), never a guess. A cell
only quotes the person's own documents: an answer citing someone else's leaves it empty. Once every row
is built, each column is read as a whole (`against_column`): a cell far less sure than the same field's
other cells is left empty, so is one whose passage lacks the word the column's surest answers hold (a PhD
question answered from a bachelor's line: `key_word`), so is a period still running in a column of dates that
have passed (a PhD student's "2022 - present" for the year of the PhD: `passed_dates`), and one the reader left empty though it is about as
sure as them is asked again and filled, because the reader's confidence is on a different scale for each question (a PhD question is
answered at 0.98 from a PhD line and at 0.88 from a master's line, a job-title question at 0.4-0.6 from the
job line, below the reader's own threshold), and the other people's answers to the same question show its scale.
Fields come from a named preset shipped in `assistant/fields/NAME.toml` (`cv` by default), from a
TOML file of the same shape, or from "Label=question" strings that add or replace fields.
`citewise profile NAME` is one row of the same table, shown vertically (`card_text`).
Left out: a cell holding several answers (every publication, every past position), and people who
own no document (a document without an owner has no row).
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import statistics
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
from .answer.candidates import BULLETS  # list and Markdown markers a value does not start with
from .answer.features import without_names
from .answer.model import logit
from .answer.present import open_range
from .answer.segments import sentences
from .people import Person
from .render import confidence_words, where

FIELDS_DIR = Path(__file__).resolve().parent / "fields"
DEFAULT_FIELDS = "cv"  # assistant/fields/cv.toml
NAME = "{name}"  # where a field's question puts the person's name
VALUE_CHARS = 120  # a cell without a lead phrase shows at most this much of its quote
PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
FIELD_EXAMPLE = "\"Advisor=Who was {name}'s PhD advisor?\""
# A filled cell whose confidence is more than COLUMN_MARGIN logits below the median of its column's filled
# cells is left empty, when the column has at least COLUMN_ROWS of them. Fitted on the table's tune people
# (bench/questions/table.jsonl), in logits of the answers' calibrated confidence (`ReaderModel.sure`): right
# cells lie at most 0.31 below their column's median, the answers to a field the CV does not give 0.76 to 2.3
# below it; 0.6 is inside that gap (before calibration: 0.54, 1.3 to 4, and a margin of 1.0). 3 cells are the
# fewest whose median is one of them; on every 3 of the 9 tune people, the rule empties 1.5 wrong or not-given
# cells per table for 0.1 right one. See docs/measured.md.
COLUMN_MARGIN = 0.6
COLUMN_ROWS = 3
UNSURE = "far less sure than this field's other cells"  # Cell.note of a cell left empty by against_column
# A column's key word: a word of its question (less function words and the person's name) that at least
# KEY_SHARE of its surest cells (the surest third, at least COLUMN_ROWS) hold in their quote or section; of
# several, the one fewest of the column's filled cells hold. A cell whose passage lacks it is left empty.
# The surest answers to "What are {name}'s research interests?" quote "Research Interests" lines, the answers
# from a CV without them quote a job line with "research" in it; "PhD" lines against bachelor's lines. A
# column's key word holds for every column whose question asks it too ("PhD": institution and year). The two
# constants are structural, not fitted: see docs/measured.md ("A column's key word").
KEY_SHARE = 0.75
KEY_PART = 1 / 3
# A column of dates that have passed: when at least KEY_SHARE of its filled cells give a value holding a year
# and no more than the rest of them a period still running (`present.open_range`), a
# cell whose value is a running period ("Sep. 2022 - Present" for "When did she get her PhD?", a PhD still
# under way) is left empty. A column whose answers run to the present ("When did he join ...?") keeps them.
RUNNING = "a period still running, where this field's other answers are dates that have passed"
_YEAR = re.compile(r"(?<!\d)(?:1[5-9]|20)\d\d(?!\d)")

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
                record[cell.field] = " ".join(cell.value.split())
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
            cells = [f"{esc(c.value)} _({esc(c.source)})_" if c.citation else "–" for c in row.cells]
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

def lead(quote: str, section: str = "", limit: int = VALUE_CHARS, question: str = "") -> str:
    """The start of `quote` as a cell value: an exact slice of it, without the section heading a chunk
    repeats at its top, a heading line in capitals or a list item's bullet, its first paragraph (up to a
    blank line) when that holds two words or more, at most `limit` characters, cut at a space. When its first
    line is prose too long to show whole, the sentence of that line sharing the most words with `question`
    (the first on a tie) instead: "He received a PhD from Princeton in 1942; ..." rather than the seminar
    the paragraph opens with. A CV's short lines keep their order (the institution above its degree)."""
    text = quote.lstrip(BULLETS + " \t\r\n")
    heading = section.split(" > ")[-1].strip()
    rest = text[len(heading):]
    if heading and text[: len(heading)].casefold() == heading.casefold() and rest[:1] in "\r\n" and rest.strip():
        text = rest.lstrip(BULLETS + " \t\r\n")  # the heading's own line, not a word that starts like it
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


def _held(cell: Cell) -> set[str]:
    """The lemmas of a filled cell's passage as the reader sees it: its quote and section."""
    c = cell.citation
    return lemmas(f"{c.quote} {c.section or ''}") if c is not None else set()


def _lacks(cell: Cell, keys: Collection[str]) -> str:
    """The first of `keys` that the passage of `cell` does not hold, else ""."""
    held = _held(cell)
    return next((k for k in sorted(keys) if k not in held), "")


def key_word(field: Field, cells: Sequence[Cell], min_rows: int = COLUMN_ROWS) -> str:
    """The word a passage answering `field` holds, by the column's own surest answers (see KEY_SHARE): a
    word of the question (not a function word, not the name) held by at least KEY_SHARE of the surest third
    of `cells` (at least `min_rows` of them), the one fewest of `cells` hold when there are several. ""
    when there is none (an e-mail address or an employer's name holds no word of its question), or fewer
    than `min_rows` filled cells with a confidence."""
    surest = [_held(c) for c in _surest(cells, min_rows)]
    if not surest:
        return ""
    held = [_held(c) for c in cells if c.citation is not None and c.confidence is not None]
    asked = lemmas(field.question.replace(NAME, " ")) - STOPWORDS
    keys = [w for w in sorted(asked) if sum(w in h for h in surest) >= KEY_SHARE * len(surest)]
    return min(keys, key=lambda w: sum(w in h for h in held)) if keys else ""


def _surest(cells: Sequence[Cell], min_rows: int) -> list[Cell]:
    """The surest third of the filled cells of a column that carry a confidence (at least `min_rows`), or []
    when fewer than `min_rows` are filled."""
    filled = sorted((c for c in cells if c.citation is not None and c.confidence is not None),
                    key=lambda c: -(c.confidence or 0.0))
    return filled[: max(min_rows, math.ceil(len(filled) * KEY_PART))] if len(filled) >= min_rows else []


def passed_dates(cells: Sequence[Cell], min_rows: int = COLUMN_ROWS) -> bool:
    """Are a column's answers dates that have passed (see RUNNING)?"""
    filled = [c for c in cells if c.citation is not None and c.confidence is not None]
    if len(filled) < min_rows:
        return False
    dated = sum(bool(_YEAR.search(c.value)) for c in filled)
    running = sum(open_range(c.value) for c in filled)
    return dated >= KEY_SHARE * len(filled) and running <= (1 - KEY_SHARE) * len(filled)


def against_column(table: Table, margin: float = COLUMN_MARGIN, min_rows: int = COLUMN_ROWS,
                   reask: Ask | None = None) -> Table:
    """`table` with each column read as a whole: a cell is filled when its confidence lies within `margin`
    logits of the median of its column's filled cells, and its passage holds the column's `key_word` (if it
    has one). A filled cell further below is left empty (its confidence kept, `note` UNSURE), as is one
    whose passage lacks the key word (`note` says so); with `reask` (the question answered at any
    answerability, e.g. `Assistant.ask(q, threshold=0)`), a cell the reader left empty though it lies within
    the margin is asked again and filled with that answer, unless the answer still abstains (a date question
    whose passage holds no date) or lacks the key word. A column with fewer than `min_rows` filled cells
    that carry a confidence is left as it is."""
    rows = [list(r.cells) for r in table.rows]
    found = {key_word(f, [r[j] for r in rows], min_rows) for j, f in enumerate(table.fields)} - {""}
    for j, fld in enumerate(table.fields):
        sure = [logit(c.confidence) for r in rows if (c := r[j]).citation is not None and c.confidence is not None]
        if len(sure) < min_rows:
            continue
        floor = statistics.median(sure) - margin
        # its own key word, and another column's that its question asks too ("PhD" for the PhD's year, read from
        # the PhD institution column when the year's surest answers include a bachelor's line)
        keys = found & (lemmas(fld.question.replace(NAME, " ")) - STOPWORDS)
        passed = passed_dates([r[j] for r in rows], min_rows)

        for i, r in enumerate(rows):
            c = r[j]
            if c.confidence is None or c.note:
                continue
            if c.citation is not None and logit(c.confidence) < floor:
                r[j] = Cell(c.field, confidence=c.confidence, note=UNSURE)
            elif c.citation is not None and (key := _lacks(c, keys)):
                r[j] = Cell(c.field, confidence=c.confidence,
                            note=f"from a passage without “{key}”, a word the table's surest answers hold")
            elif c.citation is not None and passed and open_range(c.value):
                r[j] = Cell(c.field, confidence=c.confidence, note=RUNNING)
            elif c.citation is None and reask is not None and logit(c.confidence) >= floor:
                row = table.rows[i]
                again = cell_of(fld, reask(fld.ask(row.person)), row.docs, row.person)
                if again.citation is not None and not _lacks(again, keys) and not (passed and open_range(again.value)):
                    r[j] = again
    return Table(table.fields, tuple(Row(old.person, old.docs, tuple(cells)) for old, cells in zip(table.rows, rows, strict=True)))


def build_table(ask: Ask, people: Sequence[Person], fields: Sequence[Field], progress: Progress | None = None,
                margin: float | None = COLUMN_MARGIN, reask: Ask | None = None) -> Table:
    """A row per person of `people`, a cell per field, each column then read as a whole with
    `against_column(margin, reask=reask)` (None: every answer kept; see the module docstring)."""
    total = len(people) * len(fields)
    done = 0

    def step(what: str) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, total, what)

    rows = tuple(build_row(ask, p, fields, step) for p in people)
    table = Table(tuple(fields), rows)
    return table if margin is None else against_column(table, margin, reask=reask)


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
        put(row.person, [c.value if c.citation else "–" for c in row.cells])
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
        out.append(f"{cell.field}: {' '.join(cell.value.split())}" + (f"  · {sure}" if sure else ""))
        out.append(f"    \"{quote[:197] + '…' if len(quote) > 198 else quote}\" {where(c.doc, c.page, c.section)}")
    return "\n".join(out)
