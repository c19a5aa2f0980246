"""End to end against the built-in engine: the prefill logprob recompute
(``--recompute-logprobs-via-prefill``), the prefix-cache hit rate from the engine's
``cached_tokens``, and ``--apply-chat-template-kwargs`` reaching the renderer.
"""

from __future__ import annotations

import json
import urllib.request

import pytest
from conftest import needs_node
from helpers import train

from envroll_miles.prefill import SOURCE
from envroll_miles.samples import flatten

pytestmark = needs_node


def _prefill(engine: str, tokens: list[int], start: int) -> list:
    body = {"input_ids": tokens, "return_logprob": True, "logprob_start_len": start,
            "sampling_params": {"max_new_tokens": 0, "temperature": 0}}  # fmt: skip
    req = urllib.request.Request(f"{engine}/generate", json.dumps(body).encode(), {"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())["meta_info"]["input_token_logprobs"]


@pytest.mark.parametrize("policy", [None, "consistent_hashing"])
def test_prefill_recompute_replaces_rollout_logprobs_with_the_engines_scores(real_service, engine, policy):
    over = {"sglang_router_policy": policy} if policy else {}
    fn, _ = real_service(rollout_batch_size=2, n_samples_per_prompt=2, recompute_logprobs_via_prefill=True, **over)
    out = train(fn, 0)
    samples = [s for g in out.samples for s in flatten(g)]
    assert out.metrics["envroll/prefill_rescored_samples"] == len(samples) == 4
    for s in samples:
        assert s.metadata["rollout_log_probs_source"] == SOURCE
        assert len(s.rollout_log_probs) == s.response_length == len(s.loss_mask)
        prompt_len = len(s.tokens) - s.response_length
        # What a clean prefill of the whole sequence gives for the response tokens.
        scored = _prefill(engine, s.tokens, prompt_len - 1)
        assert scored[0][0] is None and [t[1] for t in scored[1:]] == s.tokens[prompt_len:]
        assert s.rollout_log_probs == [t[0] for t in scored[1:]]


def test_without_the_flag_rollout_logprobs_are_the_sampled_ones(real_service):
    fn, _ = real_service(rollout_batch_size=1, n_samples_per_prompt=2)
    out = train(fn, 0)
    assert "envroll/prefill_rescored_samples" not in out.metrics
    assert all("rollout_log_probs_source" not in s.metadata for s in flatten(out.samples[0]))


def test_prefix_cache_hit_rate_comes_from_the_engines_cached_tokens(real_service):
    # Four rollouts of one prompt: the engine's prefix cache serves the later ones' prompts.
    fn, _ = real_service(rollout_batch_size=1, n_samples_per_prompt=4)
    out = train(fn, 0)
    samples = flatten(out.samples[0])
    cached = sum(s.prefix_cache_info.cached_tokens for s in samples)
    total = sum(s.prefix_cache_info.total_prompt_tokens for s in samples)
    assert 0 < cached < total
    assert out.metrics["envroll/prefix_cache_hit_rate"] == pytest.approx(cached / total)


def test_chat_template_kwargs_reach_the_renderer_and_unknown_keys_are_named(real_service):
    fn, _ = real_service(rollout_batch_size=1, n_samples_per_prompt=1, apply_chat_template_kwargs={"enable_thinking": False})
    s = flatten(train(fn, 0).samples[0])[0]
    fn_on, _ = real_service(rollout_batch_size=1, n_samples_per_prompt=1, apply_chat_template_kwargs={"enable_thinking": True})
    s_on = flatten(train(fn_on, 0).samples[0])[0]
    prompt_off = len(s.tokens) - s.response_length
    prompt_on = len(s_on.tokens) - s_on.response_length
    assert prompt_off > prompt_on  # the empty <think></think> block is in the prompt only when off
    fn_bad, _ = real_service(rollout_batch_size=1, apply_chat_template_kwargs={"enable_thinkng": False})
    with pytest.raises(RuntimeError, match='qwen3 renderer .* does not know "enable_thinkng"'):
        train(fn_bad, 0)
