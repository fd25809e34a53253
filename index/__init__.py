"""index: chunks in, a persistent searchable index out (embed, FAISS, lexical, store, eval)."""

from .build import IndexReport, index_paths, remove_paths
from .embed import Embedder, SentenceTransformerEmbedder
from .errors import EmbedderMismatch, IndexLocked, IndexNotFound
from .search import Hit, Searcher
from .store import DocRecord, Store, StoredChunk

__all__ = [
    "DocRecord", "Embedder", "EmbedderMismatch", "Hit", "IndexLocked", "IndexNotFound", "IndexReport",
    "Searcher", "SentenceTransformerEmbedder", "Store", "StoredChunk", "index_paths", "remove_paths",
]
