"""BEIR-layout datasets: `corpus.jsonl`, `queries.jsonl` and `qrels/<split>.tsv` in a folder.

The corpus is written out as one text file per document (title on the first line, then the text)
so that `citewise eval beir` indexes it with exactly the pipeline users get. Downloading datasets
is left out: point it at a folder that is already on disk.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

from ingest.errors import CitewiseError


class BeirError(CitewiseError):
    """A folder is not a readable BEIR dataset."""


@dataclass(frozen=True)
class BeirDoc:
    doc_id: str
    title: str
    text: str

    def file_text(self) -> str:
        """Title line, blank line, text; a title the text already starts with is not repeated."""
        title, text = self.title.strip(), self.text.strip()
        if not title:
            return text + "\n"
        if text.startswith(title):
            text = text[len(title) :].strip()
        return f"{title}\n\n{text}\n"


@dataclass(frozen=True)
class BeirData:
    name: str
    corpus: dict[str, BeirDoc]
    queries: dict[str, str]  # only queries with relevance judgements
    qrels: dict[str, dict[str, int]]  # query id -> doc id -> relevance


def _jsonl(path: Path) -> list[dict]:
    if not path.exists():
        raise BeirError(f"{path} is missing: a BEIR folder holds corpus.jsonl, queries.jsonl and qrels/")
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except ValueError as exc:
                    raise BeirError(f"{path}:{n}: not JSON ({exc})") from exc
    return rows


def load_beir(folder: str | Path, split: str = "test") -> BeirData:
    """Read a BEIR dataset; queries without judgements in `split` are dropped."""
    root = Path(folder)
    corpus = {
        str(d["_id"]): BeirDoc(str(d["_id"]), d.get("title") or "", d.get("text") or "")
        for d in _jsonl(root / "corpus.jsonl")
    }
    qrels_path = root / "qrels" / f"{split}.tsv"
    if not qrels_path.exists():
        raise BeirError(f"{qrels_path} is missing (splits here: {sorted(p.stem for p in (root / 'qrels').glob('*.tsv'))})")
    qrels: dict[str, dict[str, int]] = {}
    with open(qrels_path, encoding="utf-8") as f:
        for row in csv.reader(f, delimiter="\t"):
            if len(row) < 3 or row[0] == "query-id":
                continue
            qrels.setdefault(row[0], {})[row[1]] = int(row[2])
    queries = {str(q["_id"]): q["text"] for q in _jsonl(root / "queries.jsonl") if str(q["_id"]) in qrels}
    return BeirData(root.name, corpus, queries, {q: r for q, r in qrels.items() if q in queries})


def write_corpus(data: BeirData, folder: Path) -> dict[str, str]:
    """Write one `.txt` per document into `folder`; returns resolved file path -> doc id."""
    folder.mkdir(parents=True, exist_ok=True)
    paths: dict[str, str] = {}
    for n, doc in enumerate(data.corpus.values()):
        if not (doc.title.strip() or doc.text.strip()):
            continue
        path = folder / f"{n:07d}.txt"
        path.write_text(doc.file_text(), encoding="utf-8")
        paths[str(path.resolve())] = doc.doc_id
    return paths
