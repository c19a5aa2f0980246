"""`POST /generate` wire format: request parsing (single vs batch, n, rids) and response bodies.

Pure functions over dicts; no model and no HTTP here, so the shapes can be unit-tested.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from .sampling import BadRequest, SamplingParams, parse_sampling_params

# Inputs that would change outputs in ways this engine cannot reproduce: refuse, don't ignore.
_UNSUPPORTED_INPUTS = ("input_embeds", "lora_path", "custom_logit_processor")


@dataclass
class GenRequest:
    rid: str
    input_ids: list[int]
    params: SamplingParams
    return_logprob: bool = False
    logprob_start_len: int = -1  # -1: output tokens only; k >= 0: prompt positions k.. too
    top_logprobs_num: int = 0


@dataclass
class GenResult:
    """What the engine produced for one request (partial while streaming)."""

    output_ids: list[int] = field(default_factory=list)
    output_logprobs: list[float] = field(default_factory=list)
    output_top: list[list[tuple[float, int]] | None] = field(default_factory=list)
    input_logprobs: list[float | None] = field(default_factory=list)  # from logprob_start_len
    input_top: list[list[tuple[float, int]] | None] = field(default_factory=list)
    finish: dict | None = None  # SGLang finish_reason object; None while running
    matched_stop_str: str | None = None
    e2e_latency: float = 0.0
    weight_version: str = "default"
    # [{version, start}] over output positions: more than one when a pause + weight update
    # happened mid-request (reported as envroll's meta_info.weight_versions, with ends).
    version_spans: list[dict] = field(default_factory=list)


def _per_item(value, i: int, size: int, name: str):
    """SGLang fields may be a scalar (applies to every prompt) or a list (one per prompt)."""
    if isinstance(value, list):
        if len(value) != size:
            raise BadRequest(f"{name} has {len(value)} entries for a batch of {size}")
        return value[i]
    return value


def parse_generate(body, tokenizer, vocab_size: int, max_model_len: int) -> tuple[list[GenRequest], bool]:
    """Returns (requests, is_batch). A batch (or n > 1) is answered with a JSON array."""
    if not isinstance(body, dict):
        raise BadRequest("request body must be a JSON object")
    for key in _UNSUPPORTED_INPUTS:
        if body.get(key) is not None:
            raise BadRequest(f"{key} is not supported by envroll_engine")
    if body.get("session_id") is not None and body.get("session_params") is not None:
        raise BadRequest("session_id and session_params are mutually exclusive")
    prompts, batch = _prompts(body, tokenizer, vocab_size)
    size = len(prompts)

    sp = body.get("sampling_params")
    if isinstance(sp, list):
        if len(sp) != size:
            raise BadRequest(f"sampling_params has {len(sp)} entries for a batch of {size}")
        params = [parse_sampling_params(x, vocab_size) for x in sp]
        if len({p.n for p in params}) > 1:
            raise BadRequest("The n parameter must be the same for all sampling_params in a batch")
    else:
        params = [parse_sampling_params(sp, vocab_size) for _ in range(size)]

    rids = _rids(body.get("rid"), size, batch)
    reqs: list[GenRequest] = []
    for i, ids in enumerate(prompts):
        p = params[i]
        _check_length(len(ids), p.max_new_tokens, max_model_len)
        rl = _per_item(body.get("return_logprob", False), i, size, "return_logprob")
        start = _per_item(body.get("logprob_start_len", -1), i, size, "logprob_start_len")
        top_n = _per_item(body.get("top_logprobs_num", 0), i, size, "top_logprobs_num")
        rl, start, top_n = bool(rl or False), int(-1 if start is None else start), int(top_n or 0)
        if start >= len(ids):
            raise BadRequest(f"logprob_start_len ({start}) is not smaller than the input length ({len(ids)})")
        for _ in range(p.n):
            # SGLang turns n > 1 into a batch and gives each sample a fresh uuid rid.
            rid = rids[i] if p.n == 1 else uuid.uuid4().hex
            reqs.append(GenRequest(rid, list(ids), p, rl, start, top_n))
    return reqs, batch or params[0].n > 1


def _prompts(body: dict, tokenizer, vocab_size: int) -> tuple[list[list[int]], bool]:
    text, ids = body.get("text"), body.get("input_ids")
    if text is None and ids is None:
        raise BadRequest("Either text, input_ids or input_embeds should be provided.")
    if text is not None and ids is not None:
        raise BadRequest("Either text or input_ids should be provided, not both.")
    if ids is not None:
        if not isinstance(ids, list):
            raise BadRequest("input_ids must be a list of token ids or a list of such lists")
        if len(ids) == 0:
            raise BadRequest("input_ids cannot be empty.")
        batch = isinstance(ids[0], list)
        rows = ids if batch else [ids]
        for row in rows:
            if not isinstance(row, list) or len(row) == 0:
                raise BadRequest("input_ids cannot be empty.")
            for t in row:
                if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t < vocab_size:
                    raise BadRequest(f"input_ids contains {t!r}, not a token id in [0, {vocab_size})")
        return [list(r) for r in rows], batch
    batch = isinstance(text, list)
    texts = text if batch else [text]
    if not texts or not all(isinstance(t, str) for t in texts):
        raise BadRequest("text must be a string or a non-empty list of strings")
    rows = [tokenizer.encode(t, add_special_tokens=False) for t in texts]
    if any(len(r) == 0 for r in rows):
        raise BadRequest("text encodes to zero tokens")
    return rows, batch


def _rids(rid, size: int, batch: bool) -> list[str]:
    if rid is None:
        return [uuid.uuid4().hex for _ in range(size)]
    if isinstance(rid, str):
        return [rid] if not batch else [f"{rid}_{i}" for i in range(size)]
    if isinstance(rid, list):
        if len(rid) != size:
            raise BadRequest(f"The number of rids ({len(rid)}) does not match the batch size ({size}).")
        if not all(isinstance(r, str) for r in rid):
            raise BadRequest("rid must be a string or a list of strings")
        if len(set(rid)) != len(rid):
            raise BadRequest("Duplicate rids in one batch.")
        return list(rid)
    raise BadRequest("rid must be a string or a list of strings")


def _check_length(n_input: int, max_new: int, max_model_len: int) -> None:
    if n_input >= max_model_len:
        raise BadRequest(
            f"The input ({n_input} tokens) is longer than the model's context length ({max_model_len} tokens)."
        )
    if n_input + max_new > max_model_len:
        raise BadRequest(
            f"Requested token count exceeds the model's maximum context length of {max_model_len} tokens: "
            f"{n_input} input + {max_new} max_new_tokens."
        )


def decode_text(tokenizer, req: GenRequest, res: GenResult) -> str:
    """Response text. A matched stop *token* is dropped from the text (kept in output_ids)
    unless no_stop_trim; a matched stop *string* is cut off unless no_stop_trim."""
    p = req.params
    ids = res.output_ids
    finish = res.finish or {}
    if finish.get("type") == "stop" and isinstance(finish.get("matched"), int) and not p.no_stop_trim:
        ids = ids[:-1]
    text = tokenizer.decode(
        ids,
        skip_special_tokens=p.skip_special_tokens,
        spaces_between_special_tokens=p.spaces_between_special_tokens,
    )
    if res.matched_stop_str is not None:
        cut = text.find(res.matched_stop_str)
        if cut >= 0:
            text = text[: cut + len(res.matched_stop_str)] if p.no_stop_trim else text[:cut]
    return text


def _triples(lps, ids) -> list[list]:
    # [logprob, token_id, text]; text is null because return_text_in_logprobs is not offered.
    # Not strict: a request aborted before its prefill has no prompt logprobs, only ids.
    return [[lp, tid, None] for lp, tid in zip(lps, ids, strict=False)]


def response_body(tokenizer, req: GenRequest, res: GenResult) -> dict:
    meta = {
        "id": req.rid,
        "finish_reason": res.finish,
        "prompt_tokens": len(req.input_ids),
        "completion_tokens": len(res.output_ids),
        "cached_tokens": 0,  # no prefix cache: every request prefills from scratch
        "weight_version": res.weight_version,
        "e2e_latency": res.e2e_latency,
    }
    if len(res.version_spans) > 1:  # a weight update landed mid-request (pause + continue)
        ends = [sp["start"] for sp in res.version_spans[1:]] + [len(res.output_ids)]
        meta["weight_versions"] = [
            {"version": sp["version"], "start": sp["start"], "end": end}
            for sp, end in zip(res.version_spans, ends, strict=True)
        ]
    if req.return_logprob:
        start = max(req.logprob_start_len, 0) if req.logprob_start_len >= 0 else len(req.input_ids)
        meta["input_token_logprobs"] = _triples(res.input_logprobs, req.input_ids[start:])
        meta["output_token_logprobs"] = _triples(res.output_logprobs, res.output_ids)
        if req.top_logprobs_num > 0:
            meta["input_top_logprobs"] = [None if t is None else [[lp, i, None] for lp, i in t] for t in res.input_top]
            meta["output_top_logprobs"] = [
                None if t is None else [[lp, i, None] for lp, i in t] for t in res.output_top
            ]
    return {"text": decode_text(tokenizer, req, res), "output_ids": list(res.output_ids), "meta_info": meta}
