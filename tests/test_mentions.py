"""A question naming a code-like term that no document read mentions is refused, with that term named; so is one
naming such a term that the section of the passage it would quote does not hold, or stating a quantity it does
not hold.

Real parts: the packaged embedding model, FAISS and SQLite (the index's document terms), the real reader."""

from __future__ import annotations

from pathlib import Path

from assistant import Assistant, build_index
from assistant.answer.mentions import coded, quantities, unmentioned, unsaid, unstated
from index import Store

PAPER = """# Tabular meta-learning with gradient boosting

## Experiments

We tuned XGBoost (version 2) on 20 tasks of the MIMIC-IV database. Each configuration was trained for 30 epochs with early
stopping, feeding data in batches of 128 rows, on one graphics processing unit.

## Results

Tuned XGBoost beat its defaults on 17 of the 20 tasks. The results of the Ph.D. thesis this paper extends are in
its appendix; GNNs were not used.
"""


def test_terms_written_as_codes_are_the_ones_checked() -> None:
    q = "Did the MIMIC-IV PhD study compare CatBoost, LightGBM, GPT-4 and FP8 with XGBoost in Alaska in 2019 as a TA?"
    # not a place, a year, two letters ("TA"), or an abbreviation written in many ways ("PhD": "Ph.D.", "doctorate")
    assert coded(q) == ["MIMIC-IV", "CatBoost", "LightGBM", "GPT-4", "FP8", "XGBoost"]
    assert coded("HOW MANY TEAMS CAN A LEAGUE SEND TO THE ALL-STARS") == []  # typed in capitals
    assert coded("who invaded north africa during ww2") == []  # typed in lower case


def test_a_question_naming_what_no_document_mentions_is_refused(tmp_path: Path, embedder) -> None:
    path = tmp_path / "boosting.md"
    path.write_text(PAPER, encoding="utf-8")
    build_index([path], tmp_path / "idx", embedder=embedder)
    store = Store.open(tmp_path / "idx")
    docs = [d.doc for d in store.documents()]
    # held as written, with its dots dropped ("Ph.D."), as a plural's singular ("GNN"), part by part
    # ("MIMIC-IV"), or spelled out ("graphics processing unit")
    assert unmentioned("How was XGBoost tuned for the PhD thesis, with GNN or MIMIC-IV data on a GPU?", docs, store) == []
    assert unmentioned("How did CatBoost and LightGBM compare with XGBoost?", docs, store) == ["CatBoost", "LightGBM"]
    assert unmentioned("How did CatBoost compare?", [], store) == []  # nothing read, nothing claimed
    assert unmentioned("Was XGBoostv2 or FP16 used?", docs, store) == ["FP16"]  # "XGBoost" and its version "2" are there
    a = Assistant(store, embedder)
    refused = a.ask("How did CatBoost compare with XGBoost in the boosting experiments?")
    assert refused.abstained and "mentions “CatBoost”" in refused.notes[-1] and "boosting.md" in refused.notes[-1]
    answered = a.ask("On how many of the 20 tasks did tuned XGBoost beat its defaults?")
    assert not answered.abstained and "17" in answered.answer


def test_a_short_abbreviation_counts_where_the_collection_writes_it(tmp_path: Path, embedder) -> None:
    """"PhD" is written in many ways ("Ph.D.", "Doctor of Philosophy"), so it is checked only where the
    collection writes it as the question does: a CV that never mentions a PhD, in a folder whose other CVs
    write "Ph.D.", cannot say when its owner got one. Spelled out, in either order ("Doctor of Philosophy",
    "Master of Science"), it is held, but not by words in lower case ("department of physics"); a collection
    that never writes it says nothing."""
    docs = {"roe.md": "# Ann Roe\n\n## Education\n\n- Ph.D. in Physics, Some University, 2012\n- B.Sc., 2006\n",
            "lee.md": "# Bo Lee\n\n## Education\n\n- Master of Arts, History, Other University (2003)\n"
                      "- Bachelor of Arts, History (2001)\n- Teaching assistant, department of physics (2004)\n",
            "kim.md": "# Cy Kim\n\n## Education\n\n- Doctor of Philosophy, Chemistry, Third University, 2015\n"}
    for name, text in docs.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    build_index([tmp_path / n for n in docs], tmp_path / "idx", embedder=embedder)
    store = Store.open(tmp_path / "idx")
    path = {Path(d.doc).name: d.doc for d in store.documents()}
    assert coded("When did Bo Lee get his PhD and MSc?", short=True) == ["PhD", "MSc"]
    assert coded("When did Bo Lee get his PhD?") == []  # not a code by itself: see `_is_code`
    assert unmentioned("When did Bo Lee get his PhD?", [path["lee.md"]], store) == ["PhD"]
    assert unmentioned("When did Ann Roe get her PhD?", [path["roe.md"]], store) == []
    assert unmentioned("When did Cy Kim get his PhD?", [path["kim.md"]], store) == []  # spelled out, reversed
    assert unmentioned("When did Bo Lee get his MSc?", [path["lee.md"]], store) == []  # no CV here writes "MSc"
    a = Assistant(store, embedder)
    refused = a.ask("In what year did Bo Lee receive his PhD?")
    assert refused.abstained and "mentions “PhD”" in refused.notes[-1] and "lee.md" in refused.notes[-1]
    answered = a.ask("In what year did Ann Roe receive her PhD?")  # the same question of a CV that writes it
    assert "PhD" not in " ".join(answered.notes) and "2012" in " ".join(c.quote for c in answered.citations + answered.related)


def test_quantities_a_question_states_are_numbers_after_common_words() -> None:
    assert quantities("How many hours had he flown in the last 24 hours, at a 50% penalty, in 1970, with K = 10?") == [
        "24", "50%", "1970", "10"]
    # part of a name or a code, a date, a time: no quantity
    assert quantities("How many Xbox 360 games ran on the Piper PA-22 in World War 1, version 0.20, on 11/29/2007 at 10:30?") == []
    assert quantities("how many xbox 360 games are there") == [] and quantities("What is the capital?") == []


def test_a_quantity_the_passage_does_not_hold_is_named() -> None:
    texts = ["Flight Time: 2,640 hours (Total), 5 hours (Last 90 days); four passengers; lots 3, 6 and 9", "Pilot"]
    assert unstated("How many hours in the last 90 days, of the 2640 hours?", texts) == []  # "2,640" is 2640
    assert unstated("Were there 4 passengers in lots 3,6?", texts) == []  # a number word; a list read apart
    assert unstated("How many hours had he flown in the 24 hours before?", texts) == ["24"]
    assert unstated("What was the 5.5 hour total?", texts) == ["5.5"]


def test_a_year_the_question_states_may_be_anywhere_in_its_document() -> None:
    """"After the 2018 Homebrew token leak, what happened to the suggestion to use GPG signing?": the year says which
    incident is meant; the report dates it in its opening, the answer is in its follow-up section. A year the
    document holds anywhere is held; another quantity is still looked for in the passage's section only, and a
    year the document lacks is still named."""
    from assistant.answer.mentions import unheld

    near = ["The committee took a vote on GPG signing and it was rejected.", "Follow-up", "Security incident"]
    section = lambda: near[:1]  # noqa: E731
    document = lambda: ["On 31st July 2018 a researcher found a leaked token in 24 hours.", *near[:1]]  # noqa: E731
    q = "After the 2018 token leak, what happened to the suggestion to use GPG signing?"
    assert "“2018”" in unheld(q, near, section)
    assert unheld(q, near, section, document=document) == ""
    assert "“2019”" in unheld(q.replace("2018", "2019"), near, section, document=document)
    assert "“24”" in unheld("What was decided within the 24 hours after the leak?", near, section, document=document)


def test_a_question_stating_a_quantity_its_passage_lacks_is_refused(tmp_path: Path, embedder) -> None:
    """The near miss the rule is for: the passage gives the epochs and the batch size, the question asks about a
    batch size of 256. Its answerable twin is still answered."""
    path = tmp_path / "boosting.md"
    path.write_text(PAPER, encoding="utf-8")
    build_index([path], tmp_path / "idx", embedder=embedder)
    a = Assistant(Store.open(tmp_path / "idx"), embedder)
    refused = a.ask("For how many epochs was each configuration trained with batches of 256 rows?")
    assert refused.abstained and "“256”" in refused.notes[-1]
    answered = a.ask("For how many epochs was each configuration trained with batches of 128 rows?")
    assert not answered.abstained and "30 epochs" in answered.answer


REPORT = """# Sentiment models for product reviews

## Training

We fine-tuned a BERT classifier for 3 epochs on 12,000 reviews, with a learning rate of 2e-5.

## Evaluation

The CNN baseline reached 81% accuracy on the test reviews, and the logistic regression 77%.
"""


def test_a_term_the_passages_section_does_not_hold_is_refused(tmp_path: Path, embedder) -> None:
    """The document holds "BERT", so the question is not refused for naming it; but the passage that would
    answer "What accuracy did the BERT classifier reach?" is the CNN baseline's, in a section that never names
    BERT: a near miss. The CNN question is answered from it."""
    assert unsaid("What accuracy did the BERT classifier reach?", ["The CNN baseline reached 81% accuracy", "Evaluation"]) == ["BERT"]
    assert unsaid("What accuracy did the CNN reach?", ["The CNN baseline reached 81% accuracy"]) == []
    assert unsaid("What accuracy did the BERT classifier reach?", ["81%"], skip=["BERT"]) == []  # it located the document
    path = tmp_path / "reviews.md"
    path.write_text(REPORT, encoding="utf-8")
    build_index([path], tmp_path / "idx", embedder=embedder)
    a = Assistant(Store.open(tmp_path / "idx"), embedder)
    refused = a.ask("What accuracy did the BERT classifier reach on the test reviews?")
    assert refused.abstained and "mention “BERT”" in refused.notes[-1], refused.answer
    answered = a.ask("What accuracy did the CNN baseline reach on the test reviews?")
    assert not answered.abstained and "81%" in answered.answer


INCIDENT = """# Traefik v2 ingress outage

## Summary

DFDS moved its main Kubernetes ingress controller to Traefik v2 on 26 August 2021. The change had been tested on
two smaller clusters for a month before, and the team expected no visible effect on the services behind the
ingress. The migration was planned for a quiet Thursday morning.

## Timeline

| Time | Event |
|---|---|
| 2021-08-26 09:05 | Traefik v2 takes over the ingress traffic. |
| 2021-08-26 09:32 | We are informed that the online booking system is down. |
| 2021-08-26 09:48 | Rollback performed. |

## Cause

The X-Forwarded-Proto header was not passed on, so sign-in through Okta failed.
"""


def test_the_words_of_a_title_that_located_the_document_need_not_be_in_its_passage(tmp_path: Path, embedder) -> None:
    """"Which system went down during the DFDS Traefik v2 ingress migration?" names the report by its file name's
    words ("dfds-traefik-v2-ingress.md"); "DFDS", a code-like term, is in its summary but not in the timeline that
    answers, and the question was refused for it. Words that located the document by its title or file name say
    where to look, as its owner's name does."""
    docs = tmp_path / "incidents"
    docs.mkdir()
    (docs / "dfds-traefik-v2-ingress.md").write_text(INCIDENT, encoding="utf-8")
    (docs / "dfds-log4shell.md").write_text("# Log4Shell investigation\n\nIn December 2021 DFDS scanned every Docker "
                                            "image on its clusters.\n\n## Findings\n\nOne affected pod was found and "
                                            "patched within a day.\n", encoding="utf-8")
    build_index([docs], tmp_path / "idx", embedder=embedder)
    a = Assistant(Store.open(tmp_path / "idx"), embedder)
    answer = a.ask("Which system went down during the DFDS Traefik v2 ingress migration?")
    assert not answer.abstained and "online booking" in answer.answer, answer.notes
