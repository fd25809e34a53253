"""The evaluator: metrics against a second library, QA scoring rules, and the CLI shapes.

`citewise eval beir` runs on a tiny BEIR folder written here, with the real model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import PROFILES, REPO, SEED_DEV, require_shared

from assistant.cli import main
from index.beir import BeirDoc, load_beir
from index.evaluate import QAItem, QAResult, beir_metrics, load_qa, qa_metrics, supports
from index.search import Hit


@pytest.mark.slow  # ranx compiles its metrics with numba on first use (~1 min here)
def test_beir_metrics_agree_with_ranx() -> None:
    from ranx import Qrels, Run, evaluate

    qrels = {"q1": {"a": 2, "b": 1}, "q2": {"c": 1}, "q3": {"z": 1}}
    run = {
        "q1": {"x": 5.0, "b": 4.0, "a": 3.0, "y": 2.0},
        "q2": {f"n{i}": float(100 - i) for i in range(12)} | {"c": 50.0},
        "q3": {"x": 1.0},
    }
    ours = beir_metrics(qrels, run)
    theirs = evaluate(Qrels(qrels), Run(run), ["ndcg@10", "recall@10", "recall@100", "mrr@10"])
    for key, value in theirs.items():
        assert ours[key] == pytest.approx(value, abs=1e-6), key


def test_beir_metrics_count_queries_without_results_as_zero() -> None:
    perfect = beir_metrics({"q1": {"a": 1}, "q2": {"b": 1}}, {"q1": {"a": 1.0}})
    assert perfect["ndcg@10"] == pytest.approx(0.5) and perfect["mrr@10"] == pytest.approx(0.5)


def test_beir_doc_file_text_does_not_repeat_a_title() -> None:
    assert BeirDoc("1", "wing flow .", "wing flow . an experiment").file_text() == "wing flow .\n\nan experiment\n"
    assert BeirDoc("2", "", "just text").file_text() == "just text\n"


def _hit(rank: int, doc: str, text: str) -> Hit:
    return Hit(rank, f"c{rank}", doc, None, "", text, 1.0)


def test_qa_scoring_rules() -> None:
    item = QAItem("x", "q", ("000", "002"), ("GPU",))
    hits = (_hit(1, "/p/001_b.txt", "GPU here but wrong doc"), _hit(2, "/p/000_a.txt", "multi-gpu  work"),
            _hit(3, "/p/002_c.txt", "no gold"), _hit(4, "/p/002_c.txt", "a GPU cluster"))
    result = QAResult(item, hits, tuple(supports(h, item) for h in hits))
    assert result.first_rank() == 2
    assert result.recall(1) == 0.0 and result.recall(2) == 0.5 and result.recall(4) == 1.0
    unanswerable = QAResult(QAItem("u", "q", (), ()), (), ())
    metrics = qa_metrics([result, unanswerable])
    assert metrics["questions"] == 1 and metrics["mrr@10"] == 0.5 and metrics["recall@4"] == 1.0


def _tiny_beir(folder: Path) -> Path:
    (folder / "qrels").mkdir(parents=True)
    corpus = [
        {"_id": "d1", "title": "Boundary layers", "text": "Laminar boundary layer separation on a flat plate at Mach 3.5."},
        {"_id": "d2", "title": "Heat transfer", "text": "Heat transfer to a blunt body in hypersonic flow."},
        {"_id": "d3", "title": "Wing flutter", "text": "Flutter of a swept wing with the NACA 0012 section."},
        {"_id": "d4", "title": "Buckling", "text": "Buckling of thin cylindrical shells under axial compression."},
    ]
    queries = [{"_id": "1", "text": "flutter of swept wings"}, {"_id": "2", "text": "NACA 0012"},
               {"_id": "3", "text": "cylindrical shell buckling"}, {"_id": "9", "text": "unjudged"}]
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in corpus))
    (folder / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in queries))
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\td3\t1\n2\td3\t2\n3\td4\t1\n")
    return folder


def test_load_beir_keeps_judged_queries(tmp_path: Path) -> None:
    data = load_beir(_tiny_beir(tmp_path / "tiny"))
    assert set(data.queries) == {"1", "2", "3"} and data.qrels["2"] == {"d3": 2} and len(data.corpus) == 4


@pytest.mark.slow
def test_cli_eval_beir_json_shape_and_values(tmp_path: Path) -> None:
    folder = _tiny_beir(tmp_path / "tiny")
    result = CliRunner().invoke(main, ["eval", "beir", str(folder), "--json", "--index", str(tmp_path / "idx")])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output[result.output.index("{"):])
    assert list(out) == ["dense", "lexical", "hybrid", "default"]
    for metrics in out.values():
        assert set(metrics) == {"ndcg@10", "recall@10", "recall@100", "mrr@10"}
    assert out["lexical"]["mrr@10"] == 1.0 and out["default"]["mrr@10"] == 1.0  # each query names its document
    again = CliRunner().invoke(main, ["eval", "beir", str(folder), "--index", str(tmp_path / "idx"), "--mode", "default"])
    assert again.exit_code == 0 and "default" in again.output and "ndcg@10" in again.output
    assert "hybrid" in again.output  # the RRF(60) baseline is measured beside the default in the same run
    # The shipped reading model re-ranks default's best documents, measured beside it in the same run.
    reranked = CliRunner().invoke(main, ["eval", "beir", str(folder), "--index", str(tmp_path / "idx"), "--json",
                                         "--mode", "default", "--reranker", "reading", "--rerank-depth", "4"])
    assert reranked.exit_code == 0, reranked.output
    out = json.loads(reranked.stdout)
    assert list(out) == ["default", "hybrid", "default+rerank"]
    assert 0 < out["default+rerank"]["ndcg@10"] <= 1 and out["default+rerank"]["recall@100"] == out["default"]["recall@100"]
    bad = CliRunner().invoke(main, ["eval", "beir", str(folder), "--reranker", str(tmp_path / "none")])
    assert bad.exit_code == 2 and "neither 'reading' nor the folder of a local cross-encoder" in bad.output


def test_cli_eval_beir_names_a_missing_file(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(main, ["eval", "beir", str(tmp_path / "empty")])
    assert result.exit_code == 1 and "corpus.jsonl is missing" in result.output


@pytest.mark.slow
def test_cli_eval_qa_on_the_seed_questions(tmp_path: Path) -> None:
    require_shared(SEED_DEV)
    items = load_qa(SEED_DEV)
    assert any(not i.docs for i in items)  # unanswerable items exist and are skipped
    split = tmp_path / "split.jsonl"  # the seed questions in two splits, to see them scored apart
    split.write_text("".join(json.dumps({**i.raw, "split": ("tune", "heldout")[n % 2]}) + "\n"
                             for n, i in enumerate(items)), encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", "qa", str(split), "--docs", str(PROFILES), "--json", "--items",
                                       "--index", str(tmp_path / "idx")])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output[result.output.index("{"):])
    assert {"dense", "lexical", "hybrid", "default", "items", "default (tune)", "default (heldout)"} <= set(out)
    assert out["default"]["questions"] == sum(1 for i in items if i.docs)
    assert out["default (tune)"]["questions"] + out["default (heldout)"]["questions"] == out["default"]["questions"]
    assert out["default (heldout)"]["questions"] == sum(1 for n, i in enumerate(items) if i.docs and n % 2)
    # what `ask` reads (scoped to the person a question names), beside the unscoped search, on the same questions
    one_doc = sum(1 for i in items if len(i.docs) == 1)
    assert out["ask, 1-doc questions"]["questions"] == out["default, 1-doc questions"]["questions"] == one_doc
    assert out["ask, 1-doc (tune)"]["questions"] + out["ask, 1-doc (heldout)"]["questions"] == one_doc
    assert out["ask, 1-doc questions"]["recall@4"] >= 0.9
    assert out["ask"]["questions"] == out["default"]["questions"]  # every question with documents, "who" too
    assert out["ask (tune)"]["questions"] + out["ask (heldout)"]["questions"] == out["ask"]["questions"]
    assert out["ask"]["recall@4"] >= 0.9
    # The measured pipeline must beat plain dense retrieval and plain RRF on these questions.
    assert out["default"]["recall@4"] >= out["hybrid"]["recall@4"] >= out["dense"]["recall@4"]
    assert out["default"]["recall@10"] >= 0.9


def test_the_squad_set_writes_its_articles_and_a_balanced_sample_of_their_questions(tmp_path: Path) -> None:
    """`bench/wiki.py squad`: the seven unseen SQuAD 2.0 articles as Markdown, and a seeded sample of their own
    questions as QA records, half answerable (docs = the article's file, the answers as alternatives), half not."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("wiki", REPO / "bench" / "wiki.py")
    assert spec and spec.loader
    wiki = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(wiki)
    titles = wiki.SETS["squad"][1]
    data = tmp_path / "data"
    data.mkdir()
    articles = [{"title": t, "paragraphs": [{"context": f"{t} was founded in 1901 by Ada Roe.", "qas": [
        {"id": f"{t}-a", "question": f"Who founded {t}?", "is_impossible": False,
         "answers": [{"text": "Ada Roe", "answer_start": 0}, {"text": "Ada Roe", "answer_start": 0}]},
        {"id": f"{t}-u", "question": f"Who closed {t}?", "is_impossible": True, "answers": []}]}]} for t in titles]
    (data / "squad20-dev-heldout.json").write_text(json.dumps({"data": articles}), encoding="utf-8")
    out = tmp_path / "out"
    assert wiki.main(["squad", str(out), "--data", str(data), "--questions", "6"]) == 0
    records = [json.loads(line) for line in (out / "qa.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(records) == 6 and sum(1 for r in records if not r["docs"]) == 3
    for r in records:
        if r["docs"]:
            assert r["answer"] == [["Ada Roe"]] and "Ada Roe" in (out / r["docs"][0]).read_text(encoding="utf-8")
        else:
            assert r["answer"] == [] and r["gold"] == []
    assert sorted(p.name for p in out.glob("*.md")) == sorted(wiki.file_name(t) for t in titles)
    assert wiki.file_name("Fresno,_California") == "fresno_california.md"
    again = tmp_path / "again"
    wiki.main(["squad", str(again), "--data", str(data), "--questions", "6"])
    assert (again / "qa.jsonl").read_text(encoding="utf-8") == (out / "qa.jsonl").read_text(encoding="utf-8")  # seeded


def test_the_wikiqa_set_writes_each_summary_once_and_a_balanced_sample_of_queries(tmp_path: Path) -> None:
    """`bench/wikiqa.py`: WikiQA test queries with their article summaries, the dataset's tokenisation undone;
    half the sampled queries have an answering sentence (the alternatives, each a substring of the summary),
    half none (docs empty); queries about one article share its file; seeded."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("wikiqa", REPO / "bench" / "wikiqa.py")
    assert spec and spec.loader
    wikiqa = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(wikiqa)
    rows = []
    for i in range(4):
        sentences = [f"Topic {i} ( founded 1901 ) is a town in Ohio .", "It 's known for its `` old mill '' .",
                     f"Its mayor is Ada Roe {i} ."]
        for q, right in ((f"who is the mayor of topic {i}", 2), (f"when did topic {i} close", None)):
            rows += [f"{q}\t{s}\t{int(k == right)}" for k, s in enumerate(sentences)]
    data = tmp_path / "test.tsv"
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert wikiqa.main([str(out), "--data", str(data), "--questions", "6"]) == 0
    records = [json.loads(line) for line in (out / "qa.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(records) == 6 and sum(1 for r in records if not r["docs"]) == 3
    files = sorted(p.name for p in out.glob("*.txt"))
    assert len(files) == len({r["q"].split("topic ")[1][0] for r in records})  # one file per article, whichever query
    for r in records:
        if r["docs"]:
            text = (out / r["docs"][0]).read_text(encoding="utf-8")
            assert r["answer"] == [[r["gold"][0]]] and r["gold"][0] in text and r["gold"][0].startswith("Its mayor is Ada Roe")
            assert '(founded 1901) is a town in Ohio. It\'s known for its "old mill".' in text
        else:
            assert r["answer"] == [] and r["gold"] == []
    again = tmp_path / "again"
    wikiqa.main([str(again), "--data", str(data), "--questions", "6"])
    assert (again / "qa.jsonl").read_text(encoding="utf-8") == (out / "qa.jsonl").read_text(encoding="utf-8")
