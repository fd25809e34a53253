"""Answers and hits as text for people: plain text for the terminal, Markdown for the chat.

Two things a reader takes in at a glance: how sure the answer is (`confidence_words`: the reader's
calibrated probability as a band of words and a percentage) and where the answer phrase stands in
its cited passage (`fact_span`, `highlight`: the phrase marked inside the quote).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence

from index import Hit

from .answer import Answer, Citation


def where(doc: str, page: int | None, section: str) -> str:
    """`profile.pdf · p. 2 · Education`"""
    parts = [os.path.basename(doc)]
    if page is not None:
        parts.append(f"p. {page}")
    if section:
        parts.append(section)
    return " · ".join(parts)


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# Bands of the calibrated probability, in words (upper bounds are exclusive). A display choice:
# the probability itself is fitted by the reader, these only name its ranges.
CONFIDENCE_BANDS: tuple[tuple[float, str], ...] = ((0.9, "very likely"), (0.7, "likely"), (0.4, "uncertain"),
                                                    (0.0, "unlikely"))


def confidence_words(p: float | None) -> str:
    """`0.93` -> "very likely (93 %)"; "" when there is no probability (no reader, or an abstention)."""
    if p is None or p != p:  # None or NaN
        return ""
    p = min(max(float(p), 0.0), 1.0)
    band = next(words for floor, words in CONFIDENCE_BANDS if p >= floor)
    return f"{band} ({round(p * 100)} %)"


_MARKERS = re.compile(r"\s*\[\d+\]")


def answer_phrase(answer: Answer) -> str:
    """The phrase to mark in the cited passages: the short fact the answer leads with (even when the
    passage wraps it over two lines, "two\npassengers"), else its text without `[n]` markers when that
    is one line; "" for abstentions and "who" answers."""
    if answer.abstained or answer.people:
        return ""
    if answer.fact:
        return " ".join(answer.fact.split()).strip(" .;,")
    phrase = " ".join(_MARKERS.sub("", answer.answer).split()).strip(" .;,")
    return phrase if phrase and "\n" not in answer.answer.strip() else ""


def fact_span(quote: str, phrase: str) -> tuple[int, int] | None:
    """Where `phrase` stands in `quote` (case and runs of spaces or line breaks ignored), or None.
    A phrase as long as the quote itself is not worth marking: None."""
    words = phrase.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(w) for w in words)
    m = re.search(pattern, quote, re.IGNORECASE)
    if m is None or (m.start() == 0 and m.end() >= len(quote.rstrip())):
        return None
    return m.start(), m.end()


def stars(text: str) -> str:
    """`text` in bold Markdown, line by line (a bold run cannot cross a line break)."""
    return "\n".join(f"**{line.strip()}**" if line.strip() else line for line in text.split("\n"))


def highlight(quote: str, phrase: str, mark: Callable[[str], str] = stars,
              keep: Callable[[str], str] = lambda s: s, limit: int | None = None) -> str:
    """`quote` with `phrase` marked by `mark` (the rest passed through `keep`, e.g. an escaper);
    with `limit`, flattened and cut to about that many characters around the phrase."""
    flat = " ".join(quote.split()) if limit else quote
    span = fact_span(flat, phrase)
    if span is None:
        return keep(flat if not limit or len(flat) <= limit else flat[: limit - 1] + "…")
    a, b = span
    head, mid, tail = flat[:a], flat[a:b], flat[b:]
    if limit and len(flat) > limit:
        room = max(limit - len(mid), 20)
        before = min(len(head), room // 3)
        head = ("…" + head[len(head) - before :].lstrip()) if before < len(head) else head
        after = room - before
        tail = (tail[:after].rstrip() + "…") if after < len(tail) else tail
    return keep(head) + mark(keep(mid)) + keep(tail)


def answer_text(answer: Answer, mark: Callable[[str], str] = stars) -> str:
    """The answer for a terminal: text, how sure it is, notes, sources with the answer phrase marked."""
    out = [answer.answer]
    sure = confidence_words(getattr(answer, "confidence", None)) if not answer.abstained else ""
    if sure:
        out.append(f"Confidence: {sure}")
    out.extend(answer.notes)
    phrase = answer_phrase(answer)
    if answer.citations:
        out.append("\nSources:")
        out.extend(f"[{c.n}] {where(c.doc, c.page, c.section)}\n    \"{highlight(c.quote, phrase, mark, limit=300)}\""
                   for c in answer.citations)
    if answer.related:
        out.append("\nRelated, not an answer:")
        out.extend(f"- {where(c.doc, c.page, c.section)}\n    \"{_one_line(c.quote)}\"" for c in answer.related)
    return "\n".join(out)


def hits_text(hits: Sequence[Hit]) -> str:
    if not hits:
        return "No matching chunks."
    return "\n".join(
        f"{h.rank:>2}. {h.score:.3f}  {where(h.doc, h.page, h.section)}  [{h.chunk_id}]\n    {_one_line(h.text, 240)}"
        for h in hits
    )


def citation_markdown(c: Citation, phrase: str = "") -> str:
    text = highlight(c.quote, phrase) if phrase else c.quote
    quote = "\n".join("> " + line for line in text.splitlines() if line.strip())
    return f"**[{c.n}]** `{where(c.doc, c.page, c.section)}`\n{quote}"


def answer_markdown(answer: Answer) -> str:
    out = [answer.answer.replace("\n", "  \n")]
    sure = confidence_words(getattr(answer, "confidence", None)) if not answer.abstained else ""
    if sure:
        out.append(f"_Confidence: {sure}_")
    out.extend(f"_{n}_" for n in answer.notes)
    phrase = answer_phrase(answer)
    if answer.citations:
        out.append("\n---\n" + "\n\n".join(citation_markdown(c, phrase) for c in answer.citations))
    if answer.related:
        out.append("\n---\n**Related, not an answer:**\n\n" + "\n\n".join(citation_markdown(c) for c in answer.related))
    return "\n".join(out)

