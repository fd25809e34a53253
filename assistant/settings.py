"""Settings: everything a user can set, typed, from arguments or `CITEWISE_*` environment variables."""

from __future__ import annotations

from pathlib import Path

import platformdirs
from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from index.vector_store import VectorConfig
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
    workers: int = Field(default=1, ge=0, le=256,
                         description="indexing processes that parse and embed (0: one per core)")
    store: str = Field(default="faiss", pattern="^(faiss|milvus)$",
                       description="vector store of a new index: faiss (embedded) or milvus")
    milvus_uri: str | None = Field(default=None, description="milvus: a local file (milvus-lite) or http://host:19530")
    milvus_collection: str | None = Field(default=None, description="milvus: collection name (default: from the index dir)")
    milvus_db: str | None = Field(default=None, description="milvus: database name (server only)")
    milvus_token: SecretStr | None = Field(default=None, description="milvus: token or user:password (never stored)")

    def index_dir(self) -> Path:
        return (self.index or user_index_dir()).expanduser()

    def vector_config(self) -> VectorConfig:
        """The vector store a new index gets (an existing index keeps the one it was built with)."""
        milvus_given = bool(self.milvus_uri or self.milvus_collection or self.milvus_db)
        store = "milvus" if milvus_given and "store" not in self.model_fields_set else self.store
        return VectorConfig(store, self.milvus_uri, self.milvus_collection, self.milvus_db)

    def vector_config_given(self) -> VectorConfig | None:
        """`vector_config()` when the user chose a vector store; None leaves an existing index as it is."""
        chosen = {"store", "milvus_uri", "milvus_collection", "milvus_db"} & self.model_fields_set
        return self.vector_config() if chosen else None

    def token(self) -> str | None:
        return self.milvus_token.get_secret_value() if self.milvus_token else None
