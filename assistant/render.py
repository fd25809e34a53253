"""Answers and hits as text for people: plain text for the terminal, Markdown for the chat."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

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


def answer_text(answer: Answer) -> str:
    out = [answer.answer]
    out.extend(answer.notes)
    if answer.citations:
        out.append("\nSources:")
        out.extend(f"[{c.n}] {where(c.doc, c.page, c.section)}\n    \"{_one_line(c.quote)}\"" for c in answer.citations)
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


def citation_markdown(c: Citation) -> str:
    quote = "\n".join("> " + line for line in c.quote.splitlines() if line.strip())
    return f"**[{c.n}]** `{where(c.doc, c.page, c.section)}`\n{quote}"


def answer_markdown(answer: Answer) -> str:
    out = [answer.answer.replace("\n", "  \n")]
    out.extend(f"_{n}_" for n in answer.notes)
    if answer.citations:
        out.append("\n---\n" + "\n\n".join(citation_markdown(c) for c in answer.citations))
    if answer.related:
        out.append("\n---\n**Related, not an answer:**\n\n" + "\n\n".join(citation_markdown(c) for c in answer.related))
    return "\n".join(out)


def profile_markdown(card: Any) -> str:
    """A `profile.Profile` card as Markdown: one section per field kind, each value with its [n]."""
    out = [f"### {card.name}"]
    for title, fields in (("Current", card.current), ("Education", card.education), ("Topics", card.topics),
                          ("Selected publications", card.publications)):
        out.append(f"**{title}**")
        if not fields:
            out.append("- _not in the documents_")
        for f in fields:
            detail = f" — {' '.join(f.detail.split())}" if f.detail else ""
            out.append(f"- {' '.join(f.value.split())}{detail} [{f.citation.n}]")
    cites = [f.citation for f in card.fields()]
    if cites:
        out.append("\n---\n" + "\n\n".join(citation_markdown(c) for c in cites))
    return "\n".join(out)
