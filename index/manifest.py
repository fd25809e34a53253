"""The index directory's manifest (`manifest.json`): format, version, embedder, dimension and vector
store of an index, written once and atomically (`index.store` reads and checks it)."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .vector_store import VectorConfig, fsync_dir

FORMAT = "citewise-index"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
DATABASE = "chunks.sqlite"


@dataclass(frozen=True)
class Manifest:
    format: str
    format_version: int
    embedder: str
    dim: int
    created: str
    vectors: dict[str, Any] = field(default_factory=dict)  # VectorConfig; {} (FAISS) in indexes before it

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def vector_config(self) -> VectorConfig:
        return VectorConfig(**self.vectors)


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)
