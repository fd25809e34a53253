"""The `citewise` command. Each command parses, calls one library function and prints; library
errors become `click.ClickException` here and nowhere else."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..settings import preset_names
from .common import (
    BadInput,
    check_paths,
    cli_settings,
    friendly_errors,
    index_option,
    shard_option,
    vector_store_options,
)
from .common import dump as _dump
from .common import open_assistant as _open

if TYPE_CHECKING:
    from index.shard import Shard


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="citewise")
@click.option("-v", "--verbose", count=True, help="More logging (-v info, -vv debug).")
@click.option("--preset", metavar="NAME",
              help=f"Named settings preset ({', '.join(preset_names())}); default: $CITEWISE_PRESET. "
                   "See `citewise settings`.")
@click.option("--debug", is_flag=True, help="Show the Python traceback of an error instead of one line.")
def main(verbose: int, preset: str | None, debug: bool) -> None:
    """citewise: answers about your own documents, every claim proven by an exact quote.

    \b
    Quick start:
      citewise index ~/Documents/cvs
      citewise ask "Who has worked on graph neural networks?"
      citewise serve
      citewise --preset rrf search "graph neural networks"
    """
    if preset is not None and preset not in preset_names():
        raise BadInput(f"unknown preset {preset!r} (--preset); choose one of: {', '.join(preset_names())}")
    if verbose == 0:  # the model loader's progress bars are noise on every command
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    logging.basicConfig(
        level=[logging.WARNING, logging.INFO, logging.DEBUG][min(verbose, 2)],
        format="%(levelname)s %(name)s: %(message)s",
    )


@main.command("index")
@click.argument("paths", nargs=-1, required=True, type=click.Path(readable=False, path_type=Path))  # see check_paths
@index_option
@click.option("--model", help="Embedding model name or local path (default: the packaged all-MiniLM-L6-v2).")
@click.option("--prune", is_flag=True, help="Remove indexed documents whose files under PATHS are gone.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--workers", type=click.IntRange(0, 256), metavar="N",
              help="Processes that parse and embed (each loads the model; 0: one per core). "
                   "Default: $CITEWISE_WORKERS, else 1.")
@click.option("--shard", "shard_spec", metavar="I/N", callback=shard_option,
              help="Index only shard I of N of the files (split by a hash of each file's path relative to "
                   "PATHS, the same on every machine); combine the parts with `citewise merge`.")
@vector_store_options
@friendly_errors
def index_cmd(paths: tuple[Path, ...], index_dir: Path | None, model: str | None, prune: bool, as_json: bool,
              workers: int | None, shard_spec: Shard | None, vectors: dict[str, Any]) -> None:
    """Index files and folders (recursively): txt, md, rst, pdf, docx, html.

    Re-running on the same folder only embeds new or changed files (and, once, files an older citewise
    or other chunk settings read).

    \b
    Examples:
      citewise index examples/profiles --index ./my-index
      citewise index ~/papers --workers 2
      citewise index /mnt/papers --shard 2/3 --index ./part2    # machine 2 of 3
      citewise index examples/profiles --index ./team --store milvus --milvus-uri http://milvus:19530
    """
    from tqdm import tqdm

    from ..api import build_index

    check_paths(paths, allow_missing=prune)
    options: dict[str, Any] = {**vectors, **({} if workers is None else {"workers": workers})}
    settings = cli_settings(index=index_dir, model=model, **options)
    bar = tqdm(total=0, unit="file", desc="indexing", file=sys.stderr, disable=as_json or None)

    def progress(done: int, total: int, current: str) -> None:
        bar.total = total
        bar.n = done
        bar.set_postfix_str(Path(current).name if current else "", refresh=False)
        bar.refresh()

    store, report = build_index(paths, settings=settings, prune=prune, progress=progress, shard=shard_spec)
    bar.close()
    if as_json:
        _dump({
            "index": str(store.path), "added": report.added, "updated": report.updated,
            "unchanged": report.unchanged, "moved": [list(m) for m in report.moved], "removed": report.removed,
            "reread": report.reread, "skipped": [{"path": s.path, "reason": s.reason} for s in report.skipped],
            "documents": len(store.documents()), "chunks": sum(d.chunks for d in store.documents()),
        })
        return
    for s in report.skipped:
        click.echo(f"skipped {s.path}: {s.reason}", err=True)
    click.echo(f"{report.summary(store)} ({store.path})")


@main.command()
@click.argument("parts", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
@index_option
@click.option("--json", "as_json", is_flag=True, help="Print the reports as JSON.")
@vector_store_options
@friendly_errors
def merge(parts: tuple[Path, ...], index_dir: Path | None, as_json: bool, vectors: dict[str, Any]) -> None:
    """Copy the documents of other indexes (PARTS) into this one, without re-embedding.

    For a folder indexed on several machines: each machine builds its own index of one shard
    (citewise index FOLDER --shard I/N --index PART), then one machine merges the parts. A document
    already here with the same content is left alone, with other content it is replaced; a copy of
    another document is skipped. Nothing is removed: merge into a new directory to drop documents
    the parts no longer hold.

    \b
    Example:
      citewise merge ./part1 ./part2 ./part3 --index ./team-index
    """
    from ..api import merge_indexes

    store, reports = merge_indexes(parts, settings=cli_settings(index=index_dir, **vectors))
    if as_json:
        _dump({
            "index": str(store.path),
            "parts": [{"index": part, "added": r.added, "updated": r.updated, "unchanged": r.unchanged,
                       "skipped": [{"path": s.path, "reason": s.reason} for s in r.skipped], "chunks": r.chunks}
                      for part, r in reports],
            "documents": len(store.documents()), "chunks": sum(d.chunks for d in store.documents()),
        })
        return
    for part, r in reports:
        for s in r.skipped:
            click.echo(f"skipped {s.path}: {s.reason}", err=True)
        click.echo(f"{part}: {r.summary()}")
    docs = store.documents()
    click.echo(f"{len(docs)} documents, {sum(d.chunks for d in docs)} chunks in the index ({store.path})")


@main.command()
@click.argument("query")
@click.option("-k", "k", type=click.IntRange(1, 1000), help="Number of chunks. Default: the retrieval.k setting (10).")
@index_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@friendly_errors
def search(query: str, k: int | None, index_dir: Path | None, as_json: bool) -> None:
    """Rank the indexed chunks for QUERY.

    \b
    Example:
      citewise search "graph neural networks" -k 5
    """
    from ..render import hits_text

    assistant = _open(index_dir, embeds=True)
    hits = assistant.search(query, k or assistant.settings.k)
    if as_json:
        _dump({"query": query, "hits": [h.to_dict() for h in hits]})
    else:
        click.echo(hits_text(hits))


def _session(assistant: Any, as_json: bool) -> None:
    """`citewise ask` without a question: questions read one by one from the terminal, follow-ups
    resolved against the session's earlier turns, until an empty line or end of input."""
    from ..render import answer_text

    assistant.warm()  # the model and libraries load while the first question is typed
    click.echo("Ask about your documents; an empty line or Ctrl-D ends. Follow-ups such as "
               "'and his PhD?' read the earlier questions.", err=True)
    history: list[tuple[str, str]] = []
    while True:
        try:
            q = click.prompt("", prompt_suffix="> ", default="", show_default=False, err=True).strip()
        except click.Abort:  # end of input
            break
        if not q:
            break
        answer = assistant.ask(q, history=history)
        history.append((q, answer.answer))
        click.echo(json.dumps(answer.to_dict(), ensure_ascii=False) if as_json else f"{answer_text(answer)}\n")


@main.command()
@click.argument("question", required=False)
@click.option("--questions", "questions_file", type=click.File("r"), help="Answer one question per line of FILE ('-' for stdin).")
@index_option
@click.option("--json", "as_json", is_flag=True, help="JSON (JSON lines with --questions).")
@click.option("--llm", "llm_spec", envvar="CITEWISE_LLM", metavar="PROVIDER:MODEL",
              help="Write answers with a chat model (ollama:llama3.2, openai:gpt-4o-mini, llamacpp:/path.gguf); "
                   "its citations are still checked. Default: the offline extractive writer. Needs citewise[llm].")
@friendly_errors
def ask(question: str | None, questions_file: Any, index_dir: Path | None, as_json: bool,
        llm_spec: str | None = None) -> None:
    """Answer QUESTION with numbered citations that quote your documents.

    Without QUESTION or --questions: a session in the terminal. Ask one question after another (the
    model loads once, while you type the first); follow-ups such as "and his PhD?" read the earlier
    questions; an empty line or Ctrl-D ends it.

    \b
    Examples:
      citewise ask "Where did Muhammed Fatih Balin do his PhD?"
      citewise ask
      citewise ask --questions questions.txt --json > answers.jsonl
      citewise ask "Who has worked at Netflix?" --llm ollama:llama3.2
    """
    from ..render import answer_text

    if question is not None and questions_file is not None:
        raise click.UsageError("give a QUESTION or --questions FILE, not both")
    assistant = _open(index_dir, embeds=True)
    if llm_spec:
        from ..llm import LLMWriter, chat_model

        try:
            assistant.writer = LLMWriter(chat_model(llm_spec))
        except (ImportError, ValueError) as exc:
            raise click.ClickException(str(exc)) from exc
    try:
        if question is not None:
            answer = assistant.ask(question)
            if as_json:
                _dump(answer.to_dict())
            else:
                click.echo(answer_text(answer))
            return
        if questions_file is None:
            _session(assistant, as_json)
            return
        for line in questions_file:
            q = line.strip()
            if not q:
                continue
            answer = assistant.ask(q)
            if as_json:
                click.echo(json.dumps(answer.to_dict(), ensure_ascii=False))
            else:
                click.echo(f"Q: {q}\n{answer_text(answer)}\n")
    finally:
        assistant.reader.keep_vectors(force=True)  # the next `citewise ask` embeds only new lines


@main.command()
@index_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (owner_source: the owner's evidence).")
@click.option("--set-owner", "set_owner", nargs=2, metavar="FILE NAME",
              help='Set the owner of the indexed FILE to NAME ("" = no owner); kept across re-index.')
@click.option("--reset-owner", metavar="FILE", help="Forget the owner set for FILE; the detected one applies again.")
@friendly_errors
def docs(index_dir: Path | None, as_json: bool, set_owner: tuple[str, str] | None, reset_owner: str | None) -> None:
    """List the indexed documents with their owners and the evidence for each owner.

    \b
    Examples:
      citewise docs --json
      citewise docs --set-owner ~/cvs/cv.pdf "Jane Roe"
    """
    assistant = _open(index_dir)
    if set_owner or reset_owner:
        target = str(Path(set_owner[0] if set_owner else str(reset_owner)).expanduser().resolve())
        try:
            if set_owner:
                assistant.store.set_owner(target, set_owner[1])
            else:
                assistant.store.reset_owner(target)
        except KeyError as exc:
            raise click.ClickException(f"{exc.args[0]}; index it first (citewise index FILE)") from None
    records = assistant.documents()
    if as_json:
        keys = ("doc", "title", "owner", "owner_source", "pages", "chunks", "sha256")
        _dump([{k: d.to_dict()[k] for k in keys} for d in records])
        return
    for d in records:
        owner = f"{d.owner} ({d.owner_source or 'detected'})" if d.owner else "-"
        click.echo(f"{d.doc}\n    title: {d.title} | owner: {owner} | pages: {d.pages or '-'} | chunks: {d.chunks}")
    click.echo(f"{len(records)} documents, {sum(d.chunks for d in records)} chunks, "
               f"{assistant.store.stats()['vector_index_description']} vector index ({assistant.store.path})")


@main.command()
@click.argument("chunk_id")
@index_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@friendly_errors
def show(chunk_id: str, index_dir: Path | None, as_json: bool) -> None:
    """Show the stored chunk CHUNK_ID (as printed by search and ask --json).

    \b
    Example:
      citewise show 3f2a9c0d1e4b5a67
    """
    from ..render import where

    chunk = _open(index_dir).chunk(chunk_id)
    if chunk is None:
        raise click.ClickException(f"no chunk {chunk_id!r} in this index")
    if as_json:
        _dump(chunk.to_dict())
    else:
        click.echo(f"{where(chunk.doc, chunk.page, chunk.section)}  [{chunk.chunk_id}]\n\n{chunk.text}")


@main.command()
@click.argument("paths", nargs=-1, required=True)
@index_option
@friendly_errors
def remove(paths: tuple[str, ...], index_dir: Path | None) -> None:
    """Remove documents (files, or everything under a folder) from the index.

    \b
    Example:
      citewise remove ~/Documents/cvs/old-cv.pdf
    """
    removed = _open(index_dir).remove(paths)
    for d in removed:
        click.echo(f"removed {d}")
    click.echo(f"{len(removed)} documents removed")


@main.command()
@index_option
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind; 0.0.0.0 exposes it to your network.")
@click.option("--port", default=7860, show_default=True, help="Port.")
@click.option("--auth", metavar="USER:PASS", envvar="CITEWISE_AUTH",
              help="Ask for this user name and password before showing the UI or answering the API ($CITEWISE_AUTH).")
@click.option("--max-upload-mb", default=50, show_default=True, type=click.IntRange(1, 2000),
              help="Largest file the Documents tab accepts.")
@friendly_errors
def serve(index_dir: Path | None, host: str, port: int, auth: str | None, max_upload_mb: int) -> None:
    """Open the chat in your browser (Gradio), bound to 127.0.0.1 by default.

    On another --host (e.g. 0.0.0.0) anyone on your network can reach it: set --auth, and note that
    indexing a folder from the Documents tab is then turned off (uploads still work).

    \b
    Examples:
      citewise serve --index ./my-index --port 7860
      citewise serve --host 0.0.0.0 --auth alice:correct-horse
    """
    from ..ui import serve as run

    credentials = None
    if auth:
        user, sep, password = auth.partition(":")
        if not (sep and user and password):
            raise click.BadParameter("expected USER:PASS", param_hint="--auth")
        credentials = (user, password)
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(f"warning: binding {host}: anyone on your network can read your documents through citewise"
                   + ("" if credentials else " (no --auth set)"), err=True)
    run(_open(index_dir, embeds=True), host=host, port=port, auth=credentials, max_upload_mb=max_upload_mb)


from .config import settings_cmd  # noqa: E402
from .eval import eval_group, stats, train_reader  # noqa: E402
from .table import eval_table, profile_cmd, table_cmd  # noqa: E402

main.add_command(eval_group)
main.add_command(stats)
main.add_command(train_reader)
main.add_command(settings_cmd)
main.add_command(profile_cmd)
main.add_command(table_cmd)
eval_group.add_command(eval_table)

if __name__ == "__main__":  # pragma: no cover
    main()
