"""Training examples for the reading model: (question, window) pairs cut from SQuAD paragraphs.

A window looks like one of citewise's answer candidates (`assistant.answer.candidates`): a paragraph
is cut into pieces by the candidates' own code (`assistant/answer/segments.py`, loaded by its path:
its lines; a line longer than `LIMIT` characters into its sentences, a sentence still longer at a
word boundary), and a window is a run of one to three consecutive pieces of at most `LIMIT` characters.
The reading model scores such windows at run time, so it is trained on them.

For an answerable question, a window holding a whole answer is a positive (its span is the answer's
place in it); a window that does not touch any answer is a negative; a window holding part of an
answer is left out. Every window of an unanswerable question's paragraph is a negative. SQuAD 2.0's
unanswerable questions were written to look answerable from their paragraph: they are the near
misses citewise must refuse. `swapped` makes more of them from answerable questions (see there).

This module needs only the standard library, so the training command runs where citewise is not
installed (a GPU machine with torch alone).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_PIECES = 3
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Question:
    qid: str
    article: str
    question: str
    context: str
    answers: tuple[tuple[int, int], ...]  # (start, end) character offsets into `context`; () = unanswerable


@dataclass(frozen=True)
class Example:
    """One (question, window) pair: `label` 1 when the window holds an answer, whose character offsets
    in the window are `span` ((-1, -1) otherwise)."""

    qid: str
    question: str
    window: str
    label: int
    span: tuple[int, int] = (-1, -1)
    kind: str = ""  # "squad", "unanswerable", "swapped": where the example comes from


def _segments() -> Any:
    """`assistant/answer/segments.py`, loaded by its path: the candidates' own cutting, without importing
    citewise (its package needs far more than this command does)."""
    path = Path(__file__).resolve().parent.parent / "assistant" / "answer" / "segments.py"
    spec = importlib.util.spec_from_file_location("citewise_segments", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SEGMENTS = _segments()
LIMIT = SEGMENTS.LIMIT


def pieces(text: str, limit: int = LIMIT) -> list[tuple[int, int]]:
    """(start, end) of the pieces of `text`: lines, long lines cut into sentences, long sentences at a word."""
    return [(a, b) for a, b, _ in SEGMENTS.pieces(text, limit)]


def windows(text: str, limit: int = LIMIT, max_pieces: int = MAX_PIECES) -> list[tuple[int, int]]:
    """(start, end) of every run of 1..`max_pieces` consecutive pieces spanning at most `limit` characters."""
    ps = pieces(text, limit)
    out = []
    for k, (a, _) in enumerate(ps):
        for n in range(1, max_pieces + 1):
            if k + n > len(ps):
                break
            end = ps[k + n - 1][1]
            if n > 1 and end - a > limit:
                break
            out.append((a, end))
    return out


def read_squad(path: str | Path) -> list[Question]:
    """The questions of a SQuAD 1.1 / 2.0 JSON file, with their answers as character offsets."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    out = []
    for article in data["data"]:
        for para in article["paragraphs"]:
            ctx = para["context"]
            for qa in para["qas"]:
                spans = []
                for ans in qa.get("answers") or []:
                    text, start = ans["text"], int(ans["answer_start"])
                    if ctx[start:start + len(text)] != text:
                        start = ctx.find(text)
                    if start >= 0 and text.strip():
                        spans.append((start, start + len(text)))
                if qa.get("is_impossible"):
                    spans = []
                elif not spans:
                    continue  # an answer we cannot place: no label to learn from
                out.append(Question(str(qa["id"]), str(article["title"]), qa["question"].strip(), ctx,
                                    tuple(dict.fromkeys(spans))))
    return out


def article_split(title: str, share: int) -> bool:
    """Is this article in the validation part? The first byte of sha256("validation:" + title) is below
    `share` (of 256). (The held-out articles were chosen by the title's own hash, so that one says nothing
    of the articles left.)"""
    return hashlib.sha256(f"validation:{title}".encode()).digest()[0] < share


def _overlap(question: str, text: str) -> float:
    q = {w.lower() for w in _WORD.findall(question) if len(w) > 2}
    return len(q & {w.lower() for w in _WORD.findall(text)}) / (len(q) or 1)


def labelled_windows(q: Question) -> list[tuple[int, int, int, tuple[int, int]]]:
    """(start, end, label, span-in-window) of every window of the question's paragraph; windows that cut
    an answer in two are left out."""
    out = []
    for a, b in windows(q.context):
        inside = [(s, e) for s, e in q.answers if a <= s and e <= b]
        touching = [(s, e) for s, e in q.answers if s < b and e > a]
        if inside:
            s, e = min(inside, key=lambda x: x[1] - x[0])  # the shortest answer the window holds
            out.append((a, b, 1, (s - a, e - a)))
        elif not touching:
            out.append((a, b, 0, (-1, -1)))
    return out


def erased(window: str, span: tuple[int, int]) -> str:
    """`window` without its answer phrase: what is left restates the question and answers nothing
    ("The Board determines the probable cause of this accident to be: ." or a header naming the asked
    field with nothing after it)."""
    s, e = span
    text = " ".join(f"{window[:s].rstrip()} {window[e:].lstrip()}".split())
    return re.sub(r" ([.,;:!?)])", r"\1", text)  # no space left before the punctuation that followed the answer


# where a sentence's clauses meet: a comma, semicolon or colon before a space, a bracket, a spaced dash
_CLAUSE = re.compile(r"\s*(?:[,;:](?=\s)|[()\[\]]|\s[-\u2013\u2014]\s|[\u2013\u2014])\s*")


def clauses(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """(start, end) of the clauses of `text[a:b]`, cut where `_CLAUSE` matches ("1,200" stays whole)."""
    out, at = [], a
    for m in _CLAUSE.finditer(text, a, b):
        if m.start() > at:
            out.append((at, m.start()))
        at = max(at, m.end())
    if b > at:
        out.append((at, b))
    return [(s, e) for s, e in out if _WORD.search(text, s, e)]


def fragments_of(q: Question, rng: random.Random) -> list[Example]:
    """Short windows cut from clauses, as a CV's line or a form's field is short ("Ph.D., Georgia Tech,
    2019"; "Probable cause:"). For an answerable question: the clauses of its answer's sentence that hold
    the answer (half the time with the clause before them) as a positive, and the clause of that sentence
    that shares most words with the question but touches no answer as a negative: it restates the
    question ("the Normans conquered England" for "When did the Normans conquer England?") and answers
    nothing. For an unanswerable one: the clause of its paragraph that shares most words with it."""
    kind = "fragment"
    if not q.answers:
        cs = [c for a, b in pieces(q.context) for c in clauses(q.context, a, b)]
        best = max(cs, key=lambda c: _overlap(q.question, q.context[c[0]:c[1]]), default=None)
        if best is None or not _overlap(q.question, q.context[best[0]:best[1]]):
            return []
        return [Example(q.qid, q.question, q.context[best[0]:best[1]], 0, (-1, -1), kind)]
    s, e = rng.choice(q.answers)
    sentence = next(((a, b) for a, b in pieces(q.context) if a <= s and e <= b), None)
    if sentence is None:
        return []
    cs = clauses(q.context, *sentence)
    cover = [k for k, (a, b) in enumerate(cs) if a < e and b > s]
    if len(cs) < 2 or not cover:
        return []
    first = cover[0] - (1 if cover[0] > 0 and rng.random() < 0.5 else 0)
    fa, fb = min(cs[first][0], s), max(cs[cover[-1]][1], e)
    out = []
    if (fa, fb) != sentence:
        out.append(Example(q.qid, q.question, q.context[fa:fb], 1, (s - fa, e - fa), kind))
    rest = [(a, b) for a, b in cs if not any(x < b and y > a for x, y in q.answers)
            and len(_WORD.findall(q.context, a, b)) >= 3]
    best = max(rest, key=lambda c: _overlap(q.question, q.context[c[0]:c[1]]), default=None)
    if best is not None and _overlap(q.question, q.context[best[0]:best[1]]):
        out.append(Example(q.qid, q.question, q.context[best[0]:best[1]], 0, (-1, -1), kind))
    return out


def examples_of(q: Question, rng: random.Random, negatives: int, kind: str, erase: float = 0.0) -> list[Example]:
    """One positive window (when answerable) and up to `negatives` negative windows of the question:
    half the question's most word-sharing windows (the hard ones), half drawn at random. With
    probability `erase`, the positive window is also given without its answer phrase as a negative
    (`erased`): a passage that restates the question is no answer to it."""
    ws = labelled_windows(q)
    pos = [w for w in ws if w[2] == 1]
    neg = [w for w in ws if w[2] == 0]
    out = []
    if pos:
        a, b, _, span = rng.choice(pos)
        out.append(Example(q.qid, q.question, q.context[a:b], 1, span, kind))
        if erase and rng.random() < erase:
            rest = erased(q.context[a:b], span)
            if any(c.isalpha() for c in rest):
                out.append(Example(q.qid, q.question, rest, 0, (-1, -1), "erased"))
    else:
        negatives += 1  # an unanswerable question: every window is a near miss worth reading
    neg.sort(key=lambda w: -_overlap(q.question, q.context[w[0]:w[1]]))
    hard = neg[: (negatives + 1) // 2]
    rest = neg[len(hard):]
    chosen = hard + rng.sample(rest, min(len(rest), negatives - len(hard)))
    out.extend(Example(q.qid, q.question, q.context[a:b], 0, (-1, -1), kind) for a, b, _, _ in chosen)
    return out


_NAME = re.compile(r"\b(?:[A-Z][\w'-]*)(?:\s+(?:of|the|de|and|[A-Z][\w'-]*))*(?<=\w)|\b\d[\d,.]*\b")


def _phrases(text: str) -> list[str]:
    """Capitalised runs and numbers of `text`: the kind of thing a near miss swaps. A capitalised word
    that starts a sentence is left out: it is capitalised for its place, not as a name."""
    return [m.group(0) for m in _NAME.finditer(text)
            if len(m.group(0)) > 1 and m.start() > 0 and not re.search(r"[.!?]\s*$", text[:m.start()])]


def swapped(q: Question, others: Sequence[str], rng: random.Random) -> Question | None:
    """An unanswerable near miss made from an answerable question: one name or number the question
    shares with its answer's sentence is replaced by a different one of the same shape (a number by a
    number, a name by a name) from another paragraph of the same article, which this paragraph never
    mentions. "When did the Normans conquer England?" -> "When did the Normans conquer Sicily?" asked
    of the paragraph about England. The question's first word is never swapped (it is capitalised as
    the start of a sentence, not as a name)."""
    found = [m for m in _NAME.finditer(q.question) if m.start() > 0 and m.group(0) in q.context]
    if not found:
        return None
    m = rng.choice(found)
    number = m.group(0)[0].isdigit()
    pool = [p for p in others if p[0].isdigit() == number and p not in q.context and p != m.group(0)]
    if not pool:
        return None
    new = q.question[:m.start()] + rng.choice(pool) + q.question[m.end():]
    return Question(f"{q.qid}:swap", q.article, new, q.context, ())


def build(questions: Sequence[Question], *, seed: int, negatives: int, swap_share: float,
          limit: int | None = None, erase: float = 0.0, fragments: float = 0.0) -> list[Example]:
    """Examples for `questions` (in a seeded random order, the first `limit` questions): each question's
    windows (`examples_of`) and, for a `swap_share` of the answerable ones, a swapped near miss
    (`swapped`) whose windows are all negatives; `erase`: see `examples_of`; for a `fragments` share of
    the questions, clause-sized windows (`fragments_of`)."""
    rng = random.Random(seed)
    order = list(questions)
    rng.shuffle(order)
    if limit is not None:
        order = order[:limit]
    by_article: dict[str, list[str]] = {}
    for q in questions:
        by_article.setdefault(q.article, [])
    contexts: dict[str, set[str]] = {}
    for q in questions:
        contexts.setdefault(q.article, set()).add(q.context)
    for art, ctxs in contexts.items():
        by_article[art] = sorted({p for c in ctxs for p in _phrases(c)})
    out: list[Example] = []
    for q in order:
        out += examples_of(q, rng, negatives, "squad" if q.answers else "unanswerable", erase)
        if fragments and rng.random() < fragments:
            out += fragments_of(q, rng)
        if q.answers and rng.random() < swap_share:
            s = swapped(q, by_article[q.article], rng)
            if s is not None:
                out += examples_of(s, rng, negatives, "swapped")
    return out


def batches(examples: Sequence[Example], size: int, rng: random.Random, pool: int = 50,
            by_question: bool = False) -> Iterator[list[Example]]:
    """Shuffled batches of `size` windows of similar length (a pool of `pool` batches sorted by length,
    then cut: far less padding than random batches), in a random order. With `by_question`, each
    question's windows stay together (for the listwise loss, which compares them)."""
    if not by_question:
        order = list(examples)
        rng.shuffle(order)
        flat: list[list[Example]] = []
        for i in range(0, len(order), size * pool):
            chunk = sorted(order[i:i + size * pool], key=lambda e: len(e.question) + len(e.window))
            flat += [chunk[j:j + size] for j in range(0, len(chunk), size)]
        rng.shuffle(flat)
        yield from flat
        return
    groups: dict[str, list[Example]] = {}
    for e in examples:
        groups.setdefault(e.qid, []).append(e)
    order = list(groups.values())
    rng.shuffle(order)
    out: list[list[Example]] = []
    per = max(1, size // max(1, round(len(examples) / max(len(groups), 1))))  # questions per batch
    for i in range(0, len(order), per * pool):
        chunk = sorted(order[i:i + per * pool], key=lambda g: max(len(e.question) + len(e.window) for e in g))
        out += [[e for g in chunk[j:j + per] for e in g] for j in range(0, len(chunk), per)]
    rng.shuffle(out)
    yield from out
