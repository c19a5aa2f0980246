"""Teacher-forced token logprobs: the trainer-side twin of the engine's reported logprobs.

Definition (identical to the engine, see README): the logprob of token t at position p is
log_softmax(logits[p-1] / temperature)[t], with logits from one forward pass of the float32
model over the whole sequence and no top-k/top-p/min-p truncation.
"""

from __future__ import annotations

import torch


def token_logprobs(
    model: torch.nn.Module,
    tokens: list[int],
    start: int,
    *,
    temperature: float = 1.0,
    grad: bool = False,
) -> torch.Tensor:
    """Logprobs of tokens[start:], each scored from the logits one position earlier.

    One unpadded sequence per call: padding/batching would change the attention kernels'
    reduction shapes and with them the last float bits. Returns a [len(tokens)-start] tensor
    (with autograd when grad=True).
    """
    if not 1 <= start <= len(tokens):
        raise ValueError(f"start must be in [1, {len(tokens)}], got {start} (the first token has no logprob)")
    if temperature <= 0:
        raise ValueError("temperature must be > 0 for teacher forcing")
    ids = torch.tensor([tokens])
    ctx = torch.enable_grad() if grad else torch.inference_mode()
    with ctx:
        # Only rows start-1 .. L-1 go through lm_head: [L, 151k] float logits for a long
        # multi-turn prompt would cost gigabytes for nothing.
        keep = len(tokens) - start + 1
        logits = model(input_ids=ids, use_cache=False, logits_to_keep=keep).logits[0].float()
        rows = logits[:-1] / temperature
        lps = torch.log_softmax(rows, dim=-1)
        target = torch.tensor(tokens[start:]).unsqueeze(-1)
        return lps.gather(-1, target).squeeze(-1)
