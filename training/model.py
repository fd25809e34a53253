"""The reading model in torch, for training: MiniLM as a cross-encoder with two heads.

Input: `[CLS] question [SEP] window [SEP]` (token types 0 and 1). Outputs:
- `answer`: a logit on the [CLS] state, "this window answers the question";
- `start`, `end`: a logit per token for where the answer phrase starts and ends; [CLS] (position 0)
  stands for "no answer here", as SQuAD 2.0 readers do, and the question's tokens are never a span.

The word embeddings stay frozen at the base model's (rounded to float16, as shipped); everything
else is trained and saved in float16 (`save`), so the shipped file holds only what differs from the
packaged MiniLM (`index.reading` adds the base's word embeddings back at load time).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import torch
from torch import nn

FORMAT = 1
WORDS = "embeddings.word_embeddings.weight"


def words_check(weight: torch.Tensor) -> str:
    """A checksum of the base model's word embeddings as float16: the shipped weights fit only them."""
    return hashlib.sha256(weight.detach().to(torch.float16).cpu().numpy().tobytes()).hexdigest()[:16]


class ReadingNet(nn.Module):
    def __init__(self, base: str | Path) -> None:
        super().__init__()
        from transformers import BertModel

        self.bert = BertModel.from_pretrained(str(base), add_pooling_layer=False, dtype=torch.float32)
        with torch.no_grad():  # the base as float16 holds it (as shipped): a CPU and a GPU run start alike
            for p in self.bert.parameters():
                p.copy_(p.to(torch.float16).to(torch.float32))
        words = self.bert.embeddings.word_embeddings.weight
        words.requires_grad_(False)
        dim = self.bert.config.hidden_size
        self.answer = nn.Linear(dim, 1)
        self.span = nn.Linear(dim, 2)
        self.null = nn.Parameter(torch.zeros(()))  # the listwise loss's "no window answers" score (training only)
        self.base_check = words_check(words)

    def freeze_layers(self, n: int) -> None:
        """Freeze the embeddings and the first `n` transformer layers (faster on a CPU, less to learn)."""
        if n <= 0:
            return
        for p in self.bert.embeddings.parameters():
            p.requires_grad_(False)
        for layer in self.bert.encoder.layer[:n]:
            for p in layer.parameters():
                p.requires_grad_(False)

    def forward(self, ids: torch.Tensor, types: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, ...]:
        h = self.bert(input_ids=ids, token_type_ids=types, attention_mask=mask).last_hidden_state
        answer = self.answer(h[:, 0]).squeeze(-1)
        se = self.span(h).float()
        allowed = (types == 1) & (mask == 1)
        allowed[:, 0] = True  # [CLS]: no answer in this window
        neg = torch.finfo(se.dtype).min
        start = se[..., 0].masked_fill(~allowed, neg)
        end = se[..., 1].masked_fill(~allowed, neg)
        return answer.float(), start, end


def save(net: ReadingNet, out: Path, meta: dict[str, Any]) -> None:
    """`out/model.safetensors` (float16, every trained tensor: all but the word embeddings) and
    `out/reading.json` (format, base checksum, shapes, threshold and figures in `meta`)."""
    from safetensors.torch import save_file

    out.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().to(torch.float16).cpu().contiguous() for k, v in net.state_dict().items()
             if k not in (f"bert.{WORDS}", "null") and not k.endswith("position_ids")}
    tmp = out / "model.safetensors.tmp"
    save_file(state, str(tmp), metadata={"format": str(FORMAT)})
    tmp.replace(out / "model.safetensors")
    cfg = {"format": FORMAT, "base_check": net.base_check, "layers": net.bert.config.num_hidden_layers,
           "heads": net.bert.config.num_attention_heads, "eps": net.bert.config.layer_norm_eps, **meta}
    tmpj = out / "reading.json.tmp"
    tmpj.write_text(json.dumps(cfg, indent=1) + "\n", encoding="utf-8")
    tmpj.replace(out / "reading.json")


def encode(tokenizer: Any, pairs: list[tuple[str, str]], max_tokens: int) -> dict[str, Any]:
    """Token ids, types and mask of `pairs` (padded to the longest), and each token's character
    offsets in its window (-1 outside the window)."""
    encs = tokenizer.encode_batch(pairs)
    n = max(len(e.ids) for e in encs)
    ids = torch.zeros((len(encs), n), dtype=torch.long)
    types = torch.zeros_like(ids)
    mask = torch.zeros_like(ids)
    offsets = torch.full((len(encs), n, 2), -1, dtype=torch.long)
    for i, e in enumerate(encs):
        k = len(e.ids)
        ids[i, :k] = torch.tensor(e.ids)
        types[i, :k] = torch.tensor(e.type_ids)
        mask[i, :k] = 1
        for j, (seq, off) in enumerate(zip(e.sequence_ids, e.offsets, strict=True)):
            if seq == 1:
                offsets[i, j, 0], offsets[i, j, 1] = off
    return {"ids": ids, "types": types, "mask": mask, "offsets": offsets}


def tokenizer_of(base: str | Path, max_tokens: int) -> Any:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(Path(base) / "tokenizer.json"))
    tok.enable_truncation(max_length=max_tokens, strategy="longest_first")
    tok.no_padding()
    return tok


def span_targets(offsets: torch.Tensor, spans: list[tuple[int, int]]) -> tuple[torch.Tensor, torch.Tensor]:
    """Token positions of each window's answer span (0, [CLS], for none; -100 when truncated away)."""
    starts = torch.zeros(len(spans), dtype=torch.long)
    ends = torch.zeros(len(spans), dtype=torch.long)
    for i, (s, e) in enumerate(spans):
        if s < 0:
            continue
        o = offsets[i]
        inside = (o[:, 0] >= 0) & (o[:, 1] > s) & (o[:, 0] < e)
        where = inside.nonzero().flatten()
        if len(where) == 0:
            starts[i] = ends[i] = -100
        else:
            starts[i], ends[i] = where[0], where[-1]
    return starts, ends


def best_spans(start: torch.Tensor, end: torch.Tensor, offsets: torch.Tensor,
               longest: int = 30) -> list[tuple[tuple[int, int], float]]:
    """The best (start <= end, at most `longest` tokens) answer span of each window, as character
    offsets in the window ((-1, -1) for a window without tokens), and its margin over "no answer"
    (start + end logits of the span less those of [CLS])."""
    n = start.shape[1]
    ok = torch.triu(torch.ones(n, n, dtype=torch.bool, device=start.device)) & ~torch.triu(
        torch.ones(n, n, dtype=torch.bool, device=start.device), diagonal=longest)
    ok[0, :] = False  # [CLS] is "no answer", never a span
    ok[:, 0] = False
    out = []
    for i in range(start.shape[0]):
        valid = offsets[i, :, 0] >= 0  # the window's own tokens ([SEP] has none)
        score = start[i][:, None] + end[i][None, :]
        score = score.masked_fill(~(ok & valid[:, None] & valid[None, :]), float("-inf"))
        flat = int(torch.argmax(score))
        s, e = divmod(flat, n)
        if not torch.isfinite(score[s, e]) or offsets[i, s, 0] < 0:
            out.append(((-1, -1), float("-inf")))
        else:
            margin = float(score[s, e] - start[i, 0] - end[i, 0])
            out.append(((int(offsets[i, s, 0]), int(offsets[i, e, 1])), margin))
    return out


class TorchScorer:
    """`training.evaluate`'s scorer for a `ReadingNet` in memory."""

    def __init__(self, net: ReadingNet, tokenizer: Any, max_tokens: int, device: str, batch: int = 128) -> None:
        self.net, self.tok, self.max_tokens, self.device, self.batch = net, tokenizer, max_tokens, device, batch

    @torch.no_grad()
    def __call__(self, pairs: Any) -> list[tuple[float, tuple[int, int], float]]:
        self.net.eval()
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        got: dict[int, tuple[float, tuple[int, int], float]] = {}
        for k in range(0, len(order), self.batch):
            idx = order[k:k + self.batch]
            enc = encode(self.tok, [pairs[i] for i in idx], self.max_tokens)
            with torch.autocast(self.device.split(":")[0], dtype=torch.bfloat16, enabled=self.device.startswith("cuda")):
                a, s, e = self.net(enc["ids"].to(self.device), enc["types"].to(self.device), enc["mask"].to(self.device))
            probs = torch.sigmoid(a).tolist()
            spans = best_spans(s.float(), e.float(), enc["offsets"].to(self.device))
            for j, i in enumerate(idx):
                got[i] = (float(probs[j]), spans[j][0], spans[j][1])
        self.net.train()
        return [got[i] for i in range(len(pairs))]


def listwise(answer: torch.Tensor, null: torch.Tensor, qids: list[str], labels: list[int]) -> torch.Tensor:
    """Mean over the batch's questions of -log softmax over [no answer, its windows] of the right one: the
    window that answers, or "no answer" when none does. It teaches which window of a paragraph answers,
    which a loss on each window alone learns slowly."""
    index: dict[str, list[int]] = {}
    for i, q in enumerate(qids):
        index.setdefault(q, []).append(i)
    width = 1 + max(len(v) for v in index.values())
    pos = torch.zeros((len(index), width), dtype=torch.long)
    ok = torch.zeros((len(index), width), dtype=torch.bool)
    target = torch.zeros(len(index), dtype=torch.long)
    for g, ids in enumerate(index.values()):
        pos[g, 1:1 + len(ids)] = torch.tensor(ids)
        ok[g, :1 + len(ids)] = True
        right = [k for k, i in enumerate(ids) if labels[i]]
        target[g] = 1 + right[0] if right else 0
    pos, ok, target = pos.to(answer.device), ok.to(answer.device), target.to(answer.device)
    z = answer[pos]
    z[:, 0] = null
    z = z.masked_fill(~ok, float("-inf"))
    return torch.nn.functional.cross_entropy(z, target)
