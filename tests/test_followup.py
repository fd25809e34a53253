"""Follow-up questions resolved against the conversation (rules first, then the real assistant)."""

from __future__ import annotations

import pytest

from assistant.followup import resolve, user_turns

PEOPLE = ["Muhammed Fatih Balin", "Burak Bartan", "Baolin Li"]


def test_pronouns_take_the_person_last_asked_about():
    history = [{"role": "user", "content": "Where does Baolin Li work?"}, {"role": "assistant", "content": "..."}]
    assert resolve("What about his PhD?", history, PEOPLE) == "What about Baolin Li's PhD?"
    assert resolve("Where did he study?", history, PEOPLE) == "Where did Baolin Li study?"


def test_and_name_repeats_the_previous_question_about_someone_else():
    history = [("Where did Fatih Balin do his PhD?", "Georgia Institute of Technology [1]")]
    assert resolve("and Bartan?", history, PEOPLE) == "Where did Burak Bartan do his PhD?"
    assert resolve("What about Baolin Li?", history, PEOPLE) == "Where did Baolin Li do his PhD?"
    # with a thing of theirs, that thing is asked about, not the previous question
    assert resolve("what about Bartan's website?", history, PEOPLE) == "What about Bartan's website?"
    assert resolve("And Baolin Li’s email?", history, PEOPLE) == "What about Baolin Li’s email?"


def test_standalone_questions_are_left_alone():
    history = [("Where did Fatih Balin do his PhD?", "...")]
    assert resolve("What is SIRD?", history, PEOPLE) == "What is SIRD?"
    assert resolve("Where did Baolin Li work?", history, PEOPLE) == "Where did Baolin Li work?"
    assert resolve("What about his PhD?", [], PEOPLE) == "What about his PhD?"


def test_history_formats():
    parts = [{"role": "user", "content": [{"type": "text", "text": "Who is Bartan?"}]}]
    assert user_turns(parts) == ["Who is Bartan?"]
    assert user_turns([("a?", "b"), ["c?", "d"]]) == ["a?", "c?"]


@pytest.mark.slow
def test_ask_with_history_answers_the_resolved_question(seed_assistant):
    first = seed_assistant.ask("Where did Muhammed Fatih Balin do his PhD?")
    assert all("000_" in c.doc for c in first.citations)  # what the reader picks is tested in test_reader
    follow = seed_assistant.ask("and Baolin Li?", history=[("Where did Muhammed Fatih Balin do his PhD?", first.answer)])
    assert follow.resolved == "Where did Baolin Li do his PhD?"
    assert follow.question == "and Baolin Li?"
    assert all("002_" in c.doc for c in (*follow.citations, *follow.related))


def test_people_are_found_by_the_resolvers_alias_rules():
    people = ["Radu Andrei Pârvulescu", "Maurice Weber", "Anna Weber"]
    history = [("Where did Parvulescu do his PhD?", "...")]  # accent-free surname
    assert resolve("What about his minors?", history, people) == "What about Radu Andrei Pârvulescu's minors?"
    assert resolve("and Maurice Weber?", history, people) == "Where did Maurice Weber do his PhD?"
    # A surname two people share names both: the pronoun is not pinned on one of them.
    shared = [("Where did Weber work?", "...")]
    assert resolve("Where did he study?", shared, people) == "Where did he study?"
