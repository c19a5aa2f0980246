"""SGLang `sampling_params`: defaults, validation, and next-token selection.

Validation mirrors SGLang's ranges (spec A.2); a violation raises `BadRequest`, which the server
turns into HTTP 400 `{"error": {"message": ...}}` like SGLang's ValueError path.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import torch


class BadRequest(ValueError):
    """Client error -> HTTP 400 with SGLang's `{"error":{"message"}}` body."""


# Keys SGLang accepts that this engine cannot honour without breaking the teacher-forcing
# contract (penalties, grammars, biases change the distribution in ways a trainer would not
# replay). They are accepted at their neutral value and rejected otherwise, rather than
# silently ignored.
_NEUTRAL_ONLY = {
    "frequency_penalty": 0.0,
    "presence_penalty": 0.0,
    "repetition_penalty": 1.0,
    "stop_regex": None,
    "json_schema": None,
    "regex": None,
    "ebnf": None,
    "structural_tag": None,
    "logit_bias": None,
}
# Accepted and ignored: they do not change which tokens are produced.
_IGNORED = {"custom_params", "stream_interval"}

GREEDY_TEMPERATURE = 1e-6  # SGLang: below this, sampling becomes greedy (top_k=1, temperature=1)


@dataclass
class SamplingParams:
    max_new_tokens: int = 128
    min_new_tokens: int = 0
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = -1  # -1 = whole vocabulary
    min_p: float = 0.0
    stop: list[str] = field(default_factory=list)
    stop_token_ids: list[int] = field(default_factory=list)
    ignore_eos: bool = False
    skip_special_tokens: bool = True
    spaces_between_special_tokens: bool = True
    no_stop_trim: bool = False
    n: int = 1
    sampling_seed: int | None = None

    @property
    def greedy(self) -> bool:
        return self.top_k == 1


def _num(key: str, v, *, integer: bool = False):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise BadRequest(f"sampling_params.{key} must be a number, got {v!r}")
    if integer:
        if isinstance(v, float) and not v.is_integer():
            raise BadRequest(f"sampling_params.{key} must be an integer, got {v!r}")
        return int(v)
    if not math.isfinite(v):
        raise BadRequest(f"sampling_params.{key} must be finite, got {v!r}")
    return float(v)


def _bool(key: str, v) -> bool:
    if not isinstance(v, bool):
        raise BadRequest(f"sampling_params.{key} must be a boolean, got {v!r}")
    return v


def parse_sampling_params(raw, vocab_size: int) -> SamplingParams:
    """Build validated params from a request dict; `None` values mean "default" as in SGLang."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise BadRequest("sampling_params must be an object")
    p = SamplingParams()
    for key, v in raw.items():
        if key in _IGNORED:
            continue
        if key in _NEUTRAL_ONLY:
            if v is not None and v != _NEUTRAL_ONLY[key]:
                raise BadRequest(f"sampling_params.{key}={v!r} is not supported by envroll_engine")
            continue
        if not hasattr(p, key) or key == "greedy":
            raise BadRequest(f"Unknown sampling parameter: {key}")
        if v is None:
            continue
        if key in ("max_new_tokens", "min_new_tokens", "top_k", "n", "sampling_seed"):
            setattr(p, key, _num(key, v, integer=True))
        elif key in ("temperature", "top_p", "min_p"):
            setattr(p, key, _num(key, v))
        elif key in ("ignore_eos", "skip_special_tokens", "spaces_between_special_tokens", "no_stop_trim"):
            setattr(p, key, _bool(key, v))
        elif key == "stop":
            stops = [v] if isinstance(v, str) else v
            if not isinstance(stops, list) or not all(isinstance(s, str) and s for s in stops):
                raise BadRequest("sampling_params.stop must be a non-empty string or a list of them")
            p.stop = list(stops)
        elif key == "stop_token_ids":
            if not isinstance(v, list):
                raise BadRequest("sampling_params.stop_token_ids must be a list of token ids")
            p.stop_token_ids = [_num(key, x, integer=True) for x in v]
    _check_ranges(p, vocab_size)
    if p.temperature < GREEDY_TEMPERATURE:
        p.temperature, p.top_k = 1.0, 1
    return p


def _check_ranges(p: SamplingParams, vocab_size: int) -> None:
    if p.temperature < 0.0:
        raise BadRequest(f"temperature must be non-negative, got {p.temperature}.")
    if not 0.0 < p.top_p <= 1.0:
        raise BadRequest(f"top_p must be in (0, 1], got {p.top_p}.")
    if not 0.0 <= p.min_p <= 1.0:
        raise BadRequest(f"min_p must be in [0, 1], got {p.min_p}.")
    if p.top_k < 1 and p.top_k != -1:
        raise BadRequest(f"top_k must be -1 (disable) or at least 1, got {p.top_k}.")
    if p.max_new_tokens < 0:
        raise BadRequest(f"max_new_tokens must be at least 0, got {p.max_new_tokens}.")
    if p.min_new_tokens < 0:
        raise BadRequest(f"min_new_tokens must be in [0, max_new_tokens], got {p.min_new_tokens}.")
    if p.min_new_tokens > p.max_new_tokens:
        raise BadRequest(f"min_new_tokens must be in [0, max_new_tokens({p.max_new_tokens})], got {p.min_new_tokens}.")
    if p.n < 1:
        raise BadRequest(f"n must be at least 1, got {p.n}.")
    for t in p.stop_token_ids:
        if not 0 <= t < vocab_size:
            raise BadRequest(f"stop_token_ids contains {t}, outside the vocabulary [0, {vocab_size}).")


def make_generator(seed: int | None) -> torch.Generator:
    """One generator per request: the same sampling_seed + the same input gives the same
    output, independent of what other requests ran before."""
    if seed is None:
        seed = int.from_bytes(os.urandom(8), "little")
    return torch.Generator(device="cpu").manual_seed(seed % (1 << 63))


@dataclass
class Choice:
    token: int
    logprob: float  # see README "What the logprobs are"
    top: list[tuple[float, int]] | None = None  # top_logprobs_num alternatives, best first


def choose_next(
    logits: torch.Tensor,
    p: SamplingParams,
    gen: torch.Generator,
    *,
    blocked: list[int] | None = None,
    original_logprob: bool = False,
    top_logprobs_num: int = 0,
) -> Choice:
    """Pick one token from a float32 [vocab] logits row.

    The reported logprob is log_softmax(logits / temperature) over the full vocabulary, taken
    after min_new_tokens blocking but *before* top-k/top-p/min-p truncation (SGLang's default,
    spec A.3b). With original_logprob it is log_softmax(logits), SGLang's
    SGLANG_RETURN_ORIGINAL_LOGPROB mode.
    """
    logits = logits.float()
    if blocked:
        logits = logits.clone()
        logits[blocked] = float("-inf")
    logprobs = torch.log_softmax(logits / p.temperature, dim=-1)
    if p.greedy:
        token = int(torch.argmax(logprobs))
    else:
        token = _draw(_truncate(logprobs.exp(), p), gen)
    reported = torch.log_softmax(logits, dim=-1) if original_logprob else logprobs
    top = None
    if top_logprobs_num > 0:
        vals, ids = torch.topk(reported, min(top_logprobs_num, reported.numel()))
        top = [(float(v), int(i)) for v, i in zip(vals, ids, strict=True)]
    return Choice(token=token, logprob=float(reported[token]), top=top)


def _draw(probs: torch.Tensor, gen: torch.Generator) -> int:
    """Inverse-CDF draw with one uniform from the request's generator. Cheaper than
    torch.multinomial over a 151k vocabulary (~1 ms vs ~7 ms per token on one core), and
    zero-probability tokens can never be picked (searchsorted right=True skips flat steps)."""
    cdf = torch.cumsum(probs.double(), dim=0)
    x = torch.rand(1, generator=gen, dtype=torch.float64) * cdf[-1]
    return min(int(torch.searchsorted(cdf, x, right=True)), probs.numel() - 1)


_NUCLEUS_PROBE = 2048  # top-p usually lives in the head; probe it before sorting 151k entries


def _truncate(probs: torch.Tensor, p: SamplingParams) -> torch.Tensor:
    """Zero out tokens removed by top-k, top-p and min-p. The three masks are each defined on
    the original probabilities (top-p mass counted before top-k), so their order is irrelevant."""
    if p.top_k == -1 and p.top_p >= 1.0 and p.min_p <= 0.0:
        return probs
    V = probs.numel()
    n = p.top_k if p.top_k > 0 else V
    if p.top_p < 1.0 and n > _NUCLEUS_PROBE:
        vals, idx = torch.topk(probs, _NUCLEUS_PROBE)
        if not float(vals.sum()) > p.top_p:  # nucleus reaches past the probe: sort everything
            vals, idx = torch.sort(probs, descending=True)
            vals, idx = vals[:n], idx[:n]
    elif n < V:
        vals, idx = torch.topk(probs, n)
    else:
        vals, idx = torch.sort(probs, descending=True)
    vals = vals.clone()
    if p.top_p < 1.0:
        # Keep the smallest prefix whose mass reaches top_p (the crossing token stays in).
        mass_before = torch.cumsum(vals, dim=-1) - vals
        vals[mass_before > p.top_p] = 0.0
    if p.min_p > 0.0:
        vals[vals < p.min_p * vals[0]] = 0.0
    out = torch.zeros_like(probs)
    out[idx] = vals
    return out
