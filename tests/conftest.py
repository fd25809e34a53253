"""Shared fixtures. The seed index is built once per session with the real model, FAISS and SQLite."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

REPO = Path(__file__).resolve().parent.parent
PROFILES = REPO / "examples" / "profiles"
SHARED = REPO.parent / "shared"
SEED_DEV = SHARED / "eval" / "seed_dev.jsonl"
CRANFIELD = SHARED / "eval" / "beir" / "cranfield"


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the real user data dir: CITEWISE_INDEX points at a fresh tmp dir."""
    monkeypatch.setenv("CITEWISE_INDEX", str(tmp_path_factory.mktemp("user-index")))


@pytest.fixture(scope="session")
def embedder():
    from index import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


@pytest.fixture(scope="session")
def seed_index_dir(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:
    """An index of examples/profiles/ built once; tests must not write to it (copy it first)."""
    from assistant import build_index

    directory = tmp_path_factory.mktemp("seed-index")
    build_index([PROFILES], directory, embedder=embedder)
    return directory


@pytest.fixture
def seed_index_copy(seed_index_dir: Path, tmp_path: Path) -> Path:
    """A private, writable copy of the seed index."""
    target = tmp_path / "index"
    shutil.copytree(seed_index_dir, target, ignore=shutil.ignore_patterns(".lock"))
    return target


@pytest.fixture(scope="session")
def seed_assistant(seed_index_dir: Path, embedder):
    from assistant import Assistant
    from index import Store

    return Assistant(Store.open(seed_index_dir), embedder)


def require_shared(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is absent: the evaluation data lives in ../shared (not shipped in the repo)")
    return path
