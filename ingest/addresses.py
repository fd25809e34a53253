"""The written shapes of e-mail and web addresses, in any text: where a text holds one (`shapes`), and
the part of an address that names its owner (`own_part`: an e-mail's before the "@", a web address
without its scheme and "www."), and an e-mail domain's name (`domain_name`). Shapes only, no list of domains: "jroe@example.org", "jroe [at]
example (dot) org" (written against robots), "https://...", "www...." and a dotted host name ending in
letters ("jroe.github.io", "cs.example.ac.uk/~jroe"). Read by the owner decision (`owner_page`) and by
the answer path (`assistant.answer.addresses`).
"""

from __future__ import annotations

import re

_END = r"[^\s<>\"'()\[\].,;:!?]"  # a character an address may end with: not a space, bracket or full stop
# "@" and "." also as written to keep robots off: "jroe [at] example (dot) org"
_AT, _DOT = r"(?:\s*@\s*|\s*[\[({]\s*at\s*[\])}]\s*)", r"(?:\.|\s*[\[({]\s*dot\s*[\])}]\s*)"
EMAIL = re.compile(rf"(?<![\w.+-])[\w.+-]+{_AT}[\w-]+(?:{_DOT}[\w-]+)*{_DOT}[^\W\d_]{{2,}}(?![\w-])", re.IGNORECASE)
# a scheme or "www.", else a dotted host name ending in letters ("jroe.github.io"), with an optional path
URL = re.compile(r"(?:\bhttps?://|\bwww\.)[^\s<>\"'()\[\]]*" + _END +
                 r"|(?<![\w@.+-])[\w-]+(?:\.[\w-]+)*\.[^\W\d_]{2,}(?:/(?:[^\s<>\"'()\[\]]*" + _END + r")?)?(?![\w@-])")
_AT_SIGN = re.compile(_AT, re.IGNORECASE)
# what is left of one once the shapes above are out: a run holding an "@" or a "/" ("jroe@@example.org" written to fool
# harvesters, "@jroe", "github.com/jroe" cut by a line break, "/cv/roe.pdf")
_RUN = re.compile(r"\S*[@/]\S*")


def without_addresses(text: str) -> str:
    """`text` with its e-mail and web addresses, handles and paths blanked: their words are not written as words
    ("google" in "scholar.google.co.uk", "roe" in "roe.boris@@example.org")."""
    return _RUN.sub(" ", URL.sub(" ", EMAIL.sub(" ", text)))
_SCHEME = re.compile(r"^(?:https?://)?(?:www\.)?", re.IGNORECASE)


def shapes(kind: str, text: str) -> list[tuple[int, int]]:
    """Where `text` holds an e-mail address (`kind` "email") or a web address ("url"), in order."""
    pattern = EMAIL if kind == "email" else URL if kind == "url" else None
    return [(m.start(), m.end()) for m in pattern.finditer(text)] if pattern is not None else []


def domain_name(address: str) -> str:
    """The name of an e-mail address's domain: the label before its last, lower case ("sxroe" in
    "jobs@sxroe.com", "example" in "jroe [at] example (dot) org"); "" for a web address or no domain."""
    at = _AT_SIGN.search(address)
    labels = re.split(_DOT, address[at.end():].strip().lower(), flags=re.IGNORECASE) if at else []
    return labels[-2] if len(labels) >= 2 else ""


def own_part(address: str) -> str:
    """The part of an address that may name its owner: an e-mail's before its "@" (or "[at]"), a web
    address without its scheme and "www."."""
    at = _AT_SIGN.search(address)
    return address[:at.start()] if at else _SCHEME.sub("", address)
