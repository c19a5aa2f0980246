"""Refuse Miles settings envroll cannot honour, with explicit and stable messages.

Each message starts with ``envroll_miles:`` and names the flag, so logs can be grepped and tests
can match them exactly. All violations are reported at once: fixing a launcher one error at a
time is slow when a run takes minutes to reach the rollout function.
"""

from __future__ import annotations

from typing import Any

from . import settings

PREFIX = "envroll_miles: "

MESSAGES = {
    "global_dataset": PREFIX
    + "the rollout global dataset is on; envroll owns the task list and its cursor, "
    "pass --disable-rollout-global-dataset",
    "chat_template": PREFIX
    + "--chat-template-path is not supported: envroll renders prompts with its own per-model "
    "renderer so that multi-turn tokens stay exact",
    "multimodal": PREFIX + "--multimodal-keys is not supported: envroll train rollouts are text-only",
    "opd": PREFIX + "--use-opd (on-policy distillation) is not supported",
    "routing_replay": PREFIX
    + "--use-rollout-routing-replay is not supported: envroll does not carry routed experts",
    "indexer_replay": PREFIX
    + "--use-rollout-indexer-replay is not supported: envroll does not carry indexer top-k",
    "custom_generate": PREFIX
    + "--custom-generate-function-path has no effect here: the environment's harness runs each "
    "episode and calls the model itself; drop the flag (or use Miles' default rollout function)",
    "custom_agent": PREFIX
    + "--custom-agent-function-path has no effect here: the environment's harness is the agent; "
    "drop the flag",
    "session_server": PREFIX
    + "--use-session-server is not supported: envroll records every turn token-exact itself and "
    "talks to the router directly",
    "group_rewards_train": PREFIX
    + "the taskset has group rewards, which need --n-samples-per-prompt >= {need} (got {n})",
    "group_rewards_eval": PREFIX
    + "the taskset has group rewards, which need --n-samples-per-eval-prompt >= {need} when "
    "--eval-interval is set (got {n})",
    "no_config": PREFIX + "no environment: pass --envroll-config <env.toml> (or set ENVROLL_CONFIG), "
    "or --envroll-url <service> (or ENVROLL_URL)",
    "empty_taskset": PREFIX + "the environment has no train tasks",
    "keep_failed_groups": PREFIX
    + "--envroll-keep-failed-groups (ENVROLL_KEEP_FAILED_GROUPS) was replaced by retries.group in "
    "the env.toml, one policy for eval, envroll serve and Miles: policy = \"shrink\" keeps a "
    "group's survivors (failed members stay in the group, untrained), \"drop-group\" (the default) "
    "drops the group, \"retry\" / \"retry-group\" re-run failed members / the group first",
}


class EnvrollConfigError(ValueError):
    """A Miles setting envroll refuses; ``codes`` lists the stable keys of ``MESSAGES``."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.codes = [code for code, _ in problems]
        super().__init__("\n".join(message for _, message in problems))


def _on(args: Any, name: str) -> bool:
    return bool(getattr(args, name, None))


def miles_problems(args: Any) -> list[tuple[str, str]]:
    """Checks that need only Miles' args."""
    out = []
    if getattr(args, "rollout_global_dataset", False):
        out.append(("global_dataset", MESSAGES["global_dataset"]))
    flags = [
        ("chat_template_path", "chat_template"),
        ("multimodal_keys", "multimodal"),
        ("use_opd", "opd"),
        ("use_rollout_routing_replay", "routing_replay"),
        ("use_rollout_indexer_replay", "indexer_replay"),
        ("custom_generate_function_path", "custom_generate"),
        ("custom_agent_function_path", "custom_agent"),
        ("use_session_server", "session_server"),
    ]
    for attr, code in flags:
        if _on(args, attr):
            out.append((code, MESSAGES[code]))
    if settings.flag(args, "envroll_keep_failed_groups", "ENVROLL_KEEP_FAILED_GROUPS"):
        out.append(("keep_failed_groups", MESSAGES["keep_failed_groups"]))
    return out


def environment_problems(args: Any, info: dict) -> list[tuple[str, str]]:
    """Checks against the environment the service loaded (its ``/info``)."""
    out = []
    if info.get("num_tasks", 0) == 0 and getattr(args, "num_rollout", 1) != 0:
        out.append(("empty_taskset", MESSAGES["empty_taskset"]))
    # The service states the smallest group its environment accepts (envroll decides the rule once,
    # when the environment loads); here only Miles' sizes are compared with it.
    need = int(info.get("min_group_size", 1))
    n = getattr(args, "n_samples_per_prompt", 1) or 1
    if n < need and getattr(args, "num_rollout", 1) != 0:
        out.append(("group_rewards_train", MESSAGES["group_rewards_train"].format(n=n, need=need)))
    n_eval = getattr(args, "n_samples_per_eval_prompt", 1) or 1
    if n_eval < need and getattr(args, "eval_interval", None):
        out.append(("group_rewards_eval", MESSAGES["group_rewards_eval"].format(n=n_eval, need=need)))
    return out


def check(problems: list[tuple[str, str]]) -> None:
    if problems:
        raise EnvrollConfigError(problems)
