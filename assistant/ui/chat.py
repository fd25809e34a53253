"""The chat half of the web UI: answers as HTML with clickable citation chips, and the source panel.

Everything here works on `Answer.to_dict()` data, so fields the answer writer adds (people groups,
notes) render as soon as they exist. Every string that comes from a document or a user is escaped
here: the chat and the panel only ever show text that is stored in the index.

A chip is a link `#cw-cite-<n>-<chunk_id>-<start>-<end>`; a person's name is `#cw-person-<name>`.
The browser script in `assets` turns a click on either into an event; `resolve_ref` reads the
link back, and only looks things up in the index (a chunk id, or a person's profile), never on disk.

Left out: editing or regenerating past answers; the conversation lives in the browser session only.
"""

from __future__ import annotations

import html
import os
import re
import urllib.parse
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..render import CONFIDENCE_BANDS, confidence_words, highlight

CITE_REF = re.compile(r"^#?cw-cite-(\d+)-([0-9A-Za-z_]+)-(\d+)-(\d+)$")
PERSON_REF = re.compile(r"^#?cw-person-(.+)$")
_MARKER = re.compile(r"((?:\s*\[\d+\])+)")
_ONE_MARKER = re.compile(r"\[(\d+)\]")

EMPTY_PANEL = (
    '<div class="cw-panel cw-panel-empty"><div class="cw-panel-icon">❝</div>'
    "<h3>Sources</h3><p>Click a numbered citation in an answer to read the passage it quotes, "
    "highlighted in its document.</p></div>"
)


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def where(c: Mapping[str, Any]) -> str:
    parts = [os.path.basename(str(c.get("doc") or ""))]
    if c.get("page") is not None:
        parts.append(f"p. {c['page']}")
    if c.get("section"):
        parts.append(str(c["section"]))
    return " · ".join(p for p in parts if p)


def cite_ref(c: Mapping[str, Any]) -> str:
    start = int(c.get("quote_start") or 0)
    return f"#cw-cite-{int(c.get('n') or 0)}-{c['chunk_id']}-{start}-{start + len(str(c.get('quote') or ''))}"


def person_ref(name: str) -> str:
    return "#cw-person-" + urllib.parse.quote(name, safe="")


def chip(c: Mapping[str, Any], label: str | None = None, extra: str = "") -> str:
    text = esc(label if label is not None else c.get("n"))
    return f'<a class="cw-chip{extra}" href="{esc(cite_ref(c))}" title="{esc(where(c))}">{text}</a>'


def _clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _with_chips(text: str, by_n: Mapping[int, Mapping[str, Any]]) -> str:
    """Escape `text` and turn its `[n]` markers into chips (an unknown number is dropped)."""
    out: list[str] = []
    for i, part in enumerate(_MARKER.split(text)):
        if i % 2 == 0:
            out.append(esc(part))
            continue
        chips = [chip(by_n[int(n)]) for n in _ONE_MARKER.findall(part) if int(n) in by_n]
        out.append('<span class="cw-chips">' + "".join(chips) + "</span>" if chips else "")
    return "".join(out)


def _lines_html(text: str, by_n: Mapping[int, Mapping[str, Any]]) -> str:
    """Answer text to paragraphs and bullet lists (`- ` lines), markers as chips."""
    blocks: list[str] = []
    items: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line[:2] in ("- ", "* ", "• "):
            items.append(f"<li>{_with_chips(line[2:], by_n)}</li>")
            continue
        if items:
            blocks.append("<ul>" + "".join(items) + "</ul>")
            items = []
        blocks.append(f"<p>{_with_chips(line, by_n)}</p>")
    if items:
        blocks.append("<ul>" + "".join(items) + "</ul>")
    return "".join(blocks)


def _person_lines(answer: str, name: str) -> list[str]:
    """The answer's evidence for `name`: its `- Name: a [1]; b [2]` line, split into points."""
    for raw in answer.splitlines():
        line = raw.strip().lstrip("-*• ").strip()
        if line.startswith(name):
            rest = line[len(name):].lstrip(" :—-").strip()
            return [x.strip() for x in re.split(r"(?<=\])\s*;\s*", rest) if x.strip()]
    return []


def _people_html(d: Mapping[str, Any], by_n: Mapping[int, Mapping[str, Any]]) -> str:
    """Answers grouped by person: the name opens the profile card, each point keeps its chips."""
    cards = []
    for p in d.get("people") or []:
        name = str(p.get("name") or "Unknown person")
        points = _person_lines(str(d.get("answer") or ""), name)
        cited = {int(n) for x in points for n in _ONE_MARKER.findall(x)}
        rest = [int(n) for n in p.get("citations") or [] if int(n) in by_n and int(n) not in cited]
        inner = "".join(f"<li>{_with_chips(x, by_n)}</li>" for x in points)
        if rest:
            inner += "<li>" + "".join(chip(by_n[n]) for n in rest) + "</li>"
        link = (f'<a class="cw-person" href="{esc(person_ref(name))}" title="Open the profile card">{esc(name)}</a>'
                if p.get("owner_known", True) else f'<span class="cw-person-plain">{esc(name)}</span>')
        docs = p.get("docs") or []
        where_ = f'<span class="cw-person-docs">{esc(", ".join(os.path.basename(str(x)) for x in docs))}</span>' if docs else ""
        cards.append(f'<div class="cw-person-card"><div class="cw-person-head">{link}{where_}</div><ul>{inner}</ul></div>')
    return '<div class="cw-people">' + "".join(cards) + "</div>"


def _fact_mark(text: str) -> str:
    return f'<mark class="cw-fact">{text}</mark>'


def answer_phrase(d: Mapping[str, Any]) -> str:
    """The phrase an answer leads with (its `fact`, else its one-line text without markers), to mark
    in the cited quotes; "" for abstentions and "who" answers."""
    if d.get("abstained") or d.get("people"):
        return ""
    fact = str(d.get("fact") or "")
    text = fact or _ONE_MARKER.sub("", str(d.get("answer") or "")).strip()
    return " ".join(text.split()) if text and "\n" not in text else ""


def confidence_html(d: Mapping[str, Any]) -> str:
    """How sure the answer is, in words and a percentage, with a band class for its colour."""
    words = "" if d.get("abstained") else confidence_words(d.get("confidence"))
    if not words:
        return ""
    p = float(d["confidence"])
    band = next(name for floor, name in CONFIDENCE_BANDS if p >= floor).replace(" ", "-")
    return (f'<div class="cw-confidence cw-conf-{band}" title="The reader\'s calibrated probability that this '
            f'answer is right">Confidence: {esc(words)}</div>')


def _sources_html(citations: Sequence[Mapping[str, Any]], title: str, related: bool = False,
                  folded: bool = False, phrase: str = "") -> str:
    """The numbered sources under an answer, the answer `phrase` marked in each quote that holds it;
    `folded` (people answers carry chips in each card) closes them."""
    if not citations:
        return ""
    rows = []
    for c in citations:
        label = "↗" if related else str(c.get("n"))
        quote = highlight(str(c.get("quote") or "").lstrip("-*•· "), phrase, _fact_mark, esc, limit=140)
        rows.append(
            f'<li>{chip(c, label, " cw-related" if related else "")}<span class="cw-src-where">{esc(where(c))}</span>'
            f'<span class="cw-src-quote">“{quote}”</span></li>'
        )
    cls = "cw-sources cw-sources-related" if related else "cw-sources"
    if folded:
        return (f'<details class="{cls}"><summary class="cw-sources-title">{esc(title)} ({len(citations)})</summary>'
                f'<ol>{"".join(rows)}</ol></details>')
    return f'<div class="{cls}"><div class="cw-sources-title">{esc(title)}</div><ol>{"".join(rows)}</ol></div>'


def answer_html(d: Mapping[str, Any]) -> str:
    """One chat message for an `Answer.to_dict()`: text with chips, people, notes, sources, related."""
    citations = list(d.get("citations") or [])
    by_n = {int(c["n"]): c for c in citations}
    parts = []
    resolved = str(d.get("resolved") or "")
    if resolved and " ".join(resolved.split()) != " ".join(str(d.get("question") or "").split()):
        parts.append(f'<div class="cw-resolved">Answering: “{esc(resolved)}”</div>')
    if d.get("people"):
        parts.append(_people_html(d, by_n))
    else:
        parts.append(_lines_html(str(d.get("answer") or ""), by_n))
    parts.append(confidence_html(d))
    notes = [str(n) for n in d.get("notes") or []]
    if notes:
        parts.append('<div class="cw-notes">' + "".join(f"<p>{esc(n)}</p>" for n in notes) + "</div>")
    parts.append(_sources_html(citations, "Sources", folded=bool(d.get("people")), phrase=answer_phrase(d)))
    parts.append(_sources_html(list(d.get("related") or []), "Related, not an answer", related=True))
    cls = "cw-answer cw-abstained" if d.get("abstained") else "cw-answer"
    # One line, no blank lines: the chat's Markdown renderer keeps an HTML block as it is.
    return f'<div class="{cls}">' + "".join(p for p in parts if p) + "</div>"


def status_html(text: str) -> str:
    return f'<div class="cw-status"><span class="cw-dots"><i></i><i></i><i></i></span>{esc(text)}</div>'


def streaming_html(partial: str) -> str:
    """The answer while it streams: plain text, markers hidden until the chips arrive."""
    text = _ONE_MARKER.sub("", partial)
    return f'<div class="cw-answer cw-streaming">{_lines_html(text, {})}<span class="cw-caret"></span></div>'


def stream_steps(text: str, steps: int = 12) -> Iterator[str]:
    """Growing prefixes of `text`, cut at word ends, for a progressive reveal."""
    words = re.findall(r"\S+\s*", text)
    if not words:
        return
    step = max(1, -(-len(words) // steps))
    for i in range(step, len(words) + step, step):
        yield "".join(words[:i])


# -- the source panel -----------------------------------------------------------------------

def _panel(header: str, body: str) -> str:
    return f'<div class="cw-panel">{header}{body}</div>'


def panel_message(title: str, text: str) -> str:
    return _panel(f"<h3>{esc(title)}</h3>", f'<p class="cw-muted">{esc(text)}</p>')


def _compact(text: str) -> str:
    """Blank lines folded for reading (the offsets were taken on the stored text, before this)."""
    return re.sub(r"\n[ \t]*(?:\n[ \t]*)+", "\n", text)


def source_html(chunk: Mapping[str, Any], n: int, start: int, end: int, back: str = "", caption: str = "") -> str:
    """The stored chunk with the quote [start, end) highlighted, and where it comes from.

    `back` (a person's name) adds a link back to the profile card the citation was opened from;
    `caption` (HTML, already escaped) goes above the document's name, e.g. the table cell quoted.
    """
    text = str(chunk.get("text") or "")
    if not (0 <= start < end <= len(text)):
        start = end = 0
    meta = []
    if chunk.get("owner"):
        meta.append(f"<div><dt>Person</dt><dd>{esc(chunk['owner'])}</dd></div>")
    if chunk.get("page") is not None:
        meta.append(f"<div><dt>Page</dt><dd>{esc(chunk['page'])}</dd></div>")
    if chunk.get("section"):
        meta.append(f"<div><dt>Section</dt><dd>{esc(chunk['section'])}</dd></div>")
    name = os.path.basename(str(chunk.get("doc") or ""))
    badge = f'<span class="cw-badge">{n}</span>' if n else ""
    back_link = (f'<a class="cw-person cw-back" href="{esc(person_ref(back))}">← {esc(back)}’s profile</a>'
                 if back else "")
    header = (
        f'{back_link}{caption}<div class="cw-panel-head">{badge}<div><div class="cw-doc-name" title="{esc(chunk.get("doc"))}">'
        f'{esc(name)}</div><div class="cw-doc-title">{esc(chunk.get("title") or "")}</div></div></div>'
        f'<dl class="cw-meta">{"".join(meta)}</dl>'
    )
    if end > start:
        body = (f"{esc(_compact(text[:start]))}<mark class=\"cw-quote\">{esc(_compact(text[start:end]))}</mark>"
                f"{esc(_compact(text[end:]))}")
        verified = '<div class="cw-verified">✓ The highlighted quote is an exact passage of this document.</div>'
    else:
        body, verified = esc(_compact(text)), ""
    return _panel(header, f'<div class="cw-passage">{body}</div>{verified}'
                          f'<div class="cw-chunk-id">passage {esc(chunk.get("chunk_id"))}</div>')


def initials(name: str) -> str:
    words = [w for w in re.findall(r"\w+", name) if w[0].isalpha()]
    return "".join(w[0].upper() for w in (words[:1] + words[1:][-1:])) or "?"


def profile_html(card: Mapping[str, Any]) -> str:
    """A person's row of the people table (`table.Row.to_dict()`): every field their documents state,
    with its citation chip (numbered in the card); fields they do not state are left out."""
    name = str(card.get("person") or "Profile")
    rows: list[str] = []
    for cell in card.get("cells") or []:
        c = cell.get("citation")
        if not isinstance(c, Mapping):
            continue
        value = " ".join(str(cell.get("value") or "").split())
        rows.append(f'<div class="cw-field"><dt>{esc(cell.get("field"))}</dt><dd>{esc(value)} '
                    f'{chip({**c, "n": len(rows) + 1})}</dd></div>')
    docs = ", ".join(os.path.basename(str(d)) for d in card.get("docs") or [])
    body = (f'<dl class="cw-profile">{"".join(rows)}</dl>' if rows
            else '<p class="cw-muted">Their documents give none of the card\'s fields.</p>')
    return _panel(f'<div class="cw-panel-head" data-person-ref="{esc(person_ref(name))}">'
                  f'<span class="cw-badge cw-badge-person">{esc(initials(name))}</span>'
                  f'<div><div class="cw-doc-name">{esc(name)}</div><div class="cw-doc-title">Profile card · {esc(docs)}'
                  f'</div></div></div>', body + '<div class="cw-verified">✓ Every line is quoted from their documents: '
                  "click a number to see where.</div>")


def parse_cite(ref: str) -> tuple[int, str, int, int] | None:
    m = CITE_REF.match(ref.strip())
    if not m:
        return None
    return int(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4))


def parse_person(ref: str) -> str | None:
    m = PERSON_REF.match(ref.strip())
    return urllib.parse.unquote(m.group(1)) if m else None
