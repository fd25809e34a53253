"""The CLI contract, through click's CliRunner on the real pipeline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import PROFILES

from assistant.cli import main

COMMANDS = ["index", "search", "ask", "docs", "show", "serve", "remove", "merge", "profile", "stats", "settings"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example(command: str) -> None:
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Example" in result.output and "citewise " + command in result.output


def test_top_level_help_lists_the_commands() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for command in COMMANDS:
        assert command in result.output


@pytest.mark.slow
def test_index_then_search_ask_docs_show(tmp_path: Path) -> None:
    runner = CliRunner()
    idx = tmp_path / "idx"
    junk = tmp_path / "in"
    junk.mkdir()
    (junk / "empty.txt").write_text("")
    result = runner.invoke(main, ["index", str(PROFILES), str(junk), "--index", str(idx)])
    assert result.exit_code == 0, result.output
    assert "3 documents" in result.output and "chunks" in result.output
    assert "skipped" in result.output and "empty.txt: file is empty" in result.output

    result = runner.invoke(main, ["search", "graph neural networks", "-k", "4", "--json", "--index", str(idx)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["query"] == "graph neural networks" and len(data["hits"]) == 4
    assert set(data["hits"][0]) >= {"rank", "chunk_id", "doc", "page", "section", "text", "score"}

    result = runner.invoke(main, ["ask", "Where did Muhammed Fatih Balin do his PhD?", "--json", "--index", str(idx)])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["abstained"] is False
    assert any("Georgia Institute of Technology" in c["quote"] for c in answer["citations"])

    result = runner.invoke(main, ["ask", "Where did Muhammed Fatih Balin do his PhD?", "--index", str(idx)])
    assert result.exit_code == 0 and "Sources:" in result.output and "[1]" in result.output

    result = runner.invoke(main, ["docs", "--json", "--index", str(idx)])
    docs = json.loads(result.stdout)
    assert sorted(Path(d["doc"]).name for d in docs) == sorted(p.name for p in PROFILES.glob("*.txt"))
    assert {d["owner"] for d in docs} >= {"Muhammed Fatih Balin", "Burak Bartan"}

    chunk_id = data["hits"][0]["chunk_id"]
    result = runner.invoke(main, ["show", chunk_id, "--json", "--index", str(idx)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["text"] == data["hits"][0]["text"]
    result = runner.invoke(main, ["show", "nope", "--index", str(idx)])
    assert result.exit_code != 0 and "no chunk" in result.output

    result = runner.invoke(main, ["stats", "--json", "--index", str(idx)])
    stats = json.loads(result.stdout)
    assert stats["documents"] == 3 and stats["lexical_terms"] > 500  # the BM25 postings were written
    result = runner.invoke(main, ["stats", "--index", str(idx)])
    assert f"BM25 from postings of {stats['lexical_terms']:,} terms" in result.output


@pytest.mark.slow
def test_questions_file_gives_json_lines(seed_index_dir: Path, tmp_path: Path) -> None:
    questions = tmp_path / "q.txt"
    questions.write_text("What is KForge?\n\nWhere did Muhammed Fatih Balin do his PhD?\n")
    result = CliRunner().invoke(main, ["ask", "--questions", str(questions), "--json", "--index", str(seed_index_dir)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [a["question"] for a in lines] == ["What is KForge?", "Where did Muhammed Fatih Balin do his PhD?"]


def test_missing_index_is_a_clear_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["search", "x", "--index", str(tmp_path / "none")])
    assert result.exit_code == 2  # bad input (see test_cli_errors.py)
    assert "No citewise index" in result.output and "citewise index PATH" in result.output


def test_ask_takes_one_question_source(tmp_path: Path) -> None:
    questions = tmp_path / "q.txt"
    questions.write_text("What is KForge?\n")
    result = CliRunner().invoke(main, ["ask", "What is KForge?", "--questions", str(questions), "--index", str(tmp_path)])
    assert result.exit_code == 2 and "QUESTION or --questions FILE, not both" in result.output


@pytest.mark.slow
def test_ask_without_a_question_is_a_session_with_follow_ups(seed_index_dir: Path) -> None:
    """`citewise ask` alone reads questions one by one; the second is a follow-up ("his") that the
    session resolves against the first (alone, the same question is answered from Balin's profile);
    an empty line ends it."""
    result = CliRunner().invoke(main, ["ask", "--json", "--index", str(seed_index_dir)],
                                input="Where did Baolin Li do his PhD?\nWhat about his undergraduate degree?\n\n"
                                      "What is KForge?\n")
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 2  # the empty line ended the session before the third question
    li = {c["doc"] for c in lines[0]["citations"]}
    assert not lines[0]["abstained"] and len(li) == 1
    # "his" is Baolin Li: asked alone, the question is answered from another profile
    assert not lines[1]["abstained"] and {c["doc"] for c in lines[1]["citations"]} == li


def test_env_var_sets_the_index(seed_index_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_INDEX", str(seed_index_dir))
    result = CliRunner().invoke(main, ["docs", "--json"])
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)) == 3
