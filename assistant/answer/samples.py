"""The tune questions read as `ask` reads them, with their candidates labelled: what `train` fits on.

For every question of a QA file (records `{"q", "docs", "gold", "answer", "split"?}`; only the `tune` split
is read, a record without `split` counts as tune), the assistant retrieves as `ask` does and the reader cuts
and featurises candidates (`collect`). A candidate is labelled 1 when it comes from a listed document and
contains a gold string, or an alternative of every answer group; unanswerable questions give only 0s
(`label`). `collect_files` does it for (QA file, documents) pairs, the documents indexed with the real
pipeline (`indexed`, which `calibrate` reads too).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from index import Hit

from .evaluate import split_of
from .model import ReaderModel
from .reader import Reader, Reading


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


@dataclass(frozen=True)
class Sample:
    record: dict[str, Any]
    reading: Reading
    labels: np.ndarray
    who: bool
    group: str  # the document the question is about, for grouped cross-validation


def label(record: dict[str, Any], r: Reading) -> np.ndarray:
    docs = list(record.get("docs") or [])
    gold = [_norm(g) for g in record.get("gold") or []]
    groups = [[_norm(a) for a in g] for g in record.get("answer") or []]
    out = np.zeros(len(r.cands), np.float32)
    if not docs:
        return out
    for i, c in enumerate(r.cands):
        name = Path(r.hits[c.hit].doc).name
        if not any(name.startswith(d) for d in docs):
            continue
        t = _norm(r.text(i))
        if any(g in t for g in gold) or (len(docs) == 1 and groups and all(any(a in t for a in g) for g in groups)):
            out[i] = 1.0
    return out


def _search_order(assistant: Any, question: str) -> list[Hit]:
    """The hits `ask` reads, in search order (what the reader's rank features are fitted on)."""
    return list(assistant.retrieve_scoped(question)[0])


def collect(reader: Reader, retrieve: Any, records: Sequence[dict[str, Any]], tag: str = "") -> list[Sample]:
    """Read every tune record: `retrieve(question)` gives the hits `ask` would see."""
    out = []
    for rec in records:
        if split_of(rec) != "tune":
            continue
        q = str(rec["q"])
        who, hits, _ = reader.prepare(q, retrieve(q))
        r = reader.read(q, hits, who=who)
        docs = list(rec.get("docs") or [])
        group = f"{tag}:{docs[0]}" if len(docs) == 1 else f"{tag}:multi:{rec.get('id')}"
        out.append(Sample(rec, r, label(rec, r), who or len(docs) >= 2, group))
    return out


def indexed(sets: Sequence[tuple[str | Path, str | Path | Sequence[str | Path]]], *,
            index_root: str | Path | None = None, embedder: Any = None) -> Iterator[tuple[str | Path, Any, Any]]:
    """(QA file, open store, embedder) for each (QA file, documents) pair, the documents (a folder, or
    several files or folders) indexed with the real pipeline, once per distinct documents, into
    `index_root/<n>` when given (a re-run embeds nothing new), else a temporary directory."""
    import tempfile

    from index import Store, index_paths

    from ..api import make_embedder

    embedder = embedder or make_embedder(None)
    slots: dict[str, int] = {}  # the same documents share one index
    with tempfile.TemporaryDirectory(prefix="citewise-train-") as tmp:
        for qa, docs in sets:
            paths = [docs] if isinstance(docs, (str, Path)) else list(docs)
            slot = slots.setdefault(repr(sorted(str(Path(p).resolve()) for p in paths)), len(slots))
            directory = (Path(index_root) if index_root else Path(tmp)) / str(slot)
            store = Store.create(directory, embedder.name, embedder.dim)
            try:
                index_paths(paths, store, embedder, prune=True)
                yield qa, store, embedder
            finally:
                store.close()


def read_records(qa: str | Path) -> list[dict[str, Any]]:
    """The records of a QA file (one JSON object a line); a ValueError naming the file when it cannot be read."""
    import json

    try:
        return [json.loads(line) for line in Path(qa).read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read QA file {str(qa)!r}: {exc}") from exc


def collect_files(sets: Sequence[tuple[str | Path, str | Path | Sequence[str | Path]]], *,
                  index_root: str | Path | None = None, embedder: Any = None,
                  model: ReaderModel | None = None, reading: str | None = None) -> list[Sample]:
    """The tune records of each (QA file, documents) pair read as `ask` reads them (`collect`), the
    documents indexed by `indexed`. `model`: the reader parameters to read with (default: the packaged
    ones); `reading`: the reading model that reads the best candidates ("packaged", a folder; None: none)."""
    from ..api import Assistant

    samples: list[Sample] = []
    for n, (qa, store, emb) in enumerate(indexed(sets, index_root=index_root, embedder=embedder)):
        records = read_records(qa)
        assistant = Assistant(store, emb)
        reader = Reader(emb, store=store, model=model, reading=reading)
        samples += collect(reader, partial(_search_order, assistant), records, tag=str(n))
    return samples
