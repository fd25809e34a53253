"""The pieces a text is read in: its non-empty lines, a line longer than `limit` characters cut into its
sentences, and a sentence still longer cut at a word boundary; (start, end) offsets, never copies.

`candidates` cuts every retrieved chunk this way, and the reading model's training examples
(`training/windows.py`) are cut by this very module, loaded there by its path: the model is trained on
windows exactly like the candidates it reads. So this module imports nothing but `re`."""

from __future__ import annotations

import re

LIMIT = 300
_LINE = re.compile(r"[^\n]+")
# a sentence ends at a run of stops followed by a space or the end; a stop inside a word ("1.32.0",
# "Node.js", "3.5 GB") ends nothing
_SENTENCE = re.compile(r"(?:[^.!?]|[.!?]+(?![.!?]|\s|$))+(?:[.!?]+(?=\s|$)|$)")


def sentences(text: str, a: int, b: int, limit: int = LIMIT) -> list[tuple[int, int]]:
    """(start, end) of the sentences of text[a:b], each cut to at most `limit` characters."""
    out: list[tuple[int, int]] = []
    for m in _SENTENCE.finditer(text, a, b):
        s, e = m.start(), m.end()
        while s < e and text[s].isspace():
            s += 1
        while e - s > limit:
            cut = text.rfind(" ", s, s + limit)
            cut = cut if cut > s else s + limit
            out.append((s, cut))
            s = cut + 1
        if e > s:
            out.append((s, e))
    return out


def pieces(text: str, limit: int = LIMIT) -> list[tuple[int, int, int]]:
    """(start, end, line number) of the pieces of `text`."""
    out: list[tuple[int, int, int]] = []
    for n, m in enumerate(_LINE.finditer(text)):
        a, b = m.start(), m.end()
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b <= a:
            continue
        spans = [(a, b)] if b - a <= limit else sentences(text, a, b, limit)
        out.extend((s, e, n) for s, e in spans)
    return out
