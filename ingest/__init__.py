"""ingest: files in, `Document`s and `Chunk`s out (parse, clean, structure, chunk)."""

from .chunk import Chunk, chunk_document
from .discover import Skipped, discover
from .document import Document
from .errors import CitewiseError, ParseError
from .parse import load_document

__all__ = ["Chunk", "CitewiseError", "Document", "ParseError", "Skipped", "chunk_document", "discover", "load_document"]
