"""Helpers shared by every `citewise` command module (options, error mapping, output, opening)."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

import click

from ingest import CitewiseError

from .settings import Settings

INDEX_HELP = "Index directory. Default: $CITEWISE_INDEX, else the user data dir."


def index_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--index", "index_dir", type=click.Path(file_okay=False, path_type=Path), envvar="CITEWISE_INDEX",
        help=INDEX_HELP,
    )(fn)


def friendly_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Library errors become one clear line and exit code 1, here and nowhere else."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except CitewiseError as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper


def dump(obj: Any) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, indent=2))


def open_assistant(index_dir: Path | None) -> Any:
    from .api import Assistant

    return Assistant.open(index_dir, settings=Settings(index=index_dir) if index_dir else None)
