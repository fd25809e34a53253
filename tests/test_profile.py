"""Profile cards on the seed profiles: every field cited, every value inside its exact quote."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

pytestmark = pytest.mark.slow


def test_profile_card_fields_are_cited_slices(seed_assistant):
    card = seed_assistant.profile("M. F. Balin")
    assert card is not None and card.name == "Muhammed Fatih Balin"
    assert "Amazon Web Services" in card.current[0].value
    schools = " ".join(f.detail for f in card.education)
    assert "Georgia Institute of Technology" in schools
    assert any("Ph.D" in f.value for f in card.education)
    assert card.topics and len(card.publications) >= 3
    for f in card.fields():
        stored = seed_assistant.chunk(f.citation.chunk_id)
        assert f.citation.quote in stored.text and f.value in f.citation.quote
        assert f.citation.doc in card.docs
    assert [f.citation.n for f in card.fields()] == list(range(1, len(card.fields()) + 1))


def test_profile_leaves_out_what_the_documents_do_not_give(seed_assistant):
    card = seed_assistant.profile("Bartan")
    assert card is not None and not card.education and not card.current
    assert any("Sketching" in f.value for f in card.publications)
    assert seed_assistant.profile("Nobody Known") is None


def test_profile_cli_json(seed_index_dir):
    from assistant.cli import main

    result = CliRunner().invoke(main, ["profile", "Baolin Li", "--index", str(seed_index_dir), "--json"])
    assert result.exit_code == 0, result.output
    card = json.loads(result.output[result.output.index("{"):])
    assert card["name"] == "Baolin Li"
    assert any("Northeastern University" in e["detail"] for e in card["education"])
    missing = CliRunner().invoke(main, ["profile", "Nobody Known", "--index", str(seed_index_dir)])
    assert missing.exit_code != 0 and "no person named" in missing.output
