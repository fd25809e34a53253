"""Errors of the index room."""

from ingest.errors import CitewiseError


class IndexError_(CitewiseError):
    """Base of index errors (named with a trailing underscore to keep the builtin usable)."""


class IndexNotFound(IndexError_):
    def __init__(self, path: str) -> None:
        super().__init__(f"No citewise index at {path}. Create one with: citewise index PATH --index {path}")
        self.path = path


class EmbedderMismatch(IndexError_):
    """The index was built with another embedding model; its vectors would be garbage here."""


class IndexLocked(IndexError_):
    """Another process is writing to this index."""


class IndexCorrupt(IndexError_):
    """The files of an index cannot be read."""


class MergeError(IndexError_):
    """The indexes named cannot be merged as asked."""


class VectorStoreError(IndexError_):
    """The vector store of an index (e.g. a Milvus server) cannot be used."""
