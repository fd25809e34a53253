"""The web UI's building blocks (HTML, uploads, the people table) and the served app's safety, without a browser.

HTML and upload checks run on plain data and real files in tmp (fast); the People tab's build and
cell views run over the seed index with the real model (slow); the server tests launch the real
Gradio app over the seed index and talk to it over HTTP and gradio_client (slow).
"""

from __future__ import annotations

import csv
import html
import os
import re
import socket
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from assistant.columns import UNSURE
from assistant.table import Cell, Row, Table
from assistant.ui.chat import (
    answer_html,
    parse_cite,
    parse_person,
    person_ref,
    profile_html,
    source_html,
    stream_steps,
    streaming_html,
)
from assistant.ui.docs import check_upload, doc_key, documents_html, find_doc, safe_name, save_upload
from assistant.ui.people import build_view, cell_html, no_people_html, table_html


def citation(n: int, quote: str, start: int = 0, **kw: Any) -> dict[str, Any]:
    return {"n": n, "chunk_id": f"c{n}ab", "doc": f"/docs/cv{n}.pdf", "page": n, "section": "Education",
            "quote": quote, "score": 0.5, "owner": None, "quote_start": start, **kw}


def norm(text: str) -> str:
    return " ".join(text.split())


def marked(out: str) -> str:
    """The text of the one `<mark class="cw-quote">` in a passage view, unescaped."""
    marks = re.findall(r'<mark class="cw-quote">(.*?)</mark>', out, re.S)
    assert len(marks) == 1, out
    return html.unescape(marks[0])


# -- names and uploads ------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "expected"), [
    ("../../etc/passwd.md", "passwd.md"),
    ("..\\..\\boot.TXT", "boot.txt"),
    (".bashrc.md", "bashrc.md"),
    ("my cv (final).PDF", "my_cv_final.pdf"),
    ("résumé.docx", "résumé.docx"),
    ("a<b>|c.md", "a_b_c.md"),
    ("", "document"),
])
def test_safe_name_never_leaves_the_folder(name: str, expected: str) -> None:
    assert safe_name(name) == expected


def test_save_upload_stays_inside_uploads_and_never_writes_through_a_symlink(tmp_path: Path) -> None:
    uploads = tmp_path / "index" / "uploads"
    uploads.mkdir(parents=True)
    outside = tmp_path / "precious.md"
    outside.write_text("do not overwrite")
    (uploads / "cv.md").symlink_to(outside)
    src = tmp_path / "incoming.md"
    src.write_text("new content")

    dest = save_upload(src, uploads, "../../cv.md")
    assert dest == uploads / "cv.md" and not dest.is_symlink()
    assert dest.read_text() == "new content"
    assert outside.read_text() == "do not overwrite"
    assert sorted(p.name for p in uploads.iterdir()) == ["cv.md"]  # no temp file left behind


def test_check_upload_refuses_wrong_types_sizes_and_disguised_files(tmp_path: Path) -> None:
    def make(name: str, data: bytes) -> Path:
        p = tmp_path / name
        p.write_bytes(data)
        return p

    assert check_upload(make("ok.md", b"# CV\nhello"), 1000) is None
    assert check_upload(make("ok.pdf", b"%PDF-1.7\n..."), 1000) is None
    assert check_upload(make("ok.docx", b"PK\x03\x04rest"), 1000) is None
    assert "unsupported file type '.exe'" in check_upload(make("tool.exe", b"MZ"), 1000)
    assert "no extension" in check_upload(make("README", b"text"), 1000)
    assert "not a PDF" in check_upload(make("scan.pdf", b"<html>"), 1000)
    assert "not a Word document" in check_upload(make("cv.docx", b"plain"), 1000)
    assert "binary data" in check_upload(make("notes.txt", b"ab\x00cd"), 1000)
    assert "empty" in check_upload(make("empty.md", b""), 1000)
    assert "over the" in check_upload(make("big.md", b"x" * 2001), 1000)


def test_check_upload_accepts_real_pdf_docx_and_html(tmp_path: Path) -> None:
    import random

    from ingest_files import random_pages, write_docx, write_html, write_pdf

    pages = random_pages(random.Random(1), 2)
    for path in (write_pdf(tmp_path / "cv.pdf", pages), write_docx(tmp_path / "cv.docx", pages),
                 write_html(tmp_path / "cv.html", pages)):
        assert check_upload(path, 10_000_000) is None, path.name


# -- chat HTML --------------------------------------------------------------------------------

def test_answer_html_turns_markers_into_chips_that_point_at_the_quote() -> None:
    d = {"question": "q", "answer": "- Georgia Tech [1]\n- Bogazici [2][7]", "abstained": False,
         "citations": [citation(1, "Georgia Tech", 40), citation(2, "Bogazici", 3)], "related": [], "notes": []}
    out = answer_html(d)
    refs = re.findall(r'href="([^"]+)"', out)
    assert "#cw-cite-1-c1ab-40-52" in refs and "#cw-cite-2-c2ab-3-11" in refs
    assert parse_cite("#cw-cite-1-c1ab-40-52") == (1, "c1ab", 40, 52)
    assert "[7]" not in out and "[1]" not in out  # an unknown marker is dropped, known ones are chips
    assert out.count("<li>") == 4  # two answer bullets + two sources
    assert "\n" not in out  # one HTML block for the chat's Markdown renderer


def test_answer_html_escapes_everything_from_documents_and_users() -> None:
    evil = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    d = {"question": evil, "answer": f"{evil} [1]", "abstained": False,
         "citations": [citation(1, evil, section=evil)], "related": [], "notes": [evil]}
    out = answer_html(d)
    assert "<script" not in out and "<img" not in out
    assert "&lt;script&gt;" in out


def test_abstention_renders_related_passages_apart_from_sources() -> None:
    d = {"question": "q", "answer": "Your documents don't say.", "abstained": True, "citations": [],
         "related": [citation(1, "close but no")], "notes": []}
    out = answer_html(d)
    assert 'class="cw-answer cw-abstained"' in out
    assert "Related, not an answer" in out and "cw-sources-related" in out and "cw-chip cw-related" in out
    assert ">Sources<" not in out


def test_people_answers_are_grouped_by_person_with_profile_links() -> None:
    d = {"question": "who", "abstained": False, "kind": "people", "related": [], "notes": ["2 profiles searched, 2 match"],
         "answer": "- Ada Lovelace: Works on GNNs [1]; graph learning [2]\n- Alan Turing: Machines [3]",
         "citations": [citation(1, "GNNs"), citation(2, "graph learning"), citation(3, "Machines")],
         "people": [{"name": "Ada Lovelace", "docs": ["/d/ada.pdf"], "citations": [1, 2], "owner_known": True},
                    {"name": "Alan Turing", "docs": ["/d/alan.md"], "citations": [3], "owner_known": True}]}
    out = answer_html(d)
    cards = re.findall(r'<div class="cw-person-card">(.*?)</ul></div>', out)
    assert len(cards) == 2
    assert f'href="{person_ref("Ada Lovelace")}"' in cards[0] and parse_person(person_ref("Ada Lovelace")) == "Ada Lovelace"
    assert "#cw-cite-1-c1ab" in cards[0] and "#cw-cite-2-c2ab" in cards[0] and cards[0].count("<li>") == 2
    assert "#cw-cite-3-c3ab" in cards[1] and "ada.pdf" in cards[0]
    assert "2 profiles searched, 2 match" in out
    assert '<details class="cw-sources"><summary class="cw-sources-title">Sources (3)</summary>' in out


def test_a_resolved_follow_up_is_shown() -> None:
    d = {"question": "What about his PhD?", "resolved": "What about Ada's PhD?", "answer": "Cambridge [1]",
         "abstained": False, "citations": [citation(1, "Cambridge")], "related": [], "notes": []}
    assert "Answering: “What about Ada&#x27;s PhD?”" in answer_html(d)
    assert "Answering" not in answer_html({**d, "resolved": d["question"]})


def test_profile_card_shows_every_field_with_its_citation() -> None:
    card = {"person": "Ada", "docs": ["/d/ada.pdf"], "cells": [
        {"field": "Current position", "value": "Analytical Engines", "confidence": 0.9, "source": "cv1.pdf p.1",
         "citation": citation(1, "AE")},
        {"field": "Email", "value": "", "confidence": 0.1, "source": "", "citation": None},
        {"field": "PhD institution", "value": "Notes <on> engines", "confidence": 0.8, "source": "cv2.pdf p.2",
         "citation": citation(1, "Notes", chunk_id="c2ab")}]}
    out = profile_html(card)
    for label, value, n, chunk in (("Current position", "Analytical Engines", 1, "c1ab"),
                                   ("PhD institution", "Notes &lt;on&gt; engines", 2, "c2ab")):
        field = re.search(rf"<dt>{label}</dt><dd>(.*?)</dd>", out).group(1)
        assert value in field and f"#cw-cite-{n}-{chunk}" in field
    assert "Email" not in out and "ada.pdf" in out and "Ada" in out


def test_source_html_highlights_exactly_the_quoted_slice() -> None:
    text = "Education\n\n\nGeorgia <Tech>\nAtlanta\n\nPh.D"
    start = text.index("Georgia")
    end = text.index("Atlanta") + len("Atlanta")
    chunk = {"chunk_id": "c1", "doc": "/x/cv.md", "page": 2, "section": "Education", "text": text, "title": "CV",
             "owner": "Ada"}
    out = source_html(chunk, 1, start, end)
    mark = re.search(r'<mark class="cw-quote">(.*?)</mark>', out, re.S).group(1)
    assert mark == "Georgia &lt;Tech&gt;\nAtlanta"
    assert "cv.md" in out and "Page" in out and "Ada" in out
    assert 'Education\n<mark class="cw-quote">Georgia' in out  # blank lines folded for reading
    assert "<mark" not in source_html(chunk, 1, 5, 999)  # offsets outside the chunk highlight nothing


# -- the People tab ---------------------------------------------------------------------------

PASSAGE = "Education\n\n2024 Northeastern <University>, Boston\nPh.D. in Computer Engineering"


def small_table() -> Any:
    from assistant.answer import Citation
    from assistant.table import Cell, Field, Row, Table

    quote = "2024 Northeastern <University>, Boston"
    cite = Citation(1, "c1", "/docs/ada cv.pdf", 2, "Education", quote, 0.9, "Ada <Lovelace>", PASSAGE.index(quote))
    fields = (Field("PhD institution", "Where did {name} do their PhD?"), Field("Email", "What is {name}'s email?"))
    rows = (Row("Ada <Lovelace>", ("/docs/ada cv.pdf",), (Cell("PhD institution", "Northeastern <University>", 0.8, cite),
                                                         Cell("Email", confidence=0.1))),)
    return Table(fields, rows)


def stored(chunk_id: str) -> Any:
    from index import StoredChunk

    if chunk_id != "c1":
        return None
    return StoredChunk(1, "c1", "/docs/ada cv.pdf", 0, 0, len(PASSAGE), 2, "Education", PASSAGE, "", "CV",
                       "Ada <Lovelace>")


def test_people_table_html_has_a_cell_per_field_and_dims_what_is_not_stated() -> None:
    out = table_html(small_table())
    assert "<script" not in out and "&lt;Lovelace&gt;" in out and "Northeastern &lt;University&gt;" in out
    assert re.findall(r"<button[^>]*>([^<]*)</button>", out) == ["Person", "PhD institution", "Email"]
    cells = re.findall(r'<td class="([^"]+)"[^>]*data-row="(\d+)" data-col="(\d+)"', out)
    assert cells == [("cw-cell", "0", "0"), ("cw-cell cw-cell-empty", "0", "1")]
    assert re.search(r'cw-cell-empty"[^>]*>not stated</td>', out)
    assert "ada cv.pdf p.2" in out  # where the value is quoted from, on hover


def test_a_cell_opens_its_passage_with_its_quote_marked_as_in_the_chat() -> None:
    table = small_table()
    out = cell_html(table, 0, 0, stored)
    assert marked(out) == "2024 Northeastern <University>, Boston"
    assert "Ada &lt;Lovelace&gt; · PhD institution" in out and "Northeastern &lt;University&gt;" in out
    assert "Where did Ada &lt;Lovelace&gt; do their PhD?" in out and "ada cv.pdf" in out
    # Without the cell's caption it is the chat's rendering of that citation, character for character.
    cite = table.rows[0].cells[0].citation
    start, end = out.index('<div class="cw-cell-caption">'), out.index('<div class="cw-panel-head">')
    assert out[:start] + out[end:] == source_html(stored("c1").to_dict(), 0, cite.quote_start,
                                                  cite.quote_start + len(cite.quote))
    empty = cell_html(table, 0, 1, stored)
    assert "<mark" not in empty and "Not stated" in empty and "What is Ada &lt;Lovelace&gt;&#x27;s email?" in empty
    assert "Cell not found" in cell_html(table, 1, 0, stored) and "Cell not found" in cell_html(None, 0, 0, stored)
    assert "Passage not found" in cell_html(table, 0, 0, lambda _: None)
    # A cell left empty beside its column says so, never that the documents hold no answer.
    unsure = Table(table.fields, (Row(table.rows[0].person, table.rows[0].docs,
                                      (table.rows[0].cells[0], Cell("Email", "", 0.6, None, UNSURE))),))
    left = cell_html(unsure, 0, 1, stored)
    assert "Left empty" in left and html.escape(UNSURE) in left and "Not stated" not in left
    assert "Left empty: the reader&#x27;s answer was far less sure" in table_html(unsure)
    assert "No documents yet" in no_people_html(0) and "none of the 2 documents" in no_people_html(2)


@pytest.mark.slow
def test_people_tab_builds_a_row_per_person_whose_cells_open_their_exact_quote(seed_assistant, seed_index_dir: Path,
                                                                               tmp_path: Path) -> None:
    done: list[tuple[int, int, str]] = []
    view = build_view(seed_assistant, None, lambda *step: done.append(step), tmp_path)
    people = seed_assistant.people.names()
    assert len(people) == 3 and view.table is not None
    assert [r.person for r in view.table.rows] == people
    assert len(done) == 3 * len(view.table.fields) and done[-1][:2] == (len(done), len(done))
    rows = re.findall(r'<tr><th scope="row" class="cw-person-cell"[^>]*>([^<]*)<', view.html)
    assert [html.unescape(r) for r in rows] == people
    assert "cw-people-error" not in view.status and f"{len(people)} people × 6 fields" in view.status

    opened = 0
    for i, row in enumerate(view.table.rows):
        for j, cell in enumerate(row.cells):
            out = cell_html(view.table, i, j, seed_assistant.chunk)
            c = cell.citation
            if c is None:  # an abstention, or an answer far less sure than its column's (`cell.note`)
                assert "<mark" not in out and ("Left empty" if cell.note else "Not stated") in out
                continue
            chunk = seed_assistant.chunk(c.chunk_id)
            assert chunk is not None and chunk.doc in row.docs
            assert chunk.text[c.quote_start:c.quote_start + len(c.quote)] == c.quote  # the quote is stored text
            assert norm(marked(out)) == norm(c.quote) and norm(cell.value) in norm(c.quote)
            opened += 1
    assert opened, "no cell of the table quotes anything"

    # The CSV: in a temporary folder, never in the index; a value and a source column per field.
    assert view.csv is not None and view.csv.parent.parent == tmp_path and not view.csv.is_relative_to(seed_index_dir)
    with open(view.csv, encoding="utf-8", newline="") as f:
        records = list(csv.reader(f))
    labels = [fl.label for fl in view.table.fields]
    assert records[0] == ["person", *(h for label in labels for h in (label, f"{label} source"))]
    assert [r[0] for r in records[1:]] == people
    for record, row in zip(records[1:], view.table.rows, strict=True):
        assert record[1::2] == [norm(c.value) for c in row.cells] and record[2::2] == [c.source for c in row.cells]
        assert all(bool(v) == bool(src) for v, src in zip(record[1::2], record[2::2], strict=True))


@pytest.mark.slow
def test_people_tab_says_what_went_wrong_in_one_line(seed_assistant, embedder, tmp_path: Path) -> None:
    from assistant import Assistant, build_index

    unknown = build_view(seed_assistant, ["Nobody Atall"], None, tmp_path)
    assert unknown.table is None and unknown.csv is None and "cw-people-error" in unknown.status
    assert "no person named &#x27;Nobody Atall&#x27;" in unknown.status and "\n" not in unknown.status

    def broken(done: int, total: int, what: str) -> None:
        raise RuntimeError("the disk\nis full")

    failed = build_view(seed_assistant, ["Baolin Li"], broken, tmp_path)
    assert failed.table is None and "Building the table failed: RuntimeError: the disk is full" in failed.status

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "budget-meeting.md").write_text("# Budget meeting\n\nThe committee approved the budget for the new "
                                            "library roof.\n", encoding="utf-8")
    store, _ = build_index([docs], tmp_path / "index", embedder=embedder)
    nobody = build_view(Assistant(store, embedder), None, None, tmp_path)
    assert nobody.table is not None and not nobody.table.rows and nobody.csv is None
    assert "No people in this index" in nobody.html and "none of the 1 document has a known owner" in nobody.html
    assert not list(tmp_path.glob("citewise-people-*"))  # no CSV for a failed or empty build


@pytest.mark.parametrize("ref", ["#cw-cite-1-../../etc/passwd-0-5", "#cw-cite-x-ab-0-5", "cw-cite-1-ab-0", "javascript:alert(1)"])
def test_parse_cite_rejects_anything_but_a_chunk_reference(ref: str) -> None:
    assert parse_cite(ref) is None


def test_streaming_steps_grow_to_the_full_text_and_hide_markers() -> None:
    text = "Georgia Institute of Technology, Atlanta [1] and more words to stream here [2]"
    steps = list(stream_steps(text, steps=5))
    assert len(steps) >= 4 and steps[-1] == text
    assert all(b.startswith(a) for a, b in zip(steps, steps[1:], strict=False))
    assert "[1]" not in streaming_html(steps[-1])


def test_documents_table_has_a_remove_button_per_document(tmp_path: Path) -> None:
    from index import DocRecord

    uploads = tmp_path / "uploads"
    records = [DocRecord(str(uploads / "a.md"), "A", "Ada", None, 3, "s1", "markdown", 10, "t"),
               DocRecord("/home/me/b <x>.pdf", "B", None, 2, 5, "s2", "pdf", 10, "t")]
    out = documents_html(records, uploads)
    keys = re.findall(r'data-key="([0-9a-f]+)"', out)
    assert keys == [doc_key(r.doc) for r in records]
    assert find_doc(records, keys[1]) == records[1] and find_doc(records, "nope") is None
    assert "uploaded" in out and "b &lt;x&gt;.pdf" in out and "2 documents · 8 passages" in out
    assert "No documents yet" in documents_html([], uploads)


# -- the served app ----------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def http_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return int(r.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


@pytest.mark.slow
def test_server_serves_no_file_by_path_and_lists_documents(seed_assistant, seed_index_dir: Path) -> None:
    from gradio_client import Client

    from assistant.ui import serve

    port = free_port()
    app = serve(seed_assistant, port=port, block=False)
    base = f"http://127.0.0.1:{port}"
    try:
        assert http_status(base + "/") == 200
        for target in (seed_index_dir / "chunks.sqlite", Path("/etc/passwd"), Path.cwd() / "pyproject.toml",
                       Path(seed_assistant.documents()[0].doc)):
            for route in ("/gradio_api/file=", "/file="):
                assert http_status(base + route + str(target)) in (403, 404), f"{route}{target} is readable"
        client = Client(base + "/", verbose=False)
        api = client.view_api(return_format="dict", print_info=False)
        # Only the three documented endpoints: uploads, folders and removal are not callable by clients.
        assert set(api["named_endpoints"]) == {"/ask", "/search", "/documents"}
        assert not api["unnamed_endpoints"]
        docs = client.predict(api_name="/documents")
        assert [d["doc"] for d in docs] == [d.doc for d in seed_assistant.documents()]
        assert set(docs[0]) == {"doc", "title", "owner", "pages", "chunks", "sha256"}
    finally:
        app.close()


@pytest.mark.slow
def test_auth_guards_the_ui_and_the_api(seed_assistant) -> None:
    from gradio_client import Client

    from assistant.ui import serve

    port = free_port()
    app = serve(seed_assistant, port=port, block=False, auth=("alice", "s3cret"))
    base = f"http://127.0.0.1:{port}/"
    try:
        with pytest.raises(Exception):  # noqa: B017 - gradio_client raises different types across versions
            Client(base, verbose=False).predict("graph", 2, api_name="/search")
        with pytest.raises(Exception):  # noqa: B017
            Client(base, auth=("alice", "wrong"), verbose=False)
        hits = Client(base, auth=("alice", "s3cret"), verbose=False).predict("graph", 2, api_name="/search")
        assert len(hits["hits"]) == 2
    finally:
        app.close()


def test_folders_are_offered_only_on_loopback() -> None:
    from assistant.ui import folders_allowed

    assert folders_allowed("127.0.0.1") and folders_allowed("localhost")
    assert not folders_allowed("0.0.0.0") and not folders_allowed("192.168.1.20")


def test_cli_serve_rejects_a_malformed_auth(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from assistant.cli import main

    result = CliRunner().invoke(main, ["serve", "--index", str(tmp_path), "--auth", "no-colon"])
    assert result.exit_code != 0 and "USER:PASS" in result.output
    assert os.environ.get("CITEWISE_AUTH") is None
