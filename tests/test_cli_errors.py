"""Bad input through the CLI: one line naming the value and what to do, exit status 2, no traceback;
`citewise --debug` shows the traceback instead. One test per row of the bad-input table."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from conftest import PROFILES

from assistant.cli import main
from assistant.settings import ModelNotFound


def run(args: list[str], **env: str) -> Result:
    return CliRunner().invoke(main, args, env=env or None)


def one_line_error(result: Result, *words: str) -> str:
    """The result is exit 2 with a single 'Error: ...' line containing `words`, and no traceback."""
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def copied_index(seed_index_dir: Path, tmp_path: Path) -> Path:
    target = tmp_path / "index"
    shutil.copytree(seed_index_dir, target, ignore=shutil.ignore_patterns(".lock"))
    return target


@pytest.fixture
def no_model_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading (or downloading) any sentence-transformers model fails the test."""
    import sentence_transformers

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError(f"a model load was attempted: {args}")

    monkeypatch.setattr(sentence_transformers, "SentenceTransformer", refuse)


def test_malformed_number_in_a_variable(tmp_path: Path) -> None:
    one_line_error(run(["search", "x", "--index", str(tmp_path)], CITEWISE_RETRIEVAL__DENSE_WEIGHT="abc"),
                   "$CITEWISE_RETRIEVAL__DENSE_WEIGHT", "'abc'", "valid number", "fix or unset it")


def test_out_of_range_variable(tmp_path: Path) -> None:
    one_line_error(run(["index", str(PROFILES), "--index", str(tmp_path / "i")], CITEWISE_WORKERS="-1"),
                   "$CITEWISE_WORKERS", "'-1'", "greater than or equal to 0")
    assert not (tmp_path / "i").exists()  # nothing was written


def test_section_variable_that_is_not_json(tmp_path: Path) -> None:
    one_line_error(run(["settings"], CITEWISE_RETRIEVAL="{k: 3"), "$CITEWISE_RETRIEVAL", "'{k: 3'", "not valid JSON")


def test_unknown_setting_in_a_variable() -> None:
    one_line_error(run(["settings"], CITEWISE_RETRIEVAL__DENSE_WIEGHT="0.4"),
                   "unknown setting 'retrieval.dense_wieght'", "$CITEWISE_RETRIEVAL__DENSE_WIEGHT", "citewise settings")


def test_unknown_preset_as_option_and_variable() -> None:
    one_line_error(run(["--preset", "fast", "settings"]), "unknown preset 'fast'", "default, reading, rrf, wide")
    one_line_error(run(["settings"], CITEWISE_PRESET="fast"), "unknown preset 'fast'", "default, reading, rrf, wide")


def test_missing_index(tmp_path: Path) -> None:
    one_line_error(run(["ask", "Who?", "--index", str(tmp_path / "none")]),
                   f"No citewise index at {tmp_path / 'none'}", "citewise index PATH --index")


def test_index_from_a_newer_format(copied_index: Path) -> None:
    manifest = copied_index / "manifest.json"
    data = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**data, "format_version": data["format_version"] + 1}))
    one_line_error(run(["docs", "--index", str(copied_index)]), str(manifest),
                   f"v{data['format_version'] + 1} is not supported", "newer citewise", "pip install -U citewise")


def test_index_with_an_unreadable_manifest(copied_index: Path) -> None:
    (copied_index / "manifest.json").write_text("{not json")
    one_line_error(run(["search", "x", "--index", str(copied_index)]), "unreadable manifest", "build a new index")


def test_index_built_with_another_model(copied_index: Path, no_model_load: None) -> None:
    """A --model that exists (a local path) but is not the index's: refused before anything loads."""
    from index.embed import default_model_path

    one_line_error(run(["index", str(PROFILES), "--index", str(copied_index), "--model", default_model_path()]),
                   "was built with the embedding model 'all-MiniLM-L6-v2'", "Use --model all-MiniLM-L6-v2")


def test_path_to_index_that_does_not_exist(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder"
    one_line_error(run(["index", str(missing), "--index", str(tmp_path / "i")]),
                   f"cannot read {missing}", "no such file or directory")
    assert not (tmp_path / "i").exists()


def test_unreadable_path_to_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder the user may not read (faked with os.access: the tests may run as root, who reads all)."""
    import os

    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == locked else real_access(p, mode))
    one_line_error(run(["index", str(locked), "--index", str(tmp_path / "i")]),
                   f"cannot read {locked}", "permission denied")


def test_unknown_model_fails_fast_without_a_download(tmp_path: Path, no_model_load: None) -> None:
    one_line_error(run(["index", str(PROFILES), "--index", str(tmp_path / "i"), "--model", "no-such/model-x"]),
                   "unknown embedding model 'no-such/model-x'", "nothing is downloaded", "local model directory")
    one_line_error(run(["eval", "beir", str(tmp_path), "--model", "model-y"]), "unknown embedding model 'model-y'")
    one_line_error(run(["docs", "--index", str(tmp_path)], CITEWISE_MODEL="model-z"), "unknown embedding model 'model-z'")
    assert not (tmp_path / "i").exists()


def test_debug_shows_the_traceback(tmp_path: Path, no_model_load: None) -> None:
    result = run(["--debug", "index", str(PROFILES), "--index", str(tmp_path / "i"), "--model", "model-x"])
    assert result.exit_code == 1 and isinstance(result.exception, ModelNotFound)
    assert result.exc_info is not None and result.exc_info[2] is not None  # the traceback click would print
    plain = run(["index", str(PROFILES), "--index", str(tmp_path / "i"), "--model", "model-x"])
    assert plain.exit_code == 2 and isinstance(plain.exception, SystemExit)


def test_a_variable_no_setting_reads_is_named_not_silently_ignored() -> None:
    """CITEWISE_K (a setting before `retrieval.k`) warns with the right name; stdout stays JSON."""
    result = run(["settings", "--json"], CITEWISE_K="3", CITEWISE_AUTH="a:b")
    assert result.exit_code == 0, result.output
    assert "ignoring $CITEWISE_K: no setting reads it; did you mean $CITEWISE_RETRIEVAL__K?" in result.stderr
    assert "CITEWISE_AUTH" not in result.stderr  # read by `serve`, not a setting: left alone
    assert json.loads(result.stdout)["settings"]["retrieval"]["k"] == 10


def test_index_built_with_a_model_not_available_here(copied_index: Path, no_model_load: None) -> None:
    manifest = copied_index / "manifest.json"
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "embedder": "some-org/absent-model"}))
    one_line_error(run(["search", "x", "--index", str(copied_index)]),
                   "built with the embedding model 'some-org/absent-model'", "not available here", "build a new index")


def test_model_path_that_is_not_a_model(tmp_path: Path, no_model_load: None) -> None:
    folder = tmp_path / "not-a-model"
    folder.mkdir()
    one_line_error(run(["index", str(PROFILES), "--index", str(tmp_path / "i"), "--model", str(folder)]),
                   f"embedding model path {str(folder)!r} is not a model directory")


def test_reader_parameters_that_cannot_be_read(seed_index_dir: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    one_line_error(run(["ask", "What is Moccasin?", "--index", str(seed_index_dir)], CITEWISE_ANSWER__READER=str(missing)),
                   "answer.reader", str(missing))
    other = tmp_path / "old.json"
    other.write_text(json.dumps({"names": ["cos"], "threshold": 0.5}))
    one_line_error(run(["ask", "What is Moccasin?", "--index", str(seed_index_dir)], CITEWISE_ANSWER__READER=str(other)),
                   "answer.reader", "train-reader")


def test_keep_answerability_without_a_file_to_keep(tmp_path: Path) -> None:
    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps({"q": "What is Moccasin?", "docs": [], "answer": []}) + "\n")
    one_line_error(run(["train-reader", str(qa), "--docs", str(PROFILES), "--keep-answerability"]),
                   "--keep-answerability needs --keep-ranker")
