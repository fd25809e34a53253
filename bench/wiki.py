"""Write the documents of two of our own question sets from the Wikipedia paragraphs kept in SQuAD
(`../shared/train/reader/`, CC BY-SA 4.0), one Markdown file per article with its title as the first line.
The text is read in place and written to a folder of your choice, never into the repository.

- `bios` (`bench/questions/own_bios.jsonl`): eight biographies of scholars, from SQuAD 1.1 train. The
  reading model was trained on 10,000 questions drawn from that file, so it may have read some of these
  paragraphs; by default it reads no question about a person's documents, and all but one get an owner.
- `articles` (`bench/questions/own_articles.jsonl`): six articles of the held-out part of SQuAD 2.0 dev,
  which no model here was trained or tuned on; they have no owner, so the reading model reads them.
- `squad`: the seven other articles of that held-out part, and beside them `qa.jsonl`, a fixed sample
  (seed 13) of their own SQuAD 2.0 questions, half answerable (the annotators' answers are the
  alternatives) and half unanswerable (SQuAD 2.0's near misses, written against the same paragraphs):
  questions nobody here wrote or read, for `citewise eval qa DIR/qa.jsonl --docs DIR`.

    python bench/wiki.py bios /tmp/bios
    citewise eval qa bench/questions/own_bios.jsonl --docs /tmp/bios --mode default
    python bench/wiki.py squad /tmp/squad --questions 200
    citewise eval qa /tmp/squad/qa.jsonl --docs /tmp/squad --mode default
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

TRAIN = Path(__file__).resolve().parents[2] / "shared" / "train" / "reader"
SETS = {
    "bios": ("squad11-train.json", ("Alfred_North_Whitehead", "John_von_Neumann", "Karl_Popper", "Friedrich_Hayek",
                                    "Richard_Feynman", "Alexander_Graham_Bell", "Avicenna", "Edmund_Burke")),
    "articles": ("squad20-dev-heldout.json", ("Warsaw", "French_and_Indian_War", "1973_oil_crisis",
                                              "Packet_switching", "Scottish_Parliament", "Amazon_rainforest")),
    "squad": ("squad20-dev-heldout.json", ("Sky_(United_Kingdom)", "Victoria_(Australia)", "Ctenophora",
                                           "Fresno,_California", "Private_school", "Jacksonville,_Florida",
                                           "Prime_number")),
}
SEED = 13


def file_name(title: str) -> str:
    """The article's file name: its title in lower case, without the characters file systems dislike."""
    return "".join(c for c in title.lower() if c.isalnum() or c in "_-") + ".md"


def squad_questions(articles: dict, titles: tuple[str, ...], n: int) -> list[dict]:
    """`n` of the articles' SQuAD 2.0 questions as citewise QA records, half answerable, half not (seeded)."""
    import random

    answerable, near = [], []
    for title in titles:
        for paragraph in articles[title]["paragraphs"]:
            for q in paragraph["qas"]:
                texts = list(dict.fromkeys(a["text"] for a in q["answers"]))
                record = {"id": q["id"], "q": " ".join(q["question"].split()), "split": "heldout",
                          "docs": [] if q.get("is_impossible") else [file_name(title)],
                          "gold": texts, "answer": [texts] if texts else []}
                (near if q.get("is_impossible") else answerable).append(record)
    rng = random.Random(SEED)
    return rng.sample(answerable, min(n - n // 2, len(answerable))) + rng.sample(near, min(n // 2, len(near)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("set", choices=sorted(SETS), help="which set's documents to write")
    ap.add_argument("out", type=Path, help="the folder to write the .md files to")
    ap.add_argument("--data", type=Path, default=TRAIN, help=f"the folder of the SQuAD files (default: {TRAIN})")
    ap.add_argument("--questions", type=int, default=200, help="squad: how many questions qa.jsonl holds (default 200)")
    a = ap.parse_args(argv)
    name, titles = SETS[a.set]
    source = a.data / name
    if not source.is_file():
        print(f"wiki: {source} not found (../shared/train is needed for this set); nothing written", file=sys.stderr)
        return 2
    articles = {x["title"]: x for x in json.loads(source.read_text(encoding="utf-8"))["data"]}
    a.out.mkdir(parents=True, exist_ok=True)
    for title in titles:
        text = "\n\n".join(p["context"].strip() for p in articles[title]["paragraphs"])
        name = f"{title.lower()}.md" if a.set != "squad" else file_name(title)
        (a.out / name).write_text(f"# {title.replace('_', ' ')}\n\n{text}\n", encoding="utf-8")
    print(f"wrote {len(titles)} articles to {a.out}")
    if a.set == "squad":
        records = squad_questions(articles, titles, a.questions)
        (a.out / "qa.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                                        encoding="utf-8")
        print(f"wrote {len(records)} questions ({sum(1 for r in records if not r['docs'])} unanswerable) to "
              f"{a.out / 'qa.jsonl'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
