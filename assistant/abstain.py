"""When to say "Your documents don't say": the support rule and the abstention answer.

The rule is lexical support of the question's key terms (see `evidence`): the best unit must reach
`SUPPORT_THRESHOLD`, the mean over key-term groups of 1.0 (in the passage), 0.8 (in the lines just
above it), 0.6 (in its section, title or owner), 0 (nowhere). With 0.75, every key term must be found
when a question has up to three of them, and one of four or more may be missing ("What decoding
approach does the Randomized Polar Codes paper propose?" still answers when "paper" is not written).
Semantic closeness alone never answers: a passage about GPUs is close to "What is Baolin's favourite
programming language?" and still says nothing about a favourite. The threshold was chosen on questions
written for the seed profiles (tests/test_answer_abstain.py), then measured on seed_dev.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from index import Hit

from .answer import Answer, Citation, citation_from_hit
from .evidence import Scored
from .question import Question, term_key

SUPPORT_THRESHOLD = 0.75


def answerable(best: Scored | None, q: Question) -> bool:
    """Does the best-supported unit answer `q`? (See the module docstring.)"""
    return best is not None and bool(q.groups) and best.support >= SUPPORT_THRESHOLD


def missing_words(q: Question, missing: Sequence[str]) -> list[str]:
    """The question's own words for the missing term groups ("programm" -> "programming")."""
    keys = {k for m in missing for k in m.split("|")}
    words = [w for w in re.findall(r"[\w.+#'’-]+", q.topic or q.text) if term_key(w) in keys]
    seen: dict[str, None] = {}
    for w in words:
        seen.setdefault(w.strip(".'’").removesuffix("'s"), None)
    return list(seen)


def related(scored: Sequence[Scored], hits: Sequence[Hit], n: int = 3) -> tuple[Citation, ...]:
    """The closest passages, one per chunk: shown as related, never as the answer."""
    out: list[Citation] = []
    seen: set[int] = set()
    for s in scored:
        if s.unit.hit in seen or len(hits[s.unit.hit].text[s.unit.start : s.unit.end].strip()) < 25:
            continue  # one passage per chunk; a bare heading is not worth showing
        seen.add(s.unit.hit)
        hit = hits[s.unit.hit]
        out.append(citation_from_hit(len(out) + 1, hit, s.unit.start, s.unit.end, score=s.support))
        if len(out) == n:
            break
    return tuple(out)


def abstention(q: Question, scored: Sequence[Scored], hits: Sequence[Hit], scope: str = "") -> Answer:
    """The abstention answer: what is missing, where we looked, and related passages."""
    scope = scope or "your documents"
    if not hits:
        text = "Your documents don't say: nothing in the index matches this question."
    elif not q.groups:
        text = "Your documents don't say: the question names nothing specific to look for."
    else:
        best = scored[0] if scored else None
        words = missing_words(q, best.missing) if best else []
        if words:
            quoted = ", ".join(f"“{w}”" for w in words)
            text = f"Your documents don't say: nothing in {scope} mentions {quoted} in connection with this question."
        else:
            text = f"Your documents don't say: no passage in {scope} supports all of this question."
    return Answer(q.text, text, True, (), related(scored, hits), kind="abstain")
