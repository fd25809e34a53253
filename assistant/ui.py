"""The Gradio chat. Thin: every button calls the `Assistant`; rendering lives in `render`.

`/ask` and `/search` are exposed as API endpoints for `gradio_client`. Binds 127.0.0.1 unless told.
"""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr  # noqa: E402

from .api import Assistant  # noqa: E402
from .render import answer_markdown  # noqa: E402


def build_app(assistant: Assistant) -> gr.Blocks:
    def respond(message: str, history: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
        message = (message or "").strip()
        if not message:
            return "", history
        answer = assistant.ask(message, history)
        history = [*history, {"role": "user", "content": message},
                   {"role": "assistant", "content": answer_markdown(answer)}]
        return "", history

    def ask(question: str) -> dict[str, Any]:
        """A cited answer as JSON: {question, answer, abstained, citations[...]}."""
        return assistant.ask(question).to_dict()

    def search(query: str, k: int = 10) -> dict[str, Any]:
        """Ranked chunks as JSON: {query, hits[...]}."""
        return {"query": query, "hits": [h.to_dict() for h in assistant.search(query, int(k))]}

    with gr.Blocks(analytics_enabled=False, title="citewise") as app:
        gr.Markdown("## citewise\nAsk about your documents. Every answer quotes its sources.")
        chat = gr.Chatbot(elem_id="chat", height=520, label="citewise")
        box = gr.Textbox(elem_id="question", placeholder="e.g. Who has worked on graph neural networks?",
                         show_label=False, submit_btn=True)
        box.submit(respond, [box, chat], [box, chat], api_name=False)
        gr.api(ask, api_name="ask")
        gr.api(search, api_name="search")
    return app


def serve(assistant: Assistant, host: str = "127.0.0.1", port: int = 7860, *, block: bool = True,
          auth: tuple[str, str] | None = None) -> gr.Blocks:
    app = build_app(assistant)
    app.queue(default_concurrency_limit=4)
    app.launch(server_name=host, server_port=port, share=False, ssr_mode=False, auth=auth,
               prevent_thread_lock=not block, quiet=not block, show_error=True)
    return app
