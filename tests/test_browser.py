"""The web UI in a real Chromium (Playwright from PyPI, Debian's chromium via `executable_path`).

A real server on a free port over a private copy of the seed index. The tests ask a seed question,
watch the answer stream, click citation [1] and check the side panel highlights the quote; build the
people table, click a cell to see its quote, sort it and download its CSV; then upload a new
document, ask about it, and remove it. Every step is screenshotted; the screenshots are
kept under tests/artifacts/ when a test fails (always, with CITEWISE_KEEP_STEPS=1). With CITEWISE_UPDATE_SCREENSHOTS=1 (or when they are
missing) the passing run also writes the README screenshots docs/chat.png, docs/profile.png, docs/people.png
and docs/documents.png.
"""

from __future__ import annotations

import contextlib
import csv
import os
import re
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parent.parent
ARTIFACTS = REPO / "tests" / "artifacts"
DOCS = REPO / "docs"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
    "--disable-component-update", "--no-first-run",
]
ANSWER_TIMEOUT = 120_000  # ms: two shared cores; the first question also loads the model
TABLE_TIMEOUT = 300_000  # ms: the people table asks 6 questions about each of the 3 seed people

NEW_DOC = """Ilse Vandermolen

Marine acoustics researcher

Education

University of Tromso
Ph.D. in Underwater Acoustics, 2014 - 2018
Thesis: passive sonar tracking of humpback whale song in Arctic fjords

Experience

Norwegian Polar Institute, Senior Scientist, 2019 - present
Built hydrophone arrays that record narwhal clicks through sea ice.
"""


def chromium_path() -> str:
    for candidate in (os.environ.get("CITEWISE_CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium",
                      shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    pytest.skip("chromium is not installed: run `make chromium` (apt-get install chromium) for the browser tests")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def norm(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    path = chromium_path()
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def server(seed_index_dir: Path, embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The real UI over a writable copy of the seed index, sharing the session's embedding model."""
    from assistant import Assistant
    from assistant.ui import serve
    from index import Store

    directory = tmp_path_factory.mktemp("ui") / "index"
    shutil.copytree(seed_index_dir, directory, ignore=shutil.ignore_patterns(".lock"))
    assistant = Assistant(Store.open(directory), embedder)
    port = free_port()
    app = serve(assistant, port=port, block=False)
    try:
        yield {"url": f"http://127.0.0.1:{port}/", "assistant": assistant, "index": directory}
    finally:
        app.close()


class Steps:
    """Screenshots every step; kept in tests/artifacts/ only when the test fails."""

    def __init__(self, page: Any, name: str, tmp: Path) -> None:
        self.page, self.name, self.tmp, self.shots = page, name, tmp, []

    def shot(self, step: str) -> Path:
        path = self.tmp / f"{self.name}-{len(self.shots) + 1:02d}-{step}.png"
        self.page.screenshot(path=str(path), full_page=True)
        self.shots.append(path)
        return path

    def keep(self) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for p in self.shots:
            shutil.copy(p, ARTIFACTS / p.name)
        with contextlib.suppress(Exception):  # the state at the moment of failure, too (the page may be gone)
            self.page.screenshot(path=str(ARTIFACTS / f"{self.name}-failure.png"), full_page=True)


@pytest.fixture
def page(browser, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, Steps]]:
    context = browser.new_context(viewport={"width": 1360, "height": 900}, device_scale_factor=1)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    steps = Steps(pg, request.node.name, tmp_path)
    failed_before = request.session.testsfailed
    yield pg, steps
    if request.session.testsfailed > failed_before or os.environ.get("CITEWISE_KEEP_STEPS") == "1":
        steps.keep()
    context.close()


def readme_screenshot(pg: Any, name: str) -> None:
    target = DOCS / name
    if os.environ.get("CITEWISE_UPDATE_SCREENSHOTS") == "1" or not target.exists():
        DOCS.mkdir(exist_ok=True)
        pg.screenshot(path=str(target))


WATCH_STREAMING = """() => {
  window.__cwSeen = new Set();
  new MutationObserver(() => {
    for (const cls of ['cw-status', 'cw-streaming', 'cw-sources']) {
      if (document.querySelector('#chat .' + cls)) window.__cwSeen.add(cls);
    }
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def ask(pg: Any, question: str) -> Any:
    """Type `question`, send it, wait for the final answer (its sources list) and return that message."""
    before = pg.locator("#chat .cw-answer:not(.cw-streaming)").count()
    pg.fill("#question textarea", question)
    pg.press("#question textarea", "Enter")
    final = pg.locator("#chat .cw-answer:not(.cw-streaming)").nth(before)
    final.wait_for(timeout=ANSWER_TIMEOUT)
    return final


def test_chat_streams_answer_and_citation_opens_highlighted_source(server, page) -> None:
    pg, steps = page
    question = "Where did Muhammed Fatih Balin do his PhD?"
    expected = server["assistant"].ask(question)  # what the chat must show, from the same index
    assert not expected.abstained and expected.citations

    pg.goto(server["url"])
    pg.wait_for_selector("#question textarea")
    pg.wait_for_selector("#stats .cw-stats")
    assert "3 documents" in pg.inner_text("#stats")
    steps.shot("loaded")

    pg.evaluate(WATCH_STREAMING)
    answer = ask(pg, question)
    seen = set(pg.evaluate("() => [...window.__cwSeen]"))
    assert {"cw-status", "cw-streaming"} <= seen, f"no progressive rendering seen, only {seen}"
    steps.shot("answered")

    chips = answer.locator("a.cw-chip")
    assert chips.count() >= 2 * len(expected.citations)  # inline markers + the sources list
    first = expected.citations[0]
    assert norm(first.quote)[:40] in norm(answer.inner_text())

    answer.locator("p a.cw-chip, li a.cw-chip").first.click()
    mark = pg.locator("#source-panel mark.cw-quote")
    mark.wait_for()
    assert norm(mark.inner_text()) == norm(first.quote)
    panel = pg.inner_text("#source-panel")
    assert os.path.basename(first.doc) in panel
    if first.section:
        assert first.section in panel
    # The quote sits inside its surrounding passage, not alone.
    chunk = server["assistant"].chunk(first.chunk_id)
    assert len(norm(pg.inner_text("#source-panel .cw-passage"))) > len(norm(first.quote))
    assert norm(chunk.text).startswith(norm(pg.inner_text("#source-panel .cw-passage"))[:30])
    assert "cw-active" in (answer.locator("a.cw-chip.cw-active").first.get_attribute("class") or "")
    steps.shot("citation-open")

    # A second citation replaces the first in the panel.
    if len(expected.citations) > 1:
        second = expected.citations[1]
        answer.locator(".cw-sources a.cw-chip").nth(1).click()
        pg.wait_for_function(
            "q => { const m = document.querySelector('#source-panel mark.cw-quote');"
            " return m && m.innerText.replace(/\\s+/g, ' ').trim() === q; }",
            arg=norm(second.quote),
        )
        steps.shot("second-citation")


def test_people_answer_groups_by_person_and_follow_up_uses_the_conversation(server, page) -> None:
    pg, steps = page
    question = "Who has worked on graph neural networks?"
    expected = server["assistant"].ask(question)
    pg.goto(server["url"])
    pg.wait_for_selector("#question textarea")
    answer = ask(pg, question)
    steps.shot("people")
    assert expected.kind == "people" and expected.people, f"not a people answer: {expected.to_dict()}"
    cards = answer.locator(".cw-person-card")
    assert cards.count() == len(expected.people)
    for card, person in zip(cards.all(), expected.people, strict=True):
        assert person.name in card.locator(".cw-person-head").inner_text()
        assert card.locator("a.cw-chip").count() >= len(person.citations)
    for note in expected.notes:
        assert note in answer.inner_text()
    # A chip inside a person's group opens that person's passage.
    second = cards.nth(min(1, cards.count() - 1))
    n = int(second.locator("a.cw-chip").first.inner_text())
    second.locator("a.cw-chip").first.click()
    pg.locator("#source-panel mark.cw-quote").wait_for()
    assert norm(pg.inner_text("#source-panel mark.cw-quote")) == norm(expected.citations[n - 1].quote)
    readme_screenshot(pg, "chat.png")

    # A person's name opens their profile card; its citations open their source, with a way back.
    name = expected.people[0].name
    profile = server["assistant"].profile(name)
    cited = [c for c in profile.cells if c.citation] if profile is not None else []
    assert cited
    cards.first.locator("a.cw-person").click()
    pg.wait_for_selector("#source-panel .cw-profile")
    panel = pg.locator("#source-panel")
    assert name in panel.inner_text()
    assert panel.locator(".cw-profile a.cw-chip").count() == len(cited)
    for cell in cited:
        assert norm(cell.value) in norm(panel.inner_text())
    steps.shot("profile")
    readme_screenshot(pg, "profile.png")
    panel.locator(".cw-profile a.cw-chip").first.click()
    pg.locator("#source-panel mark.cw-quote").wait_for()
    assert norm(pg.inner_text("#source-panel mark.cw-quote")) == norm(cited[0].citation.quote)
    steps.shot("profile-citation")
    pg.click("#source-panel a.cw-back")
    pg.wait_for_selector("#source-panel .cw-profile")

    # The follow-up is resolved against the conversation, and the chat says how it was read.
    first_q = f"Where did {expected.people[0].name} study?"
    ask(pg, first_q)
    follow = ask(pg, "What about their awards?")
    steps.shot("follow-up")
    resolved = server["assistant"].ask("What about their awards?", [{"role": "user", "content": first_q}]).resolved
    assert expected.people[0].name.split()[-1] in resolved
    assert norm(resolved) in norm(follow.locator(".cw-resolved").inner_text())


def test_abstention_shows_related_passages_distinctly(server, page) -> None:
    pg, steps = page
    question = "What is the boiling point of tungsten?"
    expected = server["assistant"].ask(question)
    pg.goto(server["url"])
    pg.wait_for_selector("#question textarea")
    answer = ask(pg, question)
    steps.shot("abstained")
    if not expected.abstained:
        pytest.fail(f"the answer writer did not abstain on an off-topic question: {expected.answer!r}")
    assert "cw-abstained" in (answer.get_attribute("class") or "")
    assert norm(expected.answer)[:30] in norm(answer.inner_text())
    if expected.related:
        related = answer.locator(".cw-sources-related")
        assert "Related, not an answer" in related.text_content()
        related.locator("a.cw-chip").first.click()
        pg.locator("#source-panel mark.cw-quote").wait_for()
        assert norm(pg.inner_text("#source-panel mark.cw-quote")) == norm(expected.related[0].quote)


WATCH_PROGRESS = """() => { window.__cwProgress = [];
  new MutationObserver(() => { const t = document.querySelector('#people-table');
    const m = t && t.parentElement.innerText.match(/\\d+\\/\\d+ cells/);
    if (m) window.__cwProgress.push(m[0]); })
  .observe(document.body, {subtree: true, childList: true, characterData: true}); }"""


def test_people_table_cell_shows_its_quote_and_csv_downloads(server, page, tmp_path: Path) -> None:
    pg, steps = page
    assistant = server["assistant"]
    people = assistant.people.names()
    assert len(people) == 3

    pg.goto(server["url"])
    pg.get_by_role("tab", name="People").click()
    pg.wait_for_selector("#people-table .cw-empty")  # nothing is built before it is asked for
    assert pg.locator("#people-table table").count() == 0 and pg.locator("#people-csv").is_disabled()
    pg.evaluate(WATCH_PROGRESS)
    pg.click("#people-build")
    pg.wait_for_selector("#people-table table.cw-people-table", timeout=TABLE_TIMEOUT)
    steps.shot("built")
    assert pg.evaluate("() => window.__cwProgress.length") > 0, "no progress was shown while building"
    rows = pg.locator("#people-table tbody tr")

    def names_shown() -> list[str]:  # a person cell is the name, then their documents' file names
        return [r.locator("th").first.evaluate("e => e.firstChild.textContent") for r in rows.all()]

    assert names_shown() == people
    labels = [norm(h.text_content()) for h in pg.locator("#people-table thead button.cw-sort").all()]
    assert labels[0] == "Person" and len(labels) == 7
    assert f"{len(people)} people × 6 fields" in pg.inner_text("#people-status")

    # A non-empty cell opens the passage it quotes, the quote highlighted, as a citation does in the chat.
    filled = pg.locator("#people-table td.cw-cell:not(.cw-cell-empty)")
    assert filled.count() > 0, "no cell of the table quotes anything"
    cell = min(filled.all(), key=lambda td: (int(td.get_attribute("data-row") or 0), len(td.inner_text())))
    row = int(cell.get_attribute("data-row") or -1)
    col = int(cell.get_attribute("data-col") or -1)
    person, label = people[row], labels[col + 1]
    cell.click()
    mark = pg.locator("#people-panel mark.cw-quote")
    mark.wait_for()
    assert "cw-active" in (cell.get_attribute("class") or "")
    assert norm(pg.locator("#people-panel .cw-cell-who").text_content()) == f"{person} · {label}"
    chunk_id = norm(pg.inner_text("#people-panel .cw-chunk-id")).removeprefix("passage ")
    chunk = assistant.chunk(chunk_id)
    assert chunk is not None and chunk.owner == person
    expected = assistant.table(people=[person]).rows[0].cells[col]  # the same question, asked by the library
    assert expected.citation is not None and expected.citation.chunk_id == chunk_id
    assert norm(mark.inner_text()) == norm(expected.citation.quote)
    assert norm(pg.locator("#people-panel .cw-cell-answer").text_content()) == norm(expected.value)
    assert norm(pg.inner_text("#people-panel .cw-passage")) == norm(chunk.text)  # the quote inside its passage
    assert os.path.basename(chunk.doc) in pg.inner_text("#people-panel")
    steps.shot("cell-open")
    readme_screenshot(pg, "people.png")

    # Headings sort in the browser; the panel stays.
    person_head = pg.locator("#people-table thead th").first
    person_head.locator("button").click()
    person_head.locator("button").click()
    assert person_head.get_attribute("aria-sort") == "descending"
    assert names_shown() == sorted(people, key=str.casefold, reverse=True)
    assert pg.locator("#people-panel mark.cw-quote").count() == 1
    steps.shot("sorted")

    with pg.expect_download() as download:
        pg.click("#people-csv")
    target = tmp_path / "people.csv"
    download.value.save_as(target)
    assert download.value.suggested_filename == "people.csv"
    with open(target, encoding="utf-8", newline="") as f:
        records = list(csv.reader(f))
    assert records[0][:3] == ["person", labels[1], f"{labels[1]} source"] and len(records[0]) == 1 + 2 * 6
    assert [r[0] for r in records[1:]] == people
    assert records[1 + row][1 + 2 * col] == norm(expected.value) and records[1 + row][2 + 2 * col] == expected.source

    # The filter offers the index's people; a table of one of them has their row only.
    pg.click("#people-filter input")
    assert pg.locator("#people-filter [role=option]").all_inner_texts() == people
    pg.get_by_role("option", name=people[-1]).click()
    pg.click("#people-build")
    pg.wait_for_function("() => document.querySelectorAll('#people-table tbody tr').length === 1", timeout=TABLE_TIMEOUT)
    assert names_shown() == [people[-1]] and "1 person × 6 fields" in pg.inner_text("#people-status")
    assert pg.locator("#people-panel mark").count() == 0  # the old table's quote is gone with it


def test_upload_ask_remove(server, page, tmp_path: Path) -> None:
    pg, steps = page
    new = tmp_path / "ilse vandermolen CV.md"
    new.write_text(NEW_DOC, encoding="utf-8")
    fake_pdf = tmp_path / "scan.pdf"
    fake_pdf.write_text("this is not a pdf", encoding="utf-8")

    pg.goto(server["url"])
    pg.get_by_role("tab", name="Documents").click()
    pg.wait_for_selector("#documents table.cw-doclist")
    assert pg.locator("#documents tbody tr").count() == 3
    steps.shot("documents")

    pg.evaluate("""() => { window.__cwProgress = [];
      new MutationObserver(() => { const t = document.querySelector('#index-result');
        if (t && /Indexing/.test(t.innerText)) window.__cwProgress.push(t.innerText); })
      .observe(document.body, {subtree: true, childList: true, characterData: true}); }""")
    pg.set_input_files("#upload input[type=file]", [str(new), str(fake_pdf)])
    pg.wait_for_selector("#index-result .cw-results", timeout=ANSWER_TIMEOUT)
    results = pg.inner_text("#index-result")
    steps.shot("uploaded")
    assert re.search(r"ilse vandermolen CV\.md → ilse_vandermolen_CV\.md\s+indexed", results), results
    assert re.search(r"scan\.pdf\s+rejected\s+named \.pdf but is not a PDF", results), results
    assert pg.evaluate("() => window.__cwProgress.length") > 0, "no progress was shown while indexing"
    stored = server["index"] / "uploads" / "ilse_vandermolen_CV.md"
    assert stored.read_text(encoding="utf-8") == NEW_DOC
    assert not (server["index"] / "uploads" / "scan.pdf").exists()
    row = pg.locator("#documents tbody tr", has_text="ilse_vandermolen_CV.md")
    row.wait_for()
    assert "Ilse Vandermolen" in row.inner_text() and "uploaded" in row.inner_text()
    assert pg.locator("#documents tbody tr").count() == 4
    readme_screenshot(pg, "documents.png")

    pg.get_by_role("tab", name="Chat").click()
    answer = ask(pg, "Where did Ilse Vandermolen do her PhD?")
    steps.shot("asked-new-document")
    assert "University of Tromso" in answer.inner_text()
    assert "ilse_vandermolen_CV.md" in answer.locator(".cw-sources").inner_text()

    pg.get_by_role("tab", name="Documents").click()
    button = row.locator("button.cw-remove")
    button.click()
    assert button.inner_text() == "Confirm remove"  # two steps: nothing is removed on a stray click
    assert pg.locator("#documents tbody tr").count() == 4
    button.click()
    pg.wait_for_function("() => document.querySelectorAll('#documents tbody tr').length === 3")
    steps.shot("removed")
    assert "removed" in pg.inner_text("#index-result")
    assert not stored.exists()
    docs = [d.doc for d in server["assistant"].documents()]
    assert not any("ilse" in d for d in docs)
    after = server["assistant"].ask("Where did Ilse Vandermolen do her PhD?")
    assert all("ilse" not in c.doc for c in after.citations)


def test_index_a_folder_typed_by_the_local_user(server, page, tmp_path: Path) -> None:
    pg, steps = page
    folder = tmp_path / "more cvs"
    folder.mkdir()
    (folder / "ilse.md").write_text(NEW_DOC, encoding="utf-8")
    (folder / "notes.bin").write_bytes(b"\x00\x01")  # not a document type: not even listed

    pg.goto(server["url"])
    pg.get_by_role("tab", name="Documents").click()
    pg.wait_for_selector("#documents table.cw-doclist")
    pg.fill("#folder textarea, #folder input", str(tmp_path / "missing"))
    pg.click("#index-folder")
    pg.wait_for_function("() => /Not a folder/.test(document.querySelector('#index-result').innerText)")
    pg.fill("#folder textarea, #folder input", str(folder))
    pg.click("#index-folder")
    pg.wait_for_selector("#index-result .cw-pill-added", timeout=ANSWER_TIMEOUT)
    steps.shot("folder-indexed")
    assert "1 indexed" in pg.inner_text("#index-result")
    row = pg.locator("#documents tbody tr", has_text="ilse.md")
    assert str(folder) in row.inner_text()
    row.locator("button.cw-remove").click()
    row.locator("button.cw-remove").click()
    pg.wait_for_function("() => !document.querySelector('#documents').innerText.includes('ilse.md')")
    assert (folder / "ilse.md").exists()  # removing from the index never deletes the user's own file
