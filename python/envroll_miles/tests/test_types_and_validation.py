"""Types, Miles-arg mapping and validation errors (no service needed, except where noted)."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import needs_node

import miles_stub
from envroll_miles import MESSAGES, EnvrollConfigError, EnvrollRolloutFn, settings
from envroll_miles.miles_defaults import EmptyDataSource, miles_args
from envroll_miles.miles_types import SampleStandIn, load_types, reset_types_cache
from envroll_miles.samples import sample_from_dict, sample_to_dict

# Miles' `Sample` fields, in order (radixark/miles, miles/utils/types.py).
MILES_SAMPLE_FIELDS = [
    "group_index", "index", "rollout_id", "prompt", "tokens", "multimodal_inputs",
    "multimodal_train_inputs", "response", "response_length", "label", "reward", "loss_mask",
    "weight_versions", "rollout_log_probs", "rollout_routed_experts", "rollout_indexer_topk",
    "remove_sample", "teacher_log_probs", "opd_reverse_kl", "status", "metadata",
    "generate_function_path", "train_metadata", "adapter", "reward_spec", "routing_key",
    "non_generation_time", "spec_info", "prefix_cache_info",
]  # fmt: skip


def test_stand_in_has_miles_exact_field_list():
    assert [f.name for f in dataclasses.fields(SampleStandIn)] == MILES_SAMPLE_FIELDS
    assert [s.value for s in SampleStandIn.Status] == ["pending", "completed", "truncated", "aborted", "failed"]


def test_miles_types_when_importable_and_stand_ins_otherwise():
    assert load_types().miles is True  # the stub package is installed by the autouse fixture
    miles_stub.uninstall()
    reset_types_cache()
    assert load_types().miles is False
    assert load_types().Sample is SampleStandIn


def test_sample_round_trip_through_wire_dict():
    types = load_types()
    s = sample_from_dict(
        {"index": 3, "status": "truncated", "tokens": [1, 2], "response_length": 1, "loss_mask": [1],
         "rollout_log_probs": [-0.5], "spec_info": {"completion_token_num": 1}, "not_a_field": 1},
        types.Sample, types.Status,
    )  # fmt: skip
    assert s.status is types.Status.TRUNCATED
    assert s.spec_info.completion_token_num == 1
    d = sample_to_dict(s)
    assert d["status"] == "truncated" and d["index"] == 3 and "not_a_field" not in d


@pytest.mark.parametrize(
    ("override", "code"),
    [
        ({"rollout_global_dataset": True}, "global_dataset"),
        ({"chat_template_path": "t.jinja"}, "chat_template"),
        ({"multimodal_keys": '{"image": "images"}'}, "multimodal"),
        ({"use_opd": True}, "opd"),
        ({"use_rollout_routing_replay": True}, "routing_replay"),
        ({"use_rollout_indexer_replay": True}, "indexer_replay"),
        ({"custom_generate_function_path": "my.generate"}, "custom_generate"),
        ({"custom_agent_function_path": "my.agent"}, "custom_agent"),
        ({"use_session_server": True}, "session_server"),
    ],
)
def test_refused_miles_features(override, code):
    args = miles_args(**{"rollout_global_dataset": False, "rollout_batch_size": 1, **override})
    with pytest.raises(EnvrollConfigError) as err:
        EnvrollRolloutFn(load_types().ConstructorInput(args=args, data_source=EmptyDataSource()))
    assert err.value.codes == [code]
    assert str(err.value) == MESSAGES[code]


def test_all_problems_reported_at_once():
    args = miles_args(rollout_batch_size=1, chat_template_path="t.jinja", use_opd=True)
    with pytest.raises(EnvrollConfigError) as err:
        EnvrollRolloutFn(load_types().ConstructorInput(args=args, data_source=None))
    assert err.value.codes == ["global_dataset", "chat_template", "opd"]


def test_no_config_no_url(monkeypatch):
    monkeypatch.delenv("ENVROLL_CONFIG", raising=False)
    monkeypatch.delenv("ENVROLL_URL", raising=False)
    args = miles_args(rollout_global_dataset=False, rollout_batch_size=1)
    with pytest.raises(EnvrollConfigError) as err:
        EnvrollRolloutFn(load_types().ConstructorInput(args=args, data_source=None))
    assert err.value.codes == ["no_config"]


@needs_node
@pytest.mark.parametrize(
    ("fake", "override", "code", "text"),
    [
        ({"requires_group_scoring": True}, {"n_samples_per_prompt": 1}, "group_rewards_train", "(got 1)"),
        (
            {"requires_group_scoring": True},
            {"n_samples_per_prompt": 4, "n_samples_per_eval_prompt": 1, "eval_interval": 5},
            "group_rewards_eval",
            "--n-samples-per-eval-prompt >= 2",
        ),
        ({"num_tasks": 0}, {}, "empty_taskset", "no train tasks"),
    ],
)
def test_refused_environments(fake_service, fake, override, code, text):
    with pytest.raises(EnvrollConfigError) as err:
        fake_service(fake, **override)
    assert err.value.codes == [code]
    assert text in str(err.value)


@needs_node
def test_group_rewards_accept_n_at_least_2(fake_service):
    fn, _ = fake_service({"requires_group_scoring": True}, n_samples_per_prompt=2)
    assert fn.info["requires_group_scoring"] is True


def test_miles_args_map_to_the_request():
    args = miles_args(
        rollout_batch_size=4, n_samples_per_prompt=8, n_samples_per_eval_prompt=2,
        rollout_temperature=0.8, rollout_top_p=0.9, rollout_top_k=20, rollout_max_response_len=256,
        rollout_max_context_len=4096, rollout_max_prompt_len=2048, rollout_stop=["</answer>"],
        rollout_stop_token_ids=[7], rollout_skip_special_tokens=True, eval_temperature=0.0,
        eval_max_response_len=512, eval_reward_key="acc", reward_key="reward",
        apply_chat_template_kwargs='{"enable_thinking": false}', sglang_server_concurrency=64,
        rollout_num_gpus=8, rollout_num_gpus_per_engine=2, sglang_router_ip="127.0.0.1",
        sglang_router_port=3000, sglang_router_policy="consistent_hashing", lora_rank=16,
        sglang_enable_deterministic_inference=True, rollout_seed=7, rollout_shuffle=True,
    )  # fmt: skip
    body = settings.rollout_request(args, 3, False, 6, "start")
    assert body["engine_url"] == "http://127.0.0.1:3000"
    assert body["sampling"] == {
        "temperature": 0.8, "top_p": 0.9, "top_k": 20, "max_tokens": 256, "stop": ["</answer>"],
    }  # fmt: skip
    assert body["limits"] == {"max_context_len": 4096, "max_prompt_len": 2048, "max_response_len": 256}
    assert body["stop_token_ids"] == [7] and body["skip_special_tokens"] is True
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["concurrency"] == 64 * 4
    assert body["routing_policy"] == "consistent_hashing"
    assert body["lora"] == "miles_lora"
    assert body["seed_base"] == 7 and body["deterministic"] is True
    assert body["cursor"] == {"mode": "start", "shuffle": True, "seed": 7}
    assert body["n"] == 8 and body["count"] == 6 and body["reward_key"] == "reward"
    ev = settings.rollout_request(args, 3, True, None, "start")
    assert ev["n"] == 2 and "count" not in ev
    assert ev["sampling"]["temperature"] == 0.0 and ev["sampling"]["max_tokens"] == 512
    assert ev["limits"]["max_response_len"] == 512 and ev["limits"]["max_context_len"] == 4096
    assert ev["reward_key"] == "acc"
    args.lora_train_only = True
    assert settings.rollout_request(args, 3, False, 6, "start")["lora"] is None
    args.sglang_model_routers = {"default": ("10.0.0.1", 1), "eval": ("10.0.0.2", 2)}
    assert settings.engine_url(args, False) == "http://10.0.0.1:1"
    assert settings.engine_url(args, True) == "http://10.0.0.2:2"
