"""Fusion of ranked lists: several (id, score) lists in, one (id, score) list out, best first.

Two families, both measured on Cranfield, CACM and realdocs (leave-one-collection-out, bench/loco.py):

- reciprocal rank fusion (`rrf`): only ranks count, score = sum of w / (k + rank);
- convex combination of normalised scores (`convex`): each list's scores are normalised (min-max
  to [0, 1], or z-scores) and summed with weights; an id missing from a list gets that list's
  lowest value. Scores carry how much better the first hit is than the tenth, which ranks throw away.

Learned fusion is left out: there is no training data that matches a user's collection.
"""

from __future__ import annotations

from collections.abc import Sequence

Ranked = list[tuple[int, float]]  # (id, score), best first


def rrf(lists: Sequence[Ranked], k: float = 60.0, weights: Sequence[float] | None = None) -> Ranked:
    """Reciprocal rank fusion (Cormack et al., 2009)."""
    weights = weights or [1.0] * len(lists)
    scores: dict[int, float] = {}
    for ranked, w in zip(lists, weights, strict=True):
        for rank, (i, _) in enumerate(ranked, 1):
            scores[i] = scores.get(i, 0.0) + w / (k + rank)
    return sorted(scores.items(), key=lambda t: -t[1])


def minmax(ranked: Ranked, floor: float | None = None) -> tuple[dict[int, float], float]:
    """Scores mapped to [0, 1] within the list and `floor` (the raw score of an absent id), and
    the normalised value of that floor. Equal scores all map to 1.0."""
    values = [s for _, s in ranked]
    if floor is not None:
        values.append(floor)
    if not values:
        return {}, 0.0
    lo, hi = min(values), max(values)
    span = hi - lo
    if span <= 0:
        return {i: 1.0 for i, _ in ranked}, 0.0
    return {i: (s - lo) / span for i, s in ranked}, ((floor if floor is not None else lo) - lo) / span


def zscore(ranked: Ranked, floor: float | None = None, population: int = 0) -> tuple[dict[int, float], float]:
    """Scores as standard deviations from the mean, and the value of `floor` (the raw score of an
    absent id). The statistics count `population - len(ranked)` absent ids at `floor`: a BM25 list
    with one match among 100 candidates makes that match stand far out, as it should."""
    values = [s for _, s in ranked]
    base = floor if floor is not None else min(values, default=0.0)
    pad = max(population - len(values), 1 if floor is not None else 0)
    n = len(values) + pad
    if n < 2:
        return minmax(ranked, floor)
    mean = (sum(values) + pad * base) / n
    var = (sum((v - mean) ** 2 for v in values) + pad * (base - mean) ** 2) / n
    sd = var**0.5 or 1.0
    return {i: (s - mean) / sd for i, s in ranked}, (base - mean) / sd


NORMS = {"minmax": minmax, "z": zscore}


def convex(lists: Sequence[Ranked], weights: Sequence[float], norm: str = "minmax",
           floors: Sequence[float | None] | None = None) -> Ranked:
    """Weighted sum of normalised scores (`NORMS`).

    `floors[j]` is the raw score an id absent from list j is taken to have: 0.0 for BM25 (no
    query term matched), None for a truncated list (its lowest score: the id ranked below it).
    """
    try:
        normalise = NORMS[norm]
    except KeyError:
        raise ValueError(f"unknown score normalisation {norm!r}; choose one of: {', '.join(NORMS)}") from None
    floors = floors or [None] * len(lists)
    ids = {i for r in lists for i, _ in r}
    normed = [normalise(r, f, len(ids)) if normalise is zscore else normalise(r, f)
              for r, f in zip(lists, floors, strict=True)]
    scores = dict.fromkeys(ids, 0.0)
    for (n, f), w in zip(normed, weights, strict=True):
        for i in scores:
            scores[i] += w * n.get(i, f)
    return sorted(scores.items(), key=lambda t: (-t[1], t[0]))

def interleave(ranked: Ranked, group_of: dict[int, str]) -> Ranked:
    """Round-robin over groups (e.g. the people a question names), each group keeping its order.

    Scores are rewritten to decrease with the new order; ids without a group go last.
    """
    queues: dict[str, list[tuple[int, float]]] = {}
    loose: Ranked = []
    for i, s in ranked:
        g = group_of.get(i)
        (queues.setdefault(g, []) if g is not None else loose).append((i, s))
    out: Ranked = []
    while any(queues.values()):
        for q in queues.values():
            if q:
                out.append(q.pop(0))
    out.extend(loose)
    n = len(out)
    return [(i, float(n - r)) for r, (i, _) in enumerate(out)]
