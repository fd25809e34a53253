"""Helpers shared by every `citewise` command module (options, error mapping, output, opening)."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

import click

from ingest import CitewiseError

from ..settings import Settings

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
    from ..api import Assistant

    return Assistant.open(index_dir, settings=Settings(index=index_dir) if index_dir else None)
