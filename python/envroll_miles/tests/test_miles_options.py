"""How Miles' options reach the rollout service, and the batch shapes Miles' logging relies on.

Unit checks of the request body (LoRA, the eval prompt cap, chat-template kwargs) and, over the
real TypeScript service with a fake environment, eval rewards, failed evals, kept empty traces
and the metric names.
"""

from __future__ import annotations

import pytest
from conftest import needs_node
from helpers import evaluate, task_indices, train

from envroll_miles import settings
from envroll_miles.miles_defaults import miles_args
from envroll_miles.samples import envroll_meta, flatten


def _args(**over):
    return miles_args(sglang_router_ip="127.0.0.1", sglang_router_port=9, rollout_batch_size=1, **over)


@pytest.mark.parametrize(
    ("over", "expected"),
    [
        ({}, None),
        ({"lora_rank": 8}, "miles_lora"),
        ({"lora_adapter_path": "/ckpt/adapter"}, "miles_lora"),
        ({"lora_rank": 8, "lora_adapter_path": "/ckpt/adapter"}, "miles_lora"),
        ({"lora_rank": 8, "lora_train_only": True}, None),
        ({"lora_adapter_path": "/ckpt/adapter", "lora_train_only": True}, None),
        ({"lora_train_only": True}, None),
    ],
)
def test_rollouts_sample_from_the_adapter_whenever_miles_serves_one(over, expected):
    body = settings.rollout_request(_args(**over), 0, False, 1, "start")
    assert body["lora"] == expected
    assert settings.rollout_request(_args(**over), 0, True, None, "start")["lora"] == expected


def test_eval_prompt_cap_is_eval_max_prompt_len_alone():
    args = _args(rollout_max_prompt_len=100, rollout_max_context_len=300, rollout_max_response_len=50)
    assert settings.limits(args, False) == {"max_context_len": 300, "max_response_len": 50, "max_prompt_len": 100}
    # No fallback to the rollout cap (Miles' eval: unset means no cap); the others still fall back.
    assert settings.limits(args, True) == {"max_context_len": 300, "max_response_len": 50}
    assert settings.limits(_args(rollout_max_prompt_len=100, eval_max_prompt_len=70), True) == {"max_prompt_len": 70}


def test_every_chat_template_kwarg_goes_to_the_service():
    kwargs = {"enable_thinking": False, "reasoning_effort": "low"}
    assert settings.rollout_request(_args(apply_chat_template_kwargs=kwargs), 0, False, 1, "start")[
        "chat_template_kwargs"
    ] == kwargs
    as_json = _args(apply_chat_template_kwargs='{"enable_thinking": true, "x": 1}')
    assert settings.chat_template_kwargs(as_json) == {"enable_thinking": True, "x": 1}
    with pytest.raises(ValueError, match="--apply-chat-template-kwargs is not JSON"):
        settings.chat_template_kwargs(_args(apply_chat_template_kwargs="{enable_thinking"))


def test_true_on_policy_flags_make_seeds_deterministic():
    assert not settings.deterministic(_args())
    for flag in ("sglang_enable_deterministic_inference", "true_on_policy_mode", "recompute_logprobs_via_prefill"):
        assert settings.rollout_request(_args(**{flag: True}), 0, False, 1, "start")["deterministic"]


@needs_node
def test_eval_reward_key_without_reward_key_gives_scalar_sample_rewards(fake_service):
    # Miles' eval logging rounds sample.get_reward_value(args), which reads args.reward_key (unset
    # here): a dict reward would crash it.
    fn, args = fake_service({"num_eval_tasks": 2}, n_samples_per_eval_prompt=2, eval_reward_key="correct")
    entry = evaluate(fn, 0).data["fake-v1"]
    assert entry["rewards"] == [0.0, 1.0, 0.0, 1.0]
    assert [s.reward for s in entry["samples"]] == [0.0, 1.0, 0.0, 1.0]
    assert all(type(s.get_reward_value(args)) is float for s in entry["samples"])
    fn2, _ = fake_service({"num_eval_tasks": 2}, n_samples_per_eval_prompt=2, eval_reward_key="nope")
    with pytest.raises(ValueError, match="'nope' is not a reward of this environment .*correct"):
        evaluate(fn2, 0)


@needs_node
def test_an_eval_in_which_every_group_failed_raises_with_the_reason(fake_service):
    fn, _ = fake_service({"num_eval_tasks": 2, "failing_groups": [0, 1]}, n_samples_per_eval_prompt=1)
    with pytest.raises(RuntimeError, match="every eval rollout failed .*2 group.*group reward failed"):
        evaluate(fn, 0)
    fn2, _ = fake_service({"num_eval_tasks": 2, "empty_all": True})
    with pytest.raises(RuntimeError, match="every eval rollout failed .*EmptyTrace"):
        evaluate(fn2, 0)


@needs_node
def test_kept_empty_traces_are_one_masked_pad_token(fake_service):
    # retries.group = shrink keeps the group; its empty member was excluded by the episode.
    fn, _ = fake_service({"empty_tasks": [0], "shrink_tasks": [0]}, rollout_batch_size=2)
    out = train(fn, 0)
    assert sorted(task_indices(out.samples)) == [0, 1]
    group = next(g for g in out.samples if envroll_meta(flatten(g)[0])["task_index"] == 0)
    empty = [s for s in flatten(group) if envroll_meta(s).get("empty")]
    assert len(empty) == 1 and len(group) == 2  # the group keeps its size (its reward still counts)
    s = empty[0]
    assert (s.response_length, s.loss_mask, s.rollout_log_probs, s.remove_sample) == (1, [0], [0], True)
    assert len(s.tokens) >= 2 and s.status.value == "failed"
    # Miles slices the response off the end: it is the pad, not the whole sequence.
    assert s.tokens[-s.response_length :] == s.tokens[-1:]


@needs_node
def test_metrics_carry_envroll_and_upstream_names_and_the_prefix_cache_hit_rate(fake_service):
    fn, _ = fake_service({"cached_tokens": 2}, rollout_batch_size=2)
    m = train(fn, 0).metrics
    for name in ("reward_mean", "error_rate", "truncated_rate", "num_turns_mean"):
        assert m[f"verifiers/{name}"] == m[f"envroll/{name}"]
    assert m["envroll/prefix_cache_hit_rate"] == pytest.approx(2 / 3)
    fn2, _ = fake_service({}, rollout_batch_size=2)
    assert train(fn2, 0).metrics["envroll/prefix_cache_hit_rate"] == 0.0  # the engine reported none
