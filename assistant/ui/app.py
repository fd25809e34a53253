"""The Gradio web UI: a chat whose citations open their source, a people table whose cells open
their quote, and a documents tab.

Thin: every handler calls the `Assistant`; HTML comes from `chat` / `people` / `docs`, the look from
`assets`. `/ask`, `/search` and `/documents` are plain API endpoints for `gradio_client`.

Safety: binds 127.0.0.1 unless told; the UI shows only text stored in the index (chunks, document
records, profile cards), never a file by path. Uploads go to `<index>/uploads/` (see `docs`); the
people table's CSV is written to a temporary folder of this process, removed when it exits.
Indexing a folder typed into the Documents tab reads that folder as the user running the server,
exactly like `citewise index PATH`; it is offered only when the server listens on a loopback address
(or `allow_folders=True` is passed explicitly).

Left out: multi-user accounts (Gradio's single `auth` pair only) and per-user indexes.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr  # noqa: E402

from ingest import CitewiseError  # noqa: E402
from ingest.discover import SUPPORTED_SUFFIXES  # noqa: E402

from ..api import Assistant  # noqa: E402
from ..table import Table  # noqa: E402
from .assets import (  # noqa: E402
    BRAND_HTML,
    BRIDGE_JS,
    CHAT_PLACEHOLDER,
    DOCS_JS,
    PEOPLE_JS,
    PEOPLE_PANEL_JS,
    launch_styling,
)
from .chat import (  # noqa: E402
    EMPTY_PANEL,
    answer_html,
    esc,
    panel_message,
    parse_cite,
    parse_person,
    profile_html,
    source_html,
    status_html,
    stream_steps,
    streaming_html,
)
from .docs import (  # noqa: E402
    DEFAULT_MAX_UPLOAD_MB,
    UPLOADS,
    FileResult,
    check_upload,
    documents_html,
    find_doc,
    report_results,
    results_html,
    safe_name,
    save_upload,
    stats_html,
)
from .people import EMPTY_PEOPLE_PANEL, build_view, cell_html, intro_html  # noqa: E402

log = logging.getLogger(__name__)

LOOPBACK = ("127.0.0.1", "localhost", "::1")
STREAM_DELAY = 0.025  # seconds between streamed steps: fast, yet visibly progressive


def _message(role: str, content: str) -> dict[str, Any]:
    return {"role": role, "content": content}


def build_app(assistant: Assistant, *, allow_folders: bool = True,
              max_upload_mb: int = DEFAULT_MAX_UPLOAD_MB) -> gr.Blocks:
    """The Blocks app over `assistant` (not launched; `serve` launches it)."""
    uploads = Path(assistant.store.path) / UPLOADS
    max_bytes = max_upload_mb * 1_000_000
    csv_dir = tempfile.mkdtemp(prefix="citewise-ui-")  # the people CSVs: never inside the index
    atexit.register(shutil.rmtree, csv_dir, True)

    # -- chat --------------------------------------------------------------------------------
    def respond(message: str, history: list[dict[str, Any]], turns: list[dict[str, Any]]) -> Iterator[Any]:
        message = (message or "").strip()
        history, turns = list(history or []), list(turns or [])
        if not message:
            yield "", history, turns
            return
        history += [_message("user", message), _message("assistant", status_html("Searching your documents…"))]
        yield "", history, turns
        try:
            d = assistant.ask(message, turns).to_dict()
        except Exception as exc:  # shown in the chat, not as a stuck "Searching…" bubble
            log.exception("answering %r failed", message)
            why = str(exc) if isinstance(exc, CitewiseError) else f"Something went wrong: {type(exc).__name__}: {exc}"
            history[-1] = _message("assistant", f'<div class="cw-answer cw-abstained"><p>{esc(why)}</p></div>')
            yield "", history, turns
            return
        for partial in stream_steps(str(d.get("answer") or "")):
            history[-1] = _message("assistant", streaming_html(partial))
            yield "", history, turns
            time.sleep(STREAM_DELAY)
        history[-1] = _message("assistant", answer_html(d))
        # The question as answered (a follow-up made explicit) is what later follow-ups resolve against.
        turns += [_message("user", str(d.get("resolved") or message)),
                  {**_message("assistant", str(d.get("answer") or "")), "citations": d.get("citations", []),
                   "abstained": d.get("abstained", False)}]
        yield "", history, turns

    def open_ref(evt: gr.EventData) -> Any:
        data = evt._data if isinstance(getattr(evt, "_data", None), dict) else {}
        ref = str(data.get("ref") or "")
        cite = parse_cite(ref)
        if cite:
            n, chunk_id, start, end = cite
            chunk = assistant.chunk(chunk_id)
            if chunk is None:
                return panel_message("Passage not found",
                                     "This passage is no longer in the index: its document was removed or changed.")
            back = parse_person(str(data.get("back") or "")) or ""
            return source_html(chunk.to_dict(), n, start, end, back=back)
        name = parse_person(ref)
        if name:
            card = assistant.profile(name)
            if card is None:
                return panel_message(name, "No profile found for this person in your documents.")
            return profile_html(card.to_dict())
        return gr.skip()

    def new_chat() -> tuple[list[Any], list[Any], str]:
        return [], [], EMPTY_PANEL

    # -- people ------------------------------------------------------------------------------
    def people_names(chosen: list[str] | None) -> Any:
        names = assistant.people.names()
        return gr.Dropdown(choices=names, value=[n for n in chosen or [] if n in names])

    def build_people(chosen: list[str] | None, progress: gr.Progress = gr.Progress()) -> tuple[Any, ...]:  # noqa: B008 (Gradio injects it)
        def step(done: int, total: int, what: str) -> None:
            progress((done, total), desc=what, unit="cells")

        view = build_view(assistant, chosen, step, csv_dir)
        if view.table is None:  # an error: its line replaces the status, the table shown stays
            return gr.skip(), view.status, gr.skip(), gr.skip(), gr.skip()
        csv = gr.DownloadButton(value=str(view.csv) if view.csv else None, interactive=view.csv is not None)
        return view.html, view.status, csv, view.table, EMPTY_PEOPLE_PANEL

    def open_cell(table: Table | None, evt: gr.EventData) -> Any:
        data = evt._data if isinstance(getattr(evt, "_data", None), dict) else {}
        try:
            row, col = int(data["row"]), int(data["col"])
        except (KeyError, TypeError, ValueError):
            return gr.skip()
        return cell_html(table, row, col, assistant.chunk)

    # -- documents ---------------------------------------------------------------------------
    def doc_views() -> tuple[str, str]:
        records = assistant.documents()
        return documents_html(records, uploads), stats_html(records)

    def index_uploads(files: list[str] | None, progress: gr.Progress = gr.Progress()) -> tuple[Any, ...]:  # noqa: B008 (Gradio injects it)
        results: list[FileResult] = []
        saved: list[Path] = []
        names: dict[str, str] = {}
        for f in files or []:
            src = Path(f)
            why = check_upload(src, max_bytes)
            if why:
                results.append(FileResult(src.name, "rejected", why))
                continue
            dest = save_upload(src, uploads, src.name)
            saved.append(dest)
            names[str(dest.resolve())] = src.name if safe_name(src.name) == src.name else f"{src.name} → {dest.name}"
        for i, dest in enumerate(saved):
            progress((i, len(saved)), desc=f"Indexing {dest.name}", unit="files")
            try:
                results += report_results(assistant.add([dest]), names)
            except CitewiseError as exc:
                results.append(FileResult(names[str(dest.resolve())], "skipped", str(exc)))
        done = sum(r.status in ("added", "updated") for r in results)
        summary = f"{done} of {len(results)} file{'s' if len(results) != 1 else ''} indexed" if results else ""
        return (results_html(results, summary), *doc_views(), None)

    def index_folder(folder: str, progress: gr.Progress = gr.Progress()) -> tuple[Any, ...]:  # noqa: B008 (Gradio injects it)
        folder = (folder or "").strip()
        if not allow_folders:
            return (results_html([], "Indexing a folder is turned off on a server reachable from the network: "
                                     "upload the files instead."), *doc_views())
        path = Path(folder).expanduser()
        if not folder or not path.is_dir():
            return (results_html([], f"Not a folder on this computer: {folder!r}" if folder
                                 else "Type the path of a folder on this computer."), *doc_views())

        def step(done: int, total: int, current: str) -> None:
            desc = f"Indexing {Path(current).name}" if current else "Saving the index"
            progress((done, max(total, 1)), desc=desc, unit="files")

        try:
            report = assistant.add([path], progress=step)
        except CitewiseError as exc:
            return (results_html([], str(exc)), *doc_views())
        results = report_results(report)
        done = len(report.added) + len(report.updated)
        return (results_html(results, f"{done} indexed, {len(report.unchanged)} unchanged, "
                                      f"{len(report.skipped)} skipped from {path}"), *doc_views())

    def on_docs_click(evt: gr.EventData) -> tuple[Any, ...]:
        data = evt._data if isinstance(getattr(evt, "_data", None), dict) else {}
        key = str(data.get("remove") or "")
        if not key:
            return gr.skip(), gr.skip(), gr.skip()
        record = find_doc(assistant.documents(), key)
        if record is None:
            return (results_html([], "That document is no longer in the index."), *doc_views())
        try:
            assistant.remove([record.doc])
        except CitewiseError as exc:
            return (results_html([], str(exc)), *doc_views())
        doc = Path(record.doc)
        if doc.parent == uploads.resolve():  # our own copy of an upload goes too
            doc.unlink(missing_ok=True)
        return (results_html([FileResult(doc.name, "removed", "no longer searched or cited")]), *doc_views())

    # -- API ---------------------------------------------------------------------------------
    def ask(question: str) -> dict[str, Any]:
        """A cited answer as JSON: {question, answer, abstained, citations[...], related[...], notes[...]}."""
        return assistant.ask(question).to_dict()

    def search(query: str, k: int = 10) -> dict[str, Any]:
        """Ranked chunks as JSON: {query, hits[...]}."""
        return {"query": query, "hits": [h.to_dict() for h in assistant.search(query, int(k))]}

    def documents() -> list[dict[str, Any]]:
        """The indexed documents as JSON: [{doc, title, owner, pages, chunks, sha256}]."""
        keys = ("doc", "title", "owner", "pages", "chunks", "sha256")
        return [{k: d.to_dict()[k] for k in keys} for d in assistant.documents()]

    # -- layout ------------------------------------------------------------------------------
    with gr.Blocks(analytics_enabled=False, title="citewise", delete_cache=(3600, 3600)) as app:
        with gr.Row(elem_id="cw-header"):
            gr.HTML(BRAND_HTML)
            stats = gr.HTML(elem_id="stats")
        with gr.Tabs(elem_id="tabs"):
            with gr.Tab("Chat", id="chat-tab", elem_id="tab-chat"):
                with gr.Row(equal_height=False):
                    with gr.Column(scale=3, min_width=420):
                        chat = gr.Chatbot(
                            elem_id="chat", height=600, show_label=False, placeholder=CHAT_PLACEHOLDER,
                            feedback_options=None, latex_delimiters=[], buttons=["copy"],
                        )
                        box = gr.Textbox(elem_id="question", placeholder="Ask a question about your documents…",
                                         show_label=False, submit_btn=True, autofocus=True)
                    with gr.Column(scale=2, min_width=320):
                        panel = gr.HTML(EMPTY_PANEL, elem_id="source-panel", js_on_load=BRIDGE_JS)
                turns = gr.State([])
            with gr.Tab("People", id="people-tab", elem_id="tab-people") as people_tab:
                with gr.Row(elem_id="people-controls"):
                    who = gr.Dropdown(label="Only these people", info="Everyone when empty", choices=[], value=[],
                                      multiselect=True, elem_id="people-filter", scale=4)
                    build_btn = gr.Button("Build table", elem_id="people-build", variant="primary", scale=1)
                    csv_btn = gr.DownloadButton("Download CSV", elem_id="people-csv", interactive=False, scale=1)
                people_status = gr.HTML(elem_id="people-status")
                with gr.Row(equal_height=False):
                    with gr.Column(scale=2, min_width=480):
                        people_table = gr.HTML(intro_html(), elem_id="people-table", js_on_load=PEOPLE_JS)
                    with gr.Column(scale=1, min_width=320):
                        people_panel = gr.HTML(EMPTY_PEOPLE_PANEL, elem_id="people-panel", js_on_load=PEOPLE_PANEL_JS)
                people_state = gr.State(None)
            with gr.Tab("Documents", id="docs-tab", elem_id="tab-docs"):
                with gr.Row(equal_height=False):
                    with gr.Column(scale=3):
                        upload = gr.File(
                            label="Add documents — drop files here or click to browse", elem_id="upload",
                            file_count="multiple", file_types=sorted(SUPPORTED_SUFFIXES), height=190,
                        )
                        gr.HTML(f'<p class="cw-hint">PDF, Word, HTML, Markdown or text, up to {max_upload_mb} MB each. '
                                "Files are copied into the index folder and indexed right away.</p>")
                    with gr.Column(scale=2):
                        folder = gr.Textbox(
                            label="…or index a folder on this computer", elem_id="folder",
                            placeholder="/home/me/Documents/cvs", interactive=allow_folders,
                            info=("Read by the citewise server as you; re-indexing only embeds changed files."
                                  if allow_folders else "Turned off: this server is reachable from the network."),
                        )
                        folder_btn = gr.Button("Index folder", elem_id="index-folder", variant="primary",
                                               interactive=allow_folders)
                result = gr.HTML(elem_id="index-result", min_height=40)
                docs = gr.HTML(elem_id="documents", js_on_load=DOCS_JS)

        box.submit(respond, [box, chat, turns], [box, chat, turns], api_visibility="private", show_progress="hidden")
        panel.click(open_ref, None, panel, api_visibility="private", show_progress="hidden")
        chat.clear(new_chat, None, [chat, turns, panel], api_visibility="private", show_progress="hidden")
        upload.upload(index_uploads, upload, [result, docs, stats, upload], api_visibility="private")
        folder_btn.click(index_folder, folder, [result, docs, stats], api_visibility="private")
        folder.submit(index_folder, folder, [result, docs, stats], api_visibility="private")
        people_tab.select(people_names, who, who, api_visibility="private", show_progress="hidden")
        build_btn.click(build_people, who, [people_table, people_status, csv_btn, people_state, people_panel],
                        api_visibility="private", show_progress_on=people_table, concurrency_limit=1)
        people_table.click(open_cell, people_state, people_panel, api_visibility="private", show_progress="hidden")
        docs.click(on_docs_click, None, [result, docs, stats], api_visibility="private", show_progress="hidden")
        app.load(doc_views, None, [docs, stats], api_visibility="private", show_progress="hidden")
        app.load(people_names, who, who, api_visibility="private", show_progress="hidden")
        gr.api(ask, api_name="ask")
        gr.api(search, api_name="search")
        gr.api(documents, api_name="documents")
    return app


def folders_allowed(host: str) -> bool:
    """Indexing a typed folder path is for the person at this computer: loopback hosts only."""
    return host in LOOPBACK


def serve(assistant: Assistant, host: str = "127.0.0.1", port: int = 7860, *, block: bool = True,
          auth: tuple[str, str] | None = None, allow_folders: bool | None = None,
          max_upload_mb: int = DEFAULT_MAX_UPLOAD_MB, concurrency: int = 4, warm: bool = True) -> gr.Blocks:
    """Launch the UI. `allow_folders` defaults to True only on a loopback `host`; `warm` loads the
    embedding model and the answer path's libraries in the background at launch (`Assistant.warm`)."""
    if allow_folders is None:
        allow_folders = folders_allowed(host)
    if warm:  # the model loads while the page opens: the first question would otherwise wait for it
        assistant.warm()
    app = build_app(assistant, allow_folders=allow_folders, max_upload_mb=max_upload_mb)
    app.queue(default_concurrency_limit=concurrency)
    app.launch(server_name=host, server_port=port, share=False, ssr_mode=False, auth=auth,
               prevent_thread_lock=not block, quiet=not block, show_error=True,
               max_file_size=f"{max_upload_mb}mb", **launch_styling())
    return app
