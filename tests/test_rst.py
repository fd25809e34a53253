"""reStructuredText documents: parsed without running any markup, titles as sections, and a real
collection (scikit-learn's dataset descriptions, read in place from the installed package) indexed
and asked with the real model: documents named by their titles, answered from the named one."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.parse import load_document

RST = """\
.. _wine_dataset:

=======================
Wine recognition report
=======================

.. comment that no reader sees
   and its continuation

**Data Set Characteristics:**

:Number of Instances: 178
:Creator: R.A. Fisher

Data
----

Use :func:`~sklearn.datasets.load_wine` or see :ref:`the guide <datasets>`; ``load_wine`` returns
a `Bunch <https://example.org/bunch>`_ [1]_. It prints as follows::

    >>> 1 + 1

============  =====
Classes           3
============  =====

.. include:: secret.txt

.. image:: figure.png
   :width: 200

.. dropdown:: References

   .. [1] Forina, M. et al, PARVUS.

Notes
-----

Grown in Italy.
"""


def test_rst_text_titles_and_markup(tmp_path: Path):
    path = tmp_path / "wine.rst"
    path.write_text(RST, encoding="utf-8")
    (tmp_path / "secret.txt").write_text("SECRET-NEVER-INCLUDED", encoding="utf-8")
    doc = load_document(path)
    assert doc.format == "rst"
    assert doc.title == "Wine recognition report"
    paths = [s.path for s in doc.sections]
    assert ("Data",) in paths and ("Notes",) in paths and ("References",) in paths, paths
    text = doc.text
    # field lists read as "name: value"; roles and links keep what they display
    assert "Number of Instances: 178" in text and "Creator: R.A. Fisher" in text
    assert "Use load_wine or see the guide; load_wine returns" in text
    assert "Bunch (https://example.org/bunch) [1]" in text
    assert "It prints as follows:" in text and "follows::" not in text
    # a directive's argument stays, its content stays, its options and file arguments go
    assert "References" in text and "[1] Forina, M. et al, PARVUS." in text
    assert "figure.png" not in text and ":width:" not in text
    # nothing is included or run; comments and targets are not text
    assert "SECRET-NEVER-INCLUDED" not in text and "secret.txt" not in text
    assert "comment that no reader sees" not in text and "_wine_dataset" not in text
    # adornments and table borders are blanked, the table's cells stay
    assert "=====" not in text and "-----" not in text
    assert "Classes 3" in " ".join(text.split())
    assert "Grown in Italy." in text


def test_rst_underline_shorter_than_its_line_is_not_a_title(tmp_path: Path):
    path = tmp_path / "notes.rst"
    path.write_text("Intro\n\nA long sentence that goes on\n---\n\nBody text.\n", encoding="utf-8")
    doc = load_document(path)
    assert not any("A long sentence" in s.path[-1] for s in doc.sections)


def _descr() -> Path:
    import sklearn

    folder = Path(sklearn.__file__).parent / "datasets" / "descr"
    if not any(folder.glob("*.rst")):
        pytest.skip(f"scikit-learn ships no dataset descriptions in {folder}")
    return folder


def test_a_link_that_spells_a_name_does_not_make_an_owner():
    """lfw.rst links kaggle.com/datasets/<user>/lfw-dataset: "Lfw Dataset" is no person."""
    doc = load_document(_descr() / "lfw.rst")
    assert doc.owner is None, doc.owner_source


@pytest.fixture(scope="module")
def datasets(tmp_path_factory: pytest.TempPathFactory, embedder):
    from assistant import Assistant, build_index

    index = tmp_path_factory.mktemp("descr-index")
    store, _ = build_index([_descr()], index, embedder=embedder)
    store.close()
    return Assistant.open(index)


@pytest.mark.slow
def test_documents_named_by_their_titles(datasets):
    from assistant.answer.resolve import resolve

    a = datasets
    # rare words point at another document ("petal" is the iris data's); the title names the wine data
    res = resolve("What is the mean petal width in the wine recognition dataset?", a.people, a.store)
    assert [Path(d).name for d in res.docs] == ["wine_data.rst"] and res.one_document, res
    assert "title" in res.note
    answer = a.ask("What is the mean petal width in the wine recognition dataset?")
    assert {Path(c.doc).name for c in (*answer.citations, *answer.related)} <= {"wine_data.rst"}, answer.answer
    # a word most titles share names nothing alone: this is a list over the collection
    res = resolve("Which datasets name R.A. Fisher as their creator?", a.people, a.store)
    assert not res.one_document
    # a file's whole name names it too, though the question has one word of its title
    res = resolve("Who collected kddcup99?", a.people, a.store)
    assert [Path(d).name for d in res.docs] == ["kddcup99.rst"] and res.one_document, res


@pytest.mark.slow
def test_who_question_about_one_titled_document_is_a_fact(datasets):
    answer = datasets.ask("Who created the optical recognition of handwritten digits dataset?")
    assert not answer.abstained and answer.kind != "people", answer.answer
    assert answer.answer.startswith("E. Alpaydin"), answer.answer
    cite = answer.citations[0]
    assert Path(cite.doc).name == "digits.rst" and "Creator: E. Alpaydin" in cite.quote


def test_question_without_the_words_that_spell_a_title():
    from assistant.answer.features import without_titles

    title = ["Optical recognition of handwritten digits dataset"]
    assert without_titles("Who created the optical recognition of handwritten digits dataset?", title) == "Who created the ?"
    # one title word alone is the question's own word ("final approach" beside a "Final Report")
    report = ["Aviation Accident Final Report: NYC08CA055, Piper PA-22-150"]
    assert without_titles("What did the plane strike on final approach?", report) == \
        "What did the plane strike on final approach?"
    assert without_titles("Dataset?", ["Wine dataset"]) == "Dataset?"  # nothing else would be left
    # ... unless it is the document's whole file name, which names it as its title does
    assert without_titles("Who is the author of cachetools?", ["cachetools — Thomas Kemmer"],
                          whole=frozenset({"cachetools"})) == "Who is the author of ?"
    from assistant.answer.features import focus
    from index import Hit

    hit = Hit(rank=1, chunk_id=1, doc="/docs/cachetools.md", page=None, section="", text="Author-email: T. Kemmer",
              score=1.0, title="Extensible memoizing collections", owner=None)
    assert focus("Who is the author of cachetools?", [hit]) == "Who is the author of ?"


@pytest.mark.slow
def test_near_miss_field_of_another_document_is_not_answered(datasets):
    """Written before running citewise: the diabetes description names no donor (four others do), and the
    wine description has no petal measurements (the iris one has)."""
    for q in ("Who donated the diabetes dataset?", "What is the mean petal width in the wine recognition dataset?"):
        answer = datasets.ask(q)
        assert answer.abstained, (q, answer.answer)
        assert {Path(c.doc).name for c in answer.related} <= {"diabetes.rst", "wine_data.rst"}, q


def test_a_word_every_title_shares_names_no_document(tmp_path: Path, embedder):
    """"rustdoc" is in every title of the rustdoc book: with "name" it spelled "Linking to items by name -
    The rustdoc book" for a question about the --crate-name flag, which another page documents."""
    from assistant import Assistant, build_index
    from assistant.answer.resolve import resolve

    docs = tmp_path / "book"
    docs.mkdir()
    pages = {"linking.md": "Linking to items by name", "lints.md": "Lints", "what.md": "What is rustdoc?",
             "args.md": "Command-line arguments"}
    for name, title in pages.items():
        (docs / name).write_text(f"---\ntitle: {title} - The rustdoc book\n---\n\n# {title}\n\nA page about {title}.\n")
    store, _ = build_index([docs], tmp_path / "index", embedder=embedder)
    store.close()
    a = Assistant.open(tmp_path / "index")
    res = resolve("Which flag sets the crate name for rustdoc?", a.people, a.store)
    assert not res.by_title, res
    res = resolve("How do I read the command-line arguments page?", a.people, a.store)
    assert [Path(d).name for d in res.docs] == ["args.md"] and res.by_title, res


def test_a_which_of_question_is_scoped_by_no_title(tmp_path: Path, embedder):
    """"Which of these papers describe an R package?" asks which documents match: "R package", one paper's title,
    is what the others are asked about, so the question searches them all (it had searched that paper only). A
    plain question holding the title's words is still scoped to it."""
    from assistant import Assistant, build_index
    from assistant.answer.resolve import resolve

    docs = tmp_path / "papers"
    docs.mkdir()
    titles = {"causens.md": "causens: An R package for causal sensitivity analyses",
              "slix.md": "SLIX: A Python package for light imaging", "yacht.md": "YACHT: Software for metagenomics"}
    for name, title in titles.items():
        (docs / name).write_text(f"---\ntitle: '{title}'\n---\n\n# Summary\n\nThe package is described here.\n")
    store, _ = build_index([docs], tmp_path / "index", embedder=embedder)
    store.close()
    a = Assistant.open(tmp_path / "index")
    assert resolve("Which of these papers describe an R package for causal sensitivity analyses?", a.people,
                   a.store).docs == ()
    res = resolve("What does the R package for causal sensitivity analyses implement?", a.people, a.store)
    assert [Path(d).name for d in res.docs] == ["causens.md"] and res.by_title, res


def test_one_of_two_titles_is_named_by_its_words(tmp_path: Path, embedder):
    """In a folder of two documents a title word the other title lacks is in half of the titles, and
    tells them apart: "Who wrote the Shared MIME-info Database specification?" is a fact in that
    document, not a list of documents (it was, with words "in under half of the titles" only)."""
    from assistant import Assistant, build_index
    from assistant.answer.resolve import resolve

    docs = tmp_path / "manuals"
    docs.mkdir()
    (docs / "mime.md").write_text("# Shared MIME-info Database\n\nJane Roe\n\nThe database maps file names to types.\n")
    (docs / "asn.md").write_text("# Libtasn1 Manual\n\nThe library parses ASN.1 definitions.\n")
    store, _ = build_index([docs], tmp_path / "index", embedder=embedder)
    store.close()
    a = Assistant.open(tmp_path / "index")
    q = "Who wrote the Shared MIME-info Database specification?"
    res = resolve(q, a.people, a.store)
    assert [Path(d).name for d in res.docs] == ["mime.md"] and res.one_document, res
    answer = a.ask(q)
    assert answer.kind != "people" and {Path(c.doc).name for c in answer.citations} <= {"mime.md"}, answer
