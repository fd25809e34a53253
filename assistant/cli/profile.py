"""`citewise profile NAME`: a person's card (role, education, topics, publications), every field cited."""

from __future__ import annotations

from pathlib import Path

import click

from .common import dump as _dump
from .common import friendly_errors, index_option
from .common import open_assistant as _open


@click.command("profile")
@click.argument("name")
@index_option
@click.option("--json", "as_json", is_flag=True, help='{"name", "docs", "current", "education", "topics", "publications"}')
@friendly_errors
def profile_cmd(name: str, index_dir: Path | None, as_json: bool) -> None:
    """Show the profile card of the person NAME (any written form: "Balin", "M. F. Balin").

    Every field quotes the passage it comes from; fields the documents do not give stay empty.

    \b
    Example:
      citewise profile "Fatih Balin" --json
    """
    from ..profile import profile_text

    assistant = _open(index_dir)
    card = assistant.profile(name)
    if card is None:
        known = ", ".join(assistant.people.names()) or "none"
        raise click.ClickException(f"no person named {name!r} owns a document in this index (people: {known})")
    if as_json:
        _dump(card.to_dict())
    else:
        click.echo(profile_text(card))
