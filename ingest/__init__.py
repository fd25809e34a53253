"""ingest: files in, `Document`s and `Chunk`s out (parse, clean, structure, chunk, owners, publications)."""

from .chunk import Chunk, chunk_document
from .discover import Skipped, discover
from .document import Document
from .errors import CitewiseError, ParseError
from .names import name_variants, names_match
from .parse import load_document
from .publications import Publication, parse_publications

__all__ = [
    "Chunk", "CitewiseError", "Document", "ParseError", "Publication", "Skipped", "chunk_document", "discover",
    "load_document", "name_variants", "names_match", "parse_publications",
]
