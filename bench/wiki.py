"""Write the documents of two of our own question sets from the Wikipedia paragraphs kept in SQuAD
(`../shared/train/reader/`, CC BY-SA 4.0), one Markdown file per article with its title as the first line.
The text is read in place and written to a folder of your choice, never into the repository.

- `bios` (`bench/questions/own_bios.jsonl`): eight biographies of scholars, from SQuAD 1.1 train. The
  reading model was trained on 10,000 questions drawn from that file, so it may have read some of these
  paragraphs; by default it reads no question about a person's documents, and all but one get an owner.
- `articles` (`bench/questions/own_articles.jsonl`): six articles of the held-out part of SQuAD 2.0 dev,
  which no model here was trained or tuned on; they have no owner, so the reading model reads them.

    python bench/wiki.py bios /tmp/bios
    citewise eval qa bench/questions/own_bios.jsonl --docs /tmp/bios --mode default
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
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("set", choices=sorted(SETS), help="which set's documents to write")
    ap.add_argument("out", type=Path, help="the folder to write the .md files to")
    ap.add_argument("--data", type=Path, default=TRAIN, help=f"the folder of the SQuAD files (default: {TRAIN})")
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
        (a.out / f"{title.lower()}.md").write_text(f"# {title.replace('_', ' ')}\n\n{text}\n", encoding="utf-8")
    print(f"wrote {len(titles)} articles to {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
