"""Miles args → rollout-service request fields, for train and for eval.

Eval settings fall back to the ``rollout_*`` values exactly as Miles' own eval does
(``eval_max_context_len`` defaults to ``rollout_max_context_len``; the prompt cap is
``--eval-max-prompt-len`` alone), and the eval reward key is ``eval_reward_key or reward_key``.
"""

from __future__ import annotations

import json
import os
from typing import Any


def _get(args: Any, name: str, default: Any = None) -> Any:
    value = getattr(args, name, None)
    return default if value is None else value


def flag(args: Any, name: str, env: str) -> bool:
    """A boolean envroll option: the Miles flag, else its environment variable (``1``/``true``/
    ``yes``), which is all the legacy entry point has under ``MILES_USE_LEGACY_ROLLOUT_V1=1``."""
    if getattr(args, name, False):
        return True
    return os.environ.get(env, "").strip().lower() in ("1", "true", "yes")


def _pick(args: Any, evaluation: bool, name: str) -> Any:
    """``eval_<name>`` in eval when set, else ``rollout_<name>``."""
    if evaluation:
        value = getattr(args, f"eval_{name}", None)
        if value is not None:
            return value
    return getattr(args, f"rollout_{name}", None)


def chat_template_kwargs(args: Any) -> dict:
    """``--apply-chat-template-kwargs``, every key: the service hands them all to the renderer,
    which refuses (naming the key) any it does not know."""
    raw = getattr(args, "apply_chat_template_kwargs", None)
    if not raw:
        return {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError as err:
            raise ValueError(f"envroll_miles: --apply-chat-template-kwargs is not JSON: {err}") from None
    if not isinstance(raw, dict):
        raise ValueError("envroll_miles: --apply-chat-template-kwargs must be a JSON object")
    return dict(raw)


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


LORA_ADAPTER_NAME = "miles_lora"


def lora_enabled(args: Any) -> bool:
    """Miles has an adapter: ``--lora-rank > 0`` or ``--lora-adapter-path`` (``is_lora_enabled``)."""
    return (_get(args, "lora_rank", 0) or 0) > 0 or getattr(args, "lora_adapter_path", None) is not None


def lora_name(args: Any) -> str | None:
    """The adapter rollouts sample from: Miles serves it as ``miles_lora`` whenever it has one,
    except with ``--lora-train-only`` (Miles' ``lora_rollout_enabled``: the engine then has no
    adapter loaded, and the base model is what trains the adapter)."""
    if lora_enabled(args) and not getattr(args, "lora_train_only", False):
        return LORA_ADAPTER_NAME
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
    for name in ("max_context_len", "max_response_len"):
        value = _pick(args, evaluation, name)
        if value is not None:
            out[name] = int(value)
    # The prompt cap has no fallback in eval: Miles' eval uses --eval-max-prompt-len alone (unset
    # = no cap), whatever --rollout-max-prompt-len says.
    prompt = getattr(args, "eval_max_prompt_len" if evaluation else "rollout_max_prompt_len", None)
    if prompt is not None:
        out["max_prompt_len"] = int(prompt)
    return out


def deterministic(args: Any) -> bool:
    # Miles forces deterministic inference for both true-on-policy flags; args built outside
    # Miles' parser may not have that applied yet.
    return bool(
        getattr(args, "sglang_enable_deterministic_inference", False)
        or getattr(args, "true_on_policy_mode", False)
        or getattr(args, "recompute_logprobs_via_prefill", False)
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
        "compact": flag(args, "envroll_compact_rollouts", "ENVROLL_COMPACT_ROLLOUTS"),
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
