"""Helpers shared by every `citewise` command module (options, error mapping, output, opening)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from functools import wraps
from pathlib import Path
from typing import Any

import click
from pydantic import ValidationError
from pydantic_settings import SettingsError as PydanticSettingsError

from index.errors import EmbedderMismatch, IndexCorrupt, IndexNotFound
from ingest import CitewiseError

from ..settings import (
    ModelNotFound,
    Settings,
    SettingsError,
    check_model,
    explain,
    load_settings,
    near_misses,
)

# Errors the user fixes by changing what they typed (a setting, a path, a model or preset name, the
# index they point at): exit status 2, like a usage error. Other library errors exit 1.
BAD_INPUT: tuple[type[Exception], ...] = (SettingsError, IndexNotFound, IndexCorrupt, EmbedderMismatch)

INDEX_HELP = "Index directory. Default: $CITEWISE_INDEX, else the user data dir."


def index_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--index", "index_dir", type=click.Path(file_okay=False, path_type=Path), envvar="CITEWISE_INDEX",
        help=INDEX_HELP,
    )(fn)


STORE_HELP = (
    "Vector store of a NEW index: faiss (default, files in the index directory) or milvus. "
    "An existing index keeps its own; see docs/scaling.md."
)


def vector_store_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--store and the --milvus-* options; the command receives them as `vectors` (a dict for Settings)."""
    options = [
        click.option("--store", type=click.Choice(["faiss", "milvus"]), envvar="CITEWISE_STORE", help=STORE_HELP),
        click.option("--milvus-uri", envvar="CITEWISE_MILVUS_URI", metavar="URI",
                     help="milvus: a local file path (milvus-lite, one process at a time) or http://host:19530 "
                          "(a Milvus server or cluster). Default: milvus.db inside the index directory."),
        click.option("--milvus-collection", envvar="CITEWISE_MILVUS_COLLECTION", metavar="NAME",
                     help="milvus: collection name. Default: derived from the index directory."),
        click.option("--milvus-db", envvar="CITEWISE_MILVUS_DB", metavar="NAME", help="milvus: database (server only)."),
        click.option("--milvus-token", envvar="CITEWISE_MILVUS_TOKEN", metavar="TOKEN",
                     help="milvus: token or user:password; better set $CITEWISE_MILVUS_TOKEN. Never stored."),
    ]

    @wraps(fn)
    def wrapper(*args: Any, store: str | None, milvus_uri: str | None, milvus_collection: str | None,
                milvus_db: str | None, milvus_token: str | None, **kwargs: Any) -> Any:
        given = {"store": store, "milvus_uri": milvus_uri, "milvus_collection": milvus_collection,
                 "milvus_db": milvus_db, "milvus_token": milvus_token}
        if (milvus_uri or milvus_collection or milvus_db) and store is None:
            given["store"] = "milvus"  # --milvus-uri alone means Milvus
        return fn(*args, vectors={k: v for k, v in given.items() if v is not None}, **kwargs)

    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper


def shard_option(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    """--shard I/N as an `index.shard.Shard`."""
    if value is None:
        return None
    from index.shard import Shard

    try:
        return Shard.parse(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc


class BadInput(click.ClickException):
    """One line naming the bad value and what to do; exit status 2."""

    exit_code = 2


def root_params() -> dict[str, Any]:
    """The global options (--preset, --debug) of the running `citewise` command."""
    ctx = click.get_current_context(silent=True)
    return dict(ctx.find_root().params) if ctx is not None else {}


def check_paths(paths: Iterable[Path], *, allow_missing: bool = False) -> None:
    """Every path given on the command line exists and can be read (`allow_missing`: may be gone)."""
    for p in paths:
        if not p.exists():
            if allow_missing:
                continue
            raise BadInput(f"cannot read {p}: no such file or directory; check the path "
                           "(--prune drops the documents of a folder that is gone)")
        if not os.access(p, os.R_OK | (os.X_OK if p.is_dir() else 0)):
            raise BadInput(f"cannot read {p}: permission denied; check its permissions")


def cli_settings(**given: Any) -> Settings:
    """Settings from the options a command was given (None: not given) and the global --preset."""
    for var, meant in near_misses():
        click.echo(f"warning: ignoring ${var}: no setting reads it; did you mean ${meant}?", err=True)
    values = {k: v for k, v in given.items() if v is not None}
    if root_params().get("preset"):
        values["preset"] = root_params()["preset"]
    return load_settings(**values)


def click_error(exc: Exception) -> click.ClickException | None:
    """The one-line CLI error for a library error, or None for a bug (which keeps its traceback)."""
    if isinstance(exc, IndexCorrupt):
        return BadInput(f"{exc}; it was written by a newer citewise or is damaged: upgrade citewise "
                        "(pip install -U citewise), or build a new index (citewise index PATH --index DIR)")
    if isinstance(exc, BAD_INPUT):
        return BadInput(str(exc))
    if isinstance(exc, ValidationError | PydanticSettingsError):  # Settings() built inside the library
        return BadInput(explain(exc))
    if isinstance(exc, OSError) and exc.filename is not None:
        reason = exc.strerror or type(exc).__name__
        return BadInput(f"cannot read {exc.filename}: {reason}; check the path and its permissions")
    if isinstance(exc, CitewiseError):
        return click.ClickException(str(exc))
    return None


def friendly_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Library errors become one clear line (exit 2 for bad input, 1 otherwise), here and nowhere else;
    `citewise --debug ...` lets them through with their traceback."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except click.ClickException:
            raise
        except Exception as exc:
            error = click_error(exc)
            if error is None or root_params().get("debug"):
                raise
            raise error from exc

    return wrapper


def dump(obj: Any) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, indent=2))


def open_assistant(index_dir: Path | None, *, embeds: bool = False) -> Any:
    """The `Assistant` of the index; `embeds`: the command will embed text (search, ask, serve), so the
    index's model must be loadable here, which is checked now rather than at the first question."""
    from ..api import Assistant

    settings = cli_settings(index=index_dir)
    assistant = Assistant.open(settings.index_dir(), settings=settings)
    if not embeds:
        return assistant
    built_with = assistant.store.manifest.embedder
    try:
        check_model(built_with)
    except ModelNotFound as exc:
        raise BadInput(f"the index at {assistant.store.path} was built with the embedding model {built_with!r}, "
                       "which is not available here (not packaged, not a local path, not in the Hugging Face "
                       "cache): install it there, or build a new index (citewise index PATH --index DIR)") from exc
    return assistant
