"""An ``argparse.Namespace`` with Miles' defaults for every arg envroll_miles reads.

For the dry run and the tests, which must call the rollout function the way Miles does without
Miles' own parser. Values are Miles' documented defaults; ``rollout_batch_size`` has none in
Miles (it is required) and must be given.
"""

from __future__ import annotations

from argparse import Namespace
from typing import Any

MILES_DEFAULTS: dict[str, Any] = {
    # features envroll refuses (off by default in Miles)
    "rollout_global_dataset": True,
    "partial_rollout": False,
    "chat_template_path": None,
    "multimodal_keys": None,
    "use_opd": False,
    "use_rollout_routing_replay": False,
    "use_rollout_indexer_replay": False,
    "custom_generate_function_path": None,
    "custom_agent_function_path": None,
    "use_session_server": False,
    # batch shape
    "rollout_batch_size": None,
    "over_sampling_batch_size": None,
    "n_samples_per_prompt": 1,
    "n_samples_per_eval_prompt": 1,
    "num_rollout": None,
    "eval_interval": None,
    # sampling
    "rollout_temperature": 1.0,
    "rollout_top_p": 1.0,
    "rollout_top_k": -1,
    "rollout_max_response_len": None,
    "rollout_max_context_len": None,
    "rollout_max_prompt_len": None,
    "rollout_stop": None,
    "rollout_stop_token_ids": None,
    "rollout_skip_special_tokens": False,
    "rollout_seed": 42,
    "rollout_shuffle": False,
    "eval_temperature": None,
    "eval_top_p": None,
    "eval_top_k": None,
    "eval_max_response_len": None,
    "eval_max_prompt_len": None,
    "eval_min_new_tokens": None,
    "eval_max_context_len": None,
    "apply_chat_template_kwargs": None,
    # engines
    "hf_checkpoint": None,
    "sglang_tokenizer_path": None,
    "sglang_router_ip": None,
    "sglang_router_port": None,
    "sglang_router_policy": None,
    "sglang_server_concurrency": 512,
    "rollout_num_gpus": 1,
    "rollout_num_gpus_per_engine": 1,
    "sglang_enable_deterministic_inference": False,
    "true_on_policy_mode": False,
    "lora_rank": 0,
    "lora_adapter_path": None,
    "lora_train_only": False,
    "recompute_logprobs_via_prefill": False,
    # rewards and hooks
    "reward_key": None,
    "eval_reward_key": None,
    "group_rm": False,
    "rm_type": None,
    "custom_rm_path": None,
    "dynamic_sampling_filter_path": None,
    "rollout_sample_filter_path": None,
    "rollout_all_samples_process_path": None,
    "save": None,
    # envroll's own options (add_arguments)
    "envroll_config": None,
    "envroll_url": None,
    "envroll_dump_dir": None,
    "envroll_state_dir": None,
    "envroll_eval_config": None,
    "envroll_compact_rollouts": False,
    "envroll_keep_failed_groups": False,
    "envroll_replicas": None,
    "envroll_replica_concurrency": None,
    "envroll_replica_cpus": None,
    "envroll_health_timeout": None,
}


def miles_args(**overrides: Any) -> Namespace:
    values = dict(MILES_DEFAULTS)
    unknown = set(overrides) - set(values)
    if unknown:
        raise TypeError(f"not a Miles arg envroll_miles knows: {sorted(unknown)}")
    values.update(overrides)
    return Namespace(**values)


class EmptyDataSource:
    """What Miles passes with the global dataset disabled: nothing to hand out."""

    def get_samples(self, num_samples: int) -> list:
        return []

    def add_samples(self, samples: list) -> None:
        pass

    def save(self, rollout_id: int) -> None:
        pass

    def load(self, rollout_id: int | None = None) -> None:
        pass
