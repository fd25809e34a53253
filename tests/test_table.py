"""The people table: fields as questions, cells as the reader's cited answers, CSV/JSON/Markdown, the
scorer, and the CLI. Fast tests build tables by hand; the slow ones run the real model, FAISS and
SQLite over examples/profiles/."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from assistant.answer import Answer, Citation
from assistant.cli import main
from assistant.columns import (
    COLUMN_MARGIN,
    RUNNING,
    UNDATED,
    UNSURE,
    _head,
    against_column,
    corroborated,
    key_word,
    passed_dates,
)
from assistant.people import Person
from assistant.table import (
    DEFAULT_FIELDS,
    Cell,
    Field,
    Row,
    Table,
    TableError,
    card_text,
    cell_of,
    choose_fields,
    field_presets,
    lead,
    load_fields,
    parse_field,
    pick_people,
    table_text,
)
from assistant.table_eval import load_gold, score_cell, score_table, table_metrics

CHILDREN = "Children=How many children does {name} have?"  # no profile says: every cell must stay empty


def run(args: list[str]) -> Result:
    return CliRunner().invoke(main, args)


def one_line_error(result: Result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    for w in words:
        assert w in lines[0], lines[0]


def cite(quote: str, doc: str = "/d/ada.pdf", page: int | None = 2, section: str = "Education",
         chunk_id: str = "c1") -> Citation:
    return Citation(1, chunk_id, doc, page, section, quote, 0.5, "Ada Roe", 0)


# -- fields -------------------------------------------------------------------------------------

def test_the_default_preset_is_named_and_packaged() -> None:
    assert DEFAULT_FIELDS in field_presets()
    labels = [f.label for f in load_fields()]
    assert labels == ["Current position", "Current employer", "PhD institution", "PhD year", "Research interests",
                      "Email"]
    assert all("{name}" in f.question for f in load_fields())


def test_a_field_is_a_label_and_a_question_about_a_person() -> None:
    f = parse_field("Advisor = Who was {name}'s PhD advisor? ")
    assert f == Field("Advisor", "Who was {name}'s PhD advisor?")
    assert f.ask("Ada Roe") == "Who was Ada Roe's PhD advisor?"
    assert parse_field("Math=What is 2+2={name}?").question == "What is 2+2={name}?"  # the first '=' splits


@pytest.mark.parametrize(("spec", "words"), [
    ("Advisor", ["'Advisor'", "Label=question"]),
    ("Advisor=Who advised them?", ["'Advisor=Who advised them?'", "{name}"]),
    ("=What is {name}'s email?", ["needs a label"]),
    ("Email=", ["needs a label and a question"]),
])
def test_a_malformed_field_is_an_error_naming_it(spec: str, words: list[str]) -> None:
    with pytest.raises(TableError) as err:
        parse_field(spec)
    for w in words:
        assert w in str(err.value)


def test_added_fields_replace_a_label_or_come_last() -> None:
    fields = choose_fields(extra=["email=Where can {name} be written to?", "Advisor=Who was {name}'s PhD advisor?"])
    assert [f.label for f in fields][-2:] == ["Email", "Advisor"]
    assert fields[-2].question == "Where can {name} be written to?"  # same label, case ignored: replaced
    assert len(fields) == len(load_fields()) + 1


def test_fields_from_a_toml_file(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    path.write_text('description = "mine"\n[fields]\nAdvisor = "Who was {name}\'s PhD advisor?"\n'
                    '"Home town" = "Where is {name} from?"\n', encoding="utf-8")
    assert [f.label for f in load_fields(path)] == ["Advisor", "Home town"]
    assert [f.label for f in choose_fields(str(path), ["Email=What is {name}'s email?"])] == ["Advisor", "Home town",
                                                                                               "Email"]


@pytest.mark.parametrize(("text", "words"), [
    ("[fields\nA = 'x'", ["not valid TOML"]),
    ("title = 'x'\n[fields]\nA = 'What is {name}?'", ["unknown keys: title"]),
    ("description = 'no fields'", ["expected a [fields] table"]),
    ("[fields]\nA = 3", ["field 'A'", "not int"]),
    ("[fields]\nA = 'What is it?'", ["field 'A'", "{name}"]),
])
def test_a_bad_fields_file_is_an_error_naming_it(tmp_path: Path, text: str, words: list[str]) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TableError) as err:
        load_fields(path)
    for w in [str(path), *words]:
        assert w in str(err.value)


def test_an_unknown_preset_names_the_presets() -> None:
    with pytest.raises(TableError, match=r"unknown fields 'cvs'.*cv"):
        load_fields("cvs")


# -- people -------------------------------------------------------------------------------------

def test_people_are_picked_by_any_written_form_and_bad_names_are_named() -> None:
    everyone = [Person("Ada Roe", ("/d/ada.pdf",)), Person("Bea Roe", ("/d/bea.pdf",)),
                Person("notes", ("/d/notes.txt",), owner_known=False)]
    assert [p.name for p in pick_people(everyone)] == ["Ada Roe", "Bea Roe"]  # no row without an owner
    assert [p.name for p in pick_people(everyone, ["B. Roe", "Ada Roe", "Bea Roe"])] == ["Bea Roe", "Ada Roe"]
    with pytest.raises(TableError, match=r"no person named 'Cy Roe'.*Ada Roe, Bea Roe"):
        pick_people(everyone, ["Cy Roe"])
    with pytest.raises(TableError, match=r"'Roe' could be Ada Roe or Bea Roe"):
        pick_people(everyone, ["Roe"])


# -- cells --------------------------------------------------------------------------------------

def test_a_cell_is_the_lead_phrase_or_the_start_of_the_quote() -> None:
    f = Field("PhD institution", "Where did {name} do their PhD?")
    docs = ("/d/ada.pdf",)
    quote = "Education\n\nCambridge University\nPh.D. in Mathematics, 1990"
    answer = Answer("q", "Cambridge University [1]", False, (cite(quote),), fact="Cambridge University",
                    confidence=0.9)
    assert cell_of(f, answer, docs) == Cell("PhD institution", "Cambridge University", 0.9, cite(quote))
    plain = cell_of(f, Answer("q", "x [1]", False, (cite(quote),), confidence=0.8), docs)
    assert plain.value == "Cambridge University\nPh.D. in Mathematics, 1990" and plain.value in quote  # heading dropped
    assert plain.source == "ada.pdf p.2"


def test_a_long_prose_quote_shows_its_answering_sentence_not_its_opening() -> None:
    f = Field("PhD institution", "Where did {name} do their PhD?")
    quote = ("Attendees at Feynman's first seminar included Albert Einstein, Wolfgang Pauli, and John von Neumann. "
             "He received a PhD from Princeton in 1942; his thesis advisor was John Archibald Wheeler.")
    answer = Answer(f.ask("Richard Feynman"), "x [1]", False, (cite(quote, doc="/d/rf.md"),), confidence=0.7)
    cell = cell_of(f, answer, ("/d/rf.md",), "Richard Feynman")
    assert cell.value == "He received a PhD from Princeton in 1942; his thesis advisor was John Archibald Wheeler."
    assert cell.value in quote  # a slice of the quote, not a paraphrase
    # without the person's name set aside, "Feynman's" in the opening sentence ties with "PhD": the first wins
    assert cell_of(f, answer, ("/d/rf.md",)).value.startswith("Attendees at Feynman's")


def test_an_abstention_or_another_persons_quote_is_an_empty_cell() -> None:
    f = Field("Email", "What is {name}'s email?")
    abstained = cell_of(f, Answer("q", "not found", True, confidence=0.1), ("/d/ada.pdf",))
    assert abstained == Cell("Email", "", 0.1, None) and abstained.source == ""
    elsewhere = Answer("q", "bea@x.org [1]", False, (cite("bea@x.org", doc="/d/bea.pdf"),), fact="bea@x.org")
    assert cell_of(f, elsewhere, ("/d/ada.pdf",)).citation is None


def test_a_long_quote_is_cut_at_a_space_and_stays_a_slice() -> None:
    quote = "- " + " ".join(f"word{i}" for i in range(60))
    value = lead(quote, "", limit=50)
    assert value in quote and len(value) <= 50 and value.startswith("word0") and not value.endswith(" ")
    assert quote[quote.index(value) + len(value)] == " "
    assert lead("Education Policy and more", "Education") == "Education Policy and more"  # a word, not the heading
    assert lead("### Current\n\n* Senior Lecturer, 2025", "Positions > Current") == "Senior Lecturer, 2025"
    # the heading of its own section, Markdown marks or not; a heading above it stays (a section of a heading alone
    # goes with the one after it: a job title's heading over its dates' heading is what a job question asks)
    assert lead("#### June 2020 – 2024\nSenior scientist at Acme", "Employment > June 2020 – 2024") == "Senior scientist at Acme"
    job = "Senior Research Engineer\n\n2011-\n\nOriginal member of the Rust and Servo projects."
    assert lead(job, "Mozilla > Senior Research Engineer > 2011-") == "Senior Research Engineer"
    # a CV entry ends at its blank line, and a heading line in capitals is no value, whatever the chunk's section
    jobs = "University of Florida. Emeritus Faculty, 2024–present.\n\nUniversity of Florida. Associate Professor, 1996-2024."
    assert lead(jobs, "") == "University of Florida. Emeritus Faculty, 2024–present."
    post = ("ACADEMIC EMPLOYMENT\n\nAssistant Professor of Political Science (August 2026– )\nUniversity of South Carolina"
            "\n\nVisiting Scholar, 2024")
    assert lead(post, "EDUCATION") == "Assistant Professor of Political Science (August 2026– )\nUniversity of South Carolina"
    assert lead("IBM\n\nSenior engineer, 2020 - present", "") == "IBM\n\nSenior engineer, 2020 - present"  # one word goes on


def small_table() -> Table:
    fields = (Field("Email", "What is {name}'s email?"), Field("PhD, year", "When did {name} get their PhD?"))
    rows = (Row("Ada Roe", ("/d/ada.pdf",), (Cell("Email", "ada@x.org", 0.9, cite("mail: ada@x.org", section="")),
                                             Cell("PhD, year", "", 0.2, None))),
            Row("Bea | Roe", ("/d/bea.md",), (Cell("Email", "", None, None),
                                              Cell("PhD, year", "1990\n", 0.7, cite("Ph.D. 1990\n", doc="/d/bea.md",
                                                                                    page=None, chunk_id="c2")))))
    return Table(fields, rows)


def test_a_cell_far_less_sure_than_its_column_is_left_empty() -> None:
    fields = (Field("PhD year", "When did {name} get their PhD?"), Field("Email", "What is {name}'s email?"),
              Field("Advisor", "Who was {name}'s PhD advisor?"))
    sure = [0.98, 0.97, 0.975, 0.96, 0.85]  # logits 3.9, 3.5, 3.7, 3.2 and 1.7: the median 3.5, less 0.6 is 2.9
    rows = tuple(Row(f"P{i}", (f"/d/p{i}.pdf",), (
        Cell("PhD year", f"19{90 + i}", p, cite(f"Ph.D. 19{90 + i}", doc=f"/d/p{i}.pdf")),
        Cell("Email", f"p{i}@x.org", None, cite(f"p{i}@x.org", doc=f"/d/p{i}.pdf")),  # read by its shape
        Cell("Advisor", "Ann Lee", 0.9 if i < 1 else 0.01, cite("advised by Ann Lee", doc=f"/d/p{i}.pdf"))
        if i < 2 else Cell("Advisor", "", 0.05))) for i, p in enumerate(sure))
    checked = against_column(Table(fields, rows))
    assert COLUMN_MARGIN == 0.6
    year = [r.cell("PhD year") for r in checked.rows]
    assert [c.value for c in year] == ["1990", "1991", "1992", "1993", ""]  # 0.96 kept, 0.85 left empty
    assert year[4] == Cell("PhD year", "", 0.85, None, UNSURE) and year[4].to_dict()["note"] == UNSURE
    assert "note" not in year[0].to_dict()
    assert [r.cell("Email") for r in checked.rows] == [r.cell("Email") for r in rows]  # no confidence: kept
    assert [r.cell("Advisor") for r in checked.rows] == [r.cell("Advisor") for r in rows]  # 2 filled: too few
    assert "PhD year: not stated" in card_text(checked.rows[4])
    assert against_column(Table(fields, rows), margin=3.0) == Table(fields, rows)


def test_a_cell_left_empty_as_sure_as_its_column_is_asked_again() -> None:
    """The symmetric half of reading a column as a whole: a job-title question is answered at 0.4-0.6 from
    the job line, below the reader's own threshold, so the reader abstains on some people's lines that are
    as sure as the others it answered. A cell within the margin of the column's median is asked again with
    `reask` (in citewise: `Assistant.ask(question, threshold=0)`, the same real reader) and filled when that
    answer quotes the person's own document; one far below the median, or whose second answer still
    abstains, stays empty. (`reask` is scripted here: this checks the column rule; the real re-ask is
    checked on the seed profiles below.)"""
    fields = (Field("Current position", "What is {name}'s job title?"),)  # not about now: see the next test
    sure = [0.6, 0.55, 0.5, 0.45, 0.2, 0.44]  # logits 0.41, 0.2, 0, -0.2, -1.39, -0.24: median of the filled 0.2
    rows = tuple(Row(f"P{i}", (f"/d/p{i}.pdf",), (
        Cell("Current position", f"Lecturer {i}", p, cite(f"Lecturer {i}, 2020 - present", doc=f"/d/p{i}.pdf"))
        if i < 3 else Cell("Current position", "", p),)) for i, p in enumerate(sure))
    asked: list[str] = []

    def reask(question: str) -> Answer:
        asked.append(question)
        if "P5" in question:  # a second answer that still abstains leaves the cell empty
            return Answer(question, "not found", True, confidence=0.44)
        i = question.split("P")[1][0]
        quote = cite(f"Research Associate, 2021 - present (P{i})", doc=f"/d/p{i}.pdf")
        return Answer(question, "Research Associate [1]", False, (quote,), fact="Research Associate", confidence=0.45)

    checked = against_column(Table(fields, rows), reask=reask)
    cells = [r.cell("Current position") for r in checked.rows]
    assert asked == ["What is P3's job title?", "What is P5's job title?"]  # 0.2 is too far below
    assert [c.value for c in cells] == ["Lecturer 0", "Lecturer 1", "Lecturer 2", "Research Associate", "", ""]
    assert cells[3].citation is not None and cells[3].citation.doc == "/d/p3.pdf"
    assert against_column(Table(fields, rows)) == Table(fields, rows)  # without `reask`, nothing is asked


def test_a_question_about_now_keeps_a_passage_that_speaks_of_now_however_unsure() -> None:
    """"What is {name}'s current job title?" shares few words with a CV's running entry ("Senior Research Engineer /
    2011- / Original member of ..."), so the reader is far less sure of it than of the column's other cells. A
    column asking about the present keeps such a cell, and fills an empty one from a second answer at any
    confidence, when the passage speaks of the present (a period still running, "I am a ..."); one that does not
    is left empty as in any column. (`reask` is scripted: this checks the column rule.)"""
    now = Field("Current position", "What is {name}'s current job title?")
    sure = [0.6, 0.55, 0.5, 0.1, 0.15, 0.12]
    quotes = ["Lecturer, 2020 - present", "Professor, 2018 - present", "Engineer, 2019 - present",
              "Senior Research Engineer\n\n2011-\n\nOriginal member of the Rust project", "Analyst, 2009 - 2012"]
    rows = tuple(Row(f"P{i}", (f"/d/p{i}.md",), (Cell(now.label, q.split(",")[0], p, cite(q, doc=f"/d/p{i}.md")),))
                 for i, (q, p) in enumerate(zip(quotes, sure, strict=False))) + (
        Row("P5", ("/d/p5.md",), (Cell(now.label, "", sure[5]),)),)
    asked: list[str] = []

    def reask(question: str) -> Answer:
        asked.append(question)
        quote = cite("I am a PhD student of statistics at Acme.", doc="/d/p5.md")
        return Answer(question, "I am a PhD student [1]", False, (quote,), confidence=0.12)

    cells = [r.cell(now.label) for r in against_column(Table((now,), rows), reask=reask).rows]
    assert [bool(c.citation) for c in cells] == [True, True, True, True, False, True]
    assert cells[4].note == UNSURE and asked == ["What is P5's current job title?"]
    assert cells[5].value.startswith("I am a PhD student")


def test_a_cell_whose_passage_lacks_the_columns_key_word_is_left_empty() -> None:
    """The surest answers to a column's question show which of its words an answering passage holds: the
    surest third of "What are {name}'s research interests?" quote "Research Interests" lines, so a CV
    without such a line, answered from a job line that holds "research" only, gets an empty cell, although
    its answer is as sure as the others. Of the question's words held by the surest, the key word is the one
    fewest cells hold ("interest", not "research"); a re-asked cell must hold it too. A column whose answers
    hold none of its question's words (an employer's name for "Where does {name} work now?") has no key."""
    fld = Field("Research interests", "What are {name}'s research interests?")
    lines = [("Research Interests: graph neural networks", 0.95), ("Research interests: causal inference", 0.93),
             ("Areas of Interest: American politics", 0.92), ("Research Specialist, University of Chicago", 0.9),
             ("Graduate Research Assistant, 2013", 0.88), ("My research interests are cancer biology", 0.85)]
    rows = tuple(Row(f"P{i}", (f"/d/p{i}.md",), (Cell(fld.label, text, p, cite(text, doc=f"/d/p{i}.md", section="")),))
                 for i, (text, p) in enumerate(lines)) + (Row("P6", ("/d/p6.md",), (Cell(fld.label, "", 0.9),)),)
    assert key_word(fld, [r.cells[0] for r in rows]) == "interest"

    def reask(question: str) -> Answer:  # scripted (the real re-ask is checked on the seed profiles below)
        quote = cite("Research Associate, 2021 - present", doc="/d/p6.md", section="Experience")
        return Answer(question, "Research Associate [1]", False, (quote,), fact="Research Associate", confidence=0.9)

    cells = [r.cells[0] for r in against_column(Table((fld,), rows), reask=reask).rows]
    assert [bool(c.citation) for c in cells] == [True, True, True, False, False, True, False]
    assert cells[3].confidence == 0.9 and "“interest”" in cells[3].note and "“interest”" in cells[4].note
    in_section = Cell(fld.label, "Graph learning", 0.9, cite("Graph learning", section="Research Interests"))
    assert key_word(fld, [in_section] * 3) == "interest"  # the section heading counts as the passage's
    employer = Field("Current employer", "Where does {name} work now?")
    jobs = [Cell(employer.label, f"Firm {i}", 0.6, cite(f"Firm {i}, 2020 - present")) for i in range(4)]
    assert key_word(employer, jobs) == "" and key_word(fld, [r.cells[0] for r in rows[:2]]) == ""  # too few
    # nor when its surest answers come from about-pages that say "I work at ...": the question's verb says how it
    # is asked, and an entry line ("Research Associate, University of Warwick (Present)") answers it without it
    prose = [Cell(employer.label, f"Firm {i}", 0.9, cite(f"I currently work at Firm {i} as an engineer.")) for i in range(3)]
    assert key_word(employer, prose + jobs) == ""
    assert key_word(Field("Employer", "Where is {name}'s work now?"), prose + jobs) == "work"  # a noun: a topic


def test_the_two_surest_answers_agreeing_on_a_word_make_it_the_key_word() -> None:
    """Where most people's documents do not give the field, a wrong answer is often among the surest third (a
    hobbies list under "Interests", a funding line with "research"), so no word is held by three quarters of
    it; the two surest answers still both hold "interest", and that word decides the column: the job and grant
    lines, which hold "research" only, are left empty. When the two surest share only "research", it is that."""
    fld = Field("Research interests", "What are {name}'s research interests?")
    lines = [("Research Interests: graph neural networks", 0.98), ("Interests: analog photography", 0.89),
             ("Select research awards indexed here.", 0.84), ("Oct. 2018 - Present: Research Student", 0.81),
             ("Research Grant: using chemogenetics to model deficits", 0.79), ("Managed a research team", 0.69)]
    cells = [Cell(fld.label, text, p, cite(text, doc=f"/d/p{i}.md", section="")) for i, (text, p) in enumerate(lines)]
    assert key_word(fld, cells) == "interest"
    rows = tuple(Row(f"P{i}", (f"/d/p{i}.md",), (c,)) for i, c in enumerate(cells))
    kept = [r.cells[0] for r in against_column(Table((fld,), rows), margin=10.0).rows]
    assert [bool(c.citation) for c in kept] == [True, True, False, False, False, False]
    swapped = [Cell(fld.label, c.value, 0.9 if i == 2 else c.confidence, c.citation) for i, c in enumerate(cells)]
    assert key_word(fld, swapped) == "research"  # the funding line second: the two surest share "research" only


def test_a_passage_under_a_heading_naming_what_is_asked_keeps_its_cell_without_the_key_word() -> None:
    """When the surest answers to "What are {name}'s research interests?" are job lines holding "research" (public
    CV set 7), "research" is the column's key word, and a CV's "Interests" section would be emptied for lacking it.
    A passage whose own section heading holds the noun the question ends on ("interest") is about what is asked
    by the document's own structure, and keeps its cell; a heading holding only the question's other word
    ("Graduate Research Assistant") does not exempt its passage."""
    fld = Field("Research interests", "What are {name}'s research interests?")
    assert _head(fld) == "interest" and _head(Field("Employer", "Where does {name} work now?")) == ""
    lines = [("Role: Lab Director, research on teams", 0.89, ""), ("Graduate Research Assistant, 2019", 0.81, ""),
             ("Research software for reproducible checks", 0.8, ""), ("- Dynamical Systems\n- Machine Learning", 0.72,
             "CV > Interests"), ("Seattle, laboratory of proteomics", 0.72, "Activities > Lab work")]

    def kept(lines: list[tuple[str, float, str]], key: str) -> list[bool]:
        rows = tuple(Row(f"P{i}", (f"/d/p{i}.md",), (Cell(fld.label, text, p, cite(text, doc=f"/d/p{i}.md", section=sec)),))
                     for i, (text, p, sec) in enumerate(lines))
        assert key_word(fld, [r.cells[0] for r in rows]) == key
        return [bool(r.cells[0].citation) for r in against_column(Table((fld,), rows), margin=10.0).rows]

    assert kept(lines, "research") == [True, True, True, True, False]
    interests = [("Research Interests: graph neural networks", 0.95, ""), ("Research interests: causal inference", 0.93, ""),
                 ("Interests: American politics", 0.92, ""), ("Seattle, laboratory of proteomics", 0.9,
                 "Activities > Graduate Research Assistant")]
    assert kept(interests, "interest") == [True, True, True, False]


def test_a_key_word_of_one_column_holds_for_another_that_asks_it() -> None:
    """"PhD" is the key word of the PhD institution column (its surest answers quote PhD lines), but not of the
    PhD year column on its own, whose surest third includes a bachelor's line; the year's question asks about
    the PhD too, so its cells from passages without "PhD" are left empty as well."""
    inst, year = Field("PhD institution", "Where did {name} do their PhD?"), Field("PhD year", "When did {name} get their PhD?")
    lines = [("PhD in Physics, Some University, 2013", 0.9, 0.9), ("Ph.D., Sociology, Other University, 2019", 0.88, 0.7),
             ("PhD, Chemistry, Third University, 2001", 0.85, 0.6), ("B.S. in Computer Science, Vanderbilt, May 2017", 0.6, 0.8)]
    rows = tuple(Row(f"P{i}", (f"/d/p{i}.md",), (
        Cell(inst.label, "Some University", a, cite(text, doc=f"/d/p{i}.md", section="")),
        Cell(year.label, "2013", b, cite(text, doc=f"/d/p{i}.md", section="")))) for i, (text, a, b) in enumerate(lines))
    assert key_word(inst, [r.cells[0] for r in rows]) == "phd" and key_word(year, [r.cells[1] for r in rows]) == ""
    checked = against_column(Table((inst, year), rows), margin=10.0)
    assert [bool(r.cells[1].citation) for r in checked.rows] == [True, True, True, False]
    assert "“phd”" in checked.rows[3].cells[1].note and checked.rows[3].cells[0].citation is None


def test_a_running_period_in_a_column_of_passed_dates_is_left_empty() -> None:
    """"When did {name} get their PhD?" is answered with a year by those who have one; a PhD student's CV answers
    it from their PhD line's "Sep. 2022 - Present", which is no date they got it. When at least three quarters of
    a column's values hold a year and fewer than half run to the present, a running period is left empty (a
    re-asked one too); a column whose answers mostly run ("When did {name} join ...?"), or whose question asks
    about the present, keeps them."""
    year = Field("PhD year", "When did {name} get their PhD?")
    values = ["2004", "March 2015", "2008-2013", "Sep. 2022 - Present", "2005", "2012-2018", "1999"]
    rows = tuple(Row(f"P{i}", (f"/d/p{i}.md",), (Cell(year.label, v, 0.85, cite(f"PhD, {v}", doc=f"/d/p{i}.md")),))
                 for i, v in enumerate(values)) + (Row("P7", ("/d/p7.md",), (Cell(year.label, "", 0.84),)),)
    assert passed_dates([r.cells[0] for r in rows])

    def reask(question: str) -> Answer:  # scripted: the column rule is what is checked
        quote = cite("PhD candidate, 2021 - present", doc="/d/p7.md")
        return Answer(question, "2021 - present [1]", False, (quote,), fact="2021 - present", confidence=0.84)

    cells = [r.cells[0] for r in against_column(Table((year,), rows), margin=10.0, reask=reask).rows]
    assert [c.value for c in cells] == [*values[:3], "", *values[4:], ""]
    assert cells[3].note == RUNNING and cells[3].confidence == 0.85 and cells[7].citation is None
    # a year read from a line that runs to the present is no date the PhD was got either: "2023" of "2023 - : PhD
    # in Neuroscience", "2026" of "Ph.D. Student 2026.04 - present" (the quote's other lines do not count)
    for value, quote in (("2023", "- 2023 - : PhD in Neuroscience, Some University.\n- 2021 - 2023: M.Sc., Other"),
                         ("2026", "Ph.D. Student 2026.04 - present\nGraduate School, Some University")):
        last = Row("P7", ("/d/p7.md",), (Cell(year.label, value, 0.85, cite(quote, doc="/d/p7.md")),))
        checked = against_column(Table((year,), rows[:7] + (last,)), margin=10.0)
        assert checked.rows[7].cells[0].note == RUNNING, value
    ended = Row("P7", ("/d/p7.md",), (Cell(year.label, "2021", 0.85, cite("PhD, 2021\nPostdoc, 2022 - present")),))
    assert against_column(Table((year,), rows[:7] + (ended,)), margin=10.0).rows[7].cells[0].value == "2021"
    joined = Field("Joined", "When did {name} join the lab?")
    runs = ["2019 - present", "2021 - present", "2015", "since 2020"]
    cells = [Cell(joined.label, v, 0.8, cite(v)) for v in runs]
    assert not passed_dates(cells) and not passed_dates(cells[2:3] * 2)  # mostly running; too few
    table = Table((joined,), tuple(Row(f"P{i}", ("/d/x.md",), (c,)) for i, c in enumerate(cells)))
    assert against_column(table, margin=10.0) == table
    # a lab's folder: two PhD students of six are a third, still fewer than half
    lab = ["2004", "Aug. 2021 -- today", "2008-2013", "November 2022-Present", "2005", "1999"]
    assert passed_dates([Cell(year.label, v, 0.85, cite(v)) for v in lab])
    # a column about the present keeps its running periods, however many of its values are dates that passed
    now = Field("Current position", "What is {name}'s current job title?")
    jobs = [Cell(now.label, v, 0.8, cite(v)) for v in ["Lecturer, 2015", "2024- Senior engineer", "Professor, 2001",
                                                       "Director, 2010"]]
    table = Table((now,), tuple(Row(f"P{i}", ("/d/x.md",), (c,)) for i, c in enumerate(jobs)))
    assert passed_dates(jobs) and against_column(table, margin=10.0) == table


def test_a_value_with_no_year_in_a_column_of_passed_dates_is_left_empty() -> None:
    """A PhD under way answers "When did {name} get their PhD?" with its degree line, which gives no year ("PhD
    in Formal Methods, Some School, Present"): in a column whose other answers are dates that have passed, a
    value with no year is no answer of the column's kind, and a re-asked one does not fill the cell either. A
    column about the present is no column of passed dates: a job title without its years stays."""
    year = Field("PhD year", "When did {name} get their PhD?")
    values = ["2004", "March 2015", "2008-2013", "PhD in Formal Methods, Some School, Present", "2005"]
    rows = tuple(Row(f"P{i}", (f"/d/p{i}.md",), (Cell(year.label, v, 0.85, cite(f"PhD, {v}", doc=f"/d/p{i}.md")),))
                 for i, v in enumerate(values)) + (Row("P5", ("/d/p5.md",), (Cell(year.label, "", 0.84),)),)

    def reask(question: str) -> Answer:  # scripted: the column rule is what is checked
        quote = cite("PhD, Media and Communication, In Progress", doc="/d/p5.md")
        return Answer(question, "PhD, Media and Communication, In Progress [1]", False, (quote,),
                      fact="PhD, Media and Communication, In Progress", confidence=0.84)

    cells = [r.cells[0] for r in against_column(Table((year,), rows), margin=10.0, reask=reask).rows]
    assert [c.value for c in cells] == [*values[:3], "", "2005", ""]
    assert cells[3].note == UNDATED and cells[5].citation is None
    now = Field("Current position", "What is {name}'s current job title?")
    jobs = [Cell(now.label, v, 0.8, cite(v)) for v in ["Lecturer, 2015", "Senior engineer", "Professor, 2001", "Director, 2010"]]
    table = Table((now,), tuple(Row(f"P{i}", ("/d/x.md",), (c,)) for i, c in enumerate(jobs)))
    assert against_column(table, margin=10.0) == table


def test_an_empty_cell_is_filled_when_a_related_cell_of_its_row_quotes_the_same_chunk() -> None:
    """A row read across: "What is {name}'s current job title?" is answered at 0.3-0.5 from a CV's running
    entry, below the reader's threshold, where "Where does {name} work now?" is answered from the same entry.
    An empty job-title cell is asked again at any answerability and filled when that answer quotes the chunk
    the employer cell quotes (both ask about now); not when it quotes another chunk, and an unrelated column
    (the e-mail) confirms nothing. (`reask` is scripted: the row rule is what is checked; the real re-ask is
    checked on the seed profiles below.)"""
    pos, emp = Field("Current position", "What is {name}'s current job title?"), Field("Current employer", "Where does {name} work now?")
    mail = Field("Email", "What is {name}'s email?")
    rows = tuple(Row(f"P{i}", (f"/d/p{i}.md",), (
        Cell(pos.label, "", 0.3),
        Cell(emp.label, "Acme", 0.8, cite("Acme | 2021 - present", doc=f"/d/p{i}.md", chunk_id=f"job{i}")) if i < 2
        else Cell(emp.label, "", 0.3),
        Cell(mail.label, f"p{i}@x.org", None, cite(f"p{i}@x.org", doc=f"/d/p{i}.md", chunk_id=f"top{i}")))) for i in range(3))
    asked: list[str] = []

    def reask(question: str) -> Answer:
        asked.append(question)
        i = int(question.split("P")[1][0])
        where = f"job{i}" if i == 0 else f"other{i}"  # P1's answer quotes another chunk than its employer cell
        quote = cite("Senior Engineer, 2021 - present", doc=f"/d/p{i}.md", chunk_id=where)
        return Answer(question, "Senior Engineer [1]", False, (quote,), fact="Senior Engineer", confidence=0.3)

    checked = corroborated(Table((pos, emp, mail), rows), reask)
    assert asked == ["What is P0's current job title?", "What is P1's current job title?"]  # P2: no related cell filled
    # a cell its column found far less sure is vouched for too; one whose passage lacked the key word is not
    unsure = Table((pos, emp, mail), (Row("P0", rows[0].docs, (Cell(pos.label, "", 0.3, note=UNSURE), *rows[0].cells[1:])),
                                      Row("P1", rows[1].docs, (Cell(pos.label, "", 0.3, note="from a passage without “job”"),
                                                               *rows[1].cells[1:]))))
    asked.clear()
    assert [r.cells[0].value for r in corroborated(unsure, reask).rows] == ["Senior Engineer", ""]
    assert asked == ["What is P0's current job title?"]
    assert [r.cells[0].value for r in checked.rows] == ["Senior Engineer", "", ""]
    assert checked.rows[0].cells[0].citation is not None and checked.rows[0].cells[0].citation.chunk_id == "job0"
    assert [r.cells[1:] for r in checked.rows] == [r.cells[1:] for r in rows]


def test_csv_has_a_value_and_a_source_column_per_field() -> None:
    table = small_table()
    rows = list(csv.reader(io.StringIO(table.to_csv())))
    assert rows[0] == ["person", "Email", "Email source", "PhD, year", "PhD, year source"]
    assert rows[1] == ["Ada Roe", "ada@x.org", "ada.pdf p.2", "", ""]
    assert rows[2] == ["Bea | Roe", "", "", "1990", "bea.md · Education"]
    assert table.to_records()[1]["PhD, year source"] == "bea.md · Education"


def test_json_has_everything_and_markdown_and_text_are_readable() -> None:
    table = small_table()
    d = json.loads(json.dumps(table.to_dict()))
    assert d["fields"][0] == {"label": "Email", "question": "What is {name}'s email?"}
    cell = d["rows"][0]["cells"][0]
    assert cell["value"] == "ada@x.org" and cell["confidence"] == 0.9 and cell["citation"]["quote"] == "mail: ada@x.org"
    assert d["rows"][0]["cells"][1]["citation"] is None
    md = table.to_markdown().splitlines()
    assert md[0] == "| person | Email | PhD, year |" and md[3].startswith("| Bea \\| Roe | – | 1990 _(bea.md")
    text = table_text(table, 80)
    assert "ada@x.org" in text and "–" in text and "Bea | Roe" in text
    card = card_text(table.rows[0])
    assert "Email: ada@x.org  · very likely (90 %)" in card and "PhD, year: not stated" in card
    assert '"mail: ada@x.org" ada.pdf · p. 2' in card


def test_a_value_is_shown_without_the_markdown_marks_its_source_writes() -> None:
    """A CV's source writes Markdown around and inside a value: a year in emphasis ("*2011 – 2015*"), a period in a
    link's brackets, a heading's underline, an escaped star in an author list. The table, the CSV, the Markdown, the
    card and the People tab show it plain; the JSON keeps the verbatim slice of the quote, which the column rules
    read against the quote's lines."""
    quote = "Professional Positions\n======\n* *2011 – 2015* Assistant Professor, [Some University](https://x.edu)*"
    value = quote[quote.index("*2011"):]
    cell = Cell("Current position", value, 0.8, cite(quote))
    assert cell.shown == "2011 – 2015 Assistant Professor, Some University"
    assert Cell("f", "Professional Positions\n======\n* 2023 - Present").shown == "Professional Positions 2023 - Present"
    assert Cell("f", "O'Regan\\*, **S.C.\nAnderson**").shown == "O'Regan, S.C. Anderson"
    assert Cell("f", "jane_roe@x.org, C++").shown == "jane_roe@x.org, C++"  # inside a word, or no mark
    table = Table((Field("Current position", "What is {name}'s current job title?"),),
                  (Row("Ada Roe", ("/d/ada.pdf",), (cell,)),))
    assert table.to_records()[0]["Current position"] == cell.shown
    assert f"| Ada Roe | {cell.shown} _(" in table.to_markdown()
    assert f"Current position: {cell.shown}" in card_text(table.rows[0])
    assert "2011 – 2015 Assistant" in table_text(table, 120)
    assert table.to_dict()["rows"][0]["cells"][0]["value"] == value and value in quote


# -- scoring ------------------------------------------------------------------------------------

def test_the_scorer_counts_right_cells_empty_cells_and_exact_quotes(tmp_path: Path) -> None:
    gold = tmp_path / "g.jsonl"
    records = [
        {"doc": "ada.pdf", "person": "Ada Roe", "field": "Email", "gold": ["ADA@x.org"], "split": "tune"},
        {"doc": "ada.pdf", "person": "Ada Roe", "field": "PhD, year", "gold": [], "split": "tune"},
        {"doc": "bea.md", "person": "Bea Roe", "field": "Email", "gold": ["bea@x.org"], "split": "heldout"},
        {"doc": "bea.md", "person": "Bea Roe", "field": "PhD, year", "gold": [], "split": "heldout"},
        {"doc": "cy.pdf", "person": "Cy Roe", "field": "Email", "gold": ["cy@x.org"], "split": "heldout"},
    ]
    gold.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    stored = {"c1": "Contact\nmail: ada@x.org\n", "c2": "Ph.D. 199O"}  # c2's quote is not in its chunk
    scores = score_table(small_table(), load_gold(gold), stored.get)
    assert [s.correct for s in scores] == [True, True, False, False, False]
    assert [s.exact for s in scores] == [True, None, None, False, None]
    m = table_metrics(scores)
    assert (m["cell_accuracy"], m["empty_share"], m["quotes_exact"]) == (1 / 3, 0.5, 0.5)
    assert (m["value_accuracy"], m["value_right"]) == (1 / 3, 1.0)
    # a quote holding the answer beside a value that misses it is right by cell accuracy, not by value accuracy
    dept = Cell("Current employer", "Department of Statistics", 0.8,
                cite("Department of Statistics, University of Florida", chunk_id="c3"))
    record = {"doc": "ada.pdf", "field": "Current employer", "gold": ["University of Florida"]}
    scored = score_cell(record, dept, {"c3": "Department of Statistics, University of Florida"}.get)
    assert scored.correct and not scored.value_correct and scored.exact
    assert table_metrics([scored])["value_accuracy"] == 0.0 and table_metrics([scored])["cell_accuracy"] == 1.0
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"doc": "a.pdf", "field": "Email"}\n', encoding="utf-8")
    with pytest.raises(TableError, match="bad.jsonl:1"):
        load_gold(bad)


# -- the CLI, no model needed --------------------------------------------------------------------

def test_table_and_eval_table_have_help_with_an_example() -> None:
    for args, example in ((["table", "--help"], "citewise table --format csv"),
                          (["eval", "table", "--help"], "citewise eval table bench/questions/table.jsonl"),
                          (["profile", "--help"], "citewise profile")):
        result = run(args)
        assert result.exit_code == 0 and "Example" in result.output and example in result.output, result.output


def test_a_bad_column_margin_is_a_one_line_error(tmp_path: Path) -> None:
    one_line_error(run(["table", "--index", str(tmp_path), "--column-margin", "lots"]), "'lots'", "'off'")
    one_line_error(run(["table", "--index", str(tmp_path), "--column-margin", "-1"]), "'-1'", "0 to 100")


def test_bad_fields_on_the_command_line_are_one_line_errors(tmp_path: Path) -> None:
    one_line_error(run(["table", "--index", str(tmp_path), "--field", "Advisor"]), "'Advisor'", "Label=question")
    one_line_error(run(["table", "--index", str(tmp_path), "--field", "Advisor=Who advised?"]), "{name}")
    bad = tmp_path / "bad.toml"
    bad.write_text("[fields\n", encoding="utf-8")
    one_line_error(run(["table", "--index", str(tmp_path), "--fields", str(bad)]), str(bad), "not valid TOML")
    one_line_error(run(["profile", "Ada", "--index", str(tmp_path), "--fields", "nope"]), "unknown fields 'nope'")


# -- real model, real index ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def seed_table(seed_assistant) -> Table:
    return seed_assistant.table(choose_fields(extra=[CHILDREN]))


@pytest.mark.slow
def test_the_table_has_a_row_per_person_and_every_quote_is_exact(seed_table: Table, seed_assistant) -> None:
    assert [r.person for r in seed_table.rows] == seed_assistant.people.names()
    assert len(seed_table.rows) == 3 and all(len(r.cells) == 7 for r in seed_table.rows)
    filled = [(r, c) for r in seed_table.rows for c in r.cells if c.citation is not None]
    assert len(filled) >= 6
    for row, cell in filled:
        assert cell.citation is not None
        stored = seed_assistant.chunk(cell.citation.chunk_id)
        assert cell.citation.quote in stored.text  # an exact substring of the stored chunk
        assert cell.citation.doc in row.docs and cell.source.startswith(os.path.basename(cell.citation.doc))
        # the reader's probability, except for an address, read by its shape (see assistant.answer.reader)
        assert cell.value and (cell.confidence is not None) == (cell.field != "Email")
    balin = next(r for r in seed_table.rows if r.person == "Muhammed Fatih Balin")
    assert "Georgia Institute of Technology" in balin.cell("PhD institution").value
    assert balin.cell("Email").value == "m.f.balin@gmail.com"


@pytest.mark.slow
def test_asking_again_at_threshold_zero_answers_what_the_reader_refused(seed_assistant) -> None:
    """`Assistant.ask(question, threshold=0)` answers from the best passage a question the reader refuses by
    its fitted threshold, quoting a retrieved chunk exactly."""
    question = "What is Muhammed Fatih Balin's favourite colour?"
    assert seed_assistant.ask(question).abstained
    forced = seed_assistant.ask(question, threshold=0.0)
    assert not forced.abstained and forced.citations
    for c in forced.citations:
        assert c.quote in seed_assistant.chunk(c.chunk_id).text


@pytest.mark.slow
def test_a_question_the_documents_do_not_answer_leaves_the_cell_empty(seed_table: Table) -> None:
    for row in seed_table.rows:
        cell = row.cell("Children")
        assert cell.value == "" and cell.citation is None and cell.source == ""


@pytest.mark.slow
def test_a_person_named_in_any_form_gets_only_their_row(seed_assistant) -> None:
    table = seed_assistant.table([Field("PhD institution", "Where did {name} do their PhD?")], people=["M. F. Balin"])
    assert [r.person for r in table.rows] == ["Muhammed Fatih Balin"]
    with pytest.raises(TableError, match="no person named 'Nobody Known'"):
        seed_assistant.table(people=["Nobody Known"])


@pytest.mark.slow
def test_cli_csv_round_trips_with_value_and_source_columns(seed_index_copy: Path, seed_assistant,
                                                            tmp_path: Path) -> None:
    out = tmp_path / "people.csv"
    result = run(["table", "--index", str(seed_index_copy), "--format", "csv", "--out", str(out), "--field", CHILDREN])
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8"))))
    labels = [f.label for f in choose_fields(extra=[CHILDREN])]
    assert rows[0] == ["person", *(h for label in labels for h in (label, f"{label} source"))]
    people = {p.name: p for p in seed_assistant.people.all()}
    assert [r[0] for r in rows[1:]] == seed_assistant.people.names()
    filled = 0
    for line in rows[1:]:
        docs = {os.path.basename(d) for d in people[line[0]].docs}
        pairs = list(zip(line[1::2], line[2::2], strict=True))
        assert len(pairs) == len(labels) and pairs[-1] == ("", "")  # Children: not stated
        for value, source in pairs:
            assert bool(value) == bool(source)
            assert not source or source.split(" ")[0] in docs
            filled += bool(value)
    assert filled >= 6


@pytest.mark.slow
def test_cli_json_md_and_bad_people(seed_index_copy: Path) -> None:
    result = run(["table", "--index", str(seed_index_copy), "--format", "json", "--people", "Baolin Li"])
    assert result.exit_code == 0, result.output
    d = json.loads(result.stdout)
    assert [r["person"] for r in d["rows"]] == ["Baolin Li"] and len(d["fields"]) == 6
    md = run(["table", "--index", str(seed_index_copy), "--format", "md", "--people", "Baolin Li"])
    assert md.stdout.startswith("| person | Current position |") and "| Baolin Li |" in md.stdout
    one_line_error(run(["table", "--index", str(seed_index_copy), "--people", "Nobody Known"]),
                   "no person named 'Nobody Known'", "Baolin Li")


@pytest.mark.slow
def test_eval_table_scores_the_real_table(tmp_path: Path) -> None:
    from conftest import PROFILES

    gold = tmp_path / "gold.jsonl"
    balin = "000_2cae7406d7224669.txt"
    records = [{"doc": balin, "person": "Muhammed Fatih Balin", "field": "PhD institution",
                "gold": ["Georgia Institute of Technology"], "split": "tune"},
               {"doc": balin, "person": "Muhammed Fatih Balin", "field": "Children", "gold": [], "split": "tune"}]
    gold.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    result = run(["eval", "table", str(gold), "--docs", str(PROFILES), "--index", str(tmp_path / "i"),
                  "--field", CHILDREN, "--json"])
    assert result.exit_code == 0, result.output
    m = json.loads(result.stdout)
    assert m["all"]["cell_accuracy"] == 1.0 and m["all"]["empty_share"] == 1.0 and m["all"]["quotes_exact"] == 1.0
    assert m["people"] == 1 and m["cells"] == 7
    missing = run(["eval", "table", str(gold), "--docs", str(PROFILES), "--index", str(tmp_path / "i")])
    one_line_error(missing, "Children", "--field")
