"""The `citewise` command line: `app` holds the click group and the everyday commands, `eval` the
evaluation and stats commands, `profile` the person card, `common` the shared options and the error
handling."""

from .app import main

__all__ = ["main"]
