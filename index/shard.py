"""Splitting the files of a folder between machines (`citewise index --shard I/N`).

Every machine computes the same split without talking to the others: a file belongs to shard
`hash(path relative to the folder given) mod N`. The folder may be mounted at different places on
different machines; the relative path (POSIX separators, NFC-normalised) is what counts. Each
machine writes its own index directory; `index.merge` combines them.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based: "1/3", "2/3", "3/3"
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """`"I/N"` with 1 <= I <= N."""
        try:
            i, n = (int(part) for part in text.split("/"))
        except ValueError:
            raise ValueError(f"expected I/N such as 2/3, not {text!r}") from None
        if not 1 <= i <= n:
            raise ValueError(f"shard {text!r}: I must be between 1 and N")
        return cls(i, n)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, key: str) -> bool:
        digest = hashlib.sha256(unicodedata.normalize("NFC", key).encode()).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1


def shard_key(file: Path, roots: Sequence[Path]) -> str:
    """`file` relative to the first of `roots` (resolved folders) that holds it; its name when none
    does (a file given by itself, or reached through a symlink that leaves the folder)."""
    for root in roots:
        if file.is_relative_to(root):
            return file.relative_to(root).as_posix()
    return file.name
