"""Follow-up questions: "What about his PhD?" / "and Bartan?" made standalone from the conversation.

Rule-based, before retrieval:
- "and X?", "what about X?", "how about X?" where X names a known person: the previous question,
  asked about X instead ("Where did Balin do his PhD?" + "and Bartan?" -> "Where did Bartan do his PhD?");
  with a thing of theirs ("what about Bartan's website?"), that thing is what is asked;
- "what about <topic>?" without a person: the topic, asked about the previous question's person;
- he / she / they / his / her / their: the person the conversation was last about.
A question that names a person, or that has no pronoun and no follow-up shape, is left as is.
People are found by the alias rules of `answer.resolve` (accent-free spellings, surnames, a unique
given name, initials + surname, possessives), the same rules that scope the search.
Left out: coreference to things other than people ("that paper"), and history in other languages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .answer.aliases import people_named


def named_people(text: str, people: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the known people `text` names, ()) by the resolver's alias rules."""
    return people_named(text, list(people)), ()

Turn = dict[str, Any] | tuple[str, str] | list[str]

_SHORT = re.compile(r"^\s*(?:and|what\s+about|how\s+about|same\s+for|and\s+what\s+about)\s+(.+?)\s*\??\s*$", re.I)
_POSSESSED = re.compile(r"(?:'s|’s|s'|s’)\s+\w")  # a possessive with its thing: "Bartan's website"
_PRONOUN = re.compile(r"\b(he|she|him|his|her|hers|they|them|their|theirs)\b", re.I)


def _content(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # gradio content parts: [{"type": "text", "text": ...}]
        return " ".join(_content(v) for v in value)
    if isinstance(value, dict):
        return str(value.get("text") or value.get("content") or "")
    return ""


def user_turns(history: Sequence[Turn]) -> list[str]:
    """The user's questions in `history`, oldest first (messages dicts or (user, assistant) pairs)."""
    out: list[str] = []
    for turn in history:
        if isinstance(turn, dict):
            if turn.get("role") == "user":
                out.append(_content(turn.get("content")))
        elif isinstance(turn, (tuple, list)) and turn:
            out.append(_content(turn[0]))
    return [t.strip() for t in out if t and t.strip()]


def last_person(questions: Sequence[str], people: Sequence[str]) -> tuple[str, str] | None:
    """(person, the question naming them) for the most recent question naming a known person; None
    when that question names several (a pronoun cannot be pinned on one of them)."""
    for q in reversed(questions):
        named, _ = named_people(q, people)
        if named:
            return (named[0], q) if len(named) == 1 else None
    return None


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def resolve(question: str, history: Sequence[Turn], people: Sequence[str]) -> str:
    """`question` made standalone against `history` (see the module docstring)."""
    q = " ".join(question.split())
    previous = user_turns(history)
    if not previous or not q:
        return q
    named, _ = named_people(q, people)
    short = _SHORT.match(q)
    if short:
        target = short.group(1)
        target_named, _ = named_people(target[0].upper() + target[1:], people)
        last = last_person(previous, people)
        if target_named and _POSSESSED.search(target):  # "what about Bartan's website?": his website
            return f"What about {target}?"
        if target_named and last:
            person, prev_q = last
            return _swap_person(prev_q, person, target_named[0], people)
        if target_named:
            return f"{previous[-1].rstrip('?')} - {target}?"
        if last and not named:
            topic = _PRONOUN.sub(lambda m: _possessive(last[0]) if m.group(1).lower() in ("his", "her", "their") else last[0], target)
            if topic == target:
                topic = f"{_possessive(last[0])} {target}"
            return f"What about {topic}?"
    if named:
        return q
    last = last_person(previous, people)
    if last and _PRONOUN.search(q):
        person = last[0]
        return _PRONOUN.sub(
            lambda m: _possessive(person) if m.group(1).lower() in ("his", "her", "hers", "their", "theirs") else person, q
        )
    return q


def _swap_person(prev_q: str, old: str, new: str, people: Sequence[str]) -> str:
    """`prev_q` with the written form of `old` replaced by `new`."""
    from ingest.names import names_match

    words = prev_q.split()
    for size in range(min(5, len(words)), 0, -1):
        for i in range(len(words) - size + 1):
            span = " ".join(words[i : i + size])
            core = re.sub(r"(?:'s|’s)?[?.,!]*$", "", span)
            if core and all(w[0].isupper() for w in core.split()) and names_match(core, old):
                tail = span[len(core) :]
                return " ".join([*words[:i], new + tail, *words[i + size :]])
    return f"{prev_q.rstrip('?')} - {new}?"
