"""Step 3a of the reader: general features of each candidate, as one numpy matrix.

Features (names in `NAMES`): MiniLM cosine of the question to the candidate, to its best piece, to
its entry header and to its section heading; IDF-weighted lemma overlap (simplemma lemmas,
accent-free, dotted abbreviations also glued: "Ph.D." meets "PhD"; IDF from the collection's chunks)
of the question with the candidate and with candidate + context (an acronym meeting its spelled-out name:
`acronyms`); the plain share of question words
present; each of those relative to the best candidate of the question;
search rank and score; whether the candidate holds the kind of thing asked for (`detect`); length;
the share of its (IDF-weighted) words the question does not already say; for a question about the
present ("Where does she work now?"), whether the candidate, its entry header or its section heading
speaks of the present: a date range still running ("2021 - present") or a word such as "currently"
(`present.says_now`), unless the candidate or its entry header dates it to a period that is over
(`present.ended`: "Mentored by A. Roe, January 2019 - August 2020" above "... rats presently ...") and
the candidate itself holds no period still running, and whether it holds the first period still running of its
document (a CV opens with the current appointment); for a "how many / how much" question, whether it gives a count of what the question
counts (`detect.counts_near`: "34925 unique patients", not "54 features" for "How many samples ...?").

The question is read without the names of the retrieved documents' owners (`focus`): the cosine
uses the question minus those names, and the overlaps and word share leave out the owner's and
title's words, so a passage that only repeats who the question is about does not look like an answer.

Embeddings are of pieces (lines or sentences), cached by text, so a chunk seen before costs nothing;
a candidate's vector is the normalised mean of its pieces' vectors.
"""

from __future__ import annotations

import math
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from index import Embedder, Hit
from index.lemmas import glued, lemmas, lower_words
from index.lexical import STOPWORDS
from ingest.names import fold

from . import asks, detect, present
from .acronyms import expansions, extra_lemmas
from .candidates import Candidate, Piece

NAMES = (
    "cos", "cos_piece", "cos_header", "cos_section", "cos_rel", "cos_piece_rel",
    "idf_overlap", "idf_overlap_ctx", "idf_overlap_rel", "idf_overlap_ctx_rel", "word_share",
    "log_rank", "score_rel", "asks_kind", "kind_match", "log_chars", "pieces", "has_header",
    "new_info", "now_match", "count_match", "now_first", "now_opening",
)
# Features added after reader files were first written: a file without them still loads, and they weigh
# nothing until `citewise train-reader --keep-ranker FILE` fits them beside its ranker.
LATER = ("now_match", "count_match", "now_first", "now_opening")
_WORD = re.compile(r"\w+")
_POSSESSIVE = re.compile(r"(\w+)['’]s\b")


def surface_words(text: str) -> set[str]:
    """The accent-free words of `text` as written, and each compound joined by dots glued together
    ("Ph.D." also gives "phd", `index.lemmas.glued`), as `lemmas` glues them: the plain word share must
    meet a question's "PhD" in a CV's "Ph.D." as the lemma overlap does."""
    return {fold(w) for w in _WORD.findall(text)} | {fold(w) for w in glued(text)}


@lru_cache(maxsize=50_000)
def piece_lemmas(text: str) -> frozenset[str]:
    """`lemmas` of a piece's flattened text, kept: `features` and `unmatched` both read every piece."""
    return frozenset(lemmas(text))


class Idf:
    """Inverse document frequency of lemmas over the chunks of a store (or any texts)."""

    def __init__(self, texts: Sequence[str] = ()) -> None:
        self.df: dict[str, int] = {}
        self.n = 0
        self.lower: set[str] = set()  # words the texts write in lower case somewhere
        for t in texts:
            self.add(t)

    def add(self, text: str) -> None:
        self.n += 1
        for w in lemmas(text):
            self.df[w] = self.df.get(w, 0) + 1
        self.lower.update(lower_words(text))

    def __call__(self, word: str) -> float:
        return math.log((self.n + 1) / (self.df.get(word, 0) + 0.5))

    def proper(self, word: str) -> bool:
        """Is `word` a name as far as the collection tells: capitalised, and never written in lower
        case in it ("Carolina", "Microsoft"; not "Research" or "Science")?"""
        return word[:1].isupper() and word.isalpha() and word.lower() not in self.lower

    @classmethod
    def of_store(cls, store: object) -> Idf:
        """From the counts the index keeps (`index.lemmas`, one query), else by reading every chunk."""
        stats = getattr(store, "lemma_stats", lambda: None)()
        if stats is not None:
            idf = cls()
            idf.n, idf.df, idf.lower = stats.chunks, stats.df, set(stats.lower)
            return idf
        idf = cls()
        for d in store.documents():  # type: ignore[attr-defined]
            for c in store.chunks_of(d.doc):  # type: ignore[attr-defined]
                idf.add(c.text)
        return idf


class VectorCache:
    """Embeddings of short texts (pieces, headings), kept by text: each is embedded once.

    `save` / `load` keep them in one `.npz` file (no pickle) between runs: a reader opened on an index
    it has read before embeds only lines it has not seen (`Reader` keeps the file in the index folder)."""

    def __init__(self, embedder: Embedder, size: int = 200_000) -> None:
        self.embedder = embedder
        self.size = size
        self.unsaved = 0  # vectors embedded since the last `save` or `load`
        self._vecs: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._vecs))
        if missing:
            vecs = np.asarray(self.embedder.embed_documents(missing), dtype=np.float32)
            with self._lock:
                for t, v in zip(missing, vecs, strict=True):
                    self._vecs[t] = v
                self.unsaved += len(missing)
                while len(self._vecs) > self.size:
                    self._vecs.popitem(last=False)
        with self._lock:
            return np.stack([self._vecs[t] for t in texts]) if texts else np.zeros((0, self.embedder.dim), np.float32)

    def save(self, path: str | os.PathLike[str], limit: int = 20_000) -> None:
        """Write the `limit` most recent vectors to `path` (a `.npz`: texts, vectors and the model's
        name), atomically: a crash leaves the previous file."""
        with self._lock:
            items = list(self._vecs.items())[-limit:]
            self.unsaved = 0
        path = Path(path)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.npz")
        vecs = np.stack([v for _, v in items]) if items else np.zeros((0, self.embedder.dim), np.float32)
        try:
            # texts as one UTF-8 byte string and their lengths: a fixed-width unicode array would pad
            # every text to the longest, four bytes a character
            enc = [t.encode("utf-8") for t, _ in items]
            np.savez(tmp, text_bytes=np.frombuffer(b"".join(enc), np.uint8),
                     text_lengths=np.array([len(e) for e in enc], np.int64), vectors=vecs.astype(np.float32),
                     model=np.array(self.embedder.name))
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)

    def load(self, path: str | os.PathLike[str]) -> int:
        """Add the vectors saved at `path` by the same model; returns how many were read (0 when the
        file is missing, unreadable or from another model)."""
        try:
            with np.load(path, allow_pickle=False) as f:
                if str(f["model"]) != self.embedder.name:
                    return 0
                blob, lengths, vecs = f["text_bytes"].tobytes(), f["text_lengths"], f["vectors"]
            ends = np.cumsum(lengths).tolist()
            texts = [blob[a:b].decode("utf-8") for a, b in zip([0, *ends[:-1]], ends, strict=True)]
        except (OSError, ValueError, KeyError):  # UnicodeDecodeError is a ValueError
            return 0
        if len(texts) != len(vecs) or (len(vecs) and vecs.shape[1] != self.embedder.dim):
            return 0
        with self._lock:
            for t, v in zip(texts, vecs.astype(np.float32), strict=True):
                self._vecs.setdefault(t, v)
        return len(vecs)


def owner_tokens(owner: str | None) -> frozenset[str]:
    """The lower-case words of a document owner's name longer than an initial."""
    return frozenset(fold(w).strip(".,") for w in (owner or "").split() if len(w.strip(".,")) > 1)


def focus(question: str, hits: Sequence[Hit]) -> str:
    """The question without the names of the people whose documents were retrieved, and, when every
    hit is from one document, without the words that spell its title.

    Once a search is scoped to a person or a document, their name says where to look, not what to look
    for: a passage that merely repeats the name (a CV's header, a report's opening line restating its
    title) is no answer. The words left carry the information need ("Where did Jane Roe do her PhD?"
    -> "Where did do her PhD?"; "Who donated the diabetes dataset?" -> "Who donated the ?", which no
    passage of a file without a donor answers confidently). Titles are left alone when the hits span
    documents: a list question's property may be in the titles ("Which reports involve Piper airplanes?").
    Measured on the tune splits (realdocs, seed and our own sets, 188 questions, the packaged
    parameters): 133 -> 139 right, most of the gain near-miss unanswerables abstained (realdocs 7 -> 9/16).
    """
    out = without_names(question, [h.owner for h in hits if h.owner])
    if len({h.doc for h in hits}) == 1:
        stem = os.path.splitext(os.path.basename(hits[0].doc))[0]
        out = without_titles(out, [h.title for h in hits if h.title], whole=frozenset({fold(stem)}))
    return out


def without_titles(question: str, titles: Sequence[str], whole: frozenset[str] = frozenset()) -> str:
    """`question` without the runs of words that spell a title (two or more of its words that are not
    stop words, in a row but for stop words between them): "Who created the optical recognition of
    handwritten digits dataset?" -> "Who created the ?". A title word alone stays ("on final approach"
    when the title says "Final Report"), unless it is one of `whole`, the document's whole file name
    ("Who is the author of cachetools?" for `cachetools.md`). The question itself when nothing else
    would be left."""
    words: set[str] = set(whole)
    for t in titles:
        words |= {fold(w) for w in _WORD.findall(t)} - STOPWORDS
    if not words:
        return question
    tokens = [(m.start(), m.end(), fold(m.group(0))) for m in _WORD.finditer(question)]
    cut: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []  # the title words of the current run
    for a, b, w in [*tokens, (len(question), len(question), "")]:
        if w in words:
            run.append((a, b))
        elif w and w in STOPWORDS and run:
            continue  # "recognition of handwritten": a stop word inside a run does not end it
        else:
            if len(run) >= 2 or (len(run) == 1 and fold(question[run[0][0]:run[0][1]]) in whole):
                cut.append((run[0][0], run[-1][1]))
            run = []
    if not cut:
        return question
    out, pos = [], 0
    for a, b in cut:
        out.append(question[pos:a])
        pos = b
    out.append(question[pos:])
    text = " ".join("".join(out).split())
    return text if any(c.isalpha() for c in text) else question


def without_names(question: str, names: Sequence[str], initials: bool = False) -> str:
    """`question` without the words (and possessives) of `names`, compared case- and accent-free, and with
    `initials` also without a capital letter standing for one of their words ("C." in "Jerid C. Francom");
    the question itself when nothing else would be left."""
    words = {fold(w) for name in names for w in owner_tokens(name)}
    if not words:
        return question
    letters = {fold(w)[:1] for name in names for w in name.split()} - {""} if initials else set()
    out = _POSSESSIVE.sub(lambda m: "" if fold(m.group(1)) in words else m.group(0), question)
    out = " ".join(w for w in out.split() if fold(w.strip(".,;:?!\"'()")) not in words
                   and not (len(w.rstrip(".,")) == 1 and w[0].isupper() and fold(w[0]) in letters))
    return out if any(c.isalpha() for c in out) else question


def flat(text: str) -> str:
    return " ".join(text.split())


_LEADER = re.compile(r"([^\w\s]|_)\1{3,}")


def embedded(text: str) -> str:
    """The text a piece is embedded as: whitespace flattened and runs of one repeated mark (a table of
    contents' leader dots, a form's underscores, a rule of dashes) squeezed to one space. Each mark is a
    token of its own, so "3.2. FOIA......(100 dots)......12" cost a hundred tokens and said nothing."""
    return flat(_LEADER.sub(" ", text))


def features(question: str, qvec: np.ndarray, hits: Sequence[Hit], pieces: Sequence[Piece],
             cands: Sequence[Candidate], vectors: VectorCache, idf: Idf,
             located: frozenset[str] = frozenset()) -> np.ndarray:
    """One row of `NAMES` per candidate. `located`: the question's words that located the hits'
    document (`resolve.located`), which, like its owner's name and its title, are no evidence."""
    if not cands:
        return np.zeros((0, len(NAMES)), np.float32)
    ptexts = [embedded(hits[p.hit].text[p.start:p.end]) for p in pieces]
    sections = [embedded(h.section) or " " for h in hits]
    both = vectors.get(ptexts + sections)  # one call: one forward pass per batch, not two half-empty ones
    pv, sv = both[:len(ptexts)], both[len(ptexts):]
    pcos = pv @ qvec
    scos = sv @ qvec
    qlem = {w for w in lemmas(question)}
    qweights = {w: idf(w) for w in qlem}
    qwords = surface_words(question)
    kind = asks.asked(question)
    now = present.asks_now(question)
    now_sec = [now and present.says_now(sec) for sec in sections]  # per hit, not per candidate
    counted = frozenset(lemmas(" ".join(asks.counted(question))))
    piece_counts = [bool(counted) and detect.counts_near(t, counted) for t in ptexts]
    top_score = max((h.score for h in hits), default=1.0) or 1.0
    forms = expansions(question)  # a passage's "United Kingdom" holds the question's "UK" (`acronyms`)
    piece_lem = [piece_lemmas(t) | extra_lemmas(forms, t) if forms else piece_lemmas(t) for t in ptexts]
    # Words that locate a document (its owner's name, its title) are not evidence of an answer.
    where = lemmas(" ".join(located))
    loc = [lemmas(f"{h.owner or ''} {h.title or ''}") | where for h in hits]
    owner_words = [owner_tokens(h.owner) for h in hits]
    piece_kind = [bool(kind) and detect.holds(kind, t, owner_words[p.hit]) for t, p in zip(ptexts, pieces, strict=True)]
    sec_lem = [lemmas(s) for s in sections]
    rows = np.zeros((len(cands), len(NAMES)), np.float32)
    for r, c in enumerate(cands):
        ids = list(c.pieces)
        v = pv[ids].sum(axis=0)
        v /= np.linalg.norm(v) or 1.0
        text = hits[c.hit].text[c.start:c.end]
        lem: set[str] = set().union(*(piece_lem[j] for j in ids))
        ctx = lem | sec_lem[c.hit] | (piece_lem[c.header] if c.header is not None else set())
        words = surface_words(text)
        evidence = (qlem - loc[c.hit]) & lem
        etotal = sum(qweights[w] for w in qlem - loc[c.hit]) or 1.0
        new = lem - qlem - loc[c.hit]
        all_w = sum(idf(w) for w in lem) or 1.0
        rows[r] = (
            float(v @ qvec), float(pcos[ids].max()), float(pcos[c.header]) if c.header is not None else 0.0,
            float(scos[c.hit]), 0.0, 0.0,
            sum(qweights[w] for w in evidence) / etotal, sum(qweights[w] for w in (qlem - loc[c.hit]) & ctx) / etotal,
            0.0, 0.0, len((qwords - owner_words[c.hit]) & words) / (len(qwords - owner_words[c.hit]) or 1),
            math.log1p(c.hit), hits[c.hit].score / top_score, 1.0 if kind else 0.0,
            1.0 if any(piece_kind[j] for j in ids) else 0.0,
            math.log1p(len(text)), float(len(ids)), 1.0 if c.header is not None else 0.0,
            sum(idf(w) for w in new) / all_w,
            1.0 if now and _now_match(flat(text), ptexts[c.header] if c.header is not None else "", now_sec[c.hit])
            else 0.0,
            1.0 if any(piece_counts[j] for j in ids) else 0.0, 0.0,  # now_first: set below, per document
            1.0 if now and hits[c.hit].ord == 0 else 0.0,  # now_opening: a CV's opening lines say who one is now
        )
    for col, base in (("cos_rel", "cos"), ("cos_piece_rel", "cos_piece"), ("idf_overlap_rel", "idf_overlap"),
                      ("idf_overlap_ctx_rel", "idf_overlap_ctx")):
        b = NAMES.index(base)
        rows[:, NAMES.index(col)] = rows[:, b] - rows[:, b].max()
    rows[:, NAMES.index("now_first")] = _first_now(hits, pieces, cands, rows[:, NAMES.index("now_match")])
    return rows


def _first_now(hits: Sequence[Hit], pieces: Sequence[Piece], cands: Sequence[Candidate],
               now: np.ndarray) -> np.ndarray:
    """1 for the candidates that speak of the present (`now` > 0) and hold, in their text or their entry
    header, the first date range still running (`present.first_open`) of their document among the hits,
    else 0. A CV opens its positions with what a person does now; running memberships, service and
    courses come later."""
    out = np.zeros(len(cands), np.float32)
    if not now.any():
        return out
    first: dict[str, tuple[int, int, int]] = {}  # doc -> (offset in the document, hit, offset in the hit)
    for i, h in enumerate(hits):
        at = present.first_open(h.text)
        if at is not None and (h.doc not in first or h.start + at < first[h.doc][0]):
            first[h.doc] = (h.start + at, i, at)
    for r, c in enumerate(cands):
        _, hit, at = first.get(hits[c.hit].doc, (0, -1, 0))
        if now[r] > 0 and hit == c.hit:
            spans = [(c.start, c.end)] + ([(pieces[c.header].start, pieces[c.header].end)] if c.header is not None else [])
            out[r] = float(any(s <= at < e for s, e in spans))
    return out


def _now_match(text: str, header: str, section_now: bool) -> bool:
    """Does a candidate of a question about the present speak of it: a period still running in its own text,
    else "currently" or a running period in it, its entry header or its section heading, unless its text or
    its header dates it to a period that is over (the dates say when the entry held)?"""
    if present.ended(text):
        return False
    if present.open_range(text):
        return True
    if header and present.ended(header):
        return False
    return section_now or present.says_now(text) or bool(header) and present.says_now(header)


def unmatched(question: str, hits: Sequence[Hit], pieces: Sequence[Piece], cands: Sequence[Candidate],
              idf: Idf) -> np.ndarray:
    """For each candidate, the rarest question word it leaves unanswered: the largest IDF (over the
    largest possible, so 0..1) of the question's lemmas that are not common English words
    (scikit-learn's stop words), not words locating its document (any retrieved owner, its title), and
    in neither the candidate, its entry header nor its section heading. 0 when every such word is there.

    A question that asks for something its best passage never names ("date of birth" against a line
    of job dates) is the typical near-miss an unanswerable question makes; this is one feature of the
    fitted answerability model, never a rule by itself (a paraphrase, "doctorate" for "PhD", is
    weighed against the passage's cosine).
    """
    from .words import common_words

    if not cands:
        return np.zeros(0, np.float32)
    common = common_words()
    owners = lemmas(" ".join(h.owner or "" for h in hits))
    typed = lemmas(asks.type_word(question))  # "which company": the answer names a company, not the word
    asked = {w for w in lemmas(question) - owners - typed if w not in common}
    top = math.log((idf.n + 1) / 0.5) or 1.0
    texts = [h.text for h in hits]
    forms = expansions(question)
    ptexts = [flat(texts[p.hit][p.start:p.end]) for p in pieces]
    piece_lem = [piece_lemmas(t) | extra_lemmas(forms, t) if forms else piece_lemmas(t) for t in ptexts]
    loc = [lemmas(f"{h.owner or ''} {h.title or ''} {h.section or ''}") for h in hits]
    out = np.zeros(len(cands), np.float32)
    for r, c in enumerate(cands):
        seen: set[str] = set().union(*(piece_lem[j] for j in c.pieces), loc[c.hit])
        if c.header is not None:
            seen |= piece_lem[c.header]
        left = [idf(w) for w in asked - seen]
        out[r] = max(left) / top if left else 0.0
    return out
