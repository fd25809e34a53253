"""The `citewise` command line: `app` holds the click group and the everyday commands, `eval` the
evaluation and stats commands, `table` the people table (`table`, `profile`, `eval table`), `common`
the shared options and the error handling."""

from .app import main

__all__ = ["main"]
