"""One typed Settings: defaults from index.search, CITEWISE_* overrides, shipped presets, and the knobs
reaching the real search, `citewise stats` and `citewise settings`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from assistant.cli import main
from assistant.settings import (
    FUSION_FIELDS,
    PRESETS_DIR,
    AnswerSettings,
    RetrievalSettings,
    Settings,
    SettingsError,
    load_preset,
    load_settings,
    preset_names,
)
from index.search import DEFAULT_FUSION, HYBRID_RRF, Fusion


def test_defaults_are_the_measured_fusion_and_every_fusion_field_is_a_setting() -> None:
    s = Settings()
    assert s.fusion() == DEFAULT_FUSION
    assert set(FUSION_FIELDS) | {"k", "reranker", "rerank_depth"} == set(RetrievalSettings.model_fields)
    assert s.k == s.retrieval.k == 10
    assert Settings(k=3).retrieval.k == 3  # the old top-level shorthand still works


def test_env_overrides_nested_and_whole_sections(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_RETRIEVAL__DENSE_WEIGHT", "0.3")
    monkeypatch.setenv("CITEWISE_ANSWER", '{"per_person": 4}')
    s = Settings()
    assert s.retrieval.dense_weight == 0.3 and s.fusion().dense_weight == 0.3
    assert s.answer == AnswerSettings(per_person=4)
    assert Settings(retrieval={"dense_weight": 0.9}).retrieval.dense_weight == 0.9  # an argument beats the env


def test_every_shipped_preset_loads_and_says_what_it_is() -> None:
    assert {"default", "rrf", "wide"} <= set(preset_names())
    for name in preset_names():
        data = json.loads((PRESETS_DIR / f"{name}.json").read_text())
        assert data["description"].strip()
        load_preset(name)
        Settings(preset=name)


def test_preset_sits_between_defaults_and_env(monkeypatch: pytest.MonkeyPatch) -> None:
    rrf = load_preset("rrf")["retrieval"]
    # index.search's baseline; dense_weight 0.5 is "equal weights" for weighted RRF and unused by plain RRF
    assert all(getattr(HYBRID_RRF, key) == value for key, value in rrf.items() if key != "dense_weight")
    assert Settings(preset="rrf").fusion() == Fusion(**{**DEFAULT_FUSION.__dict__, **rrf})
    assert Settings(preset="default").fusion() == DEFAULT_FUSION
    wide = Settings(preset="wide")
    assert wide.k == 20 and wide.retrieval.depth == 200 and wide.answer.per_person == 10 and wide.answer.who_chunks == 5
    monkeypatch.setenv("CITEWISE_PRESET", "wide")
    monkeypatch.setenv("CITEWISE_RETRIEVAL__K", "7")
    s = Settings()
    assert s.preset == "wide" and s.k == 7 and s.retrieval.depth == 200  # env beats the preset, per key
    assert Settings(preset="rrf").retrieval.method == "rrf"  # an argument beats $CITEWISE_PRESET


def test_unknown_keys_and_bad_values_are_one_line_errors(tmp_path: Path) -> None:
    for bad, words in [({"retrieval": {"dense_weight": 1.5}}, "retrieval.dense_weight"),
                       ({"retrieval": {"norm": "l2"}}, "choose one of: minmax, z"),
                       ({"retrieval": {"bogus": 1}}, "unknown setting 'retrieval.bogus'"),
                       ({"answers": {}}, "unknown setting 'answers'"),
                       ({"preset": "nope"}, "unknown preset 'nope'; choose one of: default, reading, rrf, wide")]:
        with pytest.raises(SettingsError) as err:
            load_settings(**bad)
        assert words in str(err.value) and "\n" not in str(err.value)


def test_settings_reach_the_real_search(seed_index_dir: Path, embedder) -> None:
    """rrf scores are sums of 1/(60+rank): a preset visibly changes how the real index is searched."""
    from assistant import Assistant
    from index import Store

    default = Assistant(Store.open(seed_index_dir), embedder)
    rrf = Assistant(Store.open(seed_index_dir), embedder, settings=Settings(preset="rrf"))
    assert default.searcher.fusion == DEFAULT_FUSION and rrf.searcher.fusion.method == "rrf"
    query = "graph neural networks"
    assert max(h.score for h in rrf.search(query, 5)) <= 2 / 61 + 1e-9
    assert max(h.score for h in default.search(query, 5)) > 2 / 61
    narrow = Assistant(Store.open(seed_index_dir), embedder, settings=Settings(k=2, retrieval={"scope_owners": False}))
    assert len(narrow.retrieve(query)) == 2
    assert isinstance(narrow.searcher.fusion, Fusion) and narrow.searcher.fusion.scope_owners is False


def test_cli_settings_lists_every_knob_and_the_presets(monkeypatch: pytest.MonkeyPatch) -> None:
    result = CliRunner().invoke(main, ["settings", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out["settings"]["retrieval"]) == set(RetrievalSettings.model_fields) == set(FUSION_FIELDS) | {"k", "reranker", "rerank_depth"}
    assert set(out["settings"]["answer"]) == set(AnswerSettings.model_fields)
    assert set(out["settings"]) == set(Settings.model_fields)
    assert set(out["presets"]) == set(preset_names()) and out["preset"] is None
    changed = CliRunner().invoke(main, ["--preset", "rrf", "settings", "--json"],
                                 env={"CITEWISE_RETRIEVAL__FEEDBACK_WEIGHT": "0.5"})
    rrf = json.loads(changed.stdout)
    assert rrf["preset"] == "rrf" and rrf["settings"]["retrieval"]["method"] == "rrf"
    assert rrf["settings"]["retrieval"]["feedback_weight"] == 0.5
    text = CliRunner().invoke(main, ["--preset", "wide", "settings"]).output
    assert "* retrieval.k" in text and "  retrieval.norm" in text  # changed knobs are starred
    monkeypatch.setenv("CITEWISE_MILVUS_TOKEN", "s3cret")
    assert "s3cret" not in CliRunner().invoke(main, ["settings", "--json"]).output


@pytest.mark.slow
def test_a_preset_changes_a_knob_and_stats_shows_it(seed_index_dir: Path) -> None:
    plain = CliRunner().invoke(main, ["stats", "--json", "--index", str(seed_index_dir)])
    assert plain.exit_code == 0, plain.output
    assert json.loads(plain.stdout)["settings"]["retrieval"]["method"] == "convex"
    rrf = CliRunner().invoke(main, ["--preset", "rrf", "stats", "--json", "--index", str(seed_index_dir)])
    info = json.loads(rrf.stdout)["settings"]
    assert info["preset"] == "rrf" and info["retrieval"]["method"] == "rrf" and info["retrieval"]["feedback"] == 0
    text = CliRunner().invoke(main, ["stats", "--index", str(seed_index_dir)], env={"CITEWISE_PRESET": "wide"})
    assert "preset wide" in text.output and "k=20" in text.output


@pytest.mark.slow
def test_env_k_reaches_cli_search(seed_index_dir: Path) -> None:
    args = ["search", "graph neural networks", "--json", "--index", str(seed_index_dir)]
    assert len(json.loads(CliRunner().invoke(main, args).stdout)["hits"]) == 10
    three = CliRunner().invoke(main, args, env={"CITEWISE_RETRIEVAL__K": "3"})
    assert len(json.loads(three.stdout)["hits"]) == 3
    assert len(json.loads(CliRunner().invoke(main, [*args, "-k", "4"], env={"CITEWISE_RETRIEVAL__K": "3"}).stdout)["hits"]) == 4


def test_presets_ship_with_the_package() -> None:
    import tomllib

    from conftest import REPO

    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "presets/*.json" in data["assistant"] and PRESETS_DIR == REPO / "assistant" / "presets"


def test_answer_settings_reach_the_reader_and_the_search(seed_index_dir: Path, tmp_path: Path) -> None:
    """`answer.*` changes what is searched and read; `answer.reader` loads other parameters."""
    from assistant import Assistant
    from assistant.answer.model import PARAMS, ReaderModel

    question = "Who has worked on graph neural networks?"
    wide = Assistant.open(seed_index_dir, settings=Settings(answer={"per_person": 2, "who_chunks": 1}))
    try:
        hits = wide.retrieve(question)
        per_doc: dict[str, int] = {}
        for h in hits:
            per_doc[h.doc] = per_doc.get(h.doc, 0) + 1
        assert per_doc and max(per_doc.values()) <= 2  # per_person: chunks searched per person
        _, read, _ = wide.writer.prepare(question, hits)
        assert len(read) == len(per_doc)  # who_chunks: one chunk per document is read
    finally:
        wide.store.close()
    model = ReaderModel.load(PARAMS)
    strict = tmp_path / "strict.json"
    ReaderModel(**{**model.__dict__, "threshold": 0.999}).save(strict)
    a = Assistant.open(seed_index_dir, settings=Settings(answer={"reader": str(strict)}))
    try:
        assert a.writer.model.threshold == 0.999
        assert a.ask("Where did Muhammed Fatih Balin do his PhD?").abstained  # nothing is that sure
    finally:
        a.store.close()


def test_a_local_cross_encoder_in_settings_reranks_the_search(seed_index_dir: Path, tmp_path: Path) -> None:
    """A real sentence-transformers CrossEncoder, built here from the packaged MiniLM weights with a fresh
    (untrained) scoring head, since no trained cross-encoder ships offline: the scores prove it ran."""
    from sentence_transformers import CrossEncoder

    from assistant import Assistant
    from index.embed import default_model_path

    folder = tmp_path / "cross-encoder"
    CrossEncoder(default_model_path(), num_labels=1, device="cpu").save(str(folder))
    with pytest.raises(SettingsError, match="retrieval.reranker.*no folder at"):
        load_settings(retrieval={"reranker": str(tmp_path / "missing")})
    a = Assistant.open(seed_index_dir, settings=Settings(retrieval={"reranker": str(folder), "rerank_depth": 8}))
    try:
        hits = a.search("graph neural networks", k=5)
        model = CrossEncoder(str(folder), device="cpu")
        expected = model.predict([("graph neural networks", f"{h.title} | {h.section}\n{h.text}"[:2000]) for h in hits])
        assert [h.score for h in hits] == pytest.approx([float(s) for s in expected], abs=1e-4)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    finally:
        a.store.close()
