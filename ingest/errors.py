"""Errors of the ingest room; higher rooms subclass `CitewiseError`."""


class CitewiseError(Exception):
    """Base class of every error citewise raises on purpose."""


class ParseError(CitewiseError):
    """A file could not be turned into a `Document`; the message names the file and the cause."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
