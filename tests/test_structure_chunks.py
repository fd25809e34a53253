"""Headings from layout evidence, and chunks that keep a report's sections whole.

Real documents of ../shared/eval/realdocs (skipped when absent), parsed by the real pipeline.
"""

from __future__ import annotations

from conftest import SHARED, require_shared

from ingest.chunk import chunk_document
from ingest.parse import load_document

REALDOCS = SHARED / "eval" / "realdocs" / "docs"


def test_a_reports_narrative_set_large_is_body_text_not_headings() -> None:
    """The NTSB narrative is printed larger than the form fields but runs on line after line: its
    lines are not headings, and the Analysis section's text is one or two chunks, not a line each."""
    doc = load_document(require_shared(REALDOCS / "ntsb02_LAX08CA034.pdf"))
    titles = [s.path[-1] for s in doc.sections]
    assert "Analysis" in titles and "Probable Cause and Findings" in titles
    masthead = "National Transportation Safety Board Aviation Accident Final Report"  # one heading on two lines
    assert all(len(t) < 60 for t in titles if t != masthead), titles  # no sentence of the narrative became a heading
    analysis = [c for c in chunk_document(doc) if c.section.endswith("Analysis")]
    assert 1 <= len(analysis) <= 2
    assert "seeding an area" in analysis[0].text and "mechanical problems" in " ".join(c.text for c in analysis)


def test_bold_section_headings_of_a_cv_are_kept() -> None:
    doc = load_document(require_shared(REALDOCS / "cv02_zheng.pdf"))
    titles = {s.path[-1] for s in doc.sections}
    assert {"Education", "Publications", "Teaching Experience"} <= titles
