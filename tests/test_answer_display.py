"""How sure an answer is and where its phrase stands in the quote: the chat HTML, the CLI and a real
browser on the real UI."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from assistant.render import confidence_words
from assistant.ui.chat import answer_html


def _answer(**extra):
    base = {"question": "q", "answer": "ETH Zurich [1]", "abstained": False, "fact": "ETH Zurich",
            "citations": [{"n": 1, "chunk_id": "abc", "doc": "/x/cv.pdf", "page": 1, "section": "Education",
                           "quote": "Ph.D. in Computer Science, ETH Zurich <2023>", "quote_start": 0}]}
    return {**base, **extra}


def test_chat_marks_the_fact_in_its_quote_and_says_how_sure():
    out = answer_html(_answer(confidence=0.82))
    assert 'Ph.D. in Computer Science, <mark class="cw-fact">ETH Zurich</mark> &lt;2023&gt;' in out
    assert 'class="cw-confidence cw-conf-likely"' in out and "Confidence: likely (82 %)" in out


def test_chat_without_a_probability_or_on_abstention_shows_no_confidence():
    assert "cw-confidence" not in answer_html(_answer())
    assert "cw-confidence" not in answer_html(_answer(confidence=0.2, abstained=True))
    assert "cw-fact" not in answer_html(_answer(fact="", answer="Something else [1]"))


@pytest.mark.slow
def test_cli_ask_shows_scope_confidence_and_marked_phrase(seed_index_dir: Path):
    from assistant import Assistant
    from assistant.cli import main

    question = "Where did Baolin Li do his PhD?"
    result = CliRunner().invoke(main, ["ask", question, "--index", str(seed_index_dir)])
    assert result.exit_code == 0, result.output
    assert "Searched Baolin Li's documents" in result.output
    expected = Assistant.open(seed_index_dir).ask(question)
    sure = confidence_words(getattr(expected, "confidence", None))
    if sure and not expected.abstained:
        assert f"Confidence: {sure}" in result.output
        assert result.output.lower().count("confidence") == 1  # said once, in words (no raw "confidence 0.96" note)
    if expected.fact and not expected.abstained and any(
            expected.fact in c.quote and expected.fact != c.quote.strip() for c in expected.citations):
        assert f"**{expected.fact}**" in result.output


@pytest.mark.browser
@pytest.mark.slow
def test_browser_chat_marks_the_answer_phrase(seed_index_dir: Path, embedder, tmp_path_factory):
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
    import shutil

    from test_browser import CHROMIUM_ARGS, chromium_path, free_port, norm

    from assistant import Assistant
    from assistant.ui import serve
    from index import Store

    directory = tmp_path_factory.mktemp("ui-display") / "index"
    shutil.copytree(seed_index_dir, directory, ignore=shutil.ignore_patterns(".lock"))
    assistant = Assistant(Store.open(directory), embedder)
    question = "Where did Baolin Li do his PhD?"
    expected = assistant.ask(question)
    port = free_port()
    app = serve(assistant, port=port, block=False)
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            pg = browser.new_page()
            pg.goto(f"http://127.0.0.1:{port}/")
            pg.fill("#question textarea", question)
            pg.press("#question textarea", "Enter")
            final = pg.locator("#chat .cw-answer:not(.cw-streaming)").first
            final.wait_for(timeout=120_000)
            text = norm(final.inner_text())
            assert "Searched Baolin Li's documents" in text
            sure = confidence_words(getattr(expected, "confidence", None))
            if sure and not expected.abstained:
                assert f"Confidence: {sure}" in norm(final.locator(".cw-confidence").inner_text())
            marks = final.locator("mark.cw-fact")
            if expected.fact and not expected.abstained and any(
                    expected.fact in c.quote and expected.fact != c.quote.strip() for c in expected.citations):
                assert norm(marks.first.inner_text()) == norm(expected.fact)
            browser.close()
    finally:
        app.close()
