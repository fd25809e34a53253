"""resolve + scoped_retrieve on real documents with the real model: people by alias, documents by
rare facts, ambiguous names, and questions that name nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import SHARED, require_shared

from assistant.answer.resolve import Resolution, resolve, scoped_retrieve
from assistant.answer.words import fold
from assistant.render import answer_phrase, answer_text, confidence_words, fact_span, highlight

REALDOCS = SHARED / "eval" / "realdocs" / "docs"
SEED_BALIN = "Muhammed Fatih Balin"


def _doc(res: Resolution, stem: str) -> bool:
    return any(Path(d).name.startswith(stem) for d in res.docs)


# --- seeds ---------------------------------------------------------------------------------------

@pytest.mark.slow
def test_seed_people_by_any_written_form(seed_assistant):
    a = seed_assistant
    balin_docs = next(p.docs for p in a.people.all() if p.name == SEED_BALIN)
    for q in ("Where did M. F. Balin do his PhD?", "What is Balin's current job?", "where did fatih balin study?",
              "Which university did Muhammed attend?"):
        res = resolve(q, a.people, a.store)
        assert res.persons == (SEED_BALIN,), q
        assert res.docs == balin_docs
        assert SEED_BALIN in res.note and not res.ambiguous
    assert resolve("Compare Bartan and Baolin Li", a.people, a.store).persons == ("Burak Bartan", "Baolin Li")


def test_a_common_word_opening_a_question_is_not_a_given_name():
    from assistant.answer.aliases import people_named

    names = ["Will Turner", "Baolin Li"]
    assert people_named("Will the plan change?", names) == ()
    assert people_named("Where did Will study?", names) == ("Will Turner",)
    assert people_named("Baolin's PhD?", names) == ("Baolin Li",)


def test_a_given_name_inside_another_full_name_is_not_that_owner():
    """A folder where David Moody owns a CV and David Robles's page has no owner: "David Robles" is not
    David Moody (the question was scoped to his CV and answered from it); his given name alone still is, and
    his surname after another given name may be a short form of his ("Matt")."""
    from assistant.answer.aliases import people_named

    names = ["David Moody", "Baolin Li"]
    assert people_named("Where did David Robles earn his doctorate?", names) == ()
    assert people_named("When did Matt Moody join Google?", names) == ("David Moody",)  # a short form, perhaps
    assert people_named("Where did David work in 2016?", names) == ("David Moody",)
    assert people_named("Did David Moody or Baolin study in Cambridge?", names) == ("David Moody", "Baolin Li")
    assert people_named("What did Moody do at Google?", names) == ("David Moody",)


@pytest.mark.slow
def test_seed_question_naming_nobody_is_not_scoped(seed_assistant):
    a = seed_assistant
    for q in ("What is the main research interest?", "Where did he study?", ""):
        res = resolve(q, a.people, a.store)
        assert res == Resolution(), q
        hits, note = scoped_retrieve(a.searcher, a.people, res, q or "x", 5)
        assert note == ""


@pytest.mark.slow
def test_list_questions_search_every_person_as_the_reader_reads_them(seed_assistant):
    from assistant.answer import asks

    a = seed_assistant
    people = list(a.people.all())
    assert len(people) >= 3
    # "Which two people", "Which of these people", "Whose" ask for every matching person: each person's
    # documents are searched separately, whatever the first word of the question
    for q in ("Which two people have studied in Texas?", "Which of these people worked on compilers?",
              "Whose work uses graph neural networks?", "Who has worked on GPUs?"):
        assert asks.is_list(q, False), q
        res = resolve(q, a.people, a.store)
        hits, note = scoped_retrieve(a.searcher, a.people, res, q, 5, per_person=2)
        assert note == "" and {p.name for p in people} <= {h.owner for h in hits if h.owner}, q
    for q in ("Which paper received the award?", "What year did he graduate?", "Who is the head of the lab?",
              "Who was an advisor of the thesis?", "Which parts of the airplane were damaged?",
              "What sections of the plan cover records?",  # parts of one thing, not a list of people
              "What command opens the generated documentation?",  # a verb and its object, not a plural
              "Which decoder option turns on strict decoding?"):  # a verb and its particle, past the third word
        assert not asks.is_list(q, False), q
    assert asks.is_list("Which accident reports involve Piper airplanes?", False)
    assert asks.is_list("Which CV owners studied in Texas?", False)
    # people asked about by an indefinite pronoun or a listing imperative are every matching person too, and
    # searched the same way; a yes/no question about a thing or about people in a report is not
    for q in ("Is there anyone who has worked on GPUs?", "Does anybody have a PhD?", "Are there any people from Texas?",
              "List all people who studied in Texas.", "Find researchers who work on compilers."):
        assert asks.asks_who(q), q
        res = resolve(q, a.people, a.store)
        hits, note = scoped_retrieve(a.searcher, a.people, res, q, 5, per_person=2)
        assert note == "" and {p.name for p in people} <= {h.owner for h in hits if h.owner}, q
    for q in ("Is there any evidence of icing?", "Did people die in the crash?", "Were any persons injured?",
              "Show me the paper on sketching", "Find the email of the lab"):
        assert not asks.asks_who(q), q


@pytest.mark.slow
def test_seed_scoped_hits_come_from_the_named_person_first(seed_assistant):
    a = seed_assistant
    q = "Who advised Baolin Li?"
    res = resolve(q, a.people, a.store)
    hits, note = scoped_retrieve(a.searcher, a.people, res, q, 5)
    assert hits and all(h.doc in res.docs for h in hits)
    assert note.startswith("Searched Baolin Li's documents")
    answer = a.ask(q)  # the note reaches the answer
    assert answer.notes and answer.notes[0] == note


# --- real documents ------------------------------------------------------------------------------

REAL = ("cv07_parvulescu.pdf", "cv12_weber.pdf", "ntsb01_NYC08CA055.pdf", "ntsb02_LAX08CA034.pdf",
        "ntsb03_ANC08CA024.pdf", "trial01_NCT06158269.pdf")


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory, embedder):
    """Six realdocs documents and a made-up profile of another Weber (a surname two owners share)."""
    from assistant import Assistant, build_index

    require_shared(REALDOCS)
    folder = tmp_path_factory.mktemp("real-docs")
    for name in REAL:
        shutil.copy(REALDOCS / name, folder / name)
    (folder / "anna_weber.txt").write_text(
        "Anna Weber\n\nEducation\n\nPhD in Chemistry, University of Vienna, 2015.\n\n"
        "Experience\n\nResearch chemist at a battery start-up in Graz since 2016.\n", encoding="utf-8")
    index = tmp_path_factory.mktemp("real-index")
    store, _ = build_index([folder], index, embedder=embedder)
    store.close()
    return Assistant.open(index)


@pytest.mark.slow
def test_accent_free_name_and_surname(real):
    owner = next(p.name for p in real.people.all() if any("cv07" in d for d in p.docs))
    assert fold(owner).endswith("parvulescu") and owner != fold(owner)  # the stored name keeps its accent
    for q in ("Which languages does Parvulescu speak?", "What did Radu Parvulescu study at McGill?"):
        res = resolve(q, real.people, real.store)
        assert res.persons == (owner,), q
        assert _doc(res, "cv07") and len(res.docs) == 1


@pytest.mark.slow
def test_full_name_wins_and_a_shared_surname_is_ambiguous(real):
    res = resolve("Where did Maurice Weber do his PhD?", real.people, real.store)
    assert res.persons == ("Maurice Weber",) and not res.ambiguous
    both = resolve("Where did Weber do a PhD?", real.people, real.store)
    assert set(both.persons) == {"Maurice Weber", "Anna Weber"}
    assert both.ambiguous and "could be" in both.note
    assert _doc(both, "cv12") and _doc(both, "anna_weber")


@pytest.mark.slow
def test_report_named_by_a_rare_identifier_a_place_or_a_date(real):
    for q, stem, word in (("What did the right wing of N1181Y catch?", "ntsb03", "N1181Y"),
                          ("Which company operated the airplane that crashed on 12/06/2007?", "ntsb02", "12/06/2007"),
                          ("What was the probable cause of the accident near Soledad?", "ntsb02", "Soledad"),
                          ("How much melphalan is given before the transplant?", "trial01", "melphalan"),
                          # "flown" is in one other report only: a name the question writes outranks it
                          ("How many hours had the Seward pilot flown in that make and model?", "ntsb03", "Seward")):
        res = resolve(q, real.people, real.store)
        assert res.persons == () and len(res.docs) == 1 and _doc(res, stem), (q, res)
        assert word in res.by and word in res.note
        hits, note = scoped_retrieve(real.searcher, real.people, res, q, 8)
        assert note == res.note
        inside = [h.doc == res.docs[0] for h in hits]
        assert len(hits) == 8 and all(inside[:6])  # the scope first; the last places may come from
        assert inside == sorted(inside, reverse=True)  # elsewhere, when the whole index ranks them high


@pytest.mark.slow
def test_an_answer_never_takes_its_fact_from_a_document_the_question_did_not_name(real):
    """Written from the reports before running citewise: facts another report holds ("17 hours during
    the 90-day period" is the Tallahassee pilot's), asked about the Seward accident. The search may
    rank other reports after the named one; the answer (or the abstention's related passages) may
    only quote the Seward report."""
    for q in ("How many hours did the Seward pilot fly the accident airplane in the week before the crash?",
              "What did the Seward airplane hit on final approach?",
              "How old was the passenger in the Seward accident?"):
        res = resolve(q, real.people, real.store)
        assert _doc(res, "ntsb03"), (q, res)
        named = set(res.docs)
        hits, _ = real.retrieve_scoped(q)
        assert hits and {h.doc for h in hits} <= named, q
        a = real.ask(q)
        assert {c.doc for c in (*a.citations, *a.related)} <= named, (q, a.answer)


@pytest.mark.slow
def test_question_naming_nothing_is_searched_unscoped(real):
    q = "What was the probable cause of the accident?"  # words every report holds: nothing named
    res = resolve(q, real.people, real.store)
    assert res.docs == () and res.note == ""
    hits, note = scoped_retrieve(real.searcher, real.people, res, q, 6)
    assert note == "" and hits == real.searcher.search(q, 6)


@pytest.mark.slow
def test_who_questions_search_every_person(real):
    q = "Who has a PhD?"
    res = resolve(q, real.people, real.store)
    hits, note = scoped_retrieve(real.searcher, real.people, res, q, 6)
    assert note == ""
    assert {h.doc for h in hits} == {d for p in real.people.all() for d in p.docs}


# --- display -------------------------------------------------------------------------------------

def test_confidence_in_words():
    assert confidence_words(0.934) == "very likely (93 %)"
    assert confidence_words(0.75) == "likely (75 %)"
    assert confidence_words(0.5) == "uncertain (50 %)"
    assert confidence_words(0.1) == "unlikely (10 %)"
    assert confidence_words(None) == ""


def test_answer_phrase_marked_in_its_passage():
    quote = "Supervisors: Prof. Ce Zhang &\nProf. Martin Vechev"
    assert fact_span(quote, "ce zhang & prof. martin vechev") == (19, len(quote))
    assert highlight(quote, "Ce Zhang & Prof. Martin Vechev") == "Supervisors: Prof. **Ce Zhang &**\n**Prof. Martin Vechev**"
    assert highlight(quote, "not there") == quote
    assert fact_span(quote, quote) is None  # the whole passage is not worth marking
    long = "x " * 300 + "Location: Seward, AK"
    cut = highlight(long, "Seward, AK", limit=80)
    assert cut.endswith("**Seward, AK**") and cut.startswith("…") and len(cut) < 100
    # a fact the passage wraps over two lines is still the phrase marked; a two-line answer without one is not
    from assistant.answer import Answer, Citation

    c = Citation(1, "c1", "/d/r.pdf", 1, "", "The pilot and two\npassengers sustained fatal injuries.", 0.9)
    wrapped = Answer("q", "two passengers [1]\nThe pilot and two passengers sustained fatal injuries. [1]", False,
                     (c,), fact="two\npassengers")
    assert answer_phrase(wrapped) == "two passengers"
    assert highlight(c.quote, answer_phrase(wrapped)) == "The pilot and **two**\n**passengers** sustained fatal injuries."
    assert answer_phrase(Answer("q", "line one [1]\nline two [1]", False, (c,))) == ""


def test_answer_text_shows_confidence_and_marks_the_fact():
    from assistant.answer import Answer, Citation

    c = Citation(1, "c1", "/d/cv.pdf", 1, "Education", "Ph.D. in Computer Science, ETH Zurich, 2023", 0.9)
    a = Answer("q", "ETH Zurich [1]", False, (c,), fact="ETH Zurich")
    a = a.__class__(**{**a.__dict__, **({"confidence": 0.82} if "confidence" in a.__dict__ else {})})
    text = answer_text(a)
    assert "Ph.D. in Computer Science, **ETH Zurich**, 2023" in text
    if "confidence" in a.__dict__:
        assert "Confidence: likely (82 %)" in text


@pytest.mark.slow
def test_who_question_nobody_matches_abstains_and_a_real_match_is_listed(real):
    """Written before running citewise: nobody in these documents plays the violin or worked for the
    World Bank (the "who" model ranks people against each other, so someone always looks best; the
    answerability model says whether anyone matches at all). Maurice Weber works at Together AI."""
    for q in ("Who plays the violin?", "Which people have worked for the World Bank?"):
        a = real.ask(q)
        assert a.abstained and not a.citations, (q, a.answer)
        assert "0 match" in a.notes[-1]
        # three people (Anna Weber's profile too) and four reports without a person owner
        assert "(3 profiles and 4 other documents searched)" in a.answer, a.answer
    a = real.ask("Who has worked at Together AI?")
    assert not a.abstained and a.people and a.people[0].name == "Maurice Weber", a.answer


def test_a_person_named_in_every_publication_is_searched_also_without_the_name(tmp_path: Path, embedder):
    """A CV lists its owner in each publication and talk, and its title names them. Inside that person's documents
    the name says where to look, not what for: searched with the name, "When did Jane Q. Doe get her PhD?" ranked
    short sections (their text little more than the title's name) and the publications above the Education
    entry, 8th here (13th in a real CV); the hits now take turns with the same search without the name and its
    initial, where it is first."""
    from assistant import Assistant, build_index

    docs = tmp_path / "cvs"
    docs.mkdir()
    topics = ["syntax priming", "reading times", "corpus frequency", "second language", "word order",
              "eye tracking", "rating tasks", "agreement errors", "relative clauses", "code switching",
              "prosody", "lexical access", "sentence processing", "learner corpora", "verb bias", "ellipsis"]
    pubs = "\n\n".join(f"- Doe, Jane Q. and R. Roe ({2010 + i % 12}). Experiments on {t} with Jane Q. Doe's "
                       f"materials. *Journal of Language Studies* {i + 3}." for i, t in enumerate(topics))
    talks = "\n\n".join(f"- Doe, J. Q. ({2012 + i % 10}). Talk on {t}, by Jane Q. Doe. Linguistics Colloquium."
                        for i, t in enumerate(topics))
    (docs / "doe_cv.md").write_text(
        "---\ntitle: Curriculum Vitae — Jane Q. Doe\nemail: jqdoe@example.edu\n---\n\n"
        "# Grants\n\n## External\n\n- 2017. A writing program.\n\n## Internal\n\n- 2015. Summer stipend.\n\n"
        "# Teaching\n\n## Graduate\n\n## Undergraduate\n\n- Syntax\n\n# Service\n\n- Reviewer\n\n"
        "## Advising\n\n- Two theses\n\n# Scholarship\n\n## Books\n\n## Software\n\n- An R package\n\n"
        "# Professional development\n\n- A workshop\n\n# Publications\n\n" + pubs
        + "\n\n# Presentations\n\n" + talks
        + "\n\n# Education\n\nPhD Linguistics & Cognitive Science, 2004-2009\nUniversity of Arizona\n\n"
        "MA Hispanic Linguistics, 2001-2004\nUniversity of Arizona\n", encoding="utf-8")
    for i, name in enumerate(["Richard Roe", "Mary Major", "John Stiles", "Ann Other", "Paul Poe", "Lena Lane"]):
        (docs / f"cv{i}.md").write_text(f"# {name}\n\nResearcher at Acme since 2019. PhD student advisor.\n\n"
                                        f"# Education\n\nPhD in Physics, 201{i}\n\nMentored PhD students in "
                                        f"{topics[i]}.\n", encoding="utf-8")
    store, _ = build_index([docs], tmp_path / "index", embedder=embedder)
    store.close()
    a = Assistant.open(tmp_path / "index")
    q = "When did Jane Q. Doe get her PhD?"
    res = resolve(q, a.people, a.store)
    assert res.persons == ("Jane Q. Doe",), res
    named = a.searcher.search(q, 5, docs=list(res.docs))
    assert not any("PhD Linguistics" in h.text for h in named)  # what the search with the name alone returns
    hits, _ = scoped_retrieve(a.searcher, a.people, res, q, 5, person_k=5)
    assert len(hits) == 5 and all(h.doc in res.docs for h in hits)
    assert any("PhD Linguistics" in h.text for h in hits[:2]), [h.section for h in hits]
    assert hits[0].chunk_id == named[0].chunk_id  # the search with the name still leads
    answer = a.ask(q)
    assert not answer.abstained and "2004-2009" in answer.answer, answer.answer



def test_a_paper_named_by_its_title_is_searched_also_without_the_title(tmp_path: Path, embedder):
    """Inside a paper named by its title the title's words say where to look, not what for: every section of a
    paper repeats them. In a real paper "Which universities are the authors of 'Cross-Partisan Discussions on
    YouTube' affiliated with?" ranked those sections above the author block, which was not among the ten hits.
    The hits now take turns with the same search without the title's words, as for a person's name: here the
    best of that search is not among the three best of the search with the title, and is among the hits."""
    from assistant import Assistant, build_index
    from assistant.answer.features import without_titles
    from assistant.answer.resolve import resolve

    docs = tmp_path / "papers"
    docs.mkdir()
    topics = ["streaming", "cut sparsifiers", "spectral bounds", "dynamic updates", "lower bounds", "experiments",
              "linear sketches", "edge sampling", "random walks", "related work", "open problems", "memory use"]
    body = "\n\n".join(f"## {t.title()}\n\nThe authors of Sparse Graph Sketching study {t} in graphs of university "
                       f"networks, Sparse Graph Sketching: the sparse graph sketch keeps {t} within bounds."
                       for t in topics)
    (docs / "sketch.md").write_text(
        "# Sparse Graph Sketching\n\nSparse graph sketching: sketches of sparse graphs in streams.\n\n"
        "## Jane Roe, Ann Other\n\nUniversity of Somewhere; Northern Institute of Technology\n\n" + body + "\n",
        encoding="utf-8")
    (docs / "other.md").write_text("# Protein Folding Notes\n\nA page about proteins and folding.\n", encoding="utf-8")
    store, _ = build_index([docs], tmp_path / "index", embedder=embedder)
    store.close()
    a = Assistant.open(tmp_path / "index")
    q = "Which universities are the authors of 'Sparse Graph Sketching' affiliated with?"
    res = resolve(q, a.people, a.store)
    assert res.one_document and [Path(d).name for d in res.docs] == ["sketch.md"], res
    named = a.searcher.search(q, 3, docs=list(res.docs))
    bare = a.searcher.search(without_titles(q, [" ".join(res.by)]), 1, docs=list(res.docs))[0]
    assert bare.chunk_id not in {h.chunk_id for h in named}, [h.text[:40] for h in named]
    hits, _ = scoped_retrieve(a.searcher, a.people, res, q, 3)
    assert bare.chunk_id in {h.chunk_id for h in hits}, [h.text[:40] for h in hits]
    assert hits[0].chunk_id == named[0].chunk_id  # the search with the title still leads
