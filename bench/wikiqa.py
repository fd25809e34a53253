"""Write a question set nobody here wrote from WikiQA's test split (`../shared/train/reader/wikiqa/test.tsv`,
Microsoft Research; a research licence, so it only checks citewise and trains nothing): real search-engine
queries ("how are glacier caves formed", lower case, no question mark), each with the summary of the
Wikipedia article it was asked about. Most queries' summaries hold no sentence that answers them: natural
near misses, not written to look answerable as SQuAD 2.0's are.

Writes to DIR one text file per article summary (`article_NNN.txt`, its sentences as one paragraph, the
dataset's tokenisation undone) and `qa.jsonl`: a seeded sample (seed 13) of the queries, half with an
answering sentence (the annotators' answering sentences are the alternatives; citewise quotes sentences, so a
concise answer is one that holds one of them whole) and half without (`docs` empty: the right reply is to
abstain). The text is read in place and written to a folder of your choice, never into the repository.

    python bench/wikiqa.py /tmp/wikiqa --questions 200
    citewise eval qa /tmp/wikiqa/qa.jsonl --docs /tmp/wikiqa --mode default
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2] / "shared" / "train" / "reader" / "wikiqa" / "test.tsv"
SEED = 13


def detokenised(sentence: str) -> str:
    """A WikiQA sentence as it was written: no space before punctuation or a clitic, none inside brackets
    ("Africa ." -> "Africa.", "( 1990 )" -> "(1990)", "it 's" -> "it's")."""
    s = " ".join(sentence.split())
    s = re.sub(r" ([.,;:!?%)\]}])", r"\1", s)
    s = re.sub(r"([(\[{$]) ", r"\1", s)
    s = re.sub(r" (n't|'s|'re|'ve|'ll|'d|'m)\b", r"\1", s)
    return s.replace("`` ", '"').replace(" ''", '"')


def read_tsv(path: Path) -> dict[str, list[tuple[str, bool]]]:
    """Query -> its article's sentences, in order, each with whether it answers the query."""
    out: dict[str, list[tuple[str, bool]]] = {}
    with path.open(encoding="utf-8", newline="") as f:
        for row in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if len(row) == 3:
                out.setdefault(row[0], []).append((detokenised(row[1]), row[2].strip() == "1"))
    return out


def build(queries: dict[str, list[tuple[str, bool]]], n: int) -> tuple[dict[str, str], list[dict]]:
    """The summaries of `n` sampled queries (half answered) as {file name: text}, and the QA records."""
    answered = sorted(q for q, ss in queries.items() if any(ok for _, ok in ss))
    unanswered = sorted(q for q, ss in queries.items() if not any(ok for _, ok in ss))
    rng = random.Random(SEED)
    chosen = rng.sample(answered, min(n - n // 2, len(answered))) + rng.sample(unanswered, min(n // 2, len(unanswered)))
    files: dict[tuple[str, ...], str] = {}
    records = []
    for i, q in enumerate(chosen):
        sentences = tuple(s for s, _ in queries[q])
        name = files.setdefault(sentences, f"article_{len(files) + 1:03d}.txt")
        right = list(dict.fromkeys(s for s, ok in queries[q] if ok))
        records.append({"id": f"wq{i + 1:03d}", "q": q, "split": "heldout", "docs": [name] if right else [],
                        "gold": right, "answer": [right] if right else []})
    return {name: " ".join(s) + "\n" for s, name in files.items()}, records


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path, help="the folder to write the summaries and qa.jsonl to")
    ap.add_argument("--data", type=Path, default=SOURCE, help=f"WikiQA's test.tsv (default: {SOURCE})")
    ap.add_argument("--questions", type=int, default=200, help="how many queries qa.jsonl holds (default 200)")
    a = ap.parse_args(argv)
    if not a.data.is_file():
        print(f"wikiqa: {a.data} not found (../shared/train is needed for this set); nothing written", file=sys.stderr)
        return 2
    docs, records = build(read_tsv(a.data), a.questions)
    a.out.mkdir(parents=True, exist_ok=True)
    for name, text in docs.items():
        (a.out / name).write_text(text, encoding="utf-8")
    (a.out / "qa.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    print(f"wrote {len(docs)} article summaries and {len(records)} queries "
          f"({sum(1 for r in records if not r['docs'])} without an answer) to {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
