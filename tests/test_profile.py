"""`citewise profile NAME` is one row of the people table, shown vertically: the same cells, cited."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from assistant.cli import main
from assistant.table import card_text

pytestmark = pytest.mark.slow


def test_a_profile_is_that_persons_row_of_the_table(seed_assistant):
    card = seed_assistant.profile("M. F. Balin")
    assert card is not None and card.person == "Muhammed Fatih Balin"
    row = seed_assistant.table(people=["Muhammed Fatih Balin"]).rows[0]
    assert card == row  # the same questions, the same answers, the same citations
    assert "Georgia Institute of Technology" in card.cell("PhD institution").value
    for cell in card.cells:
        if cell.citation is not None:
            assert cell.citation.quote in seed_assistant.chunk(cell.citation.chunk_id).text
            assert cell.citation.doc in card.docs
    text = card_text(card)
    for cell in card.cells:
        line = f"{cell.field}: {' '.join(cell.value.split())}" if cell.citation else f"{cell.field}: not stated"
        assert line in text
    assert seed_assistant.profile("Nobody Known") is None


def test_profile_cli_json_and_text(seed_index_copy: Path):
    result = CliRunner().invoke(main, ["profile", "Baolin Li", "--index", str(seed_index_copy), "--json"])
    assert result.exit_code == 0, result.output
    card = json.loads(result.stdout)
    assert card["person"] == "Baolin Li" and len(card["cells"]) == 6
    phd = next(c for c in card["cells"] if c["field"] == "PhD institution")
    assert "Northeastern University" in phd["citation"]["quote"] and phd["source"].endswith("· Education")
    text = CliRunner().invoke(main, ["profile", "Baolin Li", "--index", str(seed_index_copy)])
    assert text.exit_code == 0 and text.stdout.startswith("Baolin Li\n") and "PhD institution: " in text.stdout
    table = CliRunner().invoke(main, ["table", "--index", str(seed_index_copy), "--people", "Baolin Li",
                                      "--format", "json"])
    assert json.loads(table.stdout)["rows"][0] == card  # one row of the same table
    missing = CliRunner().invoke(main, ["profile", "Nobody Known", "--index", str(seed_index_copy)])
    assert missing.exit_code == 2 and "no person named 'Nobody Known'" in missing.output
