"""A table read column by column: the other people's answers to the same question show its scale.

`build_table` builds a `table.Table` row by row (`table.build_row`: each field's question asked about each person)
and then reads each column as a whole (`against_column`): a cell far less sure than the same field's other cells is
left empty, so is one whose passage lacks the word the column's surest answers hold (a PhD question answered from a
bachelor's line: `key_word`) unless its section's heading holds the noun the question ends on (`_head`: "Interests"
for research interests), so is a period still running in a column of dates that have passed (a PhD student's
"2022 - present" for the year of the PhD, or a year read from such a line: `passed_dates`), so is a value with no year
in such a column, and one the reader left empty though it is about as sure
as them is asked again and filled. A column asking about the present (`present.asks_now`) keeps, and fills from a
second answer, any cell whose passage speaks of the present (`_of_now`: a period still running, "I am a ..."),
however unsure: every CV gives its owner's present, and its running entry shares few words with the question. The reader's confidence is on a different scale for each question (a PhD
question is answered at 0.98 from a PhD line and at 0.88 from a master's line, a job-title question at 0.4-0.6 from
the job line, below the reader's own threshold). A profile, one row, has no column to be read against.

A row is then read across (`corroborated`): a cell the reader left empty is asked again at any answerability, and
filled when that answer quotes the chunk that a filled cell of the same row quotes for a related question (the two
ask about the same thing: they share a word, or both ask about the present). "What is her current job title?" is
answered at 0.3-0.5 from a CV's running entry, below the reader's threshold, where "Where does she work now?"
is answered from the same entry with confidence: the two answers agree on where her present is written.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Collection, Sequence

from index.lemmas import lemmas
from index.lexical import STOPWORDS

from .answer import Answer
from .answer.asks import AUX
from .answer.detect import has_year
from .answer.model import logit
from .answer.present import asks_now, open_range, says_now
from .people import Person
from .table import NAME, Ask, Cell, Field, Progress, Row, Table, build_row, cell_of

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
# KEY_SHARE of its surest cells (the surest third, at least COLUMN_ROWS), or both of its KEY_RUN surest, hold in
# their quote or section; of several, the one fewest of the column's filled cells hold. A cell whose passage
# lacks it is left empty.
# The surest answers to "What are {name}'s research interests?" quote "Research Interests" lines, the answers
# from a CV without them quote a job line with "research" in it; "PhD" lines against bachelor's lines. A
# column's key word holds for every column whose question asks it too ("PhD": institution and year). The two
# constants are structural, not fitted: see docs/measured.md ("A column's key word").
KEY_SHARE = 0.75
KEY_PART = 1 / 3
# ... or a word both of its two surest answers hold: where most people's documents do not give the field, a wrong
# answer is often among the surest third ("Interests: analog photography", "Select research awards" beside a
# "Research Interests" section), and the two surest still agree on "interest".
KEY_RUN = 2
# A column of dates that have passed: when its question does not ask about the present (`present.asks_now`), at
# least KEY_SHARE of its filled cells give a value holding a year and fewer than half of them a period still running
# (`present.open_range`: a folder of a lab's CVs holds PhD students beside doctors), a
# cell whose value is a running period ("Sep. 2022 - Present" for "When did she get her PhD?", a PhD still
# under way), or a year read from a line that gives one ("2023 - : PhD in ..."), is left empty. A column whose
# answers run to the present ("When did he join ...?") keeps them.
RUNNING = "a period still running, where this field's other answers are dates that have passed"
# A column of passed dates answers with a date: a cell whose value holds no year is no answer of the column's kind
# ("PhD in Formal Methods, ISAE-SUPAERO, Present" for "When did he get his PhD?": a PhD under way, whose line gives
# no year) and is left empty. (A column about the present is no column of passed dates: its job titles may or may
# not carry their years.)
UNDATED = "no date, where this field's other answers are dates"


def _asked(field: Field) -> set[str]:
    """The words of `field`'s question (lemmas), less function words and the person's name."""
    return lemmas(field.question.replace(NAME, " ")) - STOPWORDS


def _topic(field: Field) -> set[str]:
    """The words of `field`'s question that name what it asks about: `_asked` less its verb where the question
    puts an auxiliary before the name ("Where does {name} *work* now?"), which says how it is asked, not of what
    (a CV's entry "Research Associate, University of Warwick (Present)" answers it without the word)."""
    before, _, after = field.question.partition(NAME)
    aux = before.split()[-1:]
    verb = after.split()[:1]
    if not (aux and verb and aux[0].lower() in AUX and verb[0].isalpha()):
        return _asked(field)
    return _asked(field) - lemmas(verb[0])


def _head(field: Field) -> str:
    """The noun `field`'s question ends on, when it names what is asked about ("interest" of "What are {name}'s
    research interests?", "title" of "What is {name}'s current job title?"): the last of its words that is one of
    `_topic`'s, else ""."""
    topic = _topic(field)
    words = [w for w in field.question.replace(NAME, " ").split() if lemmas(w) & topic]
    return next(iter(lemmas(words[-1]) & topic), "") if words else ""


def _with_cells(table: Table, rows: Sequence[Sequence[Cell]]) -> Table:
    """`table` with each row's cells replaced by `rows` (same people, same order)."""
    return Table(table.fields, tuple(Row(old.person, old.docs, tuple(cells)) for old, cells in zip(table.rows, rows, strict=True)))


def _held(cell: Cell) -> set[str]:
    """The lemmas of a filled cell's passage as the reader sees it: its quote and section."""
    c = cell.citation
    return lemmas(f"{c.quote} {c.section or ''}") if c is not None else set()


def _lacks(cell: Cell, keys: Collection[str], head: str) -> str:
    """The first of `keys` that the passage of `cell` does not hold, else "" (also when the heading of the cell's
    own section holds `head`, the noun its field's question ends on: `_head`)."""
    section = cell.citation.section if cell.citation is not None else ""
    if head and section and head in lemmas(section.split(" > ")[-1]):
        return ""  # "Interests" over "- Dynamical Systems" for "What are {name}'s research interests?"
    held = _held(cell)
    return next((k for k in sorted(keys) if k not in held), "")


def key_word(field: Field, cells: Sequence[Cell], min_rows: int = COLUMN_ROWS) -> str:
    """The word a passage answering `field` holds, by the column's own surest answers (see KEY_SHARE): a
    word of the question (not a function word, the name or the verb after it: `_topic`) held by at least KEY_SHARE of the surest third
    of `cells` (at least `min_rows` of them) or by both of the two surest (KEY_RUN), the one fewest of `cells` hold
    when there are several. ""
    when there is none (an e-mail address or an employer's name holds no word of its question), or fewer
    than `min_rows` filled cells with a confidence."""
    surest = [_held(c) for c in _surest(cells, min_rows)]
    if not surest:
        return ""
    held = [_held(c) for c in cells if c.citation is not None and c.confidence is not None]
    asked = _topic(field)
    top = surest[:KEY_RUN]
    keys = [w for w in sorted(asked) if sum(w in h for h in surest) >= KEY_SHARE * len(surest)
            or all(w in h for h in top)]
    return min(keys, key=lambda w: sum(w in h for h in held)) if keys else ""


def _surest(cells: Sequence[Cell], min_rows: int) -> list[Cell]:
    """The surest third of the filled cells of a column that carry a confidence (at least `min_rows`), surest
    first, or [] when fewer than `min_rows` are filled."""
    filled = sorted((c for c in cells if c.citation is not None and c.confidence is not None),
                    key=lambda c: -(c.confidence or 0.0))
    return filled[: max(min_rows, math.ceil(len(filled) * KEY_PART))] if len(filled) >= min_rows else []


def _running(cell: Cell) -> bool:
    """Is `cell`'s value a period still running, or read from a line that gives one ("2023 - : PhD in
    Neuroscience" for "2023", "Ph.D. Student 2026.04 - present" for "2026")?"""
    quote = cell.citation.quote if cell.citation is not None else ""
    lines = [line for line in quote.splitlines() if cell.value and cell.value in line]
    return open_range(cell.value) or any(open_range(line) for line in lines)


def _of_now(cell: Cell) -> bool:
    """Does the passage of `cell` speak of the present (`present.says_now`: a period still running, "I am a ...",
    "currently")? Such a passage answers a question about the present however unsure the reader is of it: a CV's
    running entry ("Senior Research Engineer / 2011- / Original member of ...") shares few words with "What is his
    current job title?", and every CV gives its owner's present."""
    c = cell.citation
    return c is not None and says_now(c.quote)


def passed_dates(cells: Sequence[Cell], min_rows: int = COLUMN_ROWS) -> bool:
    """Are a column's answers dates that have passed (see RUNNING)?"""
    filled = [c for c in cells if c.citation is not None and c.confidence is not None]
    if len(filled) < min_rows:
        return False
    dated = sum(has_year(c.value) for c in filled)
    running = sum(open_range(c.value) for c in filled)  # the values as they read
    return dated >= KEY_SHARE * len(filled) and running < len(filled) / 2


def _unfit(cell: Cell, passed: bool) -> str:
    """Why a filled `cell` of a column of passed dates (`passed`) is no answer of the column's kind, else "": a
    period still running (RUNNING), a value with no year (UNDATED)."""
    if not passed:
        return ""
    if _running(cell):
        return RUNNING
    return "" if has_year(cell.value) else UNDATED


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
        keys = found & _asked(fld)
        head = _head(fld)
        now = asks_now(fld.question)
        passed = not now and passed_dates([r[j] for r in rows], min_rows)

        for i, r in enumerate(rows):
            c = r[j]
            if c.confidence is None or c.note:
                continue
            if c.citation is not None and logit(c.confidence) < floor and not (now and _of_now(c)):
                r[j] = Cell(c.field, confidence=c.confidence, note=UNSURE)
            elif c.citation is not None and (key := _lacks(c, keys, head)):
                r[j] = Cell(c.field, confidence=c.confidence,
                            note=f"from a passage without “{key}”, a word the table's surest answers hold")
            elif c.citation is not None and (unfit := _unfit(c, passed)):
                r[j] = Cell(c.field, confidence=c.confidence, note=unfit)
            elif c.citation is None and reask is not None and (logit(c.confidence) >= floor or now):
                row = table.rows[i]
                again = cell_of(fld, reask(fld.ask(row.person)), row.docs, row.person)
                if (again.citation is not None and not _lacks(again, keys, head) and not _unfit(again, passed)
                        and (logit(c.confidence) >= floor or _of_now(again))):
                    r[j] = again
    return _with_cells(table, rows)


def _about(field: Field) -> set[str]:
    """What `field`'s question asks about: its words less function words and the name, and "now" when it asks
    about the present (`present.asks_now`)."""
    words = _asked(field)
    return words | {"now"} if asks_now(field.question) else words


def corroborated(table: Table, reask: Ask) -> Table:
    """`table` with each row read across (see the module docstring): an empty cell the reader abstained on (no
    note), or that its column found far less sure than its other cells (`UNSURE`), is asked again with `reask`
    (at any answerability) when another cell of its row, filled, answers a related question (`_about`: a word
    in common); the answer fills it when it quotes that cell's chunk and passes the column's checks (its key
    word, a period still running in a column of passed dates, a value with no year in one). The related cell vouches for the passage where
    the column's scale did not."""
    rows = [list(r.cells) for r in table.rows]
    about = [_about(f) for f in table.fields]
    found = {key_word(f, [r[j] for r in rows]) for j, f in enumerate(table.fields)} - {""}
    for j, fld in enumerate(table.fields):
        related = [k for k in range(len(table.fields)) if k != j and about[j] & about[k]]
        if not related:
            continue
        keys = found & _asked(fld)
        head = _head(fld)
        passed = not asks_now(fld.question) and passed_dates([r[j] for r in rows])
        for i, r in enumerate(rows):
            c = r[j]
            chunks = {cc.citation.chunk_id for k in related if (cc := r[k]).citation is not None}
            if c.citation is not None or (c.note and c.note != UNSURE) or not chunks:
                continue
            row = table.rows[i]
            again = cell_of(fld, reask(fld.ask(row.person)), row.docs, row.person)
            if (again.citation is not None and again.citation.chunk_id in chunks and not _lacks(again, keys, head)
                    and not _unfit(again, passed)):
                r[j] = again
    return _with_cells(table, rows)


def build_table(ask: Ask, people: Sequence[Person], fields: Sequence[Field], progress: Progress | None = None,
                margin: float | None = COLUMN_MARGIN, reask: Ask | None = None) -> Table:
    """A row per person of `people`, a cell per field, each column then read as a whole with
    `against_column(margin, reask=reask)` (None: every answer kept; see the module docstring), and, with
    `reask`, each row across (`corroborated`)."""
    total = len(people) * len(fields)
    done = 0

    def step(what: str) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, total, what)

    rows = tuple(build_row(ask, p, fields, step) for p in people)
    table = Table(tuple(fields), rows)
    if margin is None:
        return table
    if reask is None:
        return against_column(table, margin)
    asked: dict[str, Answer] = {}  # a cell the column asked again and the row asks again is asked once

    def once(question: str) -> Answer:
        if question not in asked:
            asked[question] = reask(question)
        return asked[question]

    return corroborated(against_column(table, margin, reask=once), once)
