"""Whose document is it? One explainable decision per document.

Candidates for the owner come from every source a document offers (`Source` names them):
- `title`: the first lines of page 1, with their font size and weight when the parser gives them
  (`Parsed.lines`); a line is split at separators (`|`, `:`, `,`, `•`, dashes...) and into runs of
  capitalised words, so "Last edited: 5/10/2023 | Aamir Sohail" and "Sharbatanu Chatterjee Last
  updated : 1 February 2025" yield the name and not the date fragment (digits and month names end a
  run); capitals are case-folded ("PIERO DE DOMINICIS") and spacing accents joined ("Pˆarvulescu");
  a degree or generation nameparser knows ("ADRIAN FORSYTHE Ph.D.", "Jr.") is no word against the name;
- `heading`: the format's own title (DOCX Title style, HTML `<h1>`, a Markdown `#` heading), and a name in a
  separated part of the title property ("cv | Jane Roe" in front matter, PDF Info or HTML `<title>`);
- `meta`: the author property (PDF Info, DOCX core properties, HTML meta, front matter);
- `description`: a person named in the description property ("Jane Roe's personal CV", "CV of Jane Roe" in
  front matter or HTML's meta description) whose surname a handle spells: what the page says it is about;
- `intro`: a self-introduction in the first lines of the text ("Hi, I'm Jane Roe, a software engineer");
- `email`, `url`, `filename`: an e-mail local part, a homepage or URL path, the file name, split
  into words ("nick-danis", "tyler.grimes", "Jane_Roe_CV");
- `text`: a full name in the text whose surname the e-mail, URL or file name gives;
- `authors`/`bold`: the name that dominates the document's author lists, or that it sets in bold.

Each candidate (variants of one name counted together, `names.names_match`; honorifics that
nameparser knows dropped) is scored by general evidence with hand-set weights (the `W_*` constants):
where it sits on page 1 (the largest line; the first line, or the first name line, one the tagger reads
whole as one person, under lines that hold no person's name: "Curriculum Vitae", a row of section
labels, a role, an address; on the first `FIRST_LINES` + 1 lines, or further down when it is set apart,
bold or larger than the body text, above the first section heading), how alone it stands on its line,
whether probablepeople reads it as a person or as an organisation, how many independent sources agree
(its words found in the e-mail, the URL, the file name, the author property), how often it recurs in
the author lists relative to the most listed author, and whether the document looks like a person's
(two CV sections, or one under a title that is a person's name, or contact details). A byline listing
several people gives no place on the page, whether separators part them or one run of capitalised words
too long for one name holds them (`owner_names.listed_people`); above the first section heading, its
people, without a line of their own, get no credit from the author lists (a co-author citing their own
work). A candidate needs some
evidence that it is a person (the tagger, a handle that spells it, the author property, author lists);
one that only an e-mail address or a link spells, printed nowhere in the text and not in the file
name, is none ("firstname.lastname@..."). In a document that does not look like a person's it also
needs more than its position and the author property (which names a paper's or a report's writer, not
whom it is about): author lists, a handle that spells the whole name, or a degree or honorific with it on
the title line ("ADRIAN FORSYTHE Ph.D.", which a thing never has), or the description property
and a handle that holds its surname; and a name the tagger does not read as a person's needs more than the file
name (an article is named after its title: "Sky (United Kingdom)" over `sky_united_kingdom.md`). The owner is the best candidate only when its
score clears `THRESHOLD` and beats every unrelated candidate near the threshold by `MARGIN`;
otherwise None: a missing owner costs a little, a wrong one poisons every answer about that person.
`OwnerDecision.source` says which sources agreed ("title+email+filename"). Nothing is fitted: the
weights are hand-set on the kinds of evidence, not on documents.

The candidates are gathered in `ingest.owner_candidates` (with the position weights `W_RANK`, `W_PROMINENT`);
what page 1 and the header offer (lines, handles, a person's look) is read in `ingest.owner_page`.
Titles are decided beside the owner, in `ingest.title`. Left out: documents about several people (None),
nicknames, names written surname-first without a comma, OCR. The tagger reads most pairs of capitalised
words as a person ("Annual Report", "Survey Office"); only a word the text also writes in lower case,
or an organisation's word, tells it otherwise.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .addresses import without_addresses
from .document import Section
from .names import fold, names_match, split_name
from .owner_authors import author_names, clusters
from .owner_candidates import _Cluster, gather
from .owner_names import (
    _PARTICLES,
    SURNAME_AGREES,
    agreement,
    person_evidence,
)
from .owner_page import looks_personal
from .parsed import Parsed

__all__ = ["THRESHOLD", "MARGIN", "Candidate", "OwnerDecision", "author_counts", "decide_owner",
           "detect_owner"]

THRESHOLD = 2.0  # evidence an owner must reach (about two independent kinds of support)
MARGIN = 0.75  # and its lead over any unrelated candidate that is itself near the threshold
RIVAL = THRESHOLD - MARGIN / 2  # a candidate scoring less is no rival (a role or place on line 5)

# Weights of the evidence (hand-set, not fitted; see the module docstring).
W_BOLD = 0.2
W_META = 1.0  # the author property names it
W_EMAIL = 1.0
W_URL = 0.8
W_FILENAME = 1.0
W_AUTHORS = 1.0  # recurs in the document's author lists
W_DOMINANT = 2.5  # dominates the author lists, or is set in bold again and again
W_PERSONAL = 0.5  # the document looks like a person's (CV sections, contact details at the top)
W_RECUR = 0.3  # on several of the first lines
W_TEXT = 0.3  # a full name printed in the text whose surname a handle spells
W_INTRO = 1.0  # introduces itself near the top, as a name line would

@dataclass(frozen=True)
class Candidate:
    name: str
    score: float
    sources: tuple[str, ...]  # the kinds of evidence that support it, strongest first


@dataclass(frozen=True)
class OwnerDecision:
    owner: str | None
    source: str  # "+"-joined evidence of the chosen owner ("title+email+filename"); "" when None
    score: float
    candidates: tuple[Candidate, ...]  # best first, for explanations and debugging


def decide_owner(parsed: Parsed, cleaned: str, path: str | Path = "", sections: Sequence[Section] | None = None,
                 source: str | None = None) -> OwnerDecision:
    """The person the document is about, with the evidence for it; owner None when it is not clear.

    Args:
        parsed: the parser's output (layout lines, properties, title).
        cleaned: the cleaned text.
        path: the file's path (its name is evidence).
        sections: the detected sections (CV sections are evidence that it is a person's document).
        source: the uncleaned text (bold marks `**Name**` are evidence); defaults to `parsed.text`.
    """
    got = gather(parsed, cleaned, path, source)
    groups, handles, ranked_authors, titles, bylines = got.groups, got.handles, got.ranked_authors, got.titles, got.bylines
    flat_text = lru_cache(maxsize=1)(lambda: " ".join(fold(cleaned).split()))
    common = lru_cache(maxsize=1)(lambda: _lower_words(cleaned))
    # A title the tagger reads as a name is a person's unless the text writes a word of it in lower
    # case ("Annual Report" over "this report"): a name's words are written capitalised.
    titled = any(not _common_words(t, common(), every=False) for t in titles)
    personal = looks_personal(cleaned, sections, titled)
    max_auth = ranked_authors[0][1] if ranked_authors else 1
    scored: list[tuple[float, list[str], _Cluster]] = []
    for c in groups:
        name = c.display()
        srcs = Counter(s for _, s, _ in c.names)
        evidence: dict[str, float] = {}
        if c.position:
            evidence["heading" if "heading" in srcs and not srcs.get("title") else "title"] = c.position
        if c.bold and c.position:
            evidence["title"] = evidence.get("title", 0.0) + W_BOLD
        if c.lines and len(c.lines) > 1:
            evidence["title"] = evidence.get("title", 0.0) + W_RECUR
        if "meta" in srcs:
            evidence["meta"] = W_META
        if "intro" in srcs:  # it introduces itself near the top ("Hi, I'm Jane Roe")
            evidence["intro"] = W_INTRO
        if "description" in srcs:  # the page's description names it, and a handle spells its surname
            evidence["description"] = W_META
        agree: dict[str, float] = {}
        for kind, weight in (("email", W_EMAIL), ("url", W_URL), ("filename", W_FILENAME)):
            fit = max((agreement(name, h) for h in handles[kind]), default=0.0)
            if kind == "filename" and "filename" in srcs:
                fit = 1.0  # the file is named after this person (a deliberate label, unlike a link)
            if fit:
                agree[kind] = fit
                evidence[kind] = weight * fit
        n_auth = sum(n for a, n in ranked_authors if names_match(a, name))
        if srcs.get("dominant") or srcs.get("bold"):
            evidence["bold" if srcs.get("bold") else "authors"] = W_DOMINANT
        elif n_auth >= 2:
            evidence["authors"] = W_AUTHORS * n_auth / max_auth  # relative to the most listed author
        if not c.position and split_name(name)[1] in bylines:
            # One of several people on a byline, with no line of its own: a co-author citing
            # their own work, which says nothing about whose document it is.
            evidence.pop("authors", None)
        if ("text" in srcs or "url" in srcs or "email" in srcs) and not c.position:
            # printed in the text with the surname a handle gives, or spelled whole by a link or address
            evidence["text"] = W_TEXT
        if not evidence:
            continue
        if set(srcs) <= {"email", "url"} and "filename" not in agree and not _printed(name, flat_text()):
            continue  # only an address spells it, and nothing else does ("firstname.lastname@")
        person = person_evidence(name)
        if _common_words(name, common()):
            continue  # "Annotated Doc", "Python Distro": a thing's name, however its handles spell it
        # A person's name: the tagger reads one, or an identity source (e-mail, URL, file name,
        # author property) spells it. Else it is not an owner, whatever its position.
        handle = max((agree.get(k, 0.0) for k in ("email", "url", "filename")), default=0.0)
        recurs = "authors" in evidence or "bold" in evidence
        if person < 0 or (person == 0 and handle < 0.6 and "meta" not in evidence and not recurs):
            continue
        # A document that does not look like a person's needs more than a name-like first line: its
        # author lists, its author property, or a handle that spells the whole name. A link spelling
        # a name it made itself ("kaggle.com/.../lfw-dataset" -> "Lfw Dataset") is no evidence unless
        # the text also prints that name: a document cites many addresses, but is named by one file.
        spelled = max(agree.get("email", 0.0), agree.get("filename", 0.0)) >= 1.0 or (
            agree.get("url", 0.0) >= 1.0 and _printed(name, flat_text()))
        # ... or the name, with a degree or honorific, is the document's first or largest line and a
        # handle holds its surname: two independent sources ("ADRIAN FORSYTHE Ph.D." over `forsythe_cv.pdf`;
        # "Annual Report" over `report.txt` has no degree).
        spelled = spelled or (c.credentialed and person > 0 and handle >= SURNAME_AGREES)
        # ... or the page's description names it ("CV of Antoine Roe" over `roe_cv.md`), or the writer introduces
        # themself by it ("Hi, I'm Jane Roe"): what the page is about
        spelled = spelled or "description" in evidence or "intro" in evidence
        # The author property is no such evidence: in a paper or a report it names who wrote it, not whom
        # it is about (a single author's paper, "John M. Drake" under its title and in its PDF properties).
        if not personal and not (recurs or spelled):
            continue
        # ... and a name the tagger does not read as a person's is not spelled by the file name alone: an
        # article is named after its title ("Sky (United Kingdom)" over `sky_united_kingdom.md`), a person's
        # document after its owner, and only the tagger, an address or the author property tells which
        if not personal and person == 0 and not recurs and "meta" not in evidence and set(agree) <= {"filename"}:
            continue
        # ... and a name one of whose words its text uses as an ordinary word is a thing's, however its
        # links spell it ("Apache License" over apache.org/licenses, in a text granting "a copyright
        # license"), unless its author lists or author property say otherwise
        if not personal and not (recurs or "meta" in evidence) and _common_words(name, common(), every=False):
            continue
        score = sum(evidence.values()) + person + (W_PERSONAL if personal else 0.0)
        order = sorted(evidence, key=lambda k: -evidence[k])
        scored.append((score, order, c))
    scored.sort(key=lambda x: -x[0])
    candidates = tuple(Candidate(g.display(), round(sc, 3), tuple(o)) for sc, o, g in scored[:8])
    if not scored:
        return OwnerDecision(None, "", 0.0, candidates)
    best_score, best_order, best = scored[0]
    owner = best.display()
    mine = _tokens(owner)
    # A rival is an unrelated candidate near the threshold with evidence of the kinds that make an
    # owner (place on page 1, a handle, the author property, bold marks) or of the best one's kinds:
    # a co-author who only recurs in the lists is no rival to a name the page and the e-mail agree on.
    strong = {"title", "heading", "meta", "description", "intro", "email", "url", "filename", "bold"} | set(best_order)
    rival = max((s for s, kinds, other in scored[1:]
                 if s >= RIVAL and set(kinds) & strong and not (_tokens(other.display()) & mine)),
                default=float("-inf"))
    if best_score < THRESHOLD or best_score - rival < MARGIN:
        return OwnerDecision(None, "", round(best_score, 3), candidates)
    if best_order == ["text"]:  # a name found through a handle needs the handle's agreement too
        return OwnerDecision(None, "", round(best_score, 3), candidates)
    return OwnerDecision(owner, "+".join(best_order), round(best_score, 3), candidates)


_HANDLE_LABEL = re.compile(r"\[[^\]\s]+\](?=\()")


def _lower_words(cleaned: str) -> frozenset[str]:
    """The words a document writes in lower case, outside e-mail addresses, handles and links (accent-free)."""
    # A Markdown link's one-word label is a handle ("[akhilesh-koul](https://linkedin.com/in/akhilesh-koul)"),
    # not the name's words written in lower case; nor is a link's path on the same site ("/cv/jane-roe-cv.pdf").
    # (an address written to fool harvesters, "jane.roe@@example.org", and a handle are no prose either)
    prose = without_addresses(_HANDLE_LABEL.sub(" ", cleaned))
    return frozenset(fold(w) for w in re.findall(r"[^\W\d_]+", prose) if w.islower())


def _common_words(name: str, lower: frozenset[str], every: bool = True) -> bool:
    """Whether the document also writes every word of `name` (particles aside) as an ordinary
    lower-case word (each letter run of a hyphenated word: "Shared MIME-info" in a text writing
    "shared" and "mime-info"): a package, product or dataset ("annotated doc", "python distro"), which a
    person's name is not; a person's name has a word written only capitalised ("Price" in "Mark
    Price" may be a common word, "Mark" may be too, but rarely both in the same document). With
    `every` False: whether it writes any word of `name` so (a stricter test, for weaker evidence)."""
    # letter runs, as `_lower_words` reads the text: "MIME-info" is "mime" and "info"
    words = [fold(w).lower() for part in name.split() if part.lower() not in _PARTICLES
             for w in re.findall(r"[^\W\d_]+", part) if len(w) > 1]
    return bool(words) and (all if every else any)(w in lower for w in words)


def _printed(name: str, folded_text: str) -> bool:
    """Is `name` written out in the text (`fold`ed, spaces collapsed: case, accents and spacing aside)?"""
    words = [re.escape(w) for w in fold(name).split()]
    return bool(words) and re.search(r"\b" + " ".join(words) + r"\b", folded_text) is not None


def _tokens(name: str) -> set[str]:
    given, surname = split_name(name)  # a hyphenated surname's parts too: "Rios Avila" is "Rios-Avila"
    return {t for t in (*given, surname, *re.split(r"[-‐]", surname)) if len(t) > 1}


def detect_owner(source: str, cleaned: str, sections: Sequence[Section] | None = None) -> str | None:
    """The person a plain text is about, or None (`decide_owner` without layout or file name)."""
    return decide_owner(Parsed(text=source), cleaned, "", sections, source).owner


def author_counts(cleaned: str) -> Counter[str]:
    """How often each (clustered) author name occurs in `cleaned`'s author lists."""
    return Counter(dict(clusters(author_names(cleaned))))
