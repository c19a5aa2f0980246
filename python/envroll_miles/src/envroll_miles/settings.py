"""Miles args → rollout-service request fields, for train and for eval.

Eval settings fall back to the ``rollout_*`` values exactly as Miles' own eval does
(``eval_max_context_len`` defaults to ``rollout_max_context_len``), and the eval reward key is
``eval_reward_key or reward_key``.
"""

from __future__ import annotations

import json
import os
from typing import Any


def _get(args: Any, name: str, default: Any = None) -> Any:
    value = getattr(args, name, None)
    return default if value is None else value


def _pick(args: Any, evaluation: bool, name: str) -> Any:
    """``eval_<name>`` in eval when set, else ``rollout_<name>``."""
    if evaluation:
        value = getattr(args, f"eval_{name}", None)
        if value is not None:
            return value
    return getattr(args, f"rollout_{name}", None)


def chat_template_kwargs(args: Any) -> dict:
    raw = getattr(args, "apply_chat_template_kwargs", None)
    if not raw:
        return {}
    if isinstance(raw, str):
        raw = json.loads(raw)
    if not isinstance(raw, dict):
        raise ValueError("envroll_miles: --apply-chat-template-kwargs must be a JSON object")
    return raw


def engine_url(args: Any, evaluation: bool) -> str:
    """The SGLang router Miles started (``sglang_model_routers`` first, as multi-model runs use)."""
    override = getattr(args, "envroll_engine_url", None) or os.environ.get("ENVROLL_ENGINE_URL")
    if override:
        return override.rstrip("/")
    routers = getattr(args, "sglang_model_routers", None) or {}
    for key in (("eval", "default") if evaluation else ("default",)):
        if key in routers:
            ip, port = routers[key]
            return f"http://{ip}:{port}"
    ip = getattr(args, "sglang_router_ip", None)
    port = getattr(args, "sglang_router_port", None)
    if ip is None or port is None:
        raise ValueError("envroll_miles: no SGLang router address (sglang_router_ip/port unset)")
    return f"http://{ip}:{port}"


def renderer_identity(args: Any) -> dict:
    """The model the renderer is chosen for, and a local tokenizer folder when there is one.

    Like the upstream adapter: ``--sglang-tokenizer-path`` (what the engine tokenizes with) first,
    then ``--hf-checkpoint``. Unset → the environment config's ``model``.
    """
    name = getattr(args, "sglang_tokenizer_path", None) or getattr(args, "hf_checkpoint", None)
    if not name:
        return {}
    out = {"model": str(name)}
    if os.path.isfile(os.path.join(str(name), "tokenizer.json")):
        out["tokenizer_path"] = os.path.abspath(str(name))
    return out


def concurrency(args: Any) -> int:
    per_engine = _get(args, "sglang_server_concurrency", 512)
    gpus = _get(args, "rollout_num_gpus", 1)
    per = _get(args, "rollout_num_gpus_per_engine", 1)
    return max(1, int(per_engine) * max(1, int(gpus) // max(1, int(per))))


def lora_name(args: Any) -> str | None:
    """Miles serves the trained adapter as ``miles_lora`` unless LoRA is train-only."""
    if (_get(args, "lora_rank", 0) or 0) > 0 and not getattr(args, "lora_train_only", False):
        return "miles_lora"
    return None


def reward_key(args: Any, evaluation: bool) -> str | None:
    if evaluation:
        return getattr(args, "eval_reward_key", None) or getattr(args, "reward_key", None)
    return getattr(args, "reward_key", None)


def sampling(args: Any, evaluation: bool) -> dict:
    out: dict[str, Any] = {
        "temperature": _get(args, "rollout_temperature", 1.0),
        "top_p": _get(args, "rollout_top_p", 1.0),
    }
    if evaluation:
        for name in ("temperature", "top_p"):
            if getattr(args, f"eval_{name}", None) is not None:
                out[name] = getattr(args, f"eval_{name}")
    top_k = _pick(args, evaluation, "top_k")
    if top_k is not None:
        out["top_k"] = top_k
    max_tokens = _pick(args, evaluation, "max_response_len")
    if max_tokens is not None:
        out["max_tokens"] = max_tokens
    min_tokens = _pick(args, evaluation, "min_new_tokens")
    if min_tokens is not None:
        out["min_tokens"] = min_tokens
    stop = getattr(args, "rollout_stop", None)
    if stop:
        out["stop"] = list(stop)
    return out


def limits(args: Any, evaluation: bool) -> dict:
    out = {}
    for key, name in (
        ("max_context_len", "max_context_len"),
        ("max_prompt_len", "max_prompt_len"),
        ("max_response_len", "max_response_len"),
    ):
        value = _pick(args, evaluation, name)
        if value is not None:
            out[key] = int(value)
    return out


def deterministic(args: Any) -> bool:
    return bool(
        getattr(args, "sglang_enable_deterministic_inference", False)
        or getattr(args, "true_on_policy_mode", False)
    )


def rollout_request(args: Any, rollout_id: int, evaluation: bool, count: int | None, mode: str) -> dict:
    """The body of one ``POST /rollout``."""
    n = _get(args, "n_samples_per_eval_prompt" if evaluation else "n_samples_per_prompt", 1)
    body: dict[str, Any] = {
        "rollout_id": int(rollout_id),
        "evaluation": evaluation,
        "n": int(n),
        "engine_url": engine_url(args, evaluation),
        "lora": lora_name(args),
        "sampling": sampling(args, evaluation),
        "limits": limits(args, evaluation),
        "skip_special_tokens": bool(getattr(args, "rollout_skip_special_tokens", False)),
        "stop_token_ids": [int(t) for t in (getattr(args, "rollout_stop_token_ids", None) or [])],
        "chat_template_kwargs": chat_template_kwargs(args),
        "concurrency": concurrency(args),
        "seed_base": int(_get(args, "rollout_seed", 42)),
        "deterministic": deterministic(args),
        "reward_key": reward_key(args, evaluation),
        "compact": bool(getattr(args, "envroll_compact_rollouts", False)),
        "cursor": {
            "mode": mode,
            "shuffle": bool(getattr(args, "rollout_shuffle", False)),
            "seed": int(_get(args, "rollout_seed", 42)),
        },
    }
    body.update(renderer_identity(args))
    policy = getattr(args, "sglang_router_policy", None)
    if policy:
        body["routing_policy"] = policy
    if count is not None:
        body["count"] = int(count)
    return body
