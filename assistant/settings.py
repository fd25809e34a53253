"""Settings: everything a user can set, typed, from arguments or `CITEWISE_*` environment variables."""

from __future__ import annotations

from pathlib import Path

import platformdirs
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from ingest.chunk import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE


def user_index_dir() -> Path:
    """Where the index lives when neither --index nor CITEWISE_INDEX says."""
    return platformdirs.user_data_path("citewise") / "index"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CITEWISE_", extra="forbid")

    index: Path | None = Field(default=None, description="index directory (default: the user data dir)")
    model: str | None = Field(default=None, description="embedding model name or local path")
    chunk_size: int = Field(default=DEFAULT_CHUNK_SIZE, ge=100, le=8000)
    chunk_overlap: int = Field(default=DEFAULT_CHUNK_OVERLAP, ge=0, le=2000)
    k: int = Field(default=10, ge=1, le=200, description="chunks retrieved per question")

    def index_dir(self) -> Path:
        return (self.index or user_index_dir()).expanduser()
