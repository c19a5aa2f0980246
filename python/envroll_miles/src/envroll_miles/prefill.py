"""``--recompute-logprobs-via-prefill`` (true on-policy): re-score every kept sample by a prefill.

As Miles' own step (``miles.rollout.generate_utils.prefill_logprobs``, which the upstream Verifiers
adapter calls): after the batch is final, each sample's full token sequence is sent to the
router's ``/generate`` with ``max_new_tokens=0``, ``return_logprob`` and
``logprob_start_len = prompt_len - 1``. SGLang returns ``input_token_logprobs`` from that position
on, the first entry None, so the tail covers exactly the response; those values replace
``rollout_log_probs``. A ``/flush_cache`` precedes each scoring request so every score comes from a
clean prefill rather than from KV entries written while sampling.

Batched by (logprob_start_len, adapter) as Miles does, except under a routing policy that needs a
per-sample routing key (then one request per sample with its ``X-SMG-Routing-Key``). Samples
that sampled nothing (``metadata.envroll.empty``) or were aborted keep their values.
"""

from __future__ import annotations

import http.client
import json
import time
from collections import defaultdict
from typing import Any
from urllib.parse import urlsplit

from . import settings
from .samples import envroll_meta

SOURCE = "sglang_prefill_recompute"
ROUTING_KEY_POLICIES = ("consistent_hashing", "manual")
# /flush_cache answers 400 while requests still run (an abort settling); Miles' HTTP helper
# retries any failure 60 times a second apart, and so does this.
FLUSH_ATTEMPTS = 60


def enabled(args: Any) -> bool:
    return bool(getattr(args, "recompute_logprobs_via_prefill", False))


def _post(url: str, body: Any, headers: dict | None = None, timeout: float = 600.0) -> tuple[int, Any]:
    parts = urlsplit(url)
    cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = cls(parts.hostname, parts.port, timeout=timeout)
    try:
        conn.request("POST", parts.path, body=json.dumps(body), headers={"content-type": "application/json", **(headers or {})})
        response = conn.getresponse()
        text = response.read().decode()
    finally:
        conn.close()
    try:
        return response.status, json.loads(text) if text else None
    except ValueError:
        return response.status, text


def _flush(base: str, headers: dict | None) -> None:
    for attempt in range(FLUSH_ATTEMPTS):
        status, body = _post(f"{base}/flush_cache", {}, headers)
        if status == 200:
            return
        if attempt + 1 < FLUSH_ATTEMPTS:
            time.sleep(1.0)
    raise RuntimeError(f"envroll_miles: prefill recompute: /flush_cache answered {status}: {body}")


def _payload(args: Any, sample: Any) -> dict:
    prompt_len = len(sample.tokens) - sample.response_length
    if prompt_len <= 0:
        raise ValueError(
            f"envroll_miles: prefill recompute needs at least one prompt token (sample {sample.index}: "
            f"{len(sample.tokens)} tokens, response_length {sample.response_length})"
        )
    params = {
        "temperature": settings._get(args, "rollout_temperature", 1.0),
        "top_p": settings._get(args, "rollout_top_p", 1.0),
        "top_k": settings._get(args, "rollout_top_k", -1),
        "max_new_tokens": settings._get(args, "rollout_max_response_len", 0),
    }
    # As Miles: nothing is sampled (max_new_tokens 0), greedy, special tokens kept.
    params.update({"max_new_tokens": 0, "temperature": 0, "skip_special_tokens": False})
    body = {
        "input_ids": list(sample.tokens),
        "sampling_params": params,
        "return_logprob": True,
        "logprob_start_len": prompt_len - 1,
    }
    lora = settings.lora_name(args)
    if lora is not None:
        body["lora_path"] = lora
    return body


def _response_logprobs(sample: Any, meta: dict) -> list[float]:
    items = meta.get("input_token_logprobs")
    if not items:
        raise ValueError("envroll_miles: prefill recompute: the engine sent no input_token_logprobs")
    n = sample.response_length
    tail = items[-n:]
    scored = [int(item[1]) for item in tail]
    if len(tail) != n or scored != list(sample.tokens[-n:]):
        raise ValueError(
            f"envroll_miles: prefill recompute: sample {sample.index}: the engine scored tokens "
            f"{scored[:8]}… ({len(tail)}), expected the response {list(sample.tokens[-n:])[:8]}… ({n})"
        )
    values = [item[0] for item in tail]
    if any(v is None for v in values):
        raise ValueError(f"envroll_miles: prefill recompute: sample {sample.index}: a response logprob is None")
    return [float(v) for v in values]


def _apply(sample: Any, meta: dict) -> None:
    sample.rollout_log_probs = _response_logprobs(sample, meta)
    sample.metadata["rollout_log_probs_source"] = SOURCE


def _scorable(sample: Any) -> bool:
    status = getattr(sample.status, "value", sample.status)
    return sample.response_length > 0 and status != "aborted" and not envroll_meta(sample).get("empty")


def recompute(args: Any, samples: list) -> int:
    """Re-scores ``samples`` in place; returns how many were scored (0 when the flag is off)."""
    if not enabled(args):
        return 0
    todo = [s for s in samples if _scorable(s)]
    if not todo:
        return 0
    base = settings.engine_url(args, False)
    url = f"{base}/generate"
    if getattr(args, "sglang_router_policy", None) in ROUTING_KEY_POLICIES:
        for sample in todo:
            headers = {"X-SMG-Routing-Key": sample.routing_key} if sample.routing_key else None
            _flush(base, headers)
            status, out = _post(url, _payload(args, sample), headers)
            if status != 200:
                raise RuntimeError(f"envroll_miles: prefill recompute: /generate answered {status}: {out}")
            _apply(sample, out["meta_info"])
        return len(todo)
    batches: dict[tuple, list] = defaultdict(list)
    for sample in todo:
        batches[(len(sample.tokens) - sample.response_length - 1, settings.lora_name(args))].append(sample)
    for batch in batches.values():
        _flush(base, None)
        first = _payload(args, batch[0])
        body = {**first, "input_ids": [list(s.tokens) for s in batch]}
        status, out = _post(url, body)
        if status != 200:
            raise RuntimeError(f"envroll_miles: prefill recompute: /generate answered {status}: {out}")
        if not isinstance(out, list) or len(out) != len(batch):
            raise RuntimeError(
                f"envroll_miles: prefill recompute: expected {len(batch)} results, got "
                f"{len(out) if isinstance(out, list) else type(out).__name__}"
            )
        for sample, result in zip(batch, out):
            _apply(sample, result["meta_info"])
    return len(todo)
