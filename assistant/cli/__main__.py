"""`python -m assistant.cli` runs the `citewise` command."""

from .app import main

main()
