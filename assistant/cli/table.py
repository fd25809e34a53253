"""`citewise table` (a row per person, a column per field), `citewise profile NAME` (one row, shown
vertically) and `citewise eval table` (the table scored against gold cells)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from .common import BadInput, cli_settings, friendly_errors, index_option
from .common import dump as _dump
from .common import open_assistant as _open

FORMATS = ("text", "csv", "json", "md")
FIELD_HELP = ('Add a field, "Label=question with {name}" (repeatable); a label already there gets the new '
              "question.")
MARGIN_HELP = ("Leave empty a cell this many logits less sure than the median of its column's filled cells "
               "(3 or more), and fill one the reader left empty that lies within it; a cell whose passage lacks "
               "the word its column's surest answers hold is left empty too; 'off' to keep every answer as the "
               "reader gives it.")


def _margin(ctx: click.Context, param: click.Parameter, value: str) -> float | None:
    if value.strip().lower() in ("off", "none"):
        return None
    try:
        margin = float(value)
    except ValueError:
        raise BadInput(f"--column-margin {value!r} is not a number of logits or 'off'") from None
    if not 0 <= margin < 100:
        raise BadInput(f"--column-margin {value!r}: give a margin from 0 to 100, or 'off'")
    return margin


def margin_option(f: Any) -> Any:
    from ..columns import COLUMN_MARGIN

    return click.option("--column-margin", "margin", default=str(COLUMN_MARGIN), show_default=True,
                        metavar="LOGITS|off", callback=_margin, help=MARGIN_HELP)(f)


FIELDS_HELP = "The fields: a packaged preset name (default: cv) or a TOML file with a [fields] table."


def _fields(fields_from: str | None, extra: tuple[str, ...]) -> Any:
    from ..table import TableError, choose_fields

    try:
        return choose_fields(fields_from, extra)
    except TableError as exc:
        raise BadInput(str(exc)) from None


def _bar(total_desc: str, quiet: bool) -> tuple[Callable[[int, int, str], None], Callable[[], None]]:
    """A tqdm progress bar on stderr (off when stderr is not a terminal): its callback and its close."""
    from tqdm import tqdm

    bar = tqdm(total=0, unit="cell", desc=total_desc, file=sys.stderr, disable=quiet or None)

    def progress(done: int, total: int, what: str) -> None:
        bar.total = total
        bar.n = done
        bar.set_postfix_str(what[:40], refresh=False)
        bar.refresh()

    return progress, bar.close


@click.command("table")
@index_option
@click.option("--field", "extra", multiple=True, metavar='"LABEL=QUESTION"', help=FIELD_HELP)
@click.option("--fields", "fields_from", metavar="NAME|FILE.toml", help=FIELDS_HELP)
@click.option("--people", "names", multiple=True, metavar="NAME",
              help="Only this person (any written form; repeatable). Default: every document owner.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text: a table for the terminal; csv: a value and a source column per field; "
                   "json: every cell with its confidence and citation; md: a Markdown table.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the table to FILE instead of stdout.")
@margin_option
@friendly_errors
def table_cmd(index_dir: Path | None, extra: tuple[str, ...], fields_from: str | None, names: tuple[str, ...],
              fmt: str, out: Path | None, margin: float | None) -> None:
    """A table of the people in your documents: a row per person (document owner), a column per field.

    Each field is a question about a person, answered from that person's own documents: a cell holds
    the answer's short value, how sure the reader is, and the exact quote it comes from (document,
    page or section). Where the documents do not answer, the cell stays empty ("–"), and so does a
    cell far less sure than the same field's cells for the other people, or whose passage lacks the
    word their surest answers hold ("PhD" for a PhD question) (--column-margin). The default
    fields (preset cv): current position, current employer, PhD institution, PhD year, research
    interests, email.

    \b
    Examples:
      citewise table
      citewise table --format csv --out people.csv
      citewise table --people Balin --people "Baolin Li" --format json
      citewise table --field "Advisor=Who was {name}'s PhD advisor?"
      citewise table --fields my-fields.toml    # [fields] "Label" = "question with {name}"
    """
    from ..table import TableError, table_text

    fields = _fields(fields_from, extra)
    assistant = _open(index_dir, embeds=True)
    progress, close = _bar("table", quiet=False)
    try:
        table = assistant.table(fields, list(names) or None, progress=progress, margin=margin)
    except TableError as exc:
        raise BadInput(str(exc)) from None
    finally:
        close()
        assistant.reader.keep_vectors(force=True)  # the next run embeds only new lines
    if not table.rows:
        click.echo("no person owns a document in this index, so the table is empty: `citewise docs` lists the "
                   "owners, `citewise docs --set-owner FILE NAME` sets one", err=True)
    if fmt == "json":
        import json

        text = json.dumps(table.to_dict(), ensure_ascii=False, indent=2) + "\n"
    elif fmt == "csv":
        text = table.to_csv()
    elif fmt == "md":
        text = table.to_markdown() + "\n"
    else:
        width = shutil.get_terminal_size((120, 24)).columns
        text = table_text(table, width) + "\n"
    if out is None:
        click.echo(text, nl=False)
        return
    out.write_text(text, encoding="utf-8")
    click.echo(f"{len(table.rows)} people × {len(table.fields)} fields written to {out}", err=True)


@click.command("profile")
@click.argument("name")
@index_option
@click.option("--field", "extra", multiple=True, metavar='"LABEL=QUESTION"', help=FIELD_HELP)
@click.option("--fields", "fields_from", metavar="NAME|FILE.toml", help=FIELDS_HELP)
@click.option("--json", "as_json", is_flag=True, help='{"person", "docs", "cells": [{"field", "value", "confidence", '
                                                      '"source", "citation"}]}')
@friendly_errors
def profile_cmd(name: str, index_dir: Path | None, extra: tuple[str, ...], fields_from: str | None,
                as_json: bool) -> None:
    """Show the person NAME (any written form: "Balin", "M. F. Balin") as one row of `citewise table`,
    one field a line: its value, how sure, and the quote it comes from; "not stated" where their
    documents do not answer.

    \b
    Examples:
      citewise profile "Fatih Balin"
      citewise profile Balin --field "Advisor=Who was {name}'s PhD advisor?" --json
    """
    from ..table import TableError, card_text, pick_people

    fields = _fields(fields_from, extra)
    assistant = _open(index_dir, embeds=True)
    try:
        pick_people(assistant.people.all(), [name])  # an unknown or ambiguous name: one line naming it
    except TableError as exc:
        raise BadInput(str(exc)) from None
    try:
        row = assistant.profile(name, fields)
    finally:
        assistant.reader.keep_vectors(force=True)
    if row is None:  # pick_people found them: only a changed index gets here
        raise click.ClickException(f"no person named {name!r} owns a document in this index")
    if as_json:
        _dump(row.to_dict())
    else:
        click.echo(card_text(row))


@click.command("table")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--docs", "docs_dir", required=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="The folder holding the documents FILE names (only those are indexed).")
@click.option("--index", "index_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Index them into this directory and keep it. Default: a temporary directory.")
@click.option("--split", help="Only the records of this split (tune, heldout). Default: all, also scored per split.")
@click.option("--field", "extra", multiple=True, metavar='"LABEL=QUESTION"', help=FIELD_HELP)
@click.option("--fields", "fields_from", metavar="NAME|FILE.toml", help=FIELDS_HELP)
@click.option("--items", "show_items", is_flag=True, help="Also list every scored cell.")
@margin_option
@click.option("--json", "as_json", is_flag=True, help='{"all": {...}, "splits": {...}, "fields": {...}, "seconds", '
                                                      '"cells"} (+ "items" with --items)')
@friendly_errors
def eval_table(file: Path, docs_dir: Path, index_dir: Path | None, split: str | None, extra: tuple[str, ...],
               fields_from: str | None, show_items: bool, margin: float | None, as_json: bool) -> None:
    """Score `citewise table` against gold cells: FILE holds one JSON line per person and field,
    {"doc", "person", "field", "gold": [alternatives], "split"}, gold [] where the document does not
    give the field. Reports cell accuracy (value or quote holds an alternative), value accuracy (the
    value alone holds one), the share of not-given
    cells left empty, the share of quotes that are exact substrings of their chunk, per split and per
    field, and the table's wall time.

    \b
    Example:
      citewise eval table bench/questions/table.jsonl --docs ../shared/eval/realdocs/docs --split tune
    """
    from ..api import Assistant, build_index, make_embedder
    from ..table_eval import load_gold, metrics_by, score_table, table_metrics

    fields = _fields(fields_from, extra)
    records = load_gold(file)
    if split:
        records = [r for r in records if r.get("split") == split]
        if not records:
            raise BadInput(f"no record of {file} is in split {split!r}")
    labels = {f.label for f in fields}
    missing = sorted({str(r["field"]) for r in records} - labels)
    if missing:
        raise BadInput(f"{file} scores fields the table does not have: {', '.join(missing)}; add them with --field")
    names = sorted({str(r["doc"]) for r in records})
    absent = [n for n in names if not (docs_dir / n).is_file()]
    if absent:
        raise BadInput(f"{file} names documents that are not in {docs_dir}: {', '.join(absent[:5])}")
    settings = cli_settings()
    with tempfile.TemporaryDirectory(prefix="citewise-table-") as tmp:
        store, _ = build_index([docs_dir / n for n in names], index_dir or Path(tmp), settings=settings)
        try:
            assistant = Assistant(store, make_embedder(store.manifest.embedder), settings=settings)
            people = [p for p in assistant.people.all()
                      if p.owner_known and any(os.path.basename(d) in names for d in p.docs)]
            progress, close = _bar("table", quiet=as_json)
            start = time.perf_counter()
            try:
                table = assistant.table_of(people, fields, progress, margin)
            finally:
                close()
            seconds = time.perf_counter() - start

            def chunk_text(chunk_id: str) -> str | None:
                chunk = store.chunk(chunk_id)
                return chunk.text if chunk else None

            scores = score_table(table, records, chunk_text)
        finally:
            store.close()
    cells = len(table.rows) * len(fields)
    result: dict[str, Any] = {"all": table_metrics(scores), "splits": metrics_by(scores, lambda s: s.split),
                              "fields": metrics_by(scores, lambda s: s.field), "seconds": round(seconds, 2),
                              "cells": cells, "people": len(table.rows)}
    if as_json:
        _dump({**result, "items": [s.to_dict() for s in scores]} if show_items else result)
        return
    click.echo(f"{file.name}: {len(table.rows)} people × {len(fields)} fields, {cells} cells in {seconds:.1f} s "
               f"({1000 * seconds / max(cells, 1):.0f} ms per cell)")
    click.echo(f"{'':<22}{'cell accuracy':>20}{'value accuracy':>20}{'left empty':>16}{'quotes exact':>16}")
    rows = {"all": result["all"], **({f"split {k}": v for k, v in result["splits"].items()} if not split else {}),
            **result["fields"]}
    for name, m in rows.items():
        click.echo(f"{name:<22}{m['cell_accuracy']:>8.3f} ({m['right']:>3.0f}/{m['given']:<3.0f})"
                   f"{m['value_accuracy']:>8.3f} ({m['value_right']:>3.0f}/{m['given']:<3.0f})"
                   f"{m['empty_share']:>8.3f} ({m['left_empty']:>2.0f}/{m['not_given']:<2.0f})"
                   f"{m['quotes_exact']:>10.3f} ({m['filled']:.0f})")
    if show_items:
        for s in scores:
            mark = "ok " if s.correct else "BAD"
            click.echo(f"{mark} {s.doc:<22} {s.field:<20} {'given' if s.given else 'not given':<9}  "
                       f"{' '.join(s.value.split())[:70]!r}  {s.source}")
