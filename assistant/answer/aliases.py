"""The people a question names: each document owner's aliases (the full name, its accent-free spelling,
initials + surname, the surname, the given name while no other owner shares it; see `resolve`'s module
docstring for the rules) and where a text writes them (`find_people`, `people_named`)."""

from __future__ import annotations

from collections.abc import Sequence

from index import Store
from ingest.names import names_match, split_name

from .words import common_words, fold, key, tokens


def aliases_of(name: str, others: Sequence[str] = ()) -> tuple[str, ...]:
    """The ways a question may name the owner `name` (see the module docstring), fullest first."""
    try:
        from ingest.names import name_aliases  # the owners' alias rules, when ingest has them

        return tuple(name_aliases(name, list(others)))
    except ImportError:
        pass
    words = name.replace(",", " ").split()
    if not words:
        return ()
    given, surname = words[:-1], words[-1]
    while given and given[-1].lower() in {"van", "von", "der", "den", "de", "del", "della", "da", "di", "du", "le", "la"}:
        surname = f"{given.pop()} {surname}"
    out = [" ".join(words)]
    if given:
        out.append(" ".join([*(g[0] + "." for g in given), surname]))
        out.append(f"{given[0][0]}. {surname}")
        out.extend(f"{g} {surname}" for g in given if len(g.rstrip(".")) > 1)
    out.append(surname)
    full = [g for g in given if len(g.rstrip(".")) > 1]
    if full and not any(fold(o) != fold(name) and fold(full[0]) in {fold(w) for w in o.split()[:-1]} for o in others):
        out.append(full[0])
    return tuple(dict.fromkeys(out))


def stored_aliases(store: Store) -> dict[str, tuple[str, ...]] | None:
    """Owner -> aliases as the index stores them (ingest's owner detection), when it does."""
    getter = getattr(store, "owner_aliases", None)
    if getter is None:
        return None
    try:
        found = getter()
    except Exception:  # noqa: BLE001 - an older index without the table: derive them here
        return None
    return {str(k): tuple(v) for k, v in dict(found).items()}


def find_people(words: list[tuple[str, int, int]], aliases: dict[str, tuple[str, ...]]
                 ) -> tuple[list[tuple[int, int, str]], set[int]]:
    """Alias matches as (first word, end word, person), each kept unless inside a longer match of
    another person; and the indices of the words they cover."""
    keys = [key(w) for w, _, _ in words]
    matches: list[tuple[int, int, str]] = []
    for person, names in aliases.items():
        for alias in names:
            parts = [key(w) for w, _, _ in tokens(alias)]
            parts = [p for p in parts if p]
            n = len(parts)
            if not n:
                continue
            for i in range(len(keys) - n + 1):
                if keys[i : i + n] != parts:
                    continue
                if n == 1 and not words[i][0][:1].isupper():  # one word: only as a capitalised name
                    continue
                if n == 1 and i == 0 and parts[0] in common_words():  # "Will ..." opens a question
                    continue
                if n == 1 and len(parts[0]) < 2:
                    continue
                if n == 1 and _in_other_name(words, i, person):  # "David Robles" names no David Moody
                    continue
                matches.append((i, i + n, person))
    for person in aliases:  # other spellings ending in the surname: "Fatih Balin", "M. Fatih Balin"
        given, last = split_name(person)
        surname = last.split()[-1:]
        for i, k in enumerate(keys):
            if not surname or k != surname[0]:
                continue
            for n in range(2, min(4, i + 1) + 1):
                part = [w for w, _, _ in words[i - n + 1 : i + 1]]
                span = " ".join(part)
                if (len(split_name(span)[0]) <= len(given)
                        and names_match(span, person)):
                    matches.append((i - n + 1, i + 1, person))
    kept = [m for m in matches
            if not any(o[2] != m[2] and o[0] <= m[0] and m[1] <= o[1] and (o[1] - o[0]) > (m[1] - m[0]) for o in matches)]
    covered = {j for a, b, _ in kept for j in range(a, b)}
    return kept, covered


def _in_other_name(words: list[tuple[str, int, int]], i: int, person: str) -> bool:
    """Is the one word `words[i]` (an alias of `person`) the given name of another person's full name: followed
    by a word written as a name is ("Robles": capitalised, the rest in lower case; not a common word) that is no
    word of `person`'s name? (A surname after another given name may be a short form of theirs, "Matt
    Martin" for Matthew Martin; another surname after their given name names someone else.)"""
    own = {key(w) for w, _, _ in tokens(person)}
    if i + 1 < len(words) and fold(words[i][0]) != fold(split_name(person)[1]):
        w = words[i + 1][0]
        return w.istitle() and w.isalpha() and len(w) > 1 and key(w) not in own and w.lower() not in common_words()
    return False


def people_named(text: str, names: Sequence[str], aliases: dict[str, tuple[str, ...]] | None = None
                 ) -> tuple[str, ...]:
    """The people of `names` that `text` names, in order of mention, by the same alias rules as
    `resolve` (`aliases`: owner -> aliases as the index stores them; derived from `names` when None)."""
    words = tokens(text)
    if not words or not names:
        return ()
    if aliases is None:
        aliases = {n: aliases_of(n, [o for o in names if o != n]) for n in names}
    matches, _ = find_people(words, {n: aliases.get(n) or aliases_of(n) for n in names})
    return tuple(dict.fromkeys(m[2] for m in sorted(matches)))
