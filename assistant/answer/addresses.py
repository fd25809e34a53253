"""E-mail and web addresses: their written shapes, whose they are, and where a person's are.

A question asking for the address of a person it names ("What is Jane Roe's email?"; `asks.asked`
reads the noun asked for) cannot be answered by the candidate ranker: a bare "jroe@example.org" shares
no word with the question and its chunk's cosine is diluted by the rest of a CV's header. So:
- `shapes` (`ingest.addresses`): where a text holds an e-mail address (also written against robots,
  "jroe [at] example (dot) org") or a web address (a scheme, "www.", or a dotted host name ending in letters);
- the person's documents are looked through for chunks holding one (`resolve.look_through`), added
  after the search's hits;
- `names_owner` / `first_own`: the answer is the first address in the person's document that spells
  part of their name; a referee's or co-author's address is not theirs; when none does, the one address of
  their document's opening (its name and contact lines, before the first section, or in the first section under
  a name heading standing alone: `in_opening`) is theirs;
  `own_address` writes it, leading with the address and quoting its line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from index import Hit, StoredChunk
from ingest.addresses import domain_name, own_part, shapes
from ingest.names import fold, names_match

from . import Answer, citation_from_hit
from .candidates import Candidate
from .features import flat

if TYPE_CHECKING:
    from .reader import Reading

SHAPED = ("email", "url")  # kinds a text holds by their written shape alone: an e-mail address, a web address


def names_owner(address: str, owner: str | None) -> bool:
    """Does an e-mail or web address spell part of `owner`'s name? Read in the address's own part (an
    e-mail's before the "@" or "[at]", a web address without its scheme and "www."), accents and case
    folded, in runs of letters and also run together ("m.f.balin", "mfbal.in"): a word of the name of
    three letters or more inside a run ("rhaas"; each part of a hyphenated surname: "friosa" for
    "Fernando Rios-Avila"), a run of five letters or more that starts a word of the
    name ("sharbat" for "Sharbatanu"; also once the given names' initials around it are taken off: "francojc"
    for "Jerid C. Francom"), a two-letter word of the name alone or with an initial ("wu",
    "xwu"), the initials of the whole name ("jrd" for "Jane R. Doe"), or a login cut from a word of it (`_login`)."""
    words = [fold(w).strip(".,") for w in re.split(r"[\s‐-]+", owner or "")]  # a hyphenated surname's parts too
    words = [w for w in words if w.isalpha()]
    runs = re.findall(r"[^\W\d_]+", fold(own_part(address)))
    runs.append("".join(runs))
    initials = "".join(w[0] for w in words)
    # a shortened surname with the given names' initials after or before it ("francojc" for "Jerid C. Francom")
    given = initials[:-1]
    if len(given) >= 1:
        runs += [r[: -len(given)] for r in runs if r.endswith(given)] + [r[len(given):] for r in runs if r.startswith(given)]
    short = {w for w in words if len(w) == 2}
    with_initial = short | {i + w for w in short for i in initials} | {w + i for w in short for i in initials}
    return any(
        any(len(w) >= 3 and (w in run or (len(run) >= 5 and w.startswith(run))) for w in words)
        or _login(run, words)
        or run in with_initial or (len(words) >= 2 and run == initials)
        for run in runs) or _personal_domain(address, words)


def _login(run: str, words: list[str]) -> bool:
    """Is `run` a login of the classic shape, a name's word cut to its first five letters or more and two letters
    or fewer after it, initials whether the name writes them or not ("andersrb" for "Brian Anderson")?"""
    return any(len(w) > k >= 5 and w.startswith(run[:k]) for w in words for k in range(len(run) - 2, len(run)))


def _personal_domain(address: str, words: list[str]) -> bool:
    """Is an e-mail address at a domain named after the person ("jobs@sxlijin.com", "me@janeroe.dev")? The
    domain's name (the label before its last) holds a word of their name of three letters or more, and what is
    left of it once their name's words are taken out is two letters at most, initials ("sx"), not another word
    ("roe-lab": a lab's)."""
    name = re.sub(r"[^a-z]", "", fold(domain_name(address)))
    found = [w for w in words if len(w) >= 3 and w in name]
    for w in sorted(found, key=len, reverse=True):
        name = name.replace(w, "", 1)
    return bool(found) and len(name) <= 2


def _names_doc(part: str, hit: Hit) -> bool:
    """Is the heading `part` the name of `hit`'s owner or its document's title?"""
    return names_match(part, hit.owner or "") or fold(part) == fold(hit.title or "")


def in_opening(hit: Hit, chunks: Sequence[StoredChunk] = ()) -> bool:
    """Is `hit` in the opening of its owner's document: under no heading, or only under headings that are the
    owner's name or the document's title (a CV's name and contact lines)? With the document's `chunks` (in
    order), also the first section under the name's heading when that heading stands alone ("## Jane Roe", then
    "### Software Engineer" over the contact lines): the first chunk that says more than its heading, when no
    chunk before it does."""
    if not hit.owner:
        return False
    parts = [p.strip() for p in hit.section.split(" > ") if p.strip()]
    if all(_names_doc(part, hit) for part in parts):
        return True
    if len(parts) != 2 or not _names_doc(parts[0], hit):
        return False
    first = next((c for c in chunks if c.text.strip().count("\n") or not c.text.lstrip().startswith("#")), None)
    return first is not None and first.chunk_id == hit.chunk_id


def first_own(hits: Sequence[Hit], cands: Sequence[Candidate], p: np.ndarray, kind: str,
              named: set[str], chunks: Callable[[str], Sequence[StoredChunk]] = lambda doc: ()
              ) -> tuple[int, int, int, bool] | None:
    """(candidate, start, end in its hit's text, whether it spells the name) of the address of `kind` that
    answers for the people `named`: among the candidates of their documents holding one that spells part of
    the owner's name (`names_owner`), the document of the likeliest candidate (`p`), and in it the first
    address, since contact details come first (a homepage before a project's repository) and the ranker
    cannot tell addresses apart; when none spells it, the one address of their document's opening (`in_opening`,
    reading the document's `chunks`). None when there is none."""
    own: list[tuple[str, int, int, int, int]] = []  # (doc, where in it, candidate, start, end)
    opening: dict[tuple[str, int, int, int, int], str] = {}  # addresses in the opening of their document: as written
    read: dict[str, Sequence[StoredChunk]] = {}  # each document's chunks, read once

    def chunks_read(doc: str) -> Sequence[StoredChunk]:
        if doc not in read:
            read[doc] = chunks(doc)
        return read[doc]

    for i, c in enumerate(cands):
        hit = hits[c.hit]
        if hit.owner not in named:
            continue
        text = hit.text[c.start:c.end]
        for a, b in shapes(kind, text):
            found = (hit.doc, hit.start + c.start + a, i, c.start + a, c.start + b)
            if names_owner(text[a:b], hit.owner):
                own.append(found)
            elif in_opening(hit, chunks_read(hit.doc)):
                opening[found] = fold(text[a:b]).removeprefix("mailto:")
    # none spells their name: the one address of the contact line under their name ("resume2024@pm.me"), when the
    # opening of their document holds one alone (written once or more: "[jroe@x.org](mailto:jroe@x.org)")
    spelled = bool(own)
    if not own and len({(o[0], written) for o, written in opening.items()}) == 1:
        own = list(opening)
    if not own:
        return None
    doc = max(own, key=lambda o: p[o[2]])[0]
    _, _, i, a, b = min(o for o in own if o[0] == doc)
    return i, a, b, spelled


def own_address(r: Reading, kind: str, named: set[str],
                chunks: Callable[[str], Sequence[StoredChunk]] = lambda doc: ()) -> Answer | None:
    """The answer to a question asking the e-mail or web address (`kind`) of the people `named`
    (`addresses.first_own`; `chunks`: a document's chunks, in order), leading with the address and quoting its
    line; None when there is none."""
    found = first_own(r.hits, r.cands, r.p, kind, named, chunks)
    if found is None:
        return None
    i, a, b, spelled = found
    c = r.cands[i]
    hit = r.hits[c.hit]
    start, end = max(c.start, hit.text.rfind("\n", 0, a) + 1), hit.text.find("\n", b)
    end = c.end if end < 0 else min(end, c.end)
    address, body = hit.text[a:b], flat(hit.text[start:end])
    answer = f"{address} [1]\n{body} [1]" if len(address) + len(body) + 1 <= 300 else f"{address} [1]"
    cite = citation_from_hit(1, hit, start, end, score=float(r.p[i]))
    return Answer(r.question, answer, False, (cite,), fact=address,
                  notes=(f"the address spells part of {hit.owner}'s name" if spelled else
                         f"the one address under {hit.owner}'s name, in the opening of their document",))
