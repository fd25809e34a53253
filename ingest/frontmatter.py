"""Markdown front matter (Jekyll, Hugo, Pandoc): a YAML block between `---` lines at the very top.

The block is document properties, not text: it is parsed with `yaml.safe_load` and removed from what
gets indexed. Its `title` becomes the format's title and its `author` (or `name`) the author property,
both only evidence for the owner/title decision (`ingest.owner`). A block that is not valid YAML, or
not a mapping, is left in the text untouched. Left out: TOML (`+++`) and JSON front matter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_BLOCK = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)(?:\r?\n)(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
MAX_BLOCK = 64 * 1024  # a longer "front matter" is not one


@dataclass(frozen=True)
class FrontMatter:
    title: str | None
    author: str | None
    end: int  # offset in the text where the body starts (0: no front matter)


def _scalar(value: Any) -> str | None:
    """A short string from a YAML value: a string, the first of a list, or a mapping's `name`."""
    if isinstance(value, list) and value:
        value = value[0]
    if isinstance(value, dict):
        value = value.get("name")
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        text = " ".join(str(value).split())
        return text[:200] or None
    return None


def split_front_matter(text: str) -> FrontMatter:
    """The front matter's title and author, and where the body starts; `end == 0` when there is none."""
    m = _BLOCK.match(text)
    if not m or len(m.group(1)) > MAX_BLOCK:
        return FrontMatter(None, None, 0)
    import yaml

    try:
        data = yaml.safe_load(m.group(1))
    except yaml.YAMLError:
        return FrontMatter(None, None, 0)
    if not isinstance(data, dict):
        return FrontMatter(None, None, 0)
    keys = {str(k).lower(): v for k, v in data.items()}
    author = next((a for k in ("author", "authors", "name") if (a := _scalar(keys.get(k)))), None)
    return FrontMatter(_scalar(keys.get("title")), author, m.end())
