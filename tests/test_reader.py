"""The reader's steps (candidates, detectors, features, calibrated score, answer, abstain, who) on real
documents with the real MiniLM model, FAISS and SQLite; realdocs checks skip when ../shared is absent."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from conftest import PROFILES, REPO, SHARED, require_shared

from assistant import Assistant, build_index
from assistant.answer import asks, detect, entities, leads, present, resolve
from assistant.answer.addresses import names_owner
from assistant.answer.candidates import candidates, header_like, pieces_of
from assistant.answer.evaluate import baseline_answer, is_concise, line_windows, type_of
from assistant.answer.features import NAMES, Idf, VectorCache, features, lemmas, unmatched
from assistant.answer.model import PARAMS, ReaderModel, doc_features
from assistant.answer.reader import Reader, Reading
from assistant.answer.resolve import look_through
from index import Hit, Store

pytestmark = pytest.mark.slow
REALDOCS = SHARED / "eval" / "realdocs"


def _led(kind: str, text: str, **how: object) -> str:
    """The phrase `detect.phrase` leads with in `text`, "" when none."""
    span = leads.phrase(kind, text, **how)  # type: ignore[arg-type]
    return text[span[0]:span[1]] if span else ""


def _column(assistant: Assistant, question: str, feature: str) -> tuple[Reading, np.ndarray]:
    """The reader's reading of `question` over its scoped hits, and the column of one feature (`NAMES`)."""
    hits, _ = assistant.retrieve_scoped(question)
    r = assistant.reader.read(question, hits)
    return r, r.x[:, NAMES.index(feature)]


def _indexed(tmp_path: Path, embedder, files: dict[str, str], **answer: object) -> tuple[Store, Assistant]:
    """The real pipeline over `files` (name -> text) written to a fresh folder: its store and an Assistant
    (with these `answer` settings)."""
    from assistant import Settings

    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in files.items():
        (docs / name).write_text(text, encoding="utf-8")
    store, _ = build_index([docs], tmp_path / "index", embedder=embedder)
    return store, Assistant(store, embedder, settings=Settings(answer=answer))


def _quotes_exact(assistant: Assistant, answer) -> None:
    for c in (*answer.citations, *answer.related):
        stored = assistant.chunk(c.chunk_id)
        assert stored is not None
        assert stored.text[c.quote_start:c.quote_start + len(c.quote)] == c.quote


def test_candidates_are_whole_lines_with_exact_offsets_and_a_header(seed_assistant):
    hits = seed_assistant.search("Where did Balin do his PhD?", 4)
    pieces = pieces_of(hits)
    cands = candidates(hits, pieces)
    assert cands
    for c in cands:
        text = hits[c.hit].text
        quote = text[c.start:c.end]
        assert quote.strip() == quote and len(quote) > 0
        assert len(quote) <= 300 or len(c.pieces) == 1
        # whole lines: a candidate starts at a line start (or a sentence start inside a long line)
        assert c.start == 0 or text[c.start - 1] in "\n .!?\t" or text[text.rfind("\n", 0, c.start) + 1:c.start].strip() == ""
        if c.header is not None:
            p = pieces[c.header]
            assert p.hit == c.hit and p.end <= c.start and header_like(text[p.start:p.end])
    # an education entry line has an entry header above it
    assert any(c.header is not None and "Ph.D" in hits[c.hit].text[c.start:c.end] for c in cands)


def test_detectors_read_question_syntax_and_text_shapes():
    assert asks.asked("When did she graduate?") == "date"
    assert asks.asked("In what year was the report filed?") == "date"
    assert asks.asked("How many citations does he have?") == "number"
    assert asks.asked("How did the engine fail?") == ""
    assert asks.asked("Who supervised the thesis?") == "person"
    assert asks.asked("Where did he study?") == "place"
    # a form's label (a capitalised run right before a colon) is not a name; the value after it can be
    form = "Defining Event: Injuries: 1 Serious\nAdvisor: Adam Fishbein"
    assert [form[a:b] for k, a, b in detect.entities(form) if k == "person"] == ["Adam Fishbein"]
    # the first interrogative decides; a later one opens a clause
    assert asks.asked("What was the pilot doing when the airplane crashed?") == ""
    assert asks.asked("How did the people who wrote it react?") == ""
    # a clause set off before the question by a comma is not the question (own_rustc u07 abstained: "no date")
    assert asks.asked("When doing profile-guided optimization, which LLVM tool merges the .profraw files?") == ""
    assert asks.asked("In the PGO chapter, how many .profraw files are written?") == "number"
    assert asks.asked("Where, in 2019, did she work?") == "place" and asks.asked("When, exactly, did it land?") == "date"
    line = "Focusing on High Performance Computing and Machine Learning advised by Umit V. Catalyurek."
    a, b = leads.phrase("person", line) or (0, 0)
    assert "Catalyurek" in line[a:b]
    a, b = leads.phrase("date", "Ph.D in Computational Science and Engineering, Aug. 2019 - PRESENT") or (0, 0)
    assert "2019" in "Ph.D in Computational Science and Engineering, Aug. 2019 - PRESENT"[a:b]
    assert leads.phrase("number", "no digits here") is None


def test_phrases_are_whole_periods_written_numbers_and_names_within_a_sentence():
    # a period is led with whole, its open end too: "When was he a Creative Lead?" asks for both ends
    line = "Creative Lead, Center for History and New Media, George Mason University August 2006\u2013October 2010"
    a, b = leads.phrase("date", line) or (0, 0)
    assert line[a:b] == "August 2006\u2013October 2010"
    open_end = "Lecturer, Sep 2019 - Present, Department of Statistics"
    a, b = leads.phrase("date", open_end) or (0, 0)
    assert open_end[a:b] == "Sep 2019 - Present"
    # a season is part of its date, as a month is: both ends of a period of terms join
    terms = "Teaching Assistant Spring 2021 - Spring 2023, Johns Hopkins University"
    a, b = leads.phrase("date", terms) or (0, 0)
    assert terms[a:b] == "Spring 2021 - Spring 2023"
    intern = "Summer 2023 ML System Research Intern, Netflix, Los Gatos, CA."
    assert [intern[a:b] for a, b in detect.kind_spans("date", intern, frozenset())] == ["Summer 2023"]
    # the date parser passes over "December 2023" before "| Zurich": the year and its month are found anyway;
    # the function words it takes in at a date's ends go ("on 4 May 1980 in" is "4 May 1980")
    phd = "ETH Zurich Ph.D. in Computer Science\nFebruary 2020 \u2013 December 2023 | Zurich, Switzerland"
    assert [phd[a:b] for a, b in detect.kind_spans("date", phd, frozenset())] == ["February 2020 \u2013 December 2023"]
    born = "He was born on 4 May 1980 in Paris."
    assert [born[a:b] for a, b in detect.kind_spans("date", born, frozenset())] == ["4 May 1980"]
    # a number written out is a number; the question words decide between it and a numeral
    foia = ("NARA responds to most FOIA requests within the statutory 20 days. However, its most complex FOIA "
            "requests can take as long as eight years before NARA can begin reviewing responsive records.")
    assert [foia[a:b] for a, b in detect.kind_spans("number", foia, frozenset())] == ["20 days", "eight years"]
    # "review" in the question meets "reviewing" in the text
    a, b = leads.phrase("number", foia, near={"long": 1.0, "review": 2.0, "complex": 2.0}) or (0, 0)
    assert foia[a:b] == "eight years"
    assert detect.kind_spans("number", "one of the reports", frozenset()) == []  # "one" is as often a pronoun
    # a list's enumerators count nothing: "19" is no answer to "How many patients ...?"
    items = "19. Patients with any complications. 20. Patients unable to follow it. Enrollment lasts 12 months."
    assert [items[a:b] for a, b in detect.kind_spans("number", items, frozenset())] == ["12 months"]
    assert not detect.holds("number", "3) Patients with amyloidosis.") and detect.holds("number", "(3 patients)")
    # "How many <things>?" counts those things; "How long ...?" asks for a measure, which has a unit
    trial = "The enrollment period is 12 months. This study enrolled a total of 40 patients."
    assert _led("number", trial, question="How many patients does the trial enroll?") == "40 patients"
    strip = "The pilot, age 85, was landing at his private 1,500-foot airstrip."
    assert _led("number", strip, question="How long was the airstrip?") == "1,500-foot"
    assert _led("number", strip, question="How old was the pilot?") == "85"
    # a name leads without the words the question says at its ends, when what is left still names one of the
    # kind asked for ("ETH Zurich Ph.D." led "Where did Weber do his PhD?"; "Ph.D. Biostatistics" led Grimes's)
    phd_line = "ETH Zurich Ph.D. in Computer Science"
    assert _led("place", phd_line, question="Where did Maurice Weber do his PhD?") == "ETH Zurich"
    degree = "Ph.D. Biostatistics 2016 – 2020\n\nUniversity of Florida, Gainesville FL"
    assert _led("place", degree, question="Where did Tyler Grimes do his PhD?") == "University of Florida"
    degree_only = "Ph.D. Biostatistics 2016 – 2020"
    assert leads.phrase("place", degree_only, question="Where did Tyler Grimes do his PhD?") is None
    # the question's type noun is no restatement: "Which university ...?" is answered by a university
    a, b = leads.phrase("place", degree, question="Which university did Tyler Grimes get his PhD from?") or (0, 0)
    assert degree[a:b] == "University of Florida"
    hours = "He flew 12 months in 2019, 2,319 hours in all"
    a, b = leads.phrase("number", hours, question="How many total flight hours did he have?") or (0, 0)
    assert hours[a:b] == "2,319 hours"  # the counted noun comes after its adjectives
    assert detect.kind_spans("number", "Instances: 178\nNumber of Attributes: 13", frozenset())[0] == (11, 14)  # "178": a unit is on its line
    # a scale word belongs to its numeral: "500 million pages", not "500 million" and "million pages"
    plan = "NARA plans to digitize 500 million pages by FY 2026."
    assert [plan[a:b] for a, b in detect.kind_spans("number", plan, frozenset())] == ["500 million pages", "2026"]
    # a capitalised run ends with its sentence; an initial, "Ph.D." or a title does not end it
    cv = ("Mentor: Cliff Wong. Benchmarked a model with Prof. Jenna Wiens. PH.D. IN ECONOMICS, Bocconi University. "
          "Visiting, Univ. of Michigan.")
    assert [cv[a:b] for a, b in entities.runs(cv)] == ["Cliff Wong", "Prof. Jenna Wiens", "PH.D. IN ECONOMICS",
                                                       "Bocconi University", "Univ. of Michigan"]
    # a name with a stop between longer parts ends its sentence: no run "Node.js. Therefore" (own_nodejs j11)
    text = "Code is trusted by Node.js. Therefore any Malicious Module fails. It joined the U.S. Navy Reserve."
    assert [text[a:b] for a, b in entities.runs(text)] == ["Malicious Module", "U.S. Navy Reserve"]
    # the pronoun "I" names no one: "Lately I've" was the place a CV said its owner worked at; "I" a numeral stays
    mine = "Lately I've been into Recurrent Neural Networks. Since 2019 I am at Acme Labs. After World War I ended."
    assert [mine[a:b] for a, b in entities.runs(mine)] == ["Recurrent Neural Networks", "Acme Labs", "After World War I"]
    # people listed together are led with together: one of two advisors is half an answer
    advisors = "University of Michigan Advisors: Prof. Jenna Wiens, Prof. David Fouhey Sep 2016\u2013May 2019"
    a, b = leads.phrase("person", advisors, near={"advisors": 1.0}) or (0, 0)
    assert advisors[a:b] == "Prof. Jenna Wiens, Prof. David Fouhey"  # the month begins a date, not a name
    both = "Written by Jane Roe and John Doe in 2019"
    assert [both[a:b] for _k, a, b in detect.entities(both)] == ["Jane Roe", "John Doe"]
    # an acronym beside a capitalised word is an organisation, though probablepeople reads it as a person
    assert entities.kind_of("ETH Zurich") == "place" and entities.kind_of("IBM Research") == "place"
    assert entities.kind_of("JOHN SMITH") == "person" and entities.kind_of("Dr Lei Zhang") == "person"
    # initials alone name nobody
    refs = "Hobert, J. P., Jones, G. L., and Presnell, B. (2002)."
    assert not [k for k, _a, _b in detect.entities(refs) if k == "person"]


def test_a_place_of_one_word_is_led_with_when_the_collection_only_capitalises_it():
    """"Where did Feynman do his PhD?" -> "Princeton": a name of one word after a preposition, which the
    collection never writes in lower case (`Idf.proper` in the reader); not a sentence's first word, not
    a form's label, not a word of a person's name, never for "Who ...?" (one word does not say person or
    place)."""
    names = {"Princeton", "Registration", "Switzerland", "Einstein", "Stanislaw", "Ulam", "Trinity"}.__contains__
    text = "Attendees at his first seminar included Einstein. He received a PhD from Princeton in 1942."
    a, b = leads.phrase("place", text, near={"phd": 2.0, "received": 1.0}, named=names) or (0, 0)
    assert text[a:b] == "Princeton"  # the nearer of two; "He" opens a sentence and is no name
    assert leads.phrase("place", "Princeton awarded it in 1942.", named=names) is None  # opens the sentence
    assert leads.phrase("place", "The aircraft Registration: N6024M was found.", named=names) is None  # a label
    assert leads.phrase("person", "He studied in Switzerland.", named=names) is None
    assert leads.phrase("place", "He studied in Switzerland.", named=names,
                         question="Did he study in Switzerland?") is None  # the question says it
    assert leads.phrase("place", "He studied in Switzerland.") is None  # without the collection's word: none
    assert leads.phrase("place", "He worked with Stanislaw Ulam on it.", named=names) is None  # a person's name
    assert leads.phrase("place", "He was present at the Trinity test.", named=names) is None  # no preposition
    two = "He moved from Zurich to the Institute for Advanced Study in Princeton."
    a, b = leads.phrase("place", two, named=names) or (0, 0)
    assert two[a:b] == "Institute for Advanced Study"  # a run of capitalised words comes first


def test_a_place_is_led_with_its_campus_and_a_name_with_an_ampersand_whole():
    """"Where did she do her PhD?" was led with "University of California" from "University of California, Los
    Angeles", "University of Texas" from "University of Texas at Austin", and "M University" from "Texas A&M
    University". An institution named "<designator> of <Name>" takes in the campus written after it on its line;
    a city after a name of another shape, a year, or a body of its own does not; "&" between capitals is inside
    a word."""
    question = "Where did Jane Roe do their PhD?"

    def lead(text: str) -> str:
        a, b = leads.phrase("place", text, question=question) or (0, 0)
        return text[a:b]

    assert lead("- Ph.D. History, University of California, Los Angeles, March 2015") == "University of California, Los Angeles"
    assert lead("*University of California, Berkeley*, CA") == "University of California, Berkeley"
    assert lead("University of Texas at Austin, Austin, TX\nPh.D., Government (2025)") == "University of Texas at Austin"
    assert lead('organization: "Texas A&M University",') == "Texas A&M University"
    assert lead("PhD, Harvard University, Cambridge, MA") == "Harvard University"
    assert lead("Ph.D. Biostatistics 2016 – 2020\n\nUniversity of Florida, Gainesville FL") == "University of Florida"
    assert lead("PhD in Statistics, University of Minnesota, 1994") == "University of Minnesota"
    assert lead("University of Michigan, Department of Physics, 2019") == "University of Michigan"


def test_a_sections_heading_is_no_place_to_lead_with():
    """"Where does he work now?" was led with "EXPERIENCE": the run of capitals "WORK EXPERIENCE" less the
    question's "work", on the line of the passage's section heading. A heading of common words names the section,
    not an employer, so it leads with nothing, or with a place of the passage; a heading that is a name (an
    entry's "### Codemancers") still may."""
    question = "Where does Jane Roe work now?"
    near = {"work": 1.0, "now": 1.0}
    text = "## WORK EXPERIENCE\n\n### Northwind\nDevOps Engineer | 01/2024 - Present"
    common = {"Northwind"}.__contains__
    a, b = leads.phrase("place", text, near=near, question=question, named=common) or (0, 0)
    assert text[a:b] == "EXPERIENCE"  # without the headings, as before
    headings = ["WORK EXPERIENCE", "Northwind"]
    assert leads.phrase("place", text, near=near, question=question, named=common, headings=headings) is None
    text = "RESEARCH EXPERIENCE\n\n- 2021 - present, Postdoctoral Fellow, Children's Hospital of Philadelphia"
    found = leads.phrase("place", text, near=near, question=question, named={"Philadelphia"}.__contains__,
                          headings=["RESEARCH EXPERIENCE"])
    assert found is not None and text[found[0]:found[1]] == "Children's Hospital of Philadelphia"
    assert leads.on_heading(text, 0, 8, ["Research Experience:"]) and not leads.on_heading(text, 40, 60, ["x"])


def test_a_place_named_by_its_designator_is_led_with_before_a_subject():
    """"Where did she do her PhD?" of "Ph.D. in Applied Physics, Yale University (2012-2018)": both are runs of
    capitalised words probablepeople tags as organisations, but only "Yale University" holds a designator (the
    word saying what kind of body it is, or a legal form), so it leads, even where the collection never writes
    "Yale" in lower case either way; a subject written like a name does not."""
    designated = entities.designated
    assert designated("Yale University") and designated("Royal Institute of Technology") and designated("Everest Systems GmbH")
    assert not designated("Applied Physics") and not designated("Sociology and Demography")
    common = set().__contains__  # a collection that writes every word of both in lower case somewhere
    text = "Ph.D. in Applied Physics, Yale University (2012-2018)"
    a, b = leads.phrase("place", text, near={"phd": 2.0}, named=common, question="Where did she do her PhD?") or (0, 0)
    assert text[a:b] == "Yale University"
    assert leads.names_body("place", "Yale University", common) and not leads.names_body("place", "Applied Physics", common)
    assert not leads.names_body("person", "Yale University", common)  # a designator says body, not person
    emphasised = "_University of Pittsburgh_ 2019-"
    assert [emphasised[x:y] for _, x, y in entities.entities(emphasised)] == ["University of Pittsburgh"]


def test_a_heading_in_capitals_is_no_place():
    """A CV's section heading in capitals ("ACADEMIC EMPLOYMENT") is tagged like a name, and its words look like
    names to a collection that writes them only there; it is no answer to "Where does she work now?". A name
    alone on a line in capitals still is one, and so is the heading when nothing else is."""
    cv = "ACADEMIC EMPLOYMENT\n\nAssistant Professor of Political Science (August 2026– )\nUniversity of South Carolina"
    names = {"EMPLOYMENT", "Carolina"}.__contains__
    a, b = leads.phrase("place", cv, near={"work": 2.0, "now": 2.0}, question="Where does she work now?",
                         named=names) or (0, 0)
    assert cv[a:b] == "University of South Carolina"
    a, b = leads.phrase("place", "ACADEMIC EMPLOYMENT\nnone listed") or (0, 0)
    assert (a, b) == (0, 19)  # nothing else to lead with
    refs = "REFERENCES\nJOHN SMITH\nProfessor of Physics"
    a, b = leads.phrase("person", refs) or (0, 0)
    assert refs[a:b] == "JOHN SMITH"
    # nor is a role, opening on a title nameparser knows, when the employer is on the same line (the table's
    # "Current employer" cell showed "Associate Professor of Sociology"); a role alone still leads
    job = "2014- : Associate Professor of Sociology, University of Oregon"
    a, b = leads.phrase("place", job, near={"work": 2.0, "now": 1.0}, question="Where does Jane Roe work now?") or (0, 0)
    assert job[a:b] == "University of Oregon"
    a, b = leads.phrase("place", "Associate Professor of Sociology", question="Where does she work?") or (0, 0)
    assert (a, b) != (0, 0)
    # nor one ending on such a title, its head noun ("Innovation Research Associate" had led for public CV set 3)
    entry = "Innovation Research Associate (2024 - 2025)\nUniversity of Warwick, Coventry, UK"
    a, b = leads.phrase("place", entry, near={"work": 2.0}, question="Where did Allen Roe work?") or (0, 0)
    assert entry[a:b].startswith("University of Warwick")


def test_the_phrase_led_with_is_the_one_nearest_the_question_words():
    text = ("stimulating factor (GM-CSF), platelet agonists (for example, eltrombopag, TPO, interleukin-11), must "
            "have a 2-week interval between receiving growth factor support and screening assessment.")
    spans = [text[a:b] for a, b in detect.kind_spans("number", text, frozenset())]
    assert spans == ["2-week"]  # "11" of interleukin-11 is part of a name, not a quantity
    two = "The pilot, age 85, was attempting to land. He reported a total flight experience of 2,319 hours."
    assert [two[a:b] for a, b in detect.kind_spans("number", two, frozenset())] == ["85", "2,319 hours"]
    a, b = leads.phrase("number", two) or (0, 0)
    assert two[a:b] == "85"  # no question words: the first
    a, b = leads.phrase("number", two, near={"flight": 2.0, "experience": 2.0, "total": 1.0}) or (0, 0)
    assert two[a:b] == "2,319 hours"
    a, b = leads.phrase("number", two, near={"pilot": 1.0, "age": 2.0}) or (0, 0)
    assert two[a:b] == "85"
    # in a list of entries, a line's words are no nearer another line's phrase ("2022" ends the line above "Masters")
    degrees = "- PhD in Electrical Engineering, Some University, 2022\n- Masters in Computer Science, Other University, 2015"
    a, b = leads.phrase("date", degrees, near={"masters": 2.0, "computer": 1.0, "science": 1.0}) or (0, 0)
    assert degrees[a:b] == "2015"
    heads = "Some University, Boston\n- PhD in physics, 2009--2015\nOther College, Leeds\n- BA in physics, 2005--2009"
    a, b = leads.phrase("place", heads, near={"phd": 2.0}, question="Where did she do her PhD?") or (0, 0)
    assert heads[a:b] == "Some University"  # not the next entry's head for being right under the PhD's line
    # ... and an entry whose line gives no phrase of the kind is not answered by another entry's: a PhD still
    # running has no year, and the Master's line's "2020" is not it
    running = ("- PhD in Formal Methods, Some Institute, Present\n- Master's Degree in Engineering, Other School, "
               "2017 - 2020\n- Preparatory classes, Third School, 2015 - 2017")
    assert leads.phrase("date", running, near={"phd": 2.0, "defend": 1.0}) is None
    a, b = leads.phrase("date", running, near={"master": 2.0}) or (0, 0)
    assert running[a:b] == "2017 - 2020"
    # Given the question: a number it already says is no answer, nor is a date's day or year
    crash = "On December 23, 2007, a Cessna 172 struck terrain; the pilot and 3 passengers died in 2007 weather."
    q = "How many people died in the Cessna 172 crash?"
    a, b = leads.phrase("number", crash, near={"died": 1.0, "people": 1.0}, question=q) or (0, 0)
    assert crash[a:b] == "3 passengers"
    assert leads.phrase("number", "Cessna 172, 2007", question=q) is None  # nothing left to lead with
    assert leads.phrase("number", "Cessna 172, 2007") is not None  # without the question: the first
    # probablepeople's verdict must agree with its own parse ("Computer Science": a "Person" made of a
    # corporation part)
    assert entities.tag("Computer Science") == "" and entities.tag("Jenna Wiens") == "Person"
    assert entities.tag("University of South Carolina") == "Corporation"
    # a place phrase holding a word the collection only ever capitalises beats a title of common words
    idf = Idf(["She works in political science research.", "A professor and an assistant."])
    line = "Assistant Professor of Political Science (August 2026)\nUniversity of South Carolina"
    asked = "Where will she start in August 2026?"
    near = {"august": 1.0, "2026": 1.0}  # as close to the title (just after it) as to the name (just before)
    a, b = leads.phrase("place", line, near=near, question=asked) or (0, 0)
    assert line[a:b] == "University of South Carolina"  # a tie, but the title opens on a role ("Assistant")
    a, b = leads.phrase("place", line, near=near, question=asked, named=idf.proper) or (0, 0)
    assert line[a:b] == "University of South Carolina" and not idf.proper("Science") and idf.proper("Carolina")
    # a title that restates the question ("... as an assistant professor ...") leads with nothing of it
    restated = "Where will she start as an assistant professor in August 2026?"
    a, b = leads.phrase("place", line, near=near, question=restated) or (0, 0)
    assert line[a:b] == "University of South Carolina"
    # the word just after a phrase is as near as the word just before it: "History" follows "Bachelor
    # of Arts" and precedes the master's university; "Master" tips it
    cv = "Master of Arts, History, Virginia Polytechnic Institute and State University (2003)\n" \
         "Bachelor of Arts, History and Political Science, Virginia Polytechnic Institute (2001)"
    a, b = leads.phrase("place", cv, near={"master": 2.0, "history": 2.0}) or (0, 0)
    assert cv[a:b] == "Virginia Polytechnic Institute and State University"
    # a title opening a name (nameparser's list) does not make it a company's name
    line = "PhD student, supervised by Prof. Volker Bormuth, Laboratoire Jean Perrin"
    assert ("person", "Prof. Volker Bormuth") in [(k, line[a:b]) for k, a, b in detect.entities(line)]


def test_features_use_collection_idf_and_cached_embeddings(seed_assistant, embedder):
    question = "What does Moccasin do?"
    hits = seed_assistant.search(question, 4)
    pieces = pieces_of(hits)
    cands = candidates(hits, pieces)
    idf = Idf([h.text for h in hits])
    assert idf("moccasin") > idf("the")
    assert "citation" in lemmas("citations")
    cache = VectorCache(embedder)
    q = embedder.embed_query(question)
    x = features(question, q, hits, pieces, cands, cache, idf)
    assert x.shape == (len(cands), len(NAMES)) and np.isfinite(x).all()
    cos = x[:, NAMES.index("cos")]
    assert (cos <= 1.0001).all() and (x[:, NAMES.index("cos_rel")] <= 1e-6).all()
    best = int(np.argmax(x[:, NAMES.index("idf_overlap")]))
    assert "moccasin" in hits[cands[best].hit].text[cands[best].start:cands[best].end].lower()
    before = len(cache._vecs)
    features(question, q, hits, pieces, cands, cache, idf)
    assert len(cache._vecs) == before  # every piece was embedded once


def test_unmatched_is_the_rarest_question_word_a_candidate_leaves_out(seed_assistant):
    question = "What was Fatih Balin's GPA as an exchange student?"
    hits = seed_assistant.search(question, 6)
    pieces = pieces_of(hits)
    cands = candidates(hits, pieces)
    idf = Idf.of_store(seed_assistant.store)
    u = unmatched(question, hits, pieces, cands, idf)
    assert u.shape == (len(cands),) and ((u >= 0) & (u <= 1)).all()
    text = [hits[c.hit].text[c.start:c.end] for c in cands]
    exchange = [i for i, t in enumerate(text) if "GPA" in t and "Exchange" in t]
    assert exchange, "the seed profile's exchange-student line is a candidate"
    # "what", "was", "as", "an" are common English words and Balin locates the document: nothing is left
    assert all(u[i] == 0.0 for i in exchange)
    def context(i: int) -> str:  # the candidate, its entry header and its section heading
        c = cands[i]
        head = pieces[c.header] if c.header is not None else None
        return f"{text[i]} {hits[c.hit].text[head.start:head.end] if head else ''} {hits[c.hit].section}"

    others = [i for i in range(len(cands)) if "gpa" not in lemmas(context(i))]
    assert others and all(u[i] > 0.0 for i in others)  # "gpa" is missing there (and is a rare word)

    # The type a "which"/"what" question names is what the answer is an instance of, not a word it holds:
    # "Which company ..." is answered by a company's name.
    assert asks.type_word("Which company does Muhammed Fatih Balin work for now?") == "company"
    assert asks.type_word("At which venue was the paper published?") == "venue"
    assert asks.type_word("What is his GPA?") == "" and asks.type_word("Which of them won?") == ""
    q = "Which company does Muhammed Fatih Balin work for now?"
    hits = seed_assistant.search(q, 6)
    pieces = pieces_of(hits)
    cands = candidates(hits, pieces)
    u = unmatched(q, hits, pieces, cands, idf)
    employer = [i for i, c in enumerate(cands) if "Amazon Web Services" in hits[c.hit].text[c.start:c.end]]
    assert employer and min(u[i] for i in employer) < 1.0  # "company" (in no seed profile) is not held against it
    assert unmatched(question, hits, pieces, [], idf).shape == (0,)


def test_question_words_meet_accented_names_and_dotted_abbreviations():
    """A question typed without accents or dots ("Parvulescu", "PhD") meets the document's "Pârvulescu"
    and "Ph.D.": the overlap features and `unmatched` compare accent-free lemmas, and a compound
    joined by dots also counts glued ("Ph.D." -> "phd"), as the lexical index glues it."""
    assert {"phd", "ph", "d"} <= lemmas("PH.D. IN ECONOMICS") and "bsc" in lemmas("B.Sc. (Honours)")
    assert lemmas("Pârvulescu's minors") == lemmas("Parvulescu's minors")
    text = "Ph.D. in Sociology, McGill University 2015"
    hit = Hit(1, "c1", "/docs/cv.pdf", 1, "Education", text, 1.0, "Radu Andrei Pârvulescu", "Curriculum vitae", 0, len(text))
    pieces = pieces_of([hit])
    cands = candidates([hit], pieces)
    idf = Idf([text, "Book reviews written for International Sociology", "Minors in history and philosophy"])
    assert unmatched("Where did Parvulescu do his PhD?", [hit], pieces, cands, idf).tolist() == [0.0] * len(cands)
    # before: "parvulescu" (not the owner's "pârvulescu") and "phd" (not "ph", "d") were both left unmatched
    assert unmatched("Where did Parvulescu do his doctorate?", [hit], pieces, cands, idf).max() > 0.0


def test_fitted_parameters_ship_as_json_and_load_without_sklearn():
    model = ReaderModel.load(PARAMS)
    assert model.names == NAMES and 0.0 < model.threshold < 1.0 and 0.0 < model.who_threshold < 1.0
    again = ReaderModel.from_dict(json.loads(json.dumps(model.to_dict())))
    assert np.allclose(again.coef, model.coef)
    bad = dict(model.to_dict(), names=["cos"])
    with pytest.raises(ValueError, match="train-reader"):
        ReaderModel.from_dict(bad, "x.json")
    code = ("import sys; from assistant.answer.reader import Reader; from assistant.answer.model import ReaderModel; "
            "ReaderModel.load(); "
            "import assistant.api; assert 'sklearn' not in sys.modules, 'sklearn on the ask path'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_an_address_is_asked_by_the_noun_a_what_question_names_and_found_by_its_shape():
    # the noun must be what is asked: an email as a topic, a postal address or a site asks for none
    kinds = {"What is Roland Haas's email?": "email", "What is the e-mail address of Jane Roe?": "email",
             "Which email address does she use?": "email", "What is Jane Roe's website?": "url",
             "What is her home page?": "url", "What is the URL of her homepage?": "url",
             "Which paper mentions email spam?": "", "What is the address of Jane Roe?": "",
             "What is the site of the accident?": "", "Who sent the email?": "person"}
    assert {q: asks.asked(q) for q in kinds} == kinds
    text = "Contact: # rhaas@illinois.edu, www.ncsa.illinois.edu/ and https://github.com/jroe/x. See Ph.D., e.g. 2.5"
    assert [text[a:b] for a, b in detect.shapes("email", text)] == ["rhaas@illinois.edu"]
    assert [text[a:b] for a, b in detect.shapes("url", text)] == ["www.ncsa.illinois.edu/", "https://github.com/jroe/x"]
    assert detect.holds("email", text) and not detect.holds("email", "no address here")
    # an address is a person's own when it spells part of their name
    assert names_owner("rhaas@illinois.edu", "Roland Haas") and names_owner("m.f.balin@gmail.com", "M. F. Balin")
    assert names_owner("sharbat.ch", "Sharbatanu Chatterjee") and names_owner("mfbal.in", "Muhammed Fatih Balin")
    assert names_owner("https://www.jose-perez.org/cv", "José Pérez")
    assert names_owner("jrd@uni.example", "Jane R. Doe") and names_owner("xwu@uni.example", "Xiaoming Wu")
    assert names_owner("jroe [at] example (dot) org", "Jane Roe")
    assert names_owner("msotov@example.com", "Mateo Soto-Vega")  # a part of a hyphenated surname
    # at a domain named after the person (initials aside), whatever its local part; not at a lab named after them
    assert names_owner("jobs@sxroe.com", "Sam Roe") and names_owner("me@janeroe.dev", "Jane Roe")
    assert not names_owner("info@roe-lab.org", "Jane Roe") and not names_owner("admin@university.edu", "Jane Roe")
    assert names_owner("brannicot@x.edu", "Orvel T. Brannick")  # a shortened surname and the given names' initials
    assert names_owner("andersrb@gmail.com", "Brian Anderson")  # a login: a cut surname and two initials
    assert not names_owner("anderssonk@x.org", "Brian Anderson") and not names_owner("andrews@x.org", "Brian Anderson")
    assert not names_owner("jsmith@example.edu", "Jane Roe") and not names_owner("info@roe-lab.org", "Jane Roe")
    assert not names_owner("ab@example.org", "Andrew Ng")
    obfuscated = "E-mail: jroe [at] example (dot) org."
    assert [obfuscated[a:b] for a, b in detect.shapes("email", obfuscated)] == ["jroe [at] example (dot) org"]


def test_an_address_asked_for_is_the_named_persons_own_or_none(seed_assistant, tmp_path, embedder, monkeypatch):
    a = seed_assistant.ask("What is Muhammed Fatih Balin's email?")
    assert not a.abstained and a.fact == "m.f.balin@gmail.com" and a.answer.startswith("m.f.balin@gmail.com [1]")
    assert a.citations[0].quote.count("\n") == 0 and "m.f.balin@gmail.com" in a.citations[0].quote  # its line
    _quotes_exact(seed_assistant, a)
    assert seed_assistant.ask("What is Burak Bartan's email address?").abstained  # his profile gives none
    # what the LangChain retriever returns puts that chunk first
    assert seed_assistant.retrieve("What is Muhammed Fatih Balin's email?")[0].chunk_id == a.citations[0].chunk_id
    # the documents of a person are looked through for an address the search does not find
    balin = next(d.doc for d in seed_assistant.documents() if d.owner == "Muhammed Fatih Balin")
    email = lambda text: bool(detect.shapes("email", text))  # noqa: E731
    found = look_through(seed_assistant.store, [], [balin], email)
    assert found and all(email(h.text) for h in found) and found[0].rank == 1
    assert look_through(seed_assistant.store, found, [balin], email) == found  # nothing twice
    monkeypatch.setattr(resolve, "LOOK_HITS", 0)  # a person with many documents: a bounded look
    assert look_through(seed_assistant.store, [], [balin], email) == []
    monkeypatch.undo()
    # a referee's address is not the owner's: the reader abstains rather than give it
    cv = tmp_path / "roe.md"
    cv.write_text("# Jane Roe\n\nCurriculum vitae · https://janeroe.example.org\n\n## Education\n\n"
                  "PhD in Chemistry, University of Tartu, 2015\n\n## Software\n\nSpectra toolkit for chemistry "
                  "students: https://github.com/janeroe/spectra\n\n"
                  "## References\n\nProf. John Smith, University of Tartu, jsmith@ut.example.edu\n", encoding="utf-8")
    # ... but the one address of the contact line under the owner's name is theirs, whatever it spells
    doe = tmp_path / "doe.md"
    doe.write_text("# Ron Doe\n\nSomerville MA · resume2024@pm.example · github.com/rdoe-x\n\n## Experience\n\n"
                   "2024- Some Corp, Senior engineer\n\n## References\n\nProf. Ann Lee, alee@uni.example.edu\n",
                   encoding="utf-8")
    # ... and so is the one address (linked: written twice) of a role heading standing right under the name heading
    lee = tmp_path / "lee.md"
    lee.write_text("## Kim Lee\n\n### C++/Python Software Engineer\n\n+ [Warsaw, Poland](https://maps.example/x)\n"
                   "+ [buyuk.dev@mail.example](mailto:buyuk.dev@mail.example)\n\n### Experience\n\n"
                   "#### 2019 - 2023 Acme\n\n+ Backend development. Reviewer: Ann Smith, asmith@uni.example.edu\n",
                   encoding="utf-8")
    build_index([cv, doe, lee], tmp_path / "idx", embedder=embedder)
    store = Store.open(tmp_path / "idx")
    owners = {"roe.md": "Jane Roe", "doe.md": "Ron Doe", "lee.md": "Kim Lee"}
    for d in store.documents():  # as `citewise docs --set-owner` does
        store.set_owner(d.doc, owners[Path(d.doc).name])
    roe = Assistant(store, embedder)
    answer = roe.ask("What is Jane Roe's email?")
    assert answer.abstained and "jsmith" not in answer.answer and "Jane Roe's name" in answer.notes[-1]
    doe_mail = roe.ask("What is Ron Doe's email?")
    assert doe_mail.fact == "resume2024@pm.example" and "under Ron Doe's name" in doe_mail.notes[-1]
    lee_mail = roe.ask("What is Kim Lee's email?")
    assert lee_mail.fact == "buyuk.dev@mail.example" and "under Kim Lee's name" in lee_mail.notes[-1], lee_mail.answer
    # of two web addresses naming her, the first in her document: a homepage before a repository
    assert roe.ask("What is Jane Roe's website?").fact == "https://janeroe.example.org"


def test_reader_answers_with_a_calibrated_confidence_and_exact_quotes(seed_assistant):
    assert isinstance(seed_assistant.writer, Reader)
    a = seed_assistant.ask("What is Moccasin?")
    assert not a.abstained and "Moccasin" in a.answer
    model = seed_assistant.writer.model
    assert a.confidence is not None and a.confidence >= model.sure(model.threshold)  # shown calibrated
    assert all("001_" in c.doc for c in a.citations)
    _quotes_exact(seed_assistant, a)
    assert len(re.sub(r"\s*\[\d+\]", "", a.answer)) <= 300  # concise: "[n]" markers removed
    for line in a.answer.splitlines():  # every line is a verbatim slice of a cited quote
        body = line.rsplit("[", 1)[0].strip()
        assert any(body in " ".join(c.quote.split()) for c in a.citations)


def test_an_entry_header_alone_is_answered_with_its_body(seed_assistant):
    from assistant.answer.extent import with_body

    reader = seed_assistant.writer
    q = "What does Fatih Balin work on at Amazon Web Services?"
    r = reader.read(q, seed_assistant.retrieve_scoped(q)[0])
    header = [c for i, c in enumerate(r.cands) if r.text(i).startswith("Amazon Web Services")
              and r.text(i).rstrip().endswith("PRESENT")]
    assert header, "the AWS entry's header lines (employer, title, dates) are a candidate"
    c = header[0]
    text = r.hits[c.hit].text
    end = with_body(r, c)
    assert end > c.end and "quantized data type support" in text[c.end:end]  # its first bullet joins it
    assert len(" ".join(text[c.start:end].split())) <= 300
    body = [c for i, c in enumerate(r.cands) if r.text(i).startswith("- Adding quantized")]
    assert body and with_body(r, body[0]) == body[0].end  # a body line is not extended


def test_near_miss_question_abstains(seed_assistant):
    # Balin's profile has a GPA for his B.S.; Burak Bartan's has none: the field exists for another person.
    a = seed_assistant.ask("What was Burak Bartan's undergraduate GPA?")
    assert a.abstained and a.kind == "abstain"
    # the note says how sure the reader was, in percent, beside the level it answers from (both calibrated)
    model = seed_assistant.reader.model
    threshold = f"{model.sure(model.threshold):.0%}"
    assert any(n.startswith("the reader rates the closest passages") and n.endswith(f"it answers from {threshold}")
               for n in a.notes), a.notes


def test_abstentions_show_related_passages_and_never_claim_absence(seed_assistant):
    reader = seed_assistant.writer
    hits, _ = seed_assistant.retrieve_scoped("What was Burak Bartan's undergraduate GPA?")
    r = reader.read("What was Burak Bartan's undergraduate GPA?", hits)
    a = reader.abstain(r, "test")
    assert a.abstained and a.kind == "abstain" and not a.citations
    assert "mentions" not in a.answer and "nothing" not in a.answer.lower()
    assert a.related and len({c.chunk_id for c in a.related}) == len(a.related)
    _quotes_exact(seed_assistant, a)


def test_who_lists_people_by_owner_and_a_document_without_owner_as_unknown(tmp_path, embedder):
    files = {p.name: p.read_text(encoding="utf-8") for p in PROFILES.iterdir()}
    files["notes.txt"] = ("meeting notes\n\nThe group discussed graph neural networks for large scale training on GPUs.\n"
                          "Next meeting in two weeks.\n")
    store, assistant = _indexed(tmp_path, embedder, files)
    a = assistant.ask("Who has worked on graph neural networks?")
    assert a.kind == "people" and not a.abstained
    names = [p.name for p in a.people]
    assert any("Balin" in n for n in names)
    unknown = [p for p in a.people if not p.owner_known]
    # the notes speak of graph neural networks: listed, by their document, never as a person named "meeting notes"
    assert [Path(d).name for p in unknown for d in p.docs] == ["notes.txt"], a.answer
    # beside people, by its file name, which says more of it than a title ("About", "CV") would
    assert sum("notes.txt (owner unknown)" in line for line in a.answer.splitlines()) == 1
    assert a.notes and "searched" in a.notes[0]
    for line in a.answer.splitlines():  # concise: about 120 characters per person, [n] removed
        assert len(re.sub(r"\s*\[\d+\]", "", line)) <= 120, line
    _quotes_exact(assistant, a)


def test_a_date_asked_for_is_never_answered_from_a_passage_without_one(tmp_path, embedder):
    store, assistant = _indexed(tmp_path, embedder, {
        f"{name.split()[1].lower()}_cv.md":
            f"# {name}\n\n{name.split()[0].lower()}@example.org\n\n## Education\n\n- {degree}\n"
            "- B.Sc. in Mathematics, University of Leeds\n\n## Experience\n\n- Research scientist, Acme Labs\n"
            "- Lecturer in physics, University of York\n"
        for name, degree in (("Ada Roe", "Ph.D. in Physics, Stanford University"),
                             ("Bo Tran", "Ph.D. in Physics, Stanford University, 2015"))})
    dated = assistant.ask("When did Bo Tran get their PhD?")
    assert not dated.abstained and "2015" in dated.answer, dated.answer
    undated = assistant.ask("When did Ada Roe get their PhD?")
    assert undated.abstained and not undated.citations, undated.answer
    assert any("holds no date" in n for n in undated.notes), undated.notes
    store.close()
    # what can say when, without a year: a day and month, a weekday, a span of days, a period still open
    from assistant.answer.detect import says_when

    for text in ("The deadline is June 30.", "We meet on Tuesdays.", "within 30 days of enrolment", "Sep - present"):
        assert says_when(text), text
    assert not says_when("Ph.D. in Physics, Stanford University") and not says_when("The dataset is taken from it.")


def test_which_paper_is_answered_by_the_title_of_the_paper_that_calls_itself_one(tmp_path, embedder):
    """"Which paper proposes ...?" asks for a document: the answer leads with the title of the paper
    that says "In this paper" (its own word for what it is), then quotes the passage. A CV is a person's
    document, never the thing asked for, and a question whose verb is said of something else ("Which
    method does ... use?") keeps the usual answer."""
    store, assistant = _indexed(tmp_path, embedder, {
        "meshes.md": "# Window Transformers for Mesh Classification\n\n## Abstract\n\nIn this paper we propose a "
                     "window-based transformer that classifies triangle meshes. It attends within local windows of "
                     "faces and merges them level by level.\n\n## Results\n\nOn the SHREC benchmark the window "
                     "transformer reaches 98.3% accuracy.\n",
        "soils.md": "# Soil Moisture Sensing with Radio\n\n## Abstract\n\nIn this paper we measure soil moisture from "
                    "the delay of radio signals between buried sensors.\n\n## Method\n\nThe method uses least squares "
                    "to fit the delay.\n",
        "roe_cv.md": "# Jane Roe\n\njane@example.org\n\n## Research\n\nIn this paper series I study graph neural "
                     "networks for molecules.\n"})
    a = assistant.ask("Which paper proposes a transformer that classifies triangle meshes?")
    assert not a.abstained and a.answer.startswith("Window Transformers for Mesh Classification [1]\n"), a.answer
    assert Path(a.citations[0].doc).name == "meshes.md" and any("calls itself one" in n for n in a.notes), a.notes
    assert len(re.sub(r"\s*\[\d+\]", "", a.answer)) <= 300
    _quotes_exact(assistant, a)
    other = assistant.ask("Which method does the soil moisture paper use to fit the delay?")
    assert not other.answer.startswith("Soil Moisture Sensing"), other.answer
    cv = assistant.ask("Which paper series studies graph neural networks for molecules?")
    assert cv.citations and Path(cv.citations[0].doc).name == "roe_cv.md", cv.answer
    assert not cv.answer.startswith("Jane Roe") and cv.fact != "Jane Roe", cv.answer
    store.close()
    from assistant.answer.asks import thing_asked
    from assistant.answer.titles import self_named

    assert [thing_asked(q) for q in ("Which paper proposes X?", "What study used MIMIC?", "Which papers use R?",
                                     "In which journal was it published?", "What teaching prize did she win?",
                                     "Which method does the paper use?")] == ["paper", "study", "", "", "", ""]
    assert self_named("Abstract. In this paper, we show ...", "paper") and not self_named("a paper on meshes", "paper")
    assert not self_named("x" * 6000 + " this paper", "paper")  # a self-reference far from the opening is not read
    # a noun the document numbers names its parts, not the document: "In this section" answers no "Which section?"
    assert not self_named("In this section we describe the data. Section 3 gives the results.", "section")
    assert not self_named("In this study we ran two studies. Study 1 was online.", "study")
    assert self_named("In this study we ran two experiments (Experiment 1, 2).", "study")


def test_a_title_named_by_its_name_outranks_one_sharing_only_common_words(tmp_path, embedder):
    """"version 2.0 of the Apache License" names the Apache License, though the Mozilla Public License
    Version 2.0 shares more rare title words with it ("version", "2.0"): the question writes "Apache" as a
    name, and "Apache" is the one word of that title that tells the titles apart (own_licenses, g09)."""
    from assistant.answer.titles import titles_named
    from assistant.answer.words import tokens

    store, _ = _indexed(tmp_path, embedder, {
        "Apache-2.0.txt": "Apache License\n\nVersion 2.0, January 2004. A copyright license.\n",
        "MPL-2.0.txt": "Mozilla Public License Version 2.0\n\n1. Definitions. A license.\n",
        "GPL-3.txt": "GNU GENERAL PUBLIC LICENSE\n\nVersion 3, 29 June 2007. A license.\n"})

    def named(q: str) -> list[str]:
        return [Path(d).name for d in titles_named(tokens(q), set(), store)[0]]

    assert named("When was version 2.0 of the Apache License published?") == ["Apache-2.0.txt"]
    assert named("Who is the license steward of the Mozilla Public License 2.0?") == ["MPL-2.0.txt"]
    assert named("In the GNU General Public License, which section limits liability?") == ["GPL-3.txt"]
    assert named("Which license texts mention a steward?") == []  # "license" is in every title: it names none
    store.close()


def test_a_file_name_most_texts_use_as_a_word_names_no_document(tmp_path, embedder):
    """`SECURITY.md` is not what "the security release stewards" names when every document of the folder
    says "security" (own_nodejs j03 searched the security policy for a list in the README); a file name
    the other texts never use ("defusedxml") still names its document alone."""
    from assistant.answer.titles import titles_named
    from assistant.answer.words import tokens

    store, _ = _indexed(tmp_path, embedder, {
        "SECURITY.md": "# Security\n\nReport security bugs privately.\n",
        "README.md": "# Project\n\nSecurity release stewards: Jane Roe (NodeWorks).\n",
        "BUILDING.md": "# Building\n\nSecurity fixes need a rebuild.\n",
        "defusedxml.md": "# defusedxml\n\nXML parsing without entity expansion.\n"})

    def named(q: str) -> list[str]:
        return [Path(d).name for d in titles_named(tokens(q), set(), store)[0]]

    assert named("Who are the security release stewards from NodeWorks?") == []
    assert named("Who wrote defusedxml?") == ["defusedxml.md"]
    store.close()


def test_who_lists_the_people_whose_documents_spell_the_name_asked_about(tmp_path, embedder):
    """"University College London" (Zheng's CV) and "Imperial College London" (Sohail's) share two of
    three words, and MiniLM embeds their lines alike: without the check, both were listed for either.
    Phelps's CV names Imperial College London in his last job and his referees' addresses, which the
    search ranked below two passages about Oxford colleges: the "who" model read those and left him out;
    each CV's retrieved passage that writes out the question's name of two or more words is read now, and
    one that does makes its person a match."""
    import shutil

    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("cv02_zheng.pdf", "cv06_sohail.pdf", "cv13_phelps.pdf", "cv16_graham.md"):
        shutil.copy(require_shared(REALDOCS / "docs" / name), docs / name)
    store, _ = build_index([docs], tmp_path / "index", embedder=embedder)
    assistant = Assistant(store, embedder)
    for school, people, others in (("Imperial College London", ("Sohail", "Phelps"), ("Zheng",)),
                                   ("University College London", ("Zheng",), ("Sohail", "Phelps"))):
        a = assistant.ask(f"Which people have a connection to {school}?")
        names = " ".join(p.name for p in a.people)
        assert all(p in names for p in people) and not any(o in names for o in others), a.answer
        assert a.answer.count(school) == len(people), a.answer  # each line quotes the place
        _quotes_exact(assistant, a)


def test_a_document_listed_by_a_long_title_keeps_room_for_its_quote():
    from assistant.answer.who import MIN_QUOTE, PER_PERSON_CHARS, TITLE_CHARS, short_title

    long = "Cross-Partisan Discussions on YouTube: Conservatives Talk to Liberals but Liberals Don't Talk to Them"
    cut = short_title(long)
    assert cut == "Cross-Partisan Discussions on YouTube: Conservatives Talk to Liberals but…"
    assert len(cut) <= TITLE_CHARS and len(f"- {cut}: ") + MIN_QUOTE <= PER_PERSON_CHARS
    report = "Aviation Accident Final Report: NYC08CA055, N5921D, Piper PA-22-150"
    assert short_title(report) == report  # a title that fits stays whole, identifiers and all
    assert short_title("x" * 200, 50) == "x" * 49 + "…"


def test_names_a_question_spells():
    from assistant.answer.who import spelled_names

    idf = Idf(["Funded by the NSF and the Swiss government.", "Whose work? Which people? Spanish and Research."])
    assert spelled_names("Which people have a connection to Imperial College London?") == ["imperial college london"]
    # single names only with the collection's word: capitalised and never written in lower case there
    assert spelled_names("Whose work has been funded by the NSF?", idf.proper) == ["nsf"]
    assert spelled_names("Whose work has been funded by the NSF?") == []
    assert spelled_names("Which people know Spanish at Imperial College London?", idf.proper) == [
        "imperial college london", "spanish"]
    assert not Idf(["research and more research"]).proper("Research")
    # an address, a handle or a path does not write its words as words: "Google" a CV names only so is still a name
    # (public CV set 10: "Who has worked for Google?" listed a CV that never names it, the filter off)
    links = Idf(["__Google__, Irvine, CA", "List: <https://scholar.google.co.uk/citations?hl=en>, jroe@gmail.com, "
                 "@google, github.com/google/jax"])
    assert links.proper("Google") and not Idf(["We google it."]).proper("Google")
    from assistant.answer.who import spells

    assert spells("Funded by the N.S.F.? No: by the NSF, 2019", "nsf") and not spells("a transfer student", "nsf")
    assert spells("Sorbonne Universite\u0301,\nParis", "sorbonne universite")  # accents and line breaks aside
    assert spells("Ph.D. in Physics", "phd") and spells("PhD, 2019", "ph.d")  # dotted abbreviations glued
    assert spells("Code is available at https://github.com/x/y", "github")  # an address's name, not glued to its domain


def test_a_who_line_cut_from_a_long_line_keeps_the_words_asked_about():
    from assistant.answer.extent import window

    line = ("Professor Majid Ezzati, Chair in Global Environmental Health, School of Public Health, "
            "Imperial College London majid.ezzati@imperial.ac.uk")
    a, b = window(line, 0, len(line), 90, {"imperial", "college", "london", "connection"})
    assert "Imperial College London" in line[a:b] and b - a <= 90
    assert line[a:b] == line[a:b].strip() and (a == 0 or line[a - 1] == " ")  # whole words
    a, b = window(line, 0, len(line), 40, {"nothing"})
    assert a == 0 and line[a:b] == "Professor Majid Ezzati, Chair in Global"  # none there: the start


def test_a_who_line_on_a_heading_goes_on_with_the_line_under_it():
    """A "who" line quotes the candidate's line sharing most words with the question; when that is a heading of its
    section ("### Courses Taught" for "Who has taught courses?", a section of a heading alone going with the next
    one), it names what follows and says none of it: the line under it comes too, when both fit. A line that is
    no heading keeps to itself."""
    from assistant.answer.extent import short

    text = "### Courses Taught\n\n- Quantitative Methods in Sociology (undergraduate)\n- Survey Design (graduate)"
    hits = (Hit(rank=1, chunk_id=1, doc="/d/roe.md", page=None, section="Jane Roe > Teaching > Courses Taught",
                text=text, score=1.0),)
    pieces = pieces_of(hits)
    cands = candidates(hits, pieces)
    r = Reading("Who has taught courses?", hits, tuple(pieces), tuple(cands), np.zeros((len(cands), 1)),
                np.zeros(len(cands)), np.zeros(len(cands)))
    i = next(k for k, c in enumerate(cands) if c.start == 0 and len(c.pieces) == 3)
    a, b = short(r, i, 120)
    assert text[a:b] == "### Courses Taught\n\n- Quantitative Methods in Sociology (undergraduate)"
    assert text[slice(*short(r, i, 40))] == "### Courses Taught"  # both do not fit: the heading alone
    plain = (Hit(rank=1, chunk_id=2, doc="/d/poe.md", page=None, section="Experience",
                 text="Course Assistant, CS 107\nStanford University", score=1.0),)
    pp = pieces_of(plain)
    cc = candidates(plain, pp)
    rr = Reading("Who was a course assistant?", plain, tuple(pp), tuple(cc), np.zeros((len(cc), 1)),
                 np.zeros(len(cc)), np.zeros(len(cc)))
    j = next(k for k, c in enumerate(cc) if len(c.pieces) == 2)
    assert plain[0].text[slice(*short(rr, j, 120))] == "Course Assistant, CS 107"


def test_a_passage_ending_with_a_colon_takes_in_the_line_it_announces():
    from assistant.answer.candidates import candidates, pieces_of
    from assistant.answer.extent import with_what_follows
    from assistant.answer.reader import Reading
    from index import Hit

    text = ("Cargo can build the docs: $ cargo doc\nIf you want cargo to open the generated documentation, you can use:\n"
            "$ cargo doc --open\nOther settings follow.")
    hits = (Hit(rank=1, chunk_id=1, doc="/d/what.html", page=None, section="", text=text, score=1.0),)
    pieces = pieces_of(hits)
    cands = candidates(hits, pieces)
    r = Reading("What command opens the docs?", hits, tuple(pieces), tuple(cands), np.zeros((len(cands), 1)),
                np.zeros(len(cands)), np.zeros(len(cands)))
    c = next(c for c in cands if text[c.start:c.end].endswith("you can use:") and len(c.pieces) == 2)
    a, b = with_what_follows(r, c, c.start, c.end)
    assert text[a:b] == text[c.start:c.end] + "\n$ cargo doc --open"
    a, b = with_what_follows(r, c, c.start, c.end, limit=90)  # too long with the first line: it goes
    assert text[a:b] == "If you want cargo to open the generated documentation, you can use:\n$ cargo doc --open"
    last = next(c for c in cands if text[c.start:c.end] == "Other settings follow.")
    assert with_what_follows(r, last, last.start, last.end) == (last.start, last.end)  # no colon: as it was


def test_a_cv_answer_starts_with_its_entrys_header_right_above_it():
    # "Where is he doing his PhD?" was answered "PH.D. IN ECONOMICS AND FINANCE 2021-Present Visiting: ...",
    # the university on the line above left out. A person's document quotes the entry header right above
    # its candidate; not a section heading, nor in a paper, whose short lines are a wrapped paragraph.
    from dataclasses import replace

    from assistant.answer.candidates import candidates, pieces_of
    from assistant.answer.extent import with_header
    from assistant.answer.reader import Reading
    from index import Hit

    text = ("EDUCATION\nNorthfield University, Boston\nPH.D. IN PHYSICS 2021-Present\nVisiting: Eastfield Institute\n"
            "Southfield College, Leeds\nB.SC. IN CHEMISTRY 2016-2019")
    cv = Hit(rank=1, chunk_id=1, doc="/d/roe.pdf", page=1, section="EDUCATION", text=text, score=1.0, owner="Jane Roe")
    for hit, moves in ((cv, True), (replace(cv, owner=None), False)):
        pieces = pieces_of((hit,))
        cands = candidates((hit,), pieces)
        r = Reading("Where is she doing her PhD?", (hit,), tuple(pieces), tuple(cands), np.zeros((len(cands), 1)),
                    np.zeros(len(cands)), np.zeros(len(cands)))
        c = next(c for c in cands if text[c.start:c.end].startswith("PH.D.") and len(c.pieces) == 2)
        a = with_header(r, c, c.start, c.end)
        assert text[a:c.end] == ("Northfield University, Boston\n" if moves else "") + text[c.start:c.end]
        top = next(c for c in cands if text[c.start:c.end] == "Northfield University, Boston")
        assert with_header(r, top, top.start, top.end) == top.start  # the section's heading is no entry header
        assert with_header(r, c, c.start, c.end, limit=40) == c.start  # it must fit
    # a sub-section per entry: its own heading is the entry's header ("Where does she work now?" quoted the job
    # line and left out the employer that heads it); the top section's heading is still none
    text = "### Acme Analytics\nDevOps Engineer | 01/2024 - Present, Leeds\n- Led the cloud migration"
    job = Hit(rank=1, chunk_id=2, doc="/d/roe.md", page=None, section="WORK EXPERIENCE > Acme Analytics", text=text,
              score=1.0, owner="Jane Roe")
    for hit, moves in ((job, True), (replace(job, section="Acme Analytics"), False)):
        pieces = pieces_of((hit,))
        cands = candidates((hit,), pieces)
        r = Reading("Where does she work now?", (hit,), tuple(pieces), tuple(cands), np.zeros((len(cands), 1)),
                    np.zeros(len(cands)), np.zeros(len(cands)))
        c = next(c for c in cands if text[c.start:c.end].startswith("DevOps"))
        assert (with_header(r, c, c.start, c.end) == 0) is moves, hit.section
    # too long to quote whole beside its header: for a question about now, the header and the entry's first
    # lines, cut to fit ("What is his current job title?" quoted "*2008 - Present*" and a long description, and
    # left out the heading "### Freelance Designer & Web Developer" that says which job it is)
    from assistant.answer.extent import header_first

    text = ("### Freelance Designer & Web Developer\n*2008 - Present*\nBoth programming and design are interests I "
            "cultivate since I was 14, and over the years I have designed and coded websites, created restaurant menus "
            "and marketing materials for small firms in three cities, and kept a short print portfolio of the work.")
    job = Hit(rank=1, chunk_id=3, doc="/d/poe.md", page=None, section="Experience > Freelance Designer & Web Developer",
              text=text, score=1.0, owner="Paul Poe")
    pieces = pieces_of((job,))
    cands = candidates((job,), pieces)
    r = Reading("What is Paul Poe's current job title?", (job,), tuple(pieces), tuple(cands),
                np.zeros((len(cands), 1)), np.zeros(len(cands)), np.zeros(len(cands)))
    c = next(c for c in cands if text[c.start:c.end].startswith("*2008") and len(c.pieces) == 2)
    assert with_header(r, c, c.start, c.end) == c.start  # whole, it does not fit
    a, b = header_first(r, c, c.start, c.end)
    assert text[a:b] == "### Freelance Designer & Web Developer\n*2008 - Present*"
    assert header_first(r, c, c.start, c.end, limit=20) == (c.start, c.end)  # not even the first line fits


def test_a_question_about_now_quotes_the_present_where_it_is_written():
    """For a question about the present: a bullet far under its entry's header ("Tech Lead, Incubyte | Jun 2021 --
    Present") speaks of no present, its header does, so the quote is the header and the entry's first lines
    ("Where does he work now?" quoted three bullets and led with "API Design"); and the header is not put before a
    candidate when the lines kept would speak of no present while the line cut does (two "link: ..." lines kept,
    "Yutong is a Ph.D. candidate ... at Lehigh University" cut)."""
    from assistant.answer.extent import header_first, running_header

    text = ("### Tech Lead, Incubyte | Jun 2021 -- Present | Remote\n\n- Led projects in Ruby on Rails for clients.\n"
            "- Delivered developer experience improvements for the team.\n- Built team rapport and an inclusive work "
            "environment.\n- Key skills: API Design, Data Modeling, Mentoring")
    job = Hit(rank=1, chunk_id=4, doc="/d/kay.md", page=None, section="Experience > Tech Lead, Incubyte | Jun 2021 -- "
              "Present | Remote", text=text, score=1.0, owner="Abe Kay")
    pieces = pieces_of((job,))
    cands = candidates((job,), pieces)
    r = Reading("Where does Abe Kay work now?", (job,), tuple(pieces), tuple(cands), np.zeros((len(cands), 1)),
                np.zeros(len(cands)), np.zeros(len(cands)))
    c = next(c for c in cands if text[c.start:c.end].startswith("- Built") and len(c.pieces) == 2)
    a, b = running_header(r, c, c.start, c.end)
    assert text[a:b].startswith("### Tech Lead, Incubyte") and b == c.end  # it all fits
    a, b = running_header(r, c, c.start, c.end, limit=120)
    assert text[a:b] == "### Tech Lead, Incubyte | Jun 2021 -- Present | Remote\n\n- Led projects in Ruby on Rails for clients."
    text = text.replace("- Built", "- Currently building")  # the bullet speaks of the present itself: it stays
    job = Hit(rank=1, chunk_id=4, doc="/d/kay.md", page=None, section=job.section, text=text, score=1.0, owner="Abe Kay")
    pieces = pieces_of((job,))
    cands = candidates((job,), pieces)
    r = Reading("Where does Abe Kay work now?", (job,), tuple(pieces), tuple(cands), np.zeros((len(cands), 1)),
                np.zeros(len(cands)), np.zeros(len(cands)))
    c = next(c for c in cands if text[c.start:c.end].startswith("- Currently") and len(c.pieces) == 2)
    assert running_header(r, c, c.start, c.end) is None

    text = ("link: https://linkedin.com/in/ydai/\n\nlink: https://github.com/Y-Dai\n\nYutong is a Ph.D. candidate in "
            "the Department of Industrial and Systems Engineering at Lehigh University, working under the supervision of "
            "Professor Daniel P. Robinson, and works closely with Professor Lichao Sun on trustworthy federated learning.")
    bio = Hit(rank=1, chunk_id=5, doc="/d/dai.md", page=None, section="", text=text, score=1.0, owner="Yutong Dai")
    pieces = pieces_of((bio,))
    cands = candidates((bio,), pieces)
    r = Reading("Where does Yutong Dai work now?", (bio,), tuple(pieces), tuple(cands), np.zeros((len(cands), 1)),
                np.zeros(len(cands)), np.zeros(len(cands)))
    c = next(c for c in cands if text[c.start:c.end].startswith("link: https://github") and c.header is not None
             and "Lehigh" in text[c.start:c.end])
    assert header_first(r, c, c.start, c.end) == (c.start, c.end)


def test_baseline_never_abstains_and_windows_are_whole_lines(seed_assistant):
    text = "alpha line\nbeta line that is longer\n" + "x" * 310 + "\nlast"
    spans = line_windows(text)
    assert all(text[a:b].split("\n")[0] for a, b in spans)
    assert all(b - a <= 300 or "\n" not in text[a:b] for a, b in spans)
    a = baseline_answer("What is Balin's salary?", seed_assistant.searcher, seed_assistant.embedder)
    assert not a.abstained and a.citations


def test_eval_types_and_conciseness():
    from assistant.answer import Answer

    assert type_of({"answer": []}) == "unanswerable"
    assert type_of({"answer": [["a"], ["b"]], "docs": ["x", "y"]}) == "who"
    assert type_of({"answer": [["a"]], "docs": ["x"], "type": "number"}) == "number"
    assert is_concise({"answer": [["a"]], "docs": ["x"]}, Answer("q", "a " * 140 + "[1]", False))
    assert not is_concise({"answer": [["a"]], "docs": ["x"]}, Answer("q", "a " * 160, False))
    # "lead": how many phrases an answer leads with hold the answer themselves
    from assistant.answer.evaluate import Scored, metrics
    from assistant.answer_eval import AnswerScore

    def scored(fact: str) -> Scored:
        rec = {"q": "How many?", "docs": ["x"], "answer": [["3 passengers", "three"]]}
        ans = Answer("How many?", f"{fact} [1]\nthe pilot and 3 passengers [1]", False, fact=fact)
        return Scored(rec, AnswerScore("d1", "How many?", True, False, True, 1, 1, 1, 1, 1, None), True, ans)

    m = metrics([scored("3 passengers"), scored("172"), scored("")])
    assert (m["leads"], m["leads_ok"]) == (2.0, 1.0)


def test_realdocs_reader_answers_a_report_field_and_a_cv_fact(tmp_path_factory, embedder):
    docs = require_shared(REALDOCS / "docs")
    index_dir = tmp_path_factory.mktemp("realdocs-index")
    picked = [p for p in sorted(docs.iterdir()) if p.name.startswith(("ntsb02", "cv12"))]
    store, _ = build_index(picked, index_dir, embedder=embedder)
    assistant = Assistant(store, embedder)
    a = assistant.ask("What was the probable cause of the Air Tractor accident in Soledad?")
    assert not a.abstained and any("ntsb02" in c.doc for c in a.citations)
    _quotes_exact(assistant, a)


def test_a_question_about_now_prefers_passages_that_speak_of_now(tmp_path_factory, embedder):
    assert present.asks_now("Where does Maurice Weber work now?") and present.asks_now("What is her current job?")
    assert not present.asks_now("Which paper did Balin present at ICML 2019?")  # "present", the verb
    for running in ("2021–Present", "June 2011–present", "Oct. 2024 - PRESENT", "(since 2025)", "2016–current",
                    "Assistant Professor (August 2026– )", "Analyst, Acme 2021 –\nLeading the data team",
                    "Aug, 1990–\nPresent", "2014- : Associate Professor of Sociology",
                    "2024- CROWDSTRIKE Senior SE", "2010– Editor-in-chief, Some Yearbook",
                    "2020-, Assistant Professor, Department of Computer Science",  # a plain-text résumé's column
                    "*Aug. 2021 -- today*", "2019 --- present",  # TeX's and Pandoc's dashes typed as hyphens
                    "Ph.D. Student 2026.04 - present", "09/2021 - present", "2021-09 – now"):  # months in digits
        assert present.open_range(running) and present.says_now(running), running
    for ended in ("2019-2025, Lecturer", "Sep 2016 - Aug 2018", "presented in 2020", "Analyst 2019 –\n2021",
                  "Analyst 2019 –\nJan. 2021", "pages 12-", "2019 – PhD, Some University", "2018-2023 SALSIFY",
                  "Sep. 2016 -- Aug. 2018", "pages 12--15", "2019.09 - 2021.06", "2010-11: Academic visitor",
                  "volumes 2019-, 2020"):
        assert not present.open_range(ended), ended
    assert present.ended("Sep. 2016 -- Aug. 2018") and present.ended("2019---2021")
    line = "PhD Linguistics   2004--2009"
    assert leads.phrase("date", line) == (line.index("2004"), len(line))  # the whole period
    assert present.says_now("I am currently a tutor") and not present.says_now("Sep 2016 - Aug 2018")
    # "present" the adjective or noun speaks of now; the verb after a subject or an auxiliary does not
    assert present.says_now("At present she leads the lab") and present.says_now("Present position")
    assert not present.says_now("We present a framework") and not present.says_now("they will present it")
    # "Current" inside a name written within a line is the name's, not now (cv10's committee line outranked
    # his "Emeritus Faculty, 2024–present" for his current job); a heading opening its line still speaks of now
    assert not present.says_now("Representative to the Management Committee for the Current Index to Statistics")
    assert present.says_now("Current Research Interests") and present.says_now("Senior engineer, current")
    # ... and so is a "Now" a name ends after a joiner (a radio show), which answered "Where does he work now?"
    assert not present.says_now("- NPR Here and Now — Dec 2015") and present.says_now("I am now at Acme")
    assert not present.says_now("He immersed himself in the project and was present at the Trinity bomb test.")
    # the writer saying what they are, in the first person of "be" (an about page: "I am a Senior Member of the
    # Technical Staff at AMD" was refused for "Where does he work now?"); a biography's third person past is not
    assert present.says_now("I am a hydrologist working as postdoctoral researcher") and present.says_now("I'm a tutor")
    assert not present.says_now("Popper was an Austrian-British philosopher") and not present.says_now("Iam Roe")
    assert present.says_now("Joran Roe is an Assistant-Professor in Methods") and present.says_now("She is the chair")
    assert not present.says_now("Popper is regarded as a philosopher") and not present.says_now("the lab is a unit")
    assert not present.says_now("This is a preliminary report") and not present.says_now("It is the final rule")
    # an entry dated to a period that is over is past, whatever the entry above it or its section says of now
    assert present.ended("Research Engineer, September 2020 - November 2020") and present.ended("PhD 2016-2020")
    assert not present.ended("Lecturer 2016 – 2020; Analyst 2020 – present") and not present.ended("in 2019 and 2020")
    # its dates say when it held, not a word of its description (the sample CV's mentoring entry outranked the
    # running job for "What is his current job title?")
    assert present.ended("MENTOR\nAug. 2019 - Aug 2024\n- Currently multiple manuscripts are under review.")
    # On real CVs: the entry still running answers (tune d056 abstained and our c06 named a degree before)
    docs = require_shared(REALDOCS / "docs")
    picked = [p for p in sorted(docs.iterdir()) if p.name.startswith(("cv12", "cv16"))]
    store, _ = build_index(picked, tmp_path_factory.mktemp("now-index"), embedder=embedder)
    assistant = Assistant(store, embedder)
    for question, expected in (("Where does Maurice Weber work now?", "Together AI"),
                               ("What is Wayne Graham's current position at the University of Virginia Library?",
                                "Design Architect")):
        hits, _ = assistant.retrieve_scoped(question)
        r = assistant.reader.read(question, hits)
        assert r.x[:, NAMES.index("now_match")].any()
        assert expected in r.text(int(np.argmax(r.p))), (question, r.text(int(np.argmax(r.p))))
        assert not assistant.reader.read("Where did Maurice Weber study?", hits).x[:, NAMES.index("now_match")].any()
    a = assistant.ask("What is Wayne Graham's current position at the University of Virginia Library?")
    assert not a.abstained and "Design Architect" in a.answer, a.answer
    _quotes_exact(assistant, a)
    # a person's entries still running are looked through when the search does not find them
    graham = next(d.doc for d in assistant.documents() if d.doc.endswith("cv16_graham.md"))
    found = look_through(store, [], [graham], present.open_range)
    assert found and all(present.open_range(h.text) for h in found) and found[0].rank == 1
    assert "Design Architect" in found[0].text  # the first in the document
    assert look_through(store, found, [graham], present.open_range) == found  # nothing twice
    hits, _ = assistant.retrieve_scoped("Where does Wayne Graham work now?")
    assert any(h.chunk_id == found[0].chunk_id for h in hits)


def test_a_question_about_now_prefers_the_first_running_entry_of_a_cv(tmp_path_factory, embedder):
    """A CV opens its positions with the one held now; running memberships, service and courses come later
    (now_first). Grimes's "Senior Bioinformatics Analyst 2021 – present" under Employment had lost to
    "Assistant Professor ... 2020 – present - Courses taught include:" under Teaching, and Presnell's
    "Emeritus Faculty, 2024–present" to his teaching entry "Aug, 1990– Present"."""
    line = "Analyst 2015 - 2020; Senior analyst, Acme, 2021 - present"
    assert present.first_open(line) == line.index("Acme, 2021")  # a word before the year may be its month
    assert present.first_open("Assistant Professor (August 2026– )") == 21 and present.first_open("2015 - 2020") is None
    store, assistant = _indexed(tmp_path_factory.mktemp("roe"), embedder, {"ada_roe.md": (
        "# Ada Roe\n\nada@example.org\n\n## Employment\n\nSenior analyst, Acme Analytics, 2021 - present\n\n"
        "Analyst, Beta Labs, 2015 - 2020\n\n## Service\n\n* Co-organizer, Data Meetup, 2022 - present\n"
        "* Reviewer, Journal of Occupations, 2019 - present\n")})
    r, first = _column(assistant, "What is Ada Roe's current job title?", "now_first")
    texts = [r.text(i) for i in range(len(r.cands))]
    assert first.any() and all(("2021 - present" in t) == bool(f) for t, f in zip(texts, first, strict=True)), texts
    assert not _column(assistant, "Where did Ada Roe study?", "now_first")[1].any()
    store.close()
    # On real CVs (tune people of the table)
    docs = require_shared(REALDOCS / "docs")
    picked = [p for p in sorted(docs.iterdir()) if p.name.startswith(("cv10", "cv15"))]
    store, _ = build_index(picked, tmp_path_factory.mktemp("first-now"), embedder=embedder)
    assistant = Assistant(store, embedder)
    for question, expected in (("What is Brett Presnell's current job title?", "Emeritus"),
                               ("What is Tyler Grimes's current job title?", "Senior Bioinformatics Analyst")):
        hits, _ = assistant.retrieve_scoped(question)
        r = assistant.reader.read(question, hits)
        assert expected in r.text(int(np.argmax(r.p))), (question, r.text(int(np.argmax(r.p))))
    a = assistant.ask("What is Tyler Grimes's current job title?")
    assert not a.abstained and "Senior Bioinformatics Analyst" in a.answer, a.answer
    _quotes_exact(assistant, a)
    store.close()


def test_a_question_about_now_weighs_the_lines_a_document_opens_with(tmp_path_factory, embedder):
    """A CV opens with who its person is now: "Associate Professor, Ridge State University" under the name, where
    its sections list the past and the service entries still running (now_opening: the candidate lies in the
    document's first chunk, for a question about the present). Its weight was fitted beside the kept ranker; the
    line outranks the ended positions, and only a question about the present is told where the document opens."""
    store, assistant = _indexed(tmp_path_factory.mktemp("poe"), embedder, {"mia_poe.md": (
        "# Mia Poe\n\nAssociate Professor, Ridge State University\nDepartment of Sociology\n\n"
        "## Education\n\nPhD in Sociology, Lowland University, 2012\n\n"
        "## Positions\n\nAssistant Professor, Ridge State University, 2013 - 2019\n\n"
        "Lecturer, Hill College, 2012 - 2013\n\n"
        "## Teaching\n\nIntroduction to Sociology, 2014 - 2018\n")})
    r, opening = _column(assistant, "What is Mia Poe's current job title?", "now_opening")
    texts = [r.text(i) for i in range(len(r.cands))]
    assert opening.any() and all(bool(o) == any(w in t for w in ("Mia Poe", "Associate", "Department"))
                                 for t, o in zip(texts, opening, strict=True)), list(zip(texts, opening, strict=True))
    assert "Associate Professor" in r.text(int(np.argmax(r.p))), r.text(int(np.argmax(r.p)))
    assert not _column(assistant, "Where did Mia Poe get her PhD?", "now_opening")[1].any()
    store.close()


def test_a_question_about_now_is_refused_when_its_passage_speaks_of_no_present(tmp_path, embedder):
    """A biography that ends in the past ("He taught at Leiden until 1931") cannot say where its person works
    now: the passage it would quote has no period still running and no "currently" (the people table left
    a dead scholar's "Current employer" filled with his last post). A CV's running entry still answers."""
    store, assistant = _indexed(tmp_path, embedder, {
        "jan_vos.md": ("# Jan Vos\n\nJan Vos was a Dutch astronomer. He studied at Utrecht University and "
                       "taught at Leiden University from 1905 until 1931, where he worked on stellar spectra. "
                       "He died in Leiden in 1950.\n"),
        "ada_roe.md": ("# Ada Roe\n\nada@example.org\n\n## Employment\n\nAcme Analytics, 2021 - present\n"
                       "Senior analyst\n\nBeta Labs, 2015 - 2020\nAnalyst\n")})
    gone = assistant.ask("Where does Jan Vos work now?")
    assert gone.abstained and any("speaks of no present" in n for n in gone.notes), gone.answer
    assert not any("Leiden" in n or "absent" in n for n in gone.notes)  # says why, claims nothing of the documents
    here = assistant.ask("Where does Ada Roe work now?")
    assert not here.abstained and "Acme Analytics" in here.answer, here.answer
    _quotes_exact(assistant, here)
    past = assistant.ask("Where did Jan Vos teach?")  # the past asked of the past still answers
    assert not past.abstained and "Leiden" in past.answer, past.answer
    store.close()


def test_an_entry_that_ended_is_not_read_as_now_though_the_entry_above_it_runs_on(tmp_path, embedder):
    """A CV's entry "Research engineer, ... September 2020 - November 2020" sits under the running entry
    "... February 2025 - present": the question about now matches the running one only. Nor does a
    project's line saying "rats presently" under a header dated "January 2019 - August 2020" speak of now
    (it answered the people table's "Current employer"): the header's dates say when the entry held."""
    store, assistant = _indexed(tmp_path, embedder, {"roe_cv.md": (
        "# Jane Roe\n\njane@example.org\n\n## Employment\n\nInstitute of Neuroscience, February 2025 - present\n"
        "Postdoctoral researcher in neuroscience\n\nSorbonne University\nResearch engineer, September 2020 - "
        "November 2020\n\n## Education\n\nPh.D. in Biology, University of Geneva, 2024\n\n## Projects\n\n"
        "Visual learning lab, Eastfield University\nMentored by Prof. Mark Stone January 2019 - August 2020\n\n"
        "- I train animals (rats presently, and mice later) on an auditory task at the lab\n")})
    r, now = _column(assistant, "What is Jane Roe's current job?", "now_match")
    past = [i for i in range(len(r.cands)) if ("November 2020" in r.text(i) or "presently" in r.text(i))
            and "- present" not in r.text(i)]
    running = [i for i in range(len(r.cands)) if "- present" in r.text(i)]
    assert past and running and any("presently" in r.text(i) for i in past), [r.text(i) for i in range(len(r.cands))]
    assert not now[past].any() and now[running].all()
    store.close()


def test_train_fits_on_tune_records_only_with_grouped_cv(seed_assistant, tmp_path):
    from conftest import SEED_DEV

    from assistant.answer.samples import collect, label
    from assistant.answer.train import add_features, train

    records = [json.loads(line) for line in require_shared(SEED_DEV).read_text().splitlines() if line.strip()]
    records += [dict(records[0], id="held", split="heldout")]  # never read
    reader = Reader(seed_assistant.embedder, store=seed_assistant.store, reading="packaged")
    samples = collect(reader, lambda q: seed_assistant.retrieve_scoped(q)[0], records, tag="seed")
    assert len(samples) == len(records) - 1 and all(s.record.get("id") != "held" for s in samples)
    answerable = [s for s in samples if s.record.get("answer")]
    assert sum(bool(s.labels.any()) for s in answerable) >= 0.8 * len(answerable)  # the answer is among the candidates
    assert not any(s.labels.any() for s in samples if not s.record.get("answer"))
    assert np.array_equal(label(samples[0].record, samples[0].reading), samples[0].labels)
    model, report = train(samples, cs=(0.01, 1.0), folds=3)
    assert report["penalty"] in (0.01, 1.0) and 0 < model.threshold < 1 and 0 < model.who_threshold < 1
    path = tmp_path / "reader.json"
    model.save(path)
    again = ReaderModel.load(path)
    r = samples[0].reading
    assert np.allclose(again.prob(r.x), model.prob(r.x), atol=1e-5)
    docs, xd, _ = doc_features(r)
    assert len(docs) == len(xd) and np.allclose(again.matches(xd), model.matches(xd), atol=1e-5)
    # the second stage: the reading model read the best candidates, and the final probability reads it
    assert model.r_coef is not None and report["second_cv_top1"] >= 0 and r.read is not None
    assert (~np.isnan(r.read)).sum() >= 1 and r.first is not None
    final = again.second(r.first, r.read, r.rr.margin)
    assert np.allclose(final, model.second(r.first, r.read, r.rr.margin), atol=1e-5)
    unread = np.isnan(r.read)
    assert not unread.any() or final[unread].max() < final[~unread].min()  # an unread candidate never wins
    # --keep-ranker: the candidate ranker stays; the second stage, "who" and answerability are refitted on it
    kept, report = train(samples, keep=model)
    assert report["kept_ranker"] and np.array_equal(kept.coef, model.coef) and kept.r_coef is not None
    assert 0 < kept.threshold < 1 and 0 < kept.who_threshold < 1
    # a file written before a feature existed: it weighs nothing until fitted beside the kept ranker
    col = NAMES.index("now_match")
    old = model.to_dict()
    old.update({k: [v for i, v in enumerate(old[k]) if i != col] for k in ("names", "mean", "scale", "coef")})
    older = ReaderModel.from_dict(old, "old.json")
    assert older.meta["unfitted"] == ["now_match"] and older.coef[col] == 0 and older.threshold == model.threshold
    grown, added = add_features(samples, older)
    assert set(added) == {"now_match"} and "unfitted" not in grown.meta and grown.threshold == older.threshold
    for s in samples:
        x = s.reading.x
        same = x[:, col] == 0  # a candidate without the new feature keeps its probability
        assert np.allclose(grown.prob(x)[same], older.prob(x)[same], atol=1e-6)
    only_new, report = train(samples, keep=older, refit_answerability=False)
    assert np.array_equal(only_new.q_coef, older.q_coef) and only_new.threshold == older.threshold
    assert set(report["added"]) == {"now_match"}
    no_q = ReaderModel.from_dict(dict(model.to_dict(), answerable={}), "old.json", answerability=False)
    assert np.array_equal(no_q.coef, model.coef)
    with pytest.raises(ValueError, match="train-reader"):
        ReaderModel.from_dict(dict(model.to_dict(), answerable={}), "old.json")


# Questions written from the documents' text before citewise was run on them (not in the eval files, never
# fitted on): a trial protocol's eligibility criteria, a CV's dissertation entry, an agency plan's strategies.
OWN_QUESTIONS = [
    ("What creatinine clearance rate does the renal function criterion of the myeloma trial require?", "trial01", "30"),
    ("What hemoglobin level must the blood routine test show before C1D1?", "trial01", "75"),
    ("How long must patients wait after growth factor support before the screening assessment?", "trial01", "2-week"),
    ("What total bilirubin limit applies to trial patients with Gilbert's syndrome?", "trial01", "3"),
    ("Who supervised Nowell Phelps's dissertation on the coevolutionary voter model?", "cv13", "Lambiotte"),
    ("What grade did Phelps's hypergraph voter model dissertation receive?", "cv13", "81"),
    ("By which fiscal year will NARA develop visitor research and audience evaluation tools?", "report01", "2024"),
    ("Which NARA exhibits must meet its standards for accessible museum design?", "report01", "permanent exhibits"),
]


@pytest.mark.slow
def test_questions_written_before_running_citewise(tmp_path_factory, embedder):
    docs = require_shared(REALDOCS / "docs")
    picked = [p for p in sorted(docs.iterdir()) if p.name.startswith(("trial01", "cv13", "report01"))]
    store, _ = build_index(picked, tmp_path_factory.mktemp("own-questions"), embedder=embedder)
    assistant = Assistant(store, embedder)
    right = []
    for question, doc, fact in OWN_QUESTIONS:
        a = assistant.ask(question)
        _quotes_exact(assistant, a)
        right.append(not a.abstained and fact in a.answer and any(doc in c.doc for c in a.citations))
    # measured 7 of 8 when written (the hemoglobin criterion sits across a chunk boundary)
    assert sum(right) >= 6, right


def test_the_question_is_read_without_the_names_it_is_scoped_by(seed_assistant):
    from assistant.answer.features import focus, without_names

    assert without_names("Where did Muhammed Fatih Balin do his PhD?", ["Muhammed Fatih Balin"]) == "Where did do his PhD?"
    assert without_names("What is Radu Andrei Pârvulescu's pseudonym?", ["Radu Andrei Parvulescu"]) == "What is pseudonym?"
    assert without_names("Balin?", ["Muhammed Fatih Balin"]) == "Balin?"  # nothing would be left: unchanged
    hits = seed_assistant.retrieve("Where did Muhammed Fatih Balin do his PhD?")
    assert focus("Where did Muhammed Fatih Balin do his PhD?", hits) == "Where did do his PhD?"
    # the CV's header repeats the name and "PH.D. CANDIDATE"; the answer is the education entry
    a = seed_assistant.ask("Where did Muhammed Fatih Balin do his PhD?")
    assert not a.abstained and "Georgia Institute of Technology" in a.citations[0].quote, a.answer


def test_retrieve_puts_the_chunk_the_reader_would_answer_from_first(seed_assistant):
    # the CV's header repeats the name and "PH.D. CANDIDATE" and leads the search; the reader's
    # probabilities put the education entry first.
    q = "Where did Muhammed Fatih Balin do his PhD?"
    searched, _ = seed_assistant.retrieve_scoped(q)
    ranked = seed_assistant.retrieve(q)
    assert "Georgia Institute of Technology" not in searched[0].text
    assert "Georgia Institute of Technology" in ranked[0].text
    assert sorted(h.chunk_id for h in ranked) == sorted(h.chunk_id for h in searched)  # reordered, not refetched
    # "who": every person's chunks, grouped by person; the person the fitted "who" model matches comes first
    who = "Who studied at Stanford?"
    searched, _ = seed_assistant.retrieve_scoped(who)
    ranked = seed_assistant.retrieve(who)
    answer = seed_assistant.ask(who)
    assert [p.name for p in answer.people][:1] == [ranked[0].owner]
    assert any("Stanford" in h.text for h in ranked if h.doc == ranked[0].doc)
    # the matched person's chunks first (in search order), then the others taking turns
    matched = {d for p in answer.people for d in p.docs}
    block = [h for h in ranked if h.doc in matched]
    assert ranked[:len(block)] == block and [h.rank for h in block] == sorted(h.rank for h in block)
    rest = ranked[len(block):]
    others = {h.doc for h in rest}
    assert len(others) >= 2 and len({h.doc for h in rest[:len(others)]}) == len(others)
    assert sorted(h.chunk_id for h in ranked) == sorted(h.chunk_id for h in searched)


def test_a_who_match_reads_a_documents_few_likeliest_passages_and_quotes_the_one_that_matches() -> None:
    """The candidate ranker rates a "who" question's passages alike: for "Who is currently a PhD student?" a
    CV's "I am a PhD student of statistics at ..." sentence (three windows of it) was likelier than its
    "Role: PhD student" line, and that sentence alone did not make its owner a match. The figures are the
    ranker's, cosines and overlaps of that real CV (public CV set 6) and of another CV's "I'm currently
    working as a consultant" line; the packaged "who" model reads each of a document's four likeliest."""
    from assistant.answer.candidates import Candidate
    from assistant.answer.model import WHO_PASSAGES, doc_rows

    texts = {"student.md": ["I am a PhD student of statistics at Groupe Renault. I depend on the school.",
                            "I am a PhD student of statistics at Groupe Renault.",
                            "I am a PhD student of statistics.", "Role: PhD student"],
             "consultant.md": ["I'm currently working as a consultant for Data Science at a firm."]}
    figures = {"student.md": [(0.99, 0.366, 0.451), (0.975, 0.366, 0.451), (0.963, 0.366, 0.451), (0.705, 0.649, 0.297)],
               "consultant.md": [(0.995, 0.392, 0.429)]}
    hits, cands, rows = [], [], []
    for doc in ("consultant.md", "student.md"):
        for text, fig in zip(texts[doc], figures[doc], strict=True):
            hits.append(Hit(len(hits) + 1, f"c{len(hits)}", doc, None, "", text, 1.0, owner=doc[:-3].title()))
            cands.append(Candidate(len(hits) - 1, 0, len(text), (), None))
            rows.append(fig)
    x = np.zeros((len(cands), len(NAMES)), np.float32)
    x[:, NAMES.index("cos_piece")] = [c for _p, c, _o in rows]
    x[:, NAMES.index("idf_overlap")] = [o for _p, _c, o in rows]
    r = Reading("Who is currently a PhD student?", tuple(hits), (), tuple(cands), x,
                np.array([p for p, _c, _o in rows], np.float32), np.zeros(len(cands), np.float32))
    model = ReaderModel.load(PARAMS)
    docs, pm, chosen = model.doc_matches(r)
    assert docs == ["consultant.md", "student.md"] and WHO_PASSAGES == 4
    student = docs.index("student.md")
    assert r.text(chosen[student]) == "Role: PhD student" and pm[student] >= model.who_threshold
    # its likeliest passage alone (what a document's match read before) does not make it one
    _docs, xd, best = doc_features(r)
    assert model.matches(xd)[student] < model.who_threshold and r.text(best[student]).startswith("I am a PhD")
    _d, all_rows, owner, _c = doc_rows(r)
    assert len(all_rows) == 5 and owner.tolist() == [0, 1, 1, 1, 1]


def test_a_table_rows_candidates_read_the_header_row_as_their_header() -> None:
    """A row of numbers ("| FY2023 | 716 | 186 (26.0%) |") answers a question only by the names its table's first row
    gives the columns ("Number of Applications Selected for Funding"), however many rows lie between; a line of text
    with bars written as text ("Google \\| Sept 2017") is no table."""
    header = "| Fiscal Year | Number of Applications Selected for Funding | Number and Percentage Obligated |"
    rows = [f"| FY{2020 + i} | {380 + i} | {353 - i} ({90 - i}.0%) |" for i in range(8)]
    text = "Table 1. Obligations\n\n" + "\n".join([header, *rows]) + "\n\nThe program ended in 2025."
    hits = [Hit(1, "c1", "report.md", None, "", text, 1.0), Hit(2, "c2", "cv.md", None, "",
            "### Google \\| Sept 2017 - June 2021\nSenior Software Engineer \\| Identity \\| SRE", 0.5)]
    pieces = pieces_of(hits)
    cands = candidates(hits, pieces)
    row = next(c for c in cands if text[c.start:c.end] == rows[6])
    assert row.header is not None and text[pieces[row.header].start:pieces[row.header].end] == header
    first = next(c for c in cands if text[c.start:c.end] == header)
    assert first.header is None or text[pieces[first.header].start:pieces[first.header].end] != header
    prose = next(c for c in cands if text[c.start:c.end] == "The program ended in 2025.")
    assert prose.header is None or pieces[prose.header].line != pieces[row.header].line
    job = next(c for c in cands if c.hit == 1 and hits[1].text[c.start:c.end].startswith("Senior Software"))
    assert job.header is not None and hits[1].text[pieces[job.header].start:].startswith("### Google")


def test_take_turns_puts_matched_documents_first_and_interleaves() -> None:
    from assistant.answer.who import take_turns

    def hit(rank: int, doc: str) -> Hit:
        return Hit(rank, f"{doc}{rank}", doc, None, "", "t", 1.0 / rank)

    hits = [hit(1, "a"), hit(2, "a"), hit(3, "a"), hit(1, "b"), hit(1, "c"), hit(2, "c")]
    # no probabilities: documents take turns in the order they first appear
    assert [h.chunk_id for h in take_turns(hits)] == ["a1", "b1", "c1", "a2", "c2", "a3"]
    # c and b match (c likelier), a does not: c and b take turns first, then a
    assert [h.chunk_id for h in take_turns(hits, {"a": 0.1, "b": 0.5, "c": 0.9}, 0.3)] == ["c1", "b1", "c2", "a1", "a2", "a3"]
    one = [hit(1, "a"), hit(2, "a")]
    assert take_turns(one, {"a": 0.9}, 0.3) == one


def test_line_vectors_are_kept_beside_the_index_for_the_next_run(seed_index_copy, embedder, tmp_path):
    from assistant.answer.reader import VECTOR_FILE

    seed_index_dir = seed_index_copy
    (seed_index_dir / VECTOR_FILE).unlink(missing_ok=True)  # what other tests' readers kept
    store = Store.open(seed_index_dir)
    first = Reader(embedder, store=store)
    hits = Assistant(store, embedder).retrieve_scoped("Where did Muhammed Fatih Balin do his PhD?")[0]
    r1 = first.read("Where did Muhammed Fatih Balin do his PhD?", hits)
    assert first.vectors.unsaved > 0
    first.keep_vectors(force=True)
    assert first.vectors.unsaved == 0 and (seed_index_dir / VECTOR_FILE).is_file()

    class Counting:  # the real model, counting what it is asked to embed
        name, dim = embedder.name, embedder.dim
        calls = 0

        def embed_documents(self, texts):
            Counting.calls += len(texts)
            return embedder.embed_documents(texts)

        def embed_query(self, text):
            return embedder.embed_query(text)

    again = Reader(Counting(), store=store)  # a new run on the same index
    r2 = again.read("Where did Muhammed Fatih Balin do his PhD?", hits)
    assert Counting.calls == 0 and np.allclose(r1.p, r2.p, atol=1e-6)
    # another model's file, a damaged file and a missing file are ignored, never fatal
    other = VectorCache(type("Other", (), {"name": "another-model", "dim": embedder.dim})())
    assert other.load(seed_index_dir / VECTOR_FILE) == 0
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a numpy file")
    assert VectorCache(embedder).load(bad) == 0 and VectorCache(embedder).load(tmp_path / "none.npz") == 0


def test_the_words_that_located_a_report_are_no_evidence_inside_it(tmp_path, embedder, monkeypatch):
    """"What was the probable cause of the Kenai, Alaska accident on 03/14/2009?" is scoped to the report
    holding "Kenai" and "03/14/2009"; inside it those words say where to look, not what to look for, so the
    report's header block, which repeats them, does not outrank the probable cause (as in realdocs tune d141).
    Words are only locators when nothing else located the document (a person's name the question says), and
    not when they are all the question asks about ("What is Kenai?")."""
    header = ("Aviation Accident Final Report\n\nLocation: {place}, AK Accident Number: ANC09LA0{n}1\n\n"
              "Date & Time: {date}, 1020 AST Registration: N77{n}4Q\n\nAircraft: Cessna 180 Aircraft Damage: "
              "Substantial\n\n")
    body = ("## Analysis\n\nThe pilot landed on a frozen lake covered with soft snow. During the landing roll the "
            "airplane nosed over.\n\n## Probable Cause and Findings\n\nThe National Transportation Safety Board "
            "determines the probable cause(s) of this accident to be:\nThe pilot's decision to land on {what}, "
            "which resulted in a nose-over.\n")
    places = [("Kenai", "03/14/2009", "snow-covered ice"), ("Homer", "06/02/2009", "a gravel bar"),
              ("Nome", "01/22/2009", "a frozen river"), ("Bethel", "09/09/2009", "a short strip"),
              ("Valdez", "04/30/2009", "a muddy beach"), ("Kodiak", "07/17/2009", "a wet meadow")]
    files = {f"ntsb_{n}.md": header.format(place=place, n=n, date=date) + body.format(what=what)
             for n, (place, date, what) in enumerate(places)}
    files["roe.md"] = "# Jane Roe\n\njane@example.org\n\n## Education\n\nPhD in Chemistry, University of Tartu, 2015\n"
    store, assistant = _indexed(tmp_path, embedder, files)
    q = "What was the probable cause of the Kenai, Alaska accident on 03/14/2009?"
    a = assistant.ask(q)
    assert not a.abstained and Path(a.citations[0].doc).name == "ntsb_0.md", a.answer
    assert "snow-covered ice" in a.citations[0].quote and "Location:" not in a.citations[0].quote, a.answer
    _quotes_exact(assistant, a)
    hits = [h for h in assistant.retrieve_scoped(q)[0] if h.doc.endswith("ntsb_0.md")]
    assert resolve.located(q, hits, store) == {"Kenai", "03/14/2009"}  # "Alaska" is in no report
    assert resolve.located("What is Kenai?", hits, store) == frozenset()  # the name is all it asks about
    assert resolve.located(q, hits + [h for h in assistant.search("gravel bar", 3) if h.doc.endswith("ntsb_1.md")],
                           store) == frozenset()  # hits from two documents: nothing located one of them
    roe = [h for h in assistant.search("Jane Roe PhD", 3) if h.doc.endswith("roe.md")]
    assert resolve.located("Where did Jane Roe do her PhD in Tartu?", roe, store) == frozenset()  # her name located it
    # without it, the header block, which repeats the question's place and date, is the answer
    monkeypatch.setattr("assistant.answer.reader.located", lambda *_: frozenset())
    assert "Location: Kenai" in assistant.ask(q).citations[0].quote
    store.close()


def test_a_list_question_about_one_article_is_a_fact_about_it(tmp_path, embedder):
    """"What two railroads have railyards in Fresno?" asks for things named in the one article its rare word
    names, in a folder of articles about places: it was answered as a list of documents ("- Fresno, California:
    Railroad railroads cross ...", SQuAD's own question on an article nobody here wrote). A list question that
    asks "which of" the documents still lists the documents that match."""
    from assistant.answer.resolve import names_unowned

    town = ("The county seat is a city of farms and orchards. The Northern Pacific Railway and the Valley Line "
            "Railroad cross in the city, and both maintain railyards within it; the old depot is now a museum.")
    files = {"brookfield.md": "# Brookfield\n\n" + town.replace("The county seat", "Brookfield") + "\n",
             "lakeside.md": "# Lakeside\n\nLakeside is a town on the lake with a marina and two ferries.\n",
             "hillcrest.md": "# Hillcrest\n\nHillcrest is a village in the hills known for its vineyards.\n"}
    store, assistant = _indexed(tmp_path, embedder, files)
    q = "What two railroads have railyards in Brookfield?"
    assert names_unowned(q, store)
    assert not names_unowned("Which of these towns has railyards in Brookfield?", store)  # which of the documents
    a = assistant.ask(q)
    assert not a.abstained and not a.people and a.kind == "fact", a.answer
    assert "Northern Pacific Railway and the Valley Line Railroad" in a.citations[0].quote, a.answer
    _quotes_exact(assistant, a)
    store.close()
    # a person's document beside the articles (a paper with an owner among papers) leaves it a fact about the
    # article; in a folder mostly of people's documents, a list question asks which people
    cvs = {f"{n.lower()}_cv.md": f"# {n} Roe\n\n{n.lower()}@example.org\n\n## Education\n\nPhD in Chemistry, University "
           "of Tartu, 2015\n" for n in ("Jane", "Anna", "Mira")}
    for name, few in (("one-cv", dict(list(cvs.items())[:1])), ("three-cvs", cvs)):
        (tmp_path / name).mkdir()
        store, _ = _indexed(tmp_path / name, embedder, {**files, **few})
        assert len(store.owner_docs()) == len(few) and names_unowned(q, store) == (name == "one-cv"), name
        store.close()


def test_who_about_documents_no_person_owns_asks_for_a_name_in_their_text(tmp_path, embedder):
    """"Who are the release stewards provided by NodeWorks?" names the project's README by a rare word;
    no document of the folder is a person's, so the person asked for is named in its text: a fact question
    about it, answered from it, not a list of the folder's documents as if they were people (own_nodejs
    j03). So is a "who" question naming no document (WikiQA's "who sang ...", over article summaries). Once the folder holds people's documents (CVs), "who" questions list the people who match."""
    from assistant.answer.resolve import names_unowned

    files = {"README.md": "# Widget\n\nWidget is a small parser.\n\n## Release stewards\n\nNodeWorks provides the "
                          "release stewards: Jane Roe and Tom Lind manage each release.\n",
             "BUILDING.md": "# Building Widget\n\nRun make. Releases are built by the stewards.\n",
             "SECURITY.md": "# Security\n\nReport bugs privately to the security team.\n"}
    store, assistant = _indexed(tmp_path, embedder, files)
    q = "Who are the release stewards provided by NodeWorks?"
    assert names_unowned(q, store)
    assert names_unowned("who is in charge", store)  # names no document: still a person in a text
    assert not names_unowned("Which release stewards does NodeWorks provide?", store)  # most documents say "stewards"
    a = assistant.ask(q)
    assert not a.abstained and not a.people and Path(a.citations[0].doc).name == "README.md", a.answer
    assert "Jane Roe and Tom Lind" in a.citations[0].quote and not a.answer.startswith("- "), a.answer
    _quotes_exact(assistant, a)
    store.close()
    files["roe_cv.md"] = "# Jane Roe\n\njane@example.org\n\n## Education\n\nPhD in Chemistry, University of Tartu, 2015\n"
    files["lind_cv.md"] = "# Tom Lind\n\ntom@example.org\n\n## Education\n\nMSc in Physics, University of Oslo, 2012\n"
    (tmp_path / "with-cvs").mkdir()
    store, assistant = _indexed(tmp_path / "with-cvs", embedder, files)
    assert not names_unowned(q, store)
    who = assistant.ask("Who studied at Tartu?")
    assert [p.name for p in who.people] == ["Jane Roe"], who.answer
    store.close()


def test_how_many_or_how_much_is_no_answer_from_a_passage_without_a_number(tmp_path, embedder):
    """"How much does the bug bounty pay ...?" asked of a policy that describes the bounty but states no
    amount is a near miss (own_nodejs j17): the passage it would quote holds no number, so it abstains, as a
    "When ...?" question does from a passage without a date. A passage with the amount answers."""
    assert asks.counts("How much money does the bounty pay?") and asks.counts("How many patients were enrolled?")
    assert not asks.counts("How often is it run?") and not asks.counts("How did CatBoost compare?")
    assert detect.counts_something("more than one petabyte") and detect.counts_something("three patients")
    assert not detect.counts_something("The program is managed through the HackerOne platform.")
    # a clock time counts nothing, and is no amount to lead with ("20" of "20:09 UTC")
    assert not detect.counts_something("- 20:09 UTC: a user registers an account")
    assert detect.counts_something("by 20:13 UTC it had uploaded 54 crates")
    timeline = "- 20:09 UTC: a user registers\n- 20:13 UTC: it uploads a crate every 2 seconds"
    led = leads.phrase("number", timeline, question="How quickly was it uploading crates?")
    assert led is not None and timeline[led[0]:led[1]] == "2 seconds"
    files = {"SECURITY.md": "# Security\n\n## Bug bounty\n\nThe project runs an official bug bounty program for "
                            "security researchers. The program is managed through the HackerOne platform.\n\n"
                            "## Reporting\n\nReport security bugs privately to the security team.\n",
             "README.md": "# Widget\n\nWidget is a small parser for configuration files.\n"}
    store, assistant = _indexed(tmp_path, embedder, files)
    a = assistant.ask("How much money does the Widget bug bounty program pay for a critical vulnerability?")
    assert a.abstained and any("holds no number" in n for n in a.notes), (a.answer, a.notes)
    store.close()
    files["SECURITY.md"] = files["SECURITY.md"].replace("HackerOne platform.", "HackerOne platform and pays "
                                                        "2,500 dollars for a critical vulnerability.")
    (tmp_path / "paid").mkdir()
    store, assistant = _indexed(tmp_path / "paid", embedder, files)
    a = assistant.ask("How much money does the Widget bug bounty program pay for a critical vulnerability?")
    assert not a.abstained and "2,500" in a.answer, a.answer
    store.close()


def test_a_table_of_contents_is_never_the_answer(tmp_path, embedder, monkeypatch):
    """A table of contents repeats the document's headings, so it matches a question about any of them, but
    it only says where to look: "Who is the current chair of the Technical Steering Committee?" asked of a
    README that lists the committee's members and names no chair is answered from the TOC without this
    (own_nodejs j19), and abstains with it. The ranker's rule, so read by the ranker alone (the reading model,
    which reads such a README by default, does not take the TOC either)."""
    from assistant.answer import reader as reader_module
    from assistant.answer.candidates import echo_key

    assert echo_key("* [Contributing to Widget](#contributing-to-widget)") == "contributing to widget"
    assert echo_key("2.1 Methods . . . . . . 12") == "methods" and echo_key("IV. Results 7") == "results"
    # two entries a PDF ran together: the leader pattern backtracked exponentially in its dots (the libtasn1
    # manual's "Concept Index . . . (40 dots) 32 Function and Data Index. . ." stalled every question for minutes)
    merged = "Concept Index " + ". " * 40 + "32 Function and Data Index" + ". " * 20 + "33"
    assert echo_key(merged).startswith("concept index . . .") and echo_key(merged).endswith("function and data index")
    toc = "".join(f"* [{h}](#{h.lower().replace(' ', '-')})\n" for h in
                  ("Support", "Release types", "Contributing to Widget", "Current project team members",
                   "TSC (Technical Steering Committee)", "Collaborators"))
    readme = ("# Widget\n\nWidget parses configuration files.\n\n## Table of contents\n\n" + toc +
              "\n## Support\n\nAsk questions in the forum.\n\n## Release types\n\nCurrent and LTS releases.\n\n"
              "## Contributing to Widget\n\nSee the contributing guide.\n\n## Current project team members\n\n"
              "The team is listed below.\n\n### TSC (Technical Steering Committee)\n\n* anna - Anna Berg\n"
              "* tom - Tom Lind\n\n### Collaborators\n\n* sam - Sam Ode\n")
    store, assistant = _indexed(tmp_path, embedder, {"README.md": readme,
                                                     "BUILDING.md": "# Building\n\nRun make to build Widget.\n"},
                                reading_model="none")
    q = "Who is the current chair of the Widget Technical Steering Committee?"
    assert assistant.reader.reading is None
    a = assistant.ask(q)
    assert a.abstained or "](#" not in a.citations[0].quote, a.answer
    monkeypatch.setattr(reader_module, "navigation", lambda hits, pieces, cands, headings: [False] * len(cands))
    b = assistant.ask(q)
    assert not b.abstained and "](#" in b.citations[0].quote, b.answer
    store.close()


def test_numbers_that_point_count_nothing():
    """A reference list in brackets, a heading's section number and a footnote mark glued to its note are
    numbers that point, not amounts: "How many unique patients met the criteria?" read "[7, 9, 10]" in the
    paragraph restating it as its count (papers tune q033, lead "7"), and "2One update ..." as "2One"."""
    assert not detect.has_number("Following previous studies [7, 9, 10], we defined the inclusion criteria:")
    assert not detect.has_number("2.2 Cohort selection\n\nWe defined the criteria as in [3-5].")
    assert not detect.has_number("2One update in Avida is the time an organism takes")
    text = "Following [7, 9, 10], in total 34925 unique patients met all of them."
    span = leads.phrase("number", text, question="How many unique patients met the criteria?")
    assert span is not None and text[span[0]:span[1]].startswith("34925"), span
    # a count in brackets, a heading's own number and a figure's number beside a unit still count
    assert detect.has_number("(12 patients)") and detect.has_number("Table 2 lists 40 sites")
    assert detect.has_number("It took 3 hours") and detect.counts_something("[7 patients]")


def test_dotted_abbreviations_meet_their_plain_form_in_the_word_share(seed_assistant):
    """The plain word share glues "Ph.D." to "phd" as the lemma overlap does: the sample CV's "2024
    Northeastern University ... Ph.D. in Computer Engineering" answers "When did Baolin Li get their PhD?",
    not its "Google PhD Fellowship ..., 2022" award line, which only shared the spelling."""
    from assistant.answer.features import surface_words

    assert {"phd", "us"} <= surface_words("Ph.D. in the U.S.") and "phd" in surface_words("PhD")
    answer = seed_assistant.ask("When did Baolin Li get their PhD?")
    assert not answer.abstained and answer.fact == "2024", answer.answer
    assert "Ph.D. in Computer Engineering" in answer.citations[0].quote


def test_a_stop_inside_a_word_ends_no_sentence():
    """A line longer than a piece is cut into sentences; "1.32.0", "Node.js" or "3.5" end none. The sentence
    "Consequently, it has been removed ... since version 1.32.0 (2019-01-17)." was lost from the candidates
    (only "0 (2019-01-17)." was kept), so "What replaced jemalloc as the default allocator in 1.32.0?" quoted
    the sentence before it (own_rustc u17). Every word of the line stays in some piece."""
    from assistant.answer import segments

    line = ("Rust's default allocator has historically been jemalloc, the subject of much discussion[32]. "
            "Consequently, it has been removed in favor of the system allocator since version 1.32.0 (2019-01-17)[39]. "
            "Node.js is unaffected!? Really... " + "Padding words make the line longer than one piece. " * 4)
    cut = [line[a:b] for a, b in segments.sentences(line, 0, len(line))]
    assert cut[1] == "Consequently, it has been removed in favor of the system allocator since version 1.32.0 (2019-01-17)[39]."
    assert cut[2:4] == ["Node.js is unaffected!?", "Really..."]
    pieces = [line[a:b] for a, b, _ in segments.pieces(line)]
    assert " ".join(pieces).split() == line.split()


def test_an_abbreviation_ends_no_sentence(tmp_path, embedder):
    """"St. Johns River" was cut after "St.", so "What river runs alongside Jacksonville?" quoted "Johns River, is
    located ..." (SQuAD's own question on an article nobody here wrote). A stop ends no sentence when lower case
    follows, after an initial, or after a capitalised word with no vowel; "?", "!" and a word with vowels still do."""
    from assistant.answer import segments

    text = ("He met J. P. Morgan in the U.S. Army, e.g. at the St. Johns River. Dr. Roe agreed. Prof. Doe left! "
            "Was it Ph.D. work? It was.")
    assert [text[a:b] for a, b in segments.sentences(text, 0, len(text))] == [
        "He met J. P. Morgan in the U.S. Army, e.g. at the St. Johns River.", "Dr. Roe agreed.", "Prof.", "Doe left!",
        "Was it Ph.D. work?", "It was."]
    article = tmp_path / "docs" / "rivers.md"
    article.parent.mkdir()
    article.write_text("# Rivers of the county\n\n" + (
        "Nassau County lies to the north, and Clay County lies to the south of the city of Brookfield, while the Atlantic "
        "Ocean lies to the east along with its beaches. The Trout River, a major tributary of the St. Johns River, is "
        "located entirely within Brookfield. Several smaller creeks drain the western neighbourhoods of the city, and "
        "the marshes along them are protected as a state park.") + "\n\nThe county keeps records of its bridges.\n",
        encoding="utf-8")
    store, _ = build_index([article.parent], tmp_path / "index", embedder=embedder)
    answer = Assistant(store, embedder).ask("Which river is located entirely within Brookfield?")
    assert not answer.abstained and answer.citations, answer.answer
    assert answer.citations[0].quote.startswith("The Trout River, a major tributary of the St. Johns River"), answer.answer


def test_a_count_of_what_the_question_counts_is_preferred(tmp_path, embedder):
    """"How many samples ...?" is answered by the number counting samples, not by the sentence that
    restates the question with a number counting something else ("Each sample has 54 features", own
    datasets tune s04) or by a reference list ("[7, 9, 10]", papers tune q033): the ranker's `count_match`."""
    counted = frozenset({"sample"})
    assert detect.counts_near("Samples total 581012\nDimensionality 54", counted)
    assert not detect.counts_near("Each sample has 54 features", counted)
    assert detect.counts_near("In total, 34925 unique patients met all", frozenset({"unique", "patient"}))
    assert not detect.counts_near("Following studies [7, 9, 10] we chose patients", frozenset({"patient"}))
    assert asks.counted("How many total flight hours did the pilot have?") == ("total", "flight", "hours")
    assert asks.counted("How much does the bounty pay?") == () and asks.counted("Who wrote it?") == ()
    doc = tmp_path / "docs" / "covertype.md"
    doc.parent.mkdir()
    doc.write_text("# Forest covertypes\n\nThe samples of this dataset are 30 x 30 meter cells of forest. There are "
                   "seven covertypes, making this a multiclass classification problem. Each sample has 54 features, "
                   "described on the dataset's homepage.\n\n## Characteristics\n\nClasses 7\n\nSamples total 581012\n\n"
                   "Dimensionality 54\n\nFeatures int\n", encoding="utf-8")
    store, _ = build_index([doc.parent], tmp_path / "index", embedder=embedder)
    answer = Assistant(store, embedder).ask("How many samples does the forest covertype dataset have in total?")
    assert not answer.abstained and "581012" in answer.answer, answer.answer


def test_a_passage_ending_with_a_label_that_restates_the_question_takes_in_its_value(embedder):
    # A form laid out in two columns: the label of a field ("Place of birth", wrapped over two lines by the
    # PDF) and its value on the line after it. The real model finds the label the chunk's closest line to
    # the question, so the value is quoted too; other lines are left as they are.
    from assistant.answer.extent import restates, with_what_follows
    from assistant.answer.reader import Reader
    from index import Hit

    text = ("Personal information\nName Roland Haas\nDate of birth May 29th 1980\nPlace of\nbirth\nHerbolzheim\n"
            "Nationality German")
    hits = (Hit(rank=1, chunk_id=1, doc="/d/cv.pdf", page=1, section="", text=text, score=1.0, owner="Roland Haas"),)
    reader = Reader(embedder)
    r = reader.near(reader.read("Where was Roland Haas born?", hits), 0)
    c = next(c for i, c in enumerate(r.cands) if r.text(i) == "Place of\nbirth")
    assert restates(r, c, c.pieces[-1])
    a, b = with_what_follows(r, c, c.start, c.end)
    assert text[a:b] == "Place of\nbirth\nHerbolzheim"
    value = next(c for c in r.cands if r.text(r.cands.index(c)) == "Nationality German")
    assert not restates(r, value, value.pieces[-1])  # a value, not a label
    dated = next(c for c in r.cands if r.text(r.cands.index(c)) == "Date of birth May 29th 1980")
    assert with_what_follows(r, dated, dated.start, dated.end) == (dated.start, dated.end)  # holds a digit


def _unread(text: str, doc: str) -> tuple[str, list, Callable[[str], Reading]]:
    """One hit of `text` in `doc`, its candidates, and a `Reading` of a question over them with every score 0 (what
    is checked is where a quote starts and ends, not which candidate wins)."""
    hits = (Hit(rank=1, chunk_id=1, doc=doc, page=1, section="", text=text, score=1.0),)
    pieces = pieces_of(hits)
    cands = candidates(hits, pieces)

    def reading(question: str) -> Reading:
        return Reading(question, hits, tuple(pieces), tuple(cands), np.zeros((len(cands), 1)), np.zeros(len(cands)),
                       np.zeros(len(cands)))

    return text, cands, reading


def test_a_question_asking_for_several_things_takes_in_a_numbered_lists_other_items():
    """A paper's affiliations are a numbered list under its authors; "2 Australian National University" alone
    answered "Which universities are its authors affiliated with?" under "1 University of Michigan". A question
    asking for several things takes in the items numbered before and after the quoted ones while the numbers run
    on and it fits; a question asking for one thing, or a line opening with a year, does not."""
    from assistant.answer.extent import _number, with_numbered

    assert _number("1 University of Michigan") == 1 and _number("12. Sampling") == 12 and _number("3) Quality") == 3
    assert _number("2019 Best paper award") is None and _number("University of Michigan") is None
    assert _number("2.1 Methods") is None  # a section's number, not an item's
    text, cands, reading = _unread("Siqi Wu1,2, Paul Resnick1\n\n1 University of Michigan\n2 Australian National "
                                   "University\n3 Northern Institute of Technology\n{siqiwu, presnick}@umich.edu\n\n"
                                   "Abstract\nWe study ...", "/d/paper.pdf")
    two = next(c for c in cands if text[c.start:c.end] == "2 Australian National University")
    many = reading("Which universities are the authors of the paper affiliated with?")
    a, b = with_numbered(many, two, two.start, two.end)
    assert text[a:b] == "1 University of Michigan\n2 Australian National University\n3 Northern Institute of Technology"
    assert with_numbered(many, two, two.start, two.end, limit=60) == (text.index("1 University"), two.end)
    one = reading("Which university is the first author affiliated with?")
    assert with_numbered(one, two, two.start, two.end) == (two.start, two.end)
    mail = next(c for c in cands if text[c.start:c.end].startswith("{siqiwu"))
    assert with_numbered(many, mail, mail.start, mail.end) == (mail.start, mail.end)


def test_a_quote_goes_on_to_the_end_of_the_sentence_its_last_line_wrapped():
    """A PDF wraps a paragraph's sentences over lines, and a candidate is made of lines: "How large is the
    dataset (videos, channels, comments)?" was answered with "... 274K videos from 973 US political channels
    between 2020-01-", without the "134M comments" of the sentence's next line. The quote goes on over the lines
    that go on with the sentence to its end, when it fits; a CV's line over a line of its own does not."""
    from assistant.answer.extent import with_sentence_end

    text, cands, reading = _unread(
        "3 Dataset\n\nOur dataset consists of 274K\nvideos from 973 channels between 2020-01-\n01 and 2020-08-31, along "
        "with 134M comments from 9.3M\nusers. In this section, we first describe\nthe channels.\n\nAssociate "
        "Professor, Some University\n2015 - present\nFull professor at\nthe University.", "/d/paper.pdf")
    r = reading("How large is the dataset?")
    cut = next(c for c in cands if text[c.start:c.end] == "Our dataset consists of 274K\nvideos from 973 channels "
                                                         "between 2020-01-")
    a, b = with_sentence_end(r, cut, cut.start, cut.end)
    assert text[a:b].endswith("along with 134M comments from 9.3M\nusers.") and a == cut.start
    assert with_sentence_end(r, cut, cut.start, cut.end, limit=100) == (cut.start, cut.end)  # it would not fit
    job = next(c for c in cands if text[c.start:c.end] == "Associate Professor, Some University")
    assert with_sentence_end(r, job, job.start, job.end) == (job.start, job.end)
    full = next(c for c in cands if text[c.start:c.end] == "Full professor at")
    assert text[slice(*with_sentence_end(r, full, full.start, full.end))] == "Full professor at\nthe University."
    done = next(c for c in cands if text[c.start:c.end].endswith("describe\nthe channels."))
    assert with_sentence_end(r, done, done.start, done.end) == (done.start, done.end)


def test_a_question_asking_for_several_things_takes_in_the_rest_of_the_list():
    from assistant.answer.candidates import candidates, pieces_of
    from assistant.answer.extent import with_list
    from assistant.answer.reader import Reading
    from index import Hit

    text, cands, reading = _unread(
        "Assistant Professor, University of North Florida 2020 - present\nCourses taught include:\n"
        "- Sampling (Graduate)\n- Statistical Quality Control (Graduate)\n- Probability (Undergraduate)\n"
        "Service\nReviewer for three journals", "/d/cv.docx")
    # the passage announces the list ("... include:"): its items follow, whatever the question asks
    c = next(c for c in cands if text[c.start:c.end].endswith("- Sampling (Graduate)") and len(c.pieces) == 2)
    for question in ("Which graduate courses does Tyler teach?", "What does Tyler teach?"):
        a, b = with_list(reading(question), c, c.start, c.end)
        assert text[a:b].endswith("- Probability (Undergraduate)"), question  # the list's items, not the next section
    # too long with the line announcing it: the first item alone, as it was
    assert with_list(reading("Which graduate courses does Tyler teach?"), c, c.start, c.end, limit=50) == (c.start, c.end)
    # a passage chosen for its first line, ending with the list it announces: a question asking for several things
    # drops that line for the list when both do not fit, any other keeps it and takes the items that fit beside it
    job = next(c for c in cands if text[c.start:c.end].startswith("Assistant Professor")
               and text[c.start:c.end].endswith("- Sampling (Graduate)"))
    a, b = with_list(reading("Which graduate courses does Tyler teach?"), job, job.start, job.end, limit=120)
    assert text[a:b].startswith("Courses taught include:") and text[a:b].endswith("- Probability (Undergraduate)")
    a, b = with_list(reading("What is Tyler's current job title?"), job, job.start, job.end, limit=120)
    assert text[a:b].startswith("Assistant Professor") and text[a:b].endswith("- Sampling (Graduate)")
    # a list item quoted without the line announcing it: taken on only when the question asks for several things
    item = next(c for c in cands if text[c.start:c.end] == "- Sampling (Graduate)")
    a, b = with_list(reading("Which graduate courses does Tyler teach?"), item, item.start, item.end)
    assert text[a:b] == "- Sampling (Graduate)\n- Statistical Quality Control (Graduate)\n- Probability (Undergraduate)"
    assert with_list(reading("What is Tyler's first course?"), item, item.start, item.end) == (item.start, item.end)
    # an item wrapped by the layout goes on: in lower case, or after the item's own colon
    wrapped = ("three exercise and three physiological variables:\n\n- *physiological* - 3 variables:\n"
               "Weight, Waist and Pulse.\n- *exercise* - 3 exercise variables:\nChins, Situps and Jumps.\n\nReferences")
    whits = (Hit(rank=1, chunk_id=2, doc="/d/linnerud.rst", page=None, section="", text=wrapped, score=1.0),)
    wpieces = pieces_of(whits)
    wcands = candidates(whits, wpieces)
    r = Reading("Which exercise variables are recorded?", whits, tuple(wpieces), tuple(wcands),
                np.zeros((len(wcands), 1)), np.zeros(len(wcands)), np.zeros(len(wcands)))
    first = next(c for c in wcands if wrapped[c.start:c.end].endswith("- *physiological* - 3 variables:")
                 and len(c.pieces) == 2)
    a, b = with_list(r, first, first.start, first.end)
    assert wrapped[a:b].endswith("Chins, Situps and Jumps.")


def test_the_span_heads_phrase_closes_its_brackets():
    """The reading model's span may start or end inside a bracket: "Persea americana) is a tree native to ..." led
    WikiQA's "what part of the plant are avocados", "... students (80.0%" a papers answer. A phrase that closes a
    bracket it did not open, or leaves a quote open, is none; one that opens a bracket ends before it."""
    from assistant.answer.candidates import candidates, pieces_of
    from assistant.answer.extent import read_span
    from assistant.answer.reader import Reading
    from assistant.answer.reread import Reread
    from index import Hit

    text = 'The avocado (Persea americana) is a tree, and the campus holds 50,000, 40,000 of which are students (80.0%) or "prep" pupils.'
    hits = (Hit(rank=1, chunk_id=1, doc="/d/a.md", page=None, section="", text=text, score=1.0),)
    pieces = pieces_of(hits)
    cands = candidates(hits, pieces)
    i = next(k for k, c in enumerate(cands) if text[c.start:c.end] == text)

    def read(phrase: str) -> str | None:
        a = text.index(phrase)
        spans = tuple((a, a + len(phrase)) if k == i else (-1, -1) for k in range(len(cands)))
        rr = Reread(np.full(len(cands), 0.9, np.float32), np.full(len(cands), 2.0, np.float32), spans)
        r = Reading("q", hits, tuple(pieces), tuple(cands), np.zeros((len(cands), 1)), np.zeros(len(cands)),
                    np.zeros(len(cands)), rr=rr)
        span = read_span(r, i, cands[i].start, cands[i].end)
        return None if span is None else text[cands[i].start + span[0]:cands[i].start + span[1]]

    assert read("Persea americana) is a tree") is None
    assert read("50,000, 40,000 of which are students (80.0%") == "50,000, 40,000 of which are students"
    assert read("students (80.0%)") == "students (80.0%)"
    assert read('or "prep') is None
    assert read('"prep" pupils') == '"prep" pupils'


def test_the_span_heads_phrase_is_whole_words_within_a_sentence_and_of_the_kind_asked():
    from assistant.answer.candidates import candidates, pieces_of
    from assistant.answer.extent import read_span
    from assistant.answer.reader import Reading
    from assistant.answer.reread import Reread
    from index import Hit

    text = "NARA holds more than one petabyte of records. While on final approach, the airplane hit trees."
    hits = (Hit(rank=1, chunk_id=1, doc="/d/plan.pdf", page=1, section="", text=text, score=1.0),)
    pieces = pieces_of(hits)
    cands = candidates(hits, pieces)
    i = next(k for k, c in enumerate(cands) if text[c.start:c.end] == text)

    def read(a: int, b: int) -> tuple[int, int] | None:
        spans = tuple((a, b) if k == i else (-1, -1) for k in range(len(cands)))
        rr = Reread(np.full(len(cands), 0.9, np.float32), np.full(len(cands), 2.0, np.float32), spans)
        r = Reading("q", hits, tuple(pieces), tuple(cands), np.zeros((len(cands), 1)), np.zeros(len(cands)),
                    np.zeros(len(cands)), rr=rr)
        return read_span(r, i, cands[i].start, cands[i].end)

    a = text.index("one petaby")
    span = read(a, a + len("one petaby"))  # the model's word pieces end inside "petabyte"
    assert span is not None and text[span[0]:span[1]] == "one petabyte"
    assert read(text.index("petabyte"), text.index("While on") + 8) is None  # runs over a sentence's end
    # a number phrase for "How long ...?" needs its unit; a place or a person is no date or bare number (the
    # model's "October 26, 1947" for WikiQA's "where was hillary clinton born"); a name itself is not judged
    assert not leads.fits("number", "age 85", "How long was the private airstrip?")
    assert leads.fits("number", "1,500-foot", "How long was the private airstrip?")
    assert leads.fits("number", "age 85", "How old was the pilot?")
    assert leads.fits("place", "AT&T Laboratories Cambridge", "Where were the images taken?")
    assert not leads.fits("place", "October 26, 1947", "where was hillary clinton born")
    assert not leads.fits("person", "1947", "Who founded the lab?")
    assert leads.fits("place", "Chicago, Illinois", "where was hillary clinton born")
    assert leads.fits("place", "May", "Where did he go?")  # a month's name alone may be a name


def test_a_question_asking_for_a_year_is_refused_from_a_passage_without_one(tmp_path, embedder):
    """"In what year ...?" asks for a year: a degree line without one ("BSCS Computer Science, Northeastern
    University", beside a course code "MAS.S65", a number but no year) is no answer, where "When ...?" takes any
    date-like number; the same question about a line that gives the year is answered (public CV set 3's k24)."""
    cv = tmp_path / "doe.md"
    cv.write_text("# Ron Doe\n\nron.doe@example.org\n\n## Education\n\nMAS.S65 Blockchain Technologies, MIT Media Lab\n"
                  "BSCS Computer Science, Northeastern University\n\n## Experience\n\n2016-2018 Cinch Financial, "
                  "Principal engineer\n\n2012-2016 Nara Logics, Senior engineer\n", encoding="utf-8")
    build_index([cv], tmp_path / "idx", embedder=embedder)
    store = Store.open(tmp_path / "idx")
    store.set_owner(store.documents()[0].doc, "Ron Doe")
    doe = Assistant(store, embedder)
    refused = doe.ask("In what year did Ron Doe graduate from Northeastern University?")
    assert refused.abstained and "holds no year" in refused.notes[-1]
    joined = doe.ask("In what year did Ron Doe join Cinch Financial?")
    assert not joined.abstained and "2016" in joined.answer


def test_a_when_question_quotes_a_likely_passage_that_says_when(tmp_path_factory, embedder):
    """"When did Egor Roe get their PhD?": the likeliest passage ("... got my PhD from the University of
    Groningen") says no date, and the answer was refused for want of one, while the Education entry a little less
    likely ("University of Groningen, `2019-2023` / PhD, ...") gives it. A "When ...?" answer now comes from the
    likeliest passage that says when, among those at least half as likely as the best."""
    from assistant import Assistant, build_index

    docs = tmp_path_factory.mktemp("when")
    (docs / "roe_cv.md").write_text(
        "# Egor Roe\n\n## Profile\n\nI have formal education in applied mathematics and physics (BSc + MSc), one "
        "year of full-time extracurricular education in computer science, a PhD in biophysics and structural "
        "biology, and 8 years of computational lab experience.\n\n## Career\n\nI have been roughly 8 years in "
        "science, working with membrane proteins and their structure.\n\nHave mainly worked at the Moscow Institute "
        "of Physics and Technology, and got my PhD from the University of Groningen. Also, I have worked at many "
        "synchrotrons, and was a visiting research assistant at the University of Southern California.\n\n"
        "## Education\n\nMoscow Institute of Physics and Technology, `2013-2017`\nBSc in applied mathematics and "
        "physics\n\nComputer Science Center, `2020-2022`\nFull-time extracurricular education in computer science: "
        "Python, C++, Algorithms and Data Structures\n\nUniversity of Groningen, `2019-2023`\nPhD, diploma on \"On "
        "the methods of studying protein-ligand interaction dynamics\"\n", encoding="utf-8")
    (docs / "doe_cv.md").write_text("# Jane Doe\n\nData scientist at Acme since 2020.\n\n## Education\n\nPhD in "
                                    "Statistics, Example University, 2018\n", encoding="utf-8")
    folder = tmp_path_factory.mktemp("when-index")
    store, _ = build_index([docs], folder, embedder=embedder)
    store.close()
    assistant = Assistant.open(folder)
    a = assistant.ask("When did Egor Roe get their PhD?")
    assert not a.abstained and a.fact == "2019-2023" and "PhD, diploma" in a.citations[0].quote, a.answer
    _quotes_exact(assistant, a)
    assert assistant.ask("When did Jane Doe get her PhD?").fact == "2018"


def test_a_question_stating_years_quotes_a_likely_passage_that_holds_them(tmp_path_factory, embedder):
    """"Which company employed Kim Lee from 2014 to 2016?": the likeliest entry is the next job ("02.2016 -
    02.2017 Hewlett-Packard"), which lacks 2014, so the answer was refused; the entry holding both years, a little
    less likely, answers. A year in a date written with dots ("06.2014") is held."""
    from assistant import Assistant, build_index
    from assistant.answer.mentions import unstated

    assert unstated("Who employed her from 2014 to 2016?", ["06.2014 - 02.2016 Zylia"]) == []
    assert unstated("What happened in the 24 hours before?", ["24.5 hours"]) == ["24"]  # a decimal stays whole
    docs = tmp_path_factory.mktemp("years")
    (docs / "lee_cv.md").write_text(
        "## Kim Lee\n\n### C++/Python Software Engineer\n\nSoftware developer with 5 years of professional "
        "experience with software architecture, C++, Python and algorithms design.\n\n### Experience\n\n"
        "#### 02.2017 - present Sabre\n\n*Software Engineer*\n\n+ Airline reservation system in C++.\n\n"
        "#### 02.2016 - 02.2017 Hewlett-Packard Enterprise\n\n*Designer / Backend C++ Developer*\n\n"
        "+ Development of airlines reservation system in C++.\n+ Workflow automation in Python / Bash.\n\n"
        "#### 06.2014 - 02.2016 Zylia\n\n*Research & Development Software Engineer*\n\n"
        "+ Set-top-box operating system development in C++.\n\n### Education\n\n#### 2009 - 2014 Poznan "
        "University of Technology\n\nMSc in Computer Science\n", encoding="utf-8")
    (docs / "doe_cv.md").write_text("# Jane Doe\n\nData scientist at Acme since 2020.\n", encoding="utf-8")
    folder = tmp_path_factory.mktemp("years-index")
    store, _ = build_index([docs], folder, embedder=embedder)
    store.close()
    assistant = Assistant.open(folder)
    a = assistant.ask("Which company employed Kim Lee from 2014 to 2016?")
    assert not a.abstained and "Zylia" in a.citations[0].quote and "Hewlett" not in a.citations[0].quote, a.answer
    _quotes_exact(assistant, a)


def test_an_acronym_of_the_question_meets_its_spelled_out_name_in_a_passage():
    """"Which UK university ...?" shares no word with "University of Bath, Bath, BA2 7AY, United Kingdom", and "What
    did the NTSB cite ...?" none with "The National Transportation Safety Board determines ...": word overlap saw
    nothing of the acronym, and the rarest word left unmatched was it. A passage spelling out an acronym of the
    question holds its lemma; one writing the acronym of a name the question spells out holds the name's words.
    The text decides what an acronym stands for: no list."""
    from assistant.answer.acronyms import acronyms, expansions, extra_lemmas

    forms = expansions("Which UK university is one of the authors affiliated with?")
    assert forms == (("UK", frozenset()),)
    assert extra_lemmas(forms, "Department of Computer Science, University of Bath, BA2 7AY, United Kingdom") == {"uk"}
    assert extra_lemmas(forms, "Department of Computer Science, University of Bath") == set()
    nsf = expansions("Whose work has been funded by the National Science Foundation?")
    assert extra_lemmas(nsf, "NSF grant DMS-1234 (2019-2022)") == {"national", "science", "foundation"}
    assert extra_lemmas(expansions("Did she study at UNC?"), "University of North Carolina at Chapel Hill") == {"unc"}
    assert acronyms("WHAT DID THE NTSB CITE?") == [] and acronyms("Who funded the GNNs?") == ["GNN"]
    question = "What did the NTSB cite as a contributing factor?"
    idf = Idf(["ntsb", "other words of a collection", "a contributing factor elsewhere", "cite"])
    left = []
    for text in ("The National Transportation Safety Board cites a contributing factor: diverted attention.",
                 "The Safety Board cites a contributing factor: diverted attention."):
        hits = (Hit(rank=1, chunk_id=1, doc="/d/report.pdf", page=1, section="", text=text, score=1.0),)
        pieces = pieces_of(hits)
        left.append(float(unmatched(question, hits, pieces, candidates(hits, pieces), idf).max()))
    assert left[0] == 0.0 and left[1] > 0.4  # "ntsb" is met by its name, and left unmatched without it


def test_a_question_with_two_interrogatives_leads_with_both_phrases():
    """"Where did he work as a Senior Researcher, and during which years?" asks for a place and a date (public CV set 4,
    c14, was led with the employer alone). The second interrogative joined by "and" is read (`asks.also_asked`),
    and the lead takes in the nearest phrase of its kind within a few words of the first, the one closest to the
    question's words when there are several; a later interrogative "and" does not join opens a clause."""
    assert asks.also_asked("Where and when did Jane Roe earn her B.S.?") == "date"
    assert asks.also_asked("Where did she work as a Senior Researcher, and during which years?") == "date"
    assert asks.also_asked("When did he get the prize, and who did he share it with?") == "person"
    assert asks.also_asked("What was the pilot doing when the airplane crashed?") == ""
    assert asks.also_asked("How many patients were enrolled and how long was the follow-up?") == ""  # one kind
    assert asks.asked("In which years did she teach there?") == "date"
    text = "2004 - 2015\n\nNorthwind Space Agency\nSenior Researcher\n2010 - 2013\nResearch Scientist\n2004 - 2010"
    question = "Where did Jane Roe work as a Senior Researcher, and during which years?"
    place = (text.index("Northwind"), text.index("Agency") + len("Agency"))
    a, b = leads.with_second("date", text, place, question, near={"senior": 3.0, "researcher": 3.0})
    assert text[a:b] == "Northwind Space Agency\nSenior Researcher\n2010 - 2013"
    a, b = leads.with_second("date", text, place, question)  # without the question's words: the nearest
    assert text[a:b] == "2004 - 2015\n\nNorthwind Space Agency"
    far = "Northwind Space Agency" + " and a long list of other things" * 4 + " in 2013"
    assert leads.with_second("date", far, (0, 22), question) == (0, 22)  # too far: the first phrase alone


def test_a_body_with_a_designator_on_the_line_goes_before_a_subject_nearer_the_question():
    """"Where did he do his PhD?" of "PhD, Cognitive Psychology, University of Massachusetts, Amherst" was led with the
    subject, nearer the question's "PhD", in a folder that never writes "psychology" in lower case (public CV set 9);
    "Where does she work now?" with an entry's unit. A body with an organisation's designator on the same line, one
    of whose words the collection only capitalises, goes first; one on another line (another entry) does not, nor
    one named only by common words ("Economics and Social Sciences", which probablepeople gives a designator)."""
    question = "Where did Patrick Roe do their PhD?"
    text = "- PhD, Cognitive Psychology, University of Massachusetts, Amherst, 2020"
    named = {"Cognitive", "Psychology", "Massachusetts", "Amherst"}.__contains__
    a, b = leads.phrase("place", text, near={"phd": 2.0}, question=question, named=named) or (0, 0)
    assert text[a:b] == "University of Massachusetts, Amherst"
    apart = "- PhD, Cognitive Psychology, 2020\n- BA, University of Massachusetts, Amherst, 2014"
    a, b = leads.phrase("place", apart, near={"phd": 2.0}, question=question, named=named) or (0, 0)
    assert apart[a:b] == "Cognitive Psychology"
    common = "- PhD, Cognitive Psychology, Economics and Social Sciences, 2020"
    a, b = leads.phrase("place", common, near={"phd": 2.0}, question=question, named=named) or (0, 0)
    assert common[a:b] == "Cognitive Psychology"
