"""A question's words as the resolver reads them: its tokens (`tokens`), the form the index keeps a word in
(`key`), accent-free case-folding (`fold`), and English's common words (`common_words`), which name no document
and no person on their own. Shared by `resolve` (documents), `aliases` (people) and the reader's rules."""

from __future__ import annotations

import ast
import functools
import importlib.util
import os
import re
import unicodedata

from index.doc_terms import key as doc_terms_key
from index.lexical import STOPWORDS

_WORD = re.compile(r"[^\W_](?:[\w]|[.'’/-](?=\w))*", re.UNICODE)


@functools.cache
def common_words() -> frozenset[str]:
    """scikit-learn's English stop words (318 common words: "get", "back", "show"), read from its
    source file: importing scikit-learn takes seconds, a CLI question must not wait for that."""
    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        return frozenset(STOPWORDS)
    path = os.path.join(list(spec.submodule_search_locations)[0], "feature_extraction", "_stop_words.py")
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], (ast.List, ast.Set, ast.Tuple)):
                words = ast.literal_eval(node.args[0])
                if len(words) > 100:
                    return frozenset(str(w) for w in words) | STOPWORDS
    except (OSError, SyntaxError, ValueError):
        pass
    return frozenset(STOPWORDS)


def fold(text: str) -> str:
    """Accent-free, case-folded NFKC text ("Pârvulescu" -> "parvulescu")."""
    try:  # spacing accents from TeX PDFs ("Pˆarvulescu") are joined when ingest offers it
        from ingest.names import join_spacing_accents

        text = join_spacing_accents(text)
    except ImportError:  # pragma: no cover - older ingest
        pass
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    return "".join(c for c in text if not unicodedata.combining(c)).casefold()


def tokens(text: str) -> list[tuple[str, int, int]]:
    """(word, start, end) of `text`, a possessive "'s" and trailing dots left out of the word."""
    out = []
    for m in _WORD.finditer(unicodedata.normalize("NFKC", text)):
        w = m.group(0)
        end = m.end()
        for suffix in ("'s", "’s", "'", "’"):
            if w.lower().endswith(suffix) and len(w) > len(suffix):
                w = w[: -len(suffix)]
                end -= len(suffix)
                break
        out.append((w, m.start(), end))
    return out


key = doc_terms_key  # what the index stores: accent-free, case-folded, no dots
