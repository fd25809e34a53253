"""The Gradio web UI: `app` builds and serves it, `chat` and `docs` render its HTML, `assets` holds the
look and the browser script."""

from .app import build_app, folders_allowed, serve

__all__ = ["build_app", "folders_allowed", "serve"]
