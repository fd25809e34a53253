"""`citewise settings`: every setting in effect (defaults, preset, CITEWISE_* variables, options)."""

from __future__ import annotations

from typing import Any

import click

from ..settings import Settings, preset_description, preset_names
from .common import cli_settings, friendly_errors
from .common import dump as _dump


def settings_summary(settings: Settings) -> dict[str, Any]:
    """The retrieval and answer settings in effect, for `stats` and `settings`."""
    out = settings.describe()
    return {"preset": out["preset"], "retrieval": out["retrieval"], "answer": out["answer"]}


def _value(value: Any) -> str:
    return "-" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


@click.command("settings")
@click.option("--json", "as_json", is_flag=True,
              help='{"preset": ..., "settings": {every setting}, "presets": {name: description}}')
@friendly_errors
def settings_cmd(as_json: bool) -> None:
    """Show every setting in effect and the named presets.

    Values come from the defaults, then the preset (--preset NAME or $CITEWISE_PRESET), then CITEWISE_*
    variables (sections with a double underscore: CITEWISE_RETRIEVAL__DENSE_WEIGHT=0.4), then options.
    A value that differs from its default is marked with *.

    \b
    Examples:
      citewise settings
      citewise --preset rrf settings --json
      CITEWISE_RETRIEVAL__K=6 citewise ask "Who has worked on graph neural networks?"
    """
    settings = cli_settings()
    presets = {name: preset_description(name) for name in preset_names()}
    if as_json:
        _dump({"preset": settings.preset, "settings": settings.describe(), "presets": presets})
        return
    rows = settings.knobs()
    width = max(len(name) for name, *_ in rows)
    for name, value, default, description in rows:
        mark = "*" if value != default else " "
        click.echo(f"{mark} {name:<{width}}  {_value(value):<12}  {description}")
    click.echo("\npresets (--preset NAME):")
    for name, description in presets.items():
        click.echo(f"  {name:<10}{description}")
