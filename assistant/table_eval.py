"""Table metrics for `citewise eval table`: is each cell right, is what a document does not give left
empty, and is every quote exact?

Gold records, one per person and field (`bench/questions/table.jsonl`):
`{"doc": "cv01.pdf", "person": "...", "field": "<label>", "gold": [alternatives], "split": "tune"|"heldout"}`,
`gold: []` meaning the document does not give it. A record is matched to the row of the person who owns
`doc` (by file name), and to that row's cell of the same label.
- cell accuracy: given cells (non-empty `gold`) whose value or quote contains an alternative (case and
  spacing ignored); a person without a row (no owner found) has every cell empty;
- value accuracy: given cells whose value alone contains one (what a reader of the table sees first; a
  quote holding the answer beside a value that misses it is right by cell accuracy only);
- empty share: not-given cells (`gold: []`) left empty;
- quotes exact: filled cells whose quote is an exact substring of its stored chunk (below 100 % is a bug).
Left out: judging paraphrases (a value must contain the expected words) and a cell's value being the
best of several right ones.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .answer_eval import holds_answer
from .table import Cell, Table, TableError


@dataclass(frozen=True)
class CellScore:
    doc: str
    person: str
    field: str
    split: str
    given: bool  # the document gives this field (non-empty gold)
    filled: bool  # the table's cell is not empty
    correct: bool  # given: value or quote holds an alternative; not given: left empty
    value_correct: bool  # given: the value alone holds an alternative; not given: left empty
    exact: bool | None  # filled: its quote is an exact substring of the stored chunk; else None
    value: str = ""
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def load_gold(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The gold records of a table JSONL file; a record without doc, field or gold list is an error naming its line."""
    records = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise TableError(f"{path}:{n}: not JSON: {exc}") from exc
        if not (isinstance(record, dict) and isinstance(record.get("doc"), str) and isinstance(record.get("field"), str)
                and isinstance(record.get("gold"), list)):
            raise TableError(f'{path}:{n}: expected {{"doc", "person", "field", "gold": [...], "split"}}')
        records.append(record)
    return records


def score_cell(record: dict[str, Any], cell: Cell | None, chunk_text: Callable[[str], str | None]) -> CellScore:
    """Score the table's `cell` (None: the person has no row) against the gold `record`."""
    gold = [str(g) for g in record["gold"]]
    filled = cell is not None and cell.citation is not None
    c = cell.citation if cell is not None else None
    if gold:
        correct = filled and c is not None and cell is not None and (
            holds_answer([gold], cell.value) or holds_answer([gold], c.quote))
    else:
        correct = not filled
    value_correct = correct and holds_answer([gold], cell.value) if gold and cell is not None else correct
    exact = None if c is None else bool(c.quote) and c.quote in (chunk_text(c.chunk_id) or "")
    return CellScore(str(record["doc"]), str(record.get("person", "")), str(record["field"]),
                     str(record.get("split", "")), bool(gold), filled, correct, value_correct, exact,
                     cell.value if cell is not None else "", cell.source if cell is not None else "")


def score_table(table: Table, records: Iterable[dict[str, Any]],
                chunk_text: Callable[[str], str | None]) -> list[CellScore]:
    """Score every gold record against the row of the person who owns its document."""
    by_doc = {os.path.basename(d): row for row in table.rows for d in row.docs}
    scores = []
    for r in records:
        row = by_doc.get(str(r["doc"]))
        cell = next((c for c in row.cells if c.field == r["field"]), None) if row else None
        scores.append(score_cell(r, cell, chunk_text))
    return scores


def table_metrics(scores: Sequence[CellScore]) -> dict[str, float]:
    """Aggregate `CellScore`s (see the module docstring)."""
    given = [s for s in scores if s.given]
    not_given = [s for s in scores if not s.given]
    quoted = [s for s in scores if s.exact is not None]
    return {
        "cell_accuracy": sum(s.correct for s in given) / len(given) if given else 0.0,
        "value_accuracy": sum(s.value_correct for s in given) / len(given) if given else 0.0,
        "empty_share": sum(s.correct for s in not_given) / len(not_given) if not_given else 1.0,
        "quotes_exact": sum(bool(s.exact) for s in quoted) / len(quoted) if quoted else 1.0,
        "given": float(len(given)),
        "right": float(sum(s.correct for s in given)),
        "value_right": float(sum(s.value_correct for s in given)),
        "not_given": float(len(not_given)),
        "left_empty": float(sum(s.correct for s in not_given)),
        "filled": float(len(quoted)),
    }


def metrics_by(scores: Sequence[CellScore], key: Callable[[CellScore], str]) -> dict[str, dict[str, float]]:
    """`table_metrics` per value of `key` (a split, a field), in first-seen order."""
    groups: dict[str, list[CellScore]] = {}
    for s in scores:
        groups.setdefault(key(s), []).append(s)
    return {k: table_metrics(v) for k, v in groups.items()}
