"""The Gradio chat served for real on a free port, asked through gradio_client."""

from __future__ import annotations

import socket

import pytest

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_server_answers_through_gradio_client(seed_assistant) -> None:
    from gradio_client import Client

    from assistant.ui import serve

    port = free_port()
    app = serve(seed_assistant, port=port, block=False)
    try:
        assert app.local_url.startswith("http://127.0.0.1:")  # bound to loopback by default
        client = Client(f"http://127.0.0.1:{port}/", verbose=False)
        result = client.predict("Where did Muhammed Fatih Balin do his PhD?", api_name="/ask")
        assert result["abstained"] is False
        assert any("Georgia Institute of Technology" in c["quote"] for c in result["citations"])
        hits = client.predict("KForge", 3, api_name="/search")
        assert len(hits["hits"]) == 3 and hits["query"] == "KForge"
    finally:
        app.close()


def test_warm_loads_the_model_and_the_answer_libraries_in_the_background(seed_index_dir) -> None:
    """`Assistant.warm` (what `serve` calls at launch): a fresh embedder (the real model, not loaded
    yet) is loaded by the background thread, and dateparser's search with it, so the first question
    does not wait for them."""
    import sys

    from assistant import Assistant
    from index import SentenceTransformerEmbedder, Store

    fresh = SentenceTransformerEmbedder()
    assistant = Assistant(Store.open(seed_index_dir), fresh)
    assert fresh._model is None
    thread = assistant.warm()
    assert thread.daemon  # never keeps a finished command alive
    thread.join(timeout=300)
    assert not thread.is_alive()
    assert fresh._model is not None and "dateparser.search" in sys.modules
    assert assistant.ask("Where did Muhammed Fatih Balin do his PhD?").citations
