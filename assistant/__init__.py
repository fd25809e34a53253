"""assistant: question in, cited `Answer` out (retrieve, answer, API, CLI, UI)."""

from .answer import Answer, AnswerWriter, Citation
from .api import Assistant, ask, build_index
from .settings import Settings

__all__ = ["Answer", "AnswerWriter", "Assistant", "Citation", "Settings", "ask", "build_index"]
