"""Fast tests of the answer room's pure parts: citation checks, answers' dictionaries, metrics.

No model is loaded here; the end-to-end behaviour on the real index is in test_answer_seeds.py.
"""

from __future__ import annotations

from assistant.answer import Answer, Citation, PersonAnswer, verify_citations
from assistant.answer_eval import answer_metrics, score_answer
from index import Hit


def hit(text: str, chunk_id: str = "c1", doc: str = "/d/a.txt", owner: str | None = "Ada Lovelace",
        section: str = "") -> Hit:
    return Hit(1, chunk_id, doc, None, section, text, 1.0, owner, "title")


def test_verify_citations_drops_bad_quotes_and_renumbers_people():
    h1, h2 = hit("alpha beta gamma", "c1"), hit("delta epsilon", "c2", doc="/d/b.txt", owner="Bob")
    cites = (Citation(1, "c1", h1.doc, None, "", "not in the text", 1.0),
             Citation(2, "c2", h2.doc, None, "", "delta", 1.0),
             Citation(3, "cX", "/d/x", None, "", "alpha", 1.0))
    ans = Answer("q", "- Ada: x [1]\n- Bob: delta [2]\n- Eve: alpha [3]", False, cites, kind="people",
                 people=(PersonAnswer("Ada", ("/d/a.txt",), (1,)), PersonAnswer("Bob", ("/d/b.txt",), (2,)),
                         PersonAnswer("Eve", ("/d/x",), (3,))))
    out = verify_citations(ans, [h1, h2])
    assert [c.n for c in out.citations] == [1] and out.citations[0].chunk_id == "c2"
    assert [p.name for p in out.people] == ["Bob"] and out.people[0].citations == (1,)
    assert "[2]" not in out.answer and "[3]" not in out.answer and "delta [1]" in out.answer


def test_to_dict_keeps_the_public_keys_and_adds_fields():
    d = Answer("q", "a [1]", False).to_dict()
    assert {"question", "answer", "abstained", "citations"} <= d.keys()
    assert {"kind", "people", "fact", "searched", "resolved"} <= d.keys()


def test_answer_metrics_score_accuracy_abstention_and_quotes():
    texts = {"c1": "Amazon Web Services Santa Clara"}
    good = Answer("q", "Amazon Web Services [1]", False,
                  (Citation(1, "c1", "/x/000_a.txt", None, "", "Amazon Web Services", 1.0),))
    bad_quote = Answer("q", "AWS [1]", False, (Citation(1, "c1", "/x/001_b.txt", None, "", "made up", 1.0),))
    rec = {"id": "1", "q": "q", "docs": ["000"], "gold": ["Amazon"], "answer": [["Amazon", "AWS"]]}
    unans = {"id": "2", "q": "q2", "docs": [], "gold": [], "answer": []}
    s1 = score_answer(rec, good, texts.get)
    s2 = score_answer(rec, bad_quote, texts.get)
    s3 = score_answer(unans, Answer("q2", "Your documents don't say.", True), texts.get)
    s4 = score_answer(unans, good, texts.get)
    assert s1.correct and s1.with_gold == 1 and s1.valid_quotes == 1
    assert s2.correct and s2.from_listed_doc == 0 and s2.valid_quotes == 0
    m = answer_metrics([s1, s2, s3, s4])
    assert m["answer_accuracy"] == 1.0 and m["abstention_accuracy"] == 0.5 and m["false_answers"] == 1
    assert m["quote_validity"] == 2 / 3 and m["citation_precision"] == 0.5
