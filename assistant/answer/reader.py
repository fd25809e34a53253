"""The default answer writer: a learned, calibrated extractive reader (steps 2-6 of the answer path).

`Reader.write(question, hits)`:
- cuts the hits into candidates (`candidates`), computes general features (`features`) and gives each
  candidate its own probability of answering, `sigmoid(w . standardised(x) + b)` with parameters
  fitted on a tune split (`train`; `model.ReaderModel`, `reader.json` in this package, applied with numpy only);
- a fact question is answered by its best candidate when the question's answerability reaches the
  fitted threshold, leading with the shortest phrase of the kind asked for (a date, a number, a person, a
  place or organisation; `detect`) when the candidate holds one; at most 300 characters;
- a question asking for the e-mail or web address of a person it names ("What is Jane Roe's email?";
  `detect.SHAPED`) is answered by the first address of that shape in their document that spells part of
  their name ("jroe@example.org"), without a confidence: the ranker's features (cosines, word overlaps)
  cannot see that a bare address answers such a question, and an address naming someone else (a
  referee's) is not theirs; when none does, the one address of their document's opening. When there is
  none, it abstains;
- a fact question naming a term written as a code ("GPU", "CatBoost", "GPT-4") that none of the documents
  read holds is refused, and the note names the term and the documents (`mentions`): a claim of absence is
  made only of what the index's document terms show, never a guess; so is one stating a quantity ("in the last
  24 hours", "a 50% penalty") or a term written as a code that the passage it would quote and its section do not
  hold (`mentions.unheld`);
- otherwise it abstains: "not found" plus the closest passages shown as related, not an answer;
- a "who / which people" question lists every person (document owner; a document without owner by
  its title, or by its file name tagged "owner unknown" when people are listed beside it) that the fitted "who" document
  model accepts, each on one line of at most ~120 characters with one quote, and a coverage note.
Every line of an answer is a verbatim slice of a cited quote, or a person's name from ingest.
Left out: merging facts from several passages, paraphrase (see `assistant.llm` for an LLM writer).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from index import Embedder, Hit
from index.reading import ReadingModel, reading_model

from ..people import Person, group_people
from . import Answer, Citation, asks, citation_from_hit, detect
from .addresses import own_address
from .aliases import people_named, stored_aliases
from .candidates import Candidate, Piece, candidates, column_names, echo_key, navigation, pieces_of
from .fact import answer_fact, chunks_of, named_people
from .features import Idf, VectorCache, embedded, features, focus, unmatched
from .model import PARAMS, READING_PARAMS, ReaderModel, untrained
from .reread import Reread, reread, unread
from .resolve import located, names_one_title, names_unowned
from .who import answer_who, take_turns, top_per_doc, with_names

log = logging.getLogger(__name__)
VECTOR_FILE = "reader-vectors.npz"  # in the index folder: the embedded lines, kept between runs
SAVE_EVERY = 512  # new line vectors between two saves of that file
NOT_FOUND = ("Your documents don't seem to answer this: no passage answers it confidently enough "
             "(the closest ones are listed as related, not an answer).")


# which questions the reading model reads: every one, or the fact questions about documents of no person
READ_FOR = ("unowned", "all")
# A fact question about a person's documents that the ranker alone abstains on is read by the reading model too,
# and its answer given when it is more likely right than not (its calibrated confidence at least this): a second
# reading, not a lower bar (see `Reader.write`).
SECOND_SURE = 0.5


def _load(path: Path) -> ReaderModel:
    try:
        return ReaderModel.load(path)
    except ValueError as exc:  # missing or from another feature set: say so, read with fixed weights
        log.warning("%s; the reader uses fixed weights until it is refitted", exc)
        return untrained()


@dataclass(frozen=True)
class Reading:
    """Everything the reader computed for one question (also what `train` fits on)."""

    question: str
    hits: tuple[Hit, ...]
    pieces: tuple[Piece, ...]
    cands: tuple[Candidate, ...]
    x: np.ndarray  # (len(cands), len(NAMES))
    p: np.ndarray  # (len(cands),): the final probability (`ReaderModel.second`)
    unmatched: np.ndarray  # (len(cands),): `features.unmatched`, for answerability
    first: np.ndarray | None = None  # (len(cands),): the candidate ranker's probability (before reading)
    rr: Reread | None = None  # what the reading model read (`reread`)
    model: ReaderModel | None = None  # the parameters that scored it (`Reader.model` or `Reader.read_model`)
    qvec: np.ndarray | None = None  # the question's vector (`focus`), as the features read it
    closeness: np.ndarray | None = None  # (len(pieces),): a piece's MiniLM cosine to it, nan where not computed
    located: frozenset[str] = frozenset()  # the question's words that located its one document (`resolve.located`)

    @property
    def read(self) -> np.ndarray | None:
        """The reading model's probability for each candidate (nan: not read), or None."""
        return self.rr.p if self.rr is not None else None

    def text(self, i: int) -> str:
        c = self.cands[i]
        return self.hits[c.hit].text[c.start:c.end]


def people_of_hits(hits: Sequence[Hit]) -> list[Person]:
    seen: dict[str, tuple[str, str | None, str]] = {}
    for h in hits:
        seen.setdefault(h.doc, (h.doc, h.owner, h.title))
    return group_people(list(seen.values()))


class Reader:
    """Extractive reader with calibrated per-candidate probabilities (see the module docstring)."""

    def __init__(self, embedder: Embedder, store: Any = None, model: ReaderModel | None = None,
                 per_doc: int = 2, reading: ReadingModel | str | None = None, read_top: int = 6,
                 read_for: str = "all") -> None:
        self.embedder = embedder
        self.store = store
        # the reading model (`index.reading`) reads the ranker's `read_top` best candidates (`reread`) of the
        # questions `read_for` names (`READ_FOR`): every one, or the fact questions about unowned documents
        self.reading = reading_model(reading) if isinstance(reading, str) else reading
        self.read_top = read_top
        if read_for not in READ_FOR:
            raise ValueError(f"read_for must be one of {', '.join(READ_FOR)}, not {read_for!r}")
        self.read_for = read_for
        self.vectors = VectorCache(embedder)
        # the lines' vectors are kept beside the index, so the next run embeds only lines it has not read
        path = getattr(store, "path", None)
        self.vector_file: Path | None = Path(path) / VECTOR_FILE if path is not None else None
        if self.vector_file is not None:
            self.vectors.load(self.vector_file)
        self.per_doc = per_doc  # "who" questions read this many of each document's best chunks
        # `model` scores what the reading model does not read; `read_model` (fitted with it) what it reads
        if model is not None:  # given parameters score every question, read or not
            self.model = self.read_model = model
        else:
            self.model = _load(PARAMS)
            self.read_model = _load(READING_PARAMS) if self.reading is not None else self.model
            if self.reading is not None and read_for == "all":
                self.model = self.read_model
        self._idf: tuple[object, Idf] | None = None
        self._lock = threading.Lock()
        self._saving = threading.Lock()
        self._heads: dict[tuple[int, str], frozenset[str]] = {}

    def idf(self, hits: Sequence[Hit]) -> Idf:
        if self.store is None:
            return Idf([h.text for h in hits])
        key = (id(self.store), getattr(self.store, "generation", 0))
        with self._lock:
            if self._idf is None or self._idf[0] != key:
                self._idf = (key, Idf.of_store(self.store))
            return self._idf[1]

    def _headings(self, doc: str) -> frozenset[str]:
        """The `echo_key`s of the section headings of `doc` (every level of every chunk's section path),
        kept per document until the store's next write."""
        if self.store is None:
            return frozenset()
        key = (getattr(self.store, "generation", 0), doc)
        with self._lock:
            found = self._heads.get(key)
        if found is None:
            found = frozenset(k for c in self.store.chunks_of(doc) for part in c.section.split(" > ")
                              if (k := echo_key(part)))
            with self._lock:
                if len(self._heads) > 256:
                    self._heads.clear()
                self._heads[key] = found
        return found

    def read(self, question: str, hits: Sequence[Hit], who: bool = False) -> Reading:
        """Candidates, features and probabilities of `question` over `hits`; a "who" question (`who`)
        has every document's best candidate read by the reading model, not only the best few."""
        hits = tuple(hits)
        pieces = tuple(pieces_of(hits))
        cands = tuple(candidates(hits, pieces))
        qvec = np.asarray(self.embedder.embed_query(focus(question, hits)), dtype=np.float32)
        where = frozenset() if who else located(question, hits, self.store)
        x = features(question, qvec, hits, pieces, cands, self.vectors, self.idf(hits), where)
        u = unmatched(question, hits, pieces, cands, self.idf(hits))
        self.keep_vectors()
        unscored = Reading(question, hits, pieces, cands, x, np.zeros(0, np.float32), u, qvec=qvec, located=where)
        return self._scored(unscored, who, self.reads(hits, who))

    def read_again(self, r: Reading) -> Reading:
        """The fact question `r` read by the reading model, with the features `r` computed (see `write`)."""
        return self._scored(r, False, self.reading is not None)

    def _scored(self, r: Reading, who: bool, reads: bool) -> Reading:
        """`r` with the probabilities of the parameters for a question the reading model reads (`reads`) or not."""
        model = self.read_model if reads else self.model
        hits, pieces, cands = r.hits, r.pieces, r.cands
        first = model.prob(r.x) if len(cands) else np.zeros(0, np.float32)
        if len(cands):
            nav = np.array(navigation(hits, pieces, cands, self._headings), bool) | np.array(
                column_names(hits, pieces, cands), bool)
            if nav.any() and not nav.all():  # a table of contents, or a table's column names, answers nothing: the
                # other candidates decide
                first = np.where(nav, 0.0, first).astype(np.float32)
        rr = reread(self.reading if reads else None, r.question, hits, cands, first, self.read_top, per_doc=who,
                    located=r.located) if len(cands) else unread(0)
        return replace(r, p=model.second(first, rr.p, rr.margin), first=first, rr=rr, model=model)

    def near(self, r: Reading, hit: int) -> Reading:
        """`r` with the closeness to the question of every piece of the chunk `hit` (`extent.restates` reads
        it); the pieces' vectors are those the features embedded, so this costs a lookup."""
        if r.qvec is None:
            return r
        ids = [j for j, pc in enumerate(r.pieces) if pc.hit == hit]
        close = np.full(len(r.pieces), np.nan, np.float32)
        text = r.hits[hit].text
        close[ids] = self.vectors.get([embedded(text[r.pieces[j].start:r.pieces[j].end]) for j in ids]) @ r.qvec
        return replace(r, closeness=close)

    def reads(self, hits: Sequence[Hit], who: bool) -> bool:
        """Does the reading model read this question? With `read_for` "unowned", only a fact question
        whose passages all belong to no person (a paper, a report, a manual, a web page): it reads prose
        well, and a CV's lines or a form's fields poorly, where the ranker alone does better (measured:
        docs/reading-model.md)."""
        if self.reading is None:
            return False
        return self.read_for == "all" or (not who and not any(h.owner for h in hits))

    def keep_vectors(self, force: bool = False) -> None:
        """Save the lines' vectors beside the index once `SAVE_EVERY` new ones were embedded (any new
        one with `force`, as a command does before it exits). A folder we cannot write to only logs."""
        if self.vector_file is None or not self.vectors.unsaved or (self.vectors.unsaved < SAVE_EVERY and not force):
            return
        if not self._saving.acquire(blocking=force):  # another thread of this server is saving them now
            return
        try:
            self.vectors.save(self.vector_file)
        except OSError as exc:
            log.debug("could not keep the reader's vectors in %s: %s", self.vector_file, exc)
        finally:
            self._saving.release()

    def prepare(self, question: str, hits: Sequence[Hit]) -> tuple[bool, list[Hit], list[Person]]:
        """Is it a "who" question, the hits to read (a few per document for "who"), and the people."""
        people = people_of_hits(hits)
        owners = [p.name for p in people if p.owner_known]
        # a question naming someone (by the resolver's alias rules, as its search was scoped) asks about them
        aliases = stored_aliases(self.store) if self.store is not None else None
        named = bool(people_named(question, owners, aliases)) or (
            self.store is not None and (names_one_title(question, self.store) or names_unowned(question, self.store)))
        is_who = not named and asks.asks_who(question)
        return is_who, (with_names(question, hits, top_per_doc(hits, self.per_doc)) if is_who else list(hits)), people

    def rank(self, question: str, hits: Sequence[Hit]) -> list[Hit]:
        """`hits` reordered by how likely each is to hold the answer: the reader's best candidate
        probability in each hit, ties kept in search order. The reader is a second-stage ranker here,
        fitted on the answer candidates of the tune split (`train`). The search order stays when the
        reader would abstain: its probabilities then rank passages that do not answer.

        A "who" question's hits are every person's best chunks: the people take turns (`take_turns`),
        those the fitted "who" model matches first, likeliest first, so the first few hits (what an
        LLM writer or a LangChain chain reads) show every match and not one person's six chunks."""
        hits = list(hits)
        if len(hits) < 2:
            return hits
        is_who, read, _people = self.prepare(question, hits)
        r = self.read(question, read, who=is_who)
        m = r.model or self.model
        sure = bool(r.cands) and m.answerable(r.p, r.x, r.unmatched, r.read) >= m.threshold
        if is_who:
            doc_p: dict[str, float] = {}
            if sure:
                docs, pm, _ = m.doc_matches(r)
                doc_p = {d: float(v) for d, v in zip(docs, pm, strict=True)}
            return take_turns(hits, doc_p, m.who_threshold)
        kind = asks.asked(question)
        if kind in detect.SHAPED and (named := named_people(self.store, r)) and (
                own := own_address(r, kind, named, chunks_of(self.store))):
            first = own.citations[0].chunk_id  # the chunk `write` answers from (see `fact.answer_fact`)
            return sorted(hits, key=lambda h: h.chunk_id != first)
        if not sure:
            return hits
        best: dict[str, float] = {}
        for c, p in zip(r.cands, r.p, strict=True):
            best[r.hits[c.hit].chunk_id] = max(best.get(r.hits[c.hit].chunk_id, -1.0), float(p))
        return [hits[i] for i in sorted(range(len(hits)), key=lambda i: (-best.get(hits[i].chunk_id, -1.0), i))]

    def write(self, question: str, hits: Sequence[Hit], threshold: float | None = None) -> Answer:
        """The answer to `question` from `hits`; `threshold`: answer a fact question when its answerability
        is at least this instead of the fitted threshold (the checks of what the quote holds still apply;
        "who" questions keep theirs)."""
        is_who, hits, people = self.prepare(question, hits)
        r = self.read(question, hits, who=is_who)
        if not r.cands:
            return Answer(question, NOT_FOUND, True, kind="abstain", notes=("nothing was retrieved",))
        if is_who:
            return answer_who(self, r, people)
        answer = answer_fact(self, r, threshold)
        if answer.abstained and threshold is None and self.reading is not None and not self.reads(hits, False):
            # a CV's line the ranker cannot tell from its neighbours ("Who advises her PhD?" and the line
            # naming the advisor) is read against the question; a near miss stays refused unless the
            # reading model is sure (`SECOND_SURE`)
            second = answer_fact(self, self.read_again(r))
            if not second.abstained and (second.confidence or 0.0) >= SECOND_SURE:
                return replace(second, notes=(*second.notes, "read twice: the ranker alone would have refused it, "
                                              f"and the reading model is at least {SECOND_SURE:.0%} sure of this passage"))
        return answer

    def how_sure(self, p: float, model: ReaderModel) -> str:
        """An abstention's note: how likely the closest passages answer, beside what an answer needs."""
        return (f"the reader rates the closest passages {model.sure(p):.0%} likely to answer it; it answers from "
                f"{model.sure(model.threshold):.0%}")

    def abstain(self, r: Reading, why: str, confidence: float | None = None) -> Answer:
        order = np.argsort(-r.p)
        related: list[Citation] = []
        seen: set[int] = set()
        for i in order:
            c = r.cands[int(i)]
            if c.hit in seen or len(r.text(int(i)).strip()) < 25:
                continue
            seen.add(c.hit)
            related.append(citation_from_hit(len(related) + 1, r.hits[c.hit], c.start, c.end, score=float(r.p[i])))
            if len(related) == 3:
                break
        best = float(r.p.max()) if len(r.p) else 0.0
        return Answer(r.question, NOT_FOUND, True, (), tuple(related), notes=(why,), kind="abstain",
                      confidence=best if confidence is None else confidence)
