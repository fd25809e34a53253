"""The People tab of the web UI: the people table as HTML, a cell's passage, the CSV download.

`build_view` builds the table with `Assistant.table` (on demand: a cell is a question to the reader),
renders it and writes its CSV to a fresh temporary folder, never into the index (Gradio copies the
file into its cache to serve it). A cell is `<td data-row=i data-col=j>` of the table the session
built; the browser script in `assets` sorts rows by a column in the browser (nothing is rebuilt) and
turns a click on a cell into an event carrying (row, col), which `cell_html` answers with the chat's
source panel (`chat.source_html`): the stored passage with the cell's quote marked.

Left out: choosing fields in the UI (the `cv` preset; `citewise table --field` gives others), editing
a cell, and keeping a built table across page reloads (build it again).
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from index import StoredChunk
from ingest import CitewiseError

from ..render import confidence_words
from ..table import Cell, Field, Progress, Table, choose_fields
from .chat import esc, panel_message, source_html

if TYPE_CHECKING:
    from ..api import Assistant

log = logging.getLogger(__name__)

CSV_NAME = "people.csv"
SHOWN_CHARS = 80  # a longer value is cut in the table; the passage view shows it whole
ERROR_CHARS = 300  # an error is one line, at most this long

EMPTY_PEOPLE_PANEL = (
    '<div class="cw-panel cw-panel-empty"><div class="cw-panel-icon">❝</div>'
    "<h3>Quotes</h3><p>Click a cell of the table to read the passage it quotes, highlighted in its "
    "document.</p></div>"
)


@dataclass(frozen=True)
class PeopleView:
    """What one build shows: the table (None after an error), its HTML, a status line, the CSV."""

    table: Table | None
    html: str
    status: str
    csv: Path | None = None


def intro_html(fields: Sequence[Field] | None = None) -> str:
    """The tab before a build: what the table holds and what building it costs."""
    labels = ", ".join(f.label for f in fields or choose_fields())
    return ('<div class="cw-empty"><div class="cw-panel-icon">☷</div><h3>The people in your documents, side by side</h3>'
            f"<p>A row per person, a column per field ({esc(labels)}). Every cell is the reader's answer, "
            "quoted from that person's own documents, or “not stated”.</p><p>Building asks each question about "
            "each person: a few seconds per person.</p></div>")


def no_people_html(documents: int) -> str:
    if not documents:
        return ('<div class="cw-empty"><div class="cw-panel-icon">📄</div><h3>No documents yet</h3>'
                "<p>Add documents in the Documents tab, then build the table.</p></div>")
    return ('<div class="cw-empty"><div class="cw-panel-icon">☷</div><h3>No people in this index</h3>'
            f"<p>A row is a person who owns a document, and none of the {documents} document"
            f"{'s' if documents != 1 else ''} has a known owner. Set one with "
            "<code>citewise docs --set-owner FILE NAME</code>.</p></div>")


def status_line(text: str, error: bool = False) -> str:
    cls = "cw-people-status cw-people-error" if error else "cw-people-status"
    return f'<div class="{cls}">{esc(text)}</div>'


def _flat(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _cell_td(cell: Cell, row: int, col: int) -> str:
    attrs = f'class="cw-cell{"" if cell.citation else " cw-cell-empty"}" tabindex="0" data-row="{row}" data-col="{col}"'
    if cell.citation is None:
        why = f"Left empty: the reader's answer was {cell.note}" if cell.note else "Not stated in their documents"
        return f'<td {attrs} data-sort="" title="{esc(why)}">not stated</td>'
    value = cell.shown
    return (f'<td {attrs} data-sort="{esc(value.casefold())}" title="{esc(cell.source)}: click to see the quote">'
            f'{esc(_flat(value, SHOWN_CHARS))}</td>')


def table_html(table: Table) -> str:
    """The table: a person column, then a column per field; headers sort (in the browser)."""
    heads = ["Person", *(f.label for f in table.fields)]
    head = "".join(f'<th aria-sort="none"><button type="button" class="cw-sort" data-col="{i}">{esc(h)}</button></th>'
                   for i, h in enumerate(heads))
    rows = []
    for i, row in enumerate(table.rows):
        docs = ", ".join(os.path.basename(d) for d in row.docs)
        cells = "".join(_cell_td(c, i, j) for j, c in enumerate(row.cells))
        rows.append(f'<tr><th scope="row" class="cw-person-cell" data-sort="{esc(row.person.casefold())}">'
                    f'{esc(row.person)}<div class="cw-cell-src">{esc(docs)}</div></th>{cells}</tr>')
    return (f'<div class="cw-people-wrap"><table class="cw-table cw-people-table"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def summary(table: Table, seconds: float) -> str:
    stated = sum(c.citation is not None for r in table.rows for c in r.cells)
    cells = len(table.rows) * len(table.fields)
    people = f"{len(table.rows)} {'person' if len(table.rows) == 1 else 'people'}"
    return (f"{people} × {len(table.fields)} fields, {stated} of {cells} cells stated, built in {seconds:.1f} s. "
            "Click a cell to see its quote; click a column heading to sort.")


def write_csv(table: Table, folder: str | os.PathLike[str] | None = None) -> Path:
    """`table.to_csv()` as `people.csv` in a new temporary folder (inside `folder` when given)."""
    out = Path(tempfile.mkdtemp(prefix="citewise-people-", dir=folder)) / CSV_NAME
    out.write_text(table.to_csv(), encoding="utf-8", newline="")
    return out


def build_view(assistant: Assistant, people: Sequence[str] | None = None, progress: Progress | None = None,
               folder: str | os.PathLike[str] | None = None) -> PeopleView:
    """Build the table of `people` (default everyone), render it and write its CSV into `folder`
    (see `write_csv`). An error is one readable line in `status`, with `table` None."""
    start = time.perf_counter()
    try:
        table = assistant.table(people=list(people or ()) or None, progress=progress)
        if not table.rows:
            return PeopleView(table, no_people_html(len(assistant.documents())), "")
        csv_path = write_csv(table, folder)
    except Exception as exc:  # one line in the tab, the app keeps serving
        if isinstance(exc, CitewiseError):
            why = str(exc)
        else:
            log.exception("building the people table failed")
            why = f"Building the table failed: {type(exc).__name__}: {exc}"
        return PeopleView(None, "", status_line(_flat(why, ERROR_CHARS), error=True))
    return PeopleView(table, table_html(table), status_line(summary(table, time.perf_counter() - start)), csv_path)


def _caption(person: str, field: Field, cell: Cell) -> str:
    sure = confidence_words(cell.confidence) if cell.citation else ""
    asked = f"Asked: “{esc(field.ask(person))}”" + (f" · confidence: {esc(sure)}" if sure else "")
    value = f'<div class="cw-cell-answer">{esc(cell.shown)}</div>' if cell.citation else ""
    return (f'<div class="cw-cell-caption"><div class="cw-cell-who">{esc(person)} · {esc(field.label)}</div>'
            f'{value}<div class="cw-small cw-muted">{asked}</div></div>')


def cell_html(table: Table | None, row: int, col: int, chunk: Callable[[str], StoredChunk | None]) -> str:
    """The passage view for cell (`row`, `col`) of `table`: the stored chunk (`chunk(chunk_id)`, e.g.
    `Assistant.chunk`) with the cell's quote marked, as the chat shows a citation."""
    if table is None or not (0 <= row < len(table.rows) and 0 <= col < len(table.fields)):
        return panel_message("Cell not found", "This cell is not in the table built here: build the table again.")
    person, field = table.rows[row].person, table.fields[col]
    cell = table.rows[row].cells[col]
    c = cell.citation
    if c is None and cell.note:
        return panel_message(f"{person} · {field.label}", f"Left empty: the reader's best answer to "
                             f"“{field.ask(person)}” was {cell.note}, so it may not be there.")
    if c is None:
        return panel_message(f"{person} · {field.label}", f"Not stated: the reader found no answer to "
                             f"“{field.ask(person)}” in {person}'s documents.")
    stored = chunk(c.chunk_id)
    if stored is None:
        return panel_message("Passage not found", "This passage is no longer in the index: its document was "
                             "removed or changed. Build the table again.")
    return source_html(stored.to_dict(), 0, c.quote_start, c.quote_start + len(c.quote),
                       caption=_caption(person, field, cell))
