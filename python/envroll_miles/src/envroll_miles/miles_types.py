"""Miles' rollout types: the real ones when Miles is importable, stand-ins otherwise.

Miles cannot be installed everywhere envroll runs (it needs Megatron, SGLang, CUDA), yet the
adapter, its dry run and its tests must work without it. So when ``miles.rollout.base_types`` and
``miles.utils.types`` import, those classes are used as they are; otherwise the stand-ins below,
written from Miles' documented field lists (``Sample`` fields, ``Sample.Status`` values and the
frozen input / mutable output dataclasses), take their place. The stand-ins are not Miles: they
only carry the same fields and the few methods the adapter and its tests call.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any


class _Status(enum.Enum):
    PENDING = "pending"
    COMPLETED = "completed"
    TRUNCATED = "truncated"
    ABORTED = "aborted"
    FAILED = "failed"


@dataclass
class SpecInfoStandIn:
    spec_accept_token_num: int = 0
    spec_draft_token_num: int = 0
    spec_verify_ct: int = 0
    completion_token_num: int = 0


@dataclass
class PrefixCacheInfoStandIn:
    cached_tokens: int = 0
    total_prompt_tokens: int = 0


@dataclass
class SampleStandIn:
    """Stand-in for ``miles.utils.types.Sample`` with Miles' exact field list and order."""

    Status = _Status

    group_index: int | None = None
    index: int | None = None
    rollout_id: int | None = None
    prompt: str | list[dict] = ""
    tokens: list[int] = field(default_factory=list)
    multimodal_inputs: dict | None = None
    multimodal_train_inputs: dict | None = None
    response: str = ""
    response_length: int = 0
    label: str | None = None
    reward: float | dict | None = None
    loss_mask: list[int] | None = None
    weight_versions: list[str] = field(default_factory=list)
    rollout_log_probs: list[float] | None = None
    rollout_routed_experts: Any = None
    rollout_indexer_topk: Any = None
    remove_sample: bool = False
    teacher_log_probs: list[float] | None = None
    opd_reverse_kl: list[float] | None = None
    status: _Status = _Status.PENDING
    metadata: dict = field(default_factory=dict)
    generate_function_path: str | None = None
    train_metadata: dict | None = None
    adapter: Any = None
    reward_spec: Any = None
    routing_key: str | None = None
    non_generation_time: float = 0.0
    spec_info: SpecInfoStandIn = field(default_factory=SpecInfoStandIn)
    prefix_cache_info: PrefixCacheInfoStandIn = field(default_factory=PrefixCacheInfoStandIn)

    def get_reward_value(self, args: Any) -> Any:
        key = getattr(args, "reward_key", None)
        return self.reward[key] if key else self.reward

    @property
    def effective_response_length(self) -> int:
        return sum(self.loss_mask) if self.loss_mask is not None else self.response_length

    def validate(self) -> None:
        assert len(self.tokens) >= self.response_length, "len(tokens) < response_length"
        for name in ("loss_mask", "rollout_log_probs", "teacher_log_probs", "opd_reverse_kl"):
            value = getattr(self, name)
            if value is not None:
                assert len(value) == self.response_length, f"len({name}) != response_length"

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        out["status"] = self.status.value
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "SampleStandIn":
        data = dict(data)
        data["status"] = cls.Status(data.get("status", "pending"))
        data["spec_info"] = SpecInfoStandIn(**(data.get("spec_info") or {}))
        data["prefix_cache_info"] = PrefixCacheInfoStandIn(**(data.get("prefix_cache_info") or {}))
        return cls(**data)


@dataclass(frozen=True)
class RolloutFnConstructorInputStandIn:
    args: Any
    data_source: Any


@dataclass(frozen=True)
class RolloutFnTrainInputStandIn:
    rollout_id: int
    weight_version: int | None = None

    @property
    def evaluation(self) -> bool:
        return False


@dataclass(frozen=True)
class RolloutFnEvalInputStandIn:
    rollout_id: int
    generate_state: Any = None
    weight_version: str | None = None
    hf_dir: str | None = None

    @property
    def evaluation(self) -> bool:
        return True


@dataclass
class RolloutFnTrainOutputStandIn:
    samples: list
    metrics: dict | None = None


@dataclass
class RolloutFnEvalOutputStandIn:
    data: dict
    metrics: dict | None = None


_cache: SimpleNamespace | None = None


def load_types(force_stand_ins: bool = False) -> SimpleNamespace:
    """The types to use: Miles' own when importable (``miles=True``), else the stand-ins."""
    global _cache
    if _cache is not None and not force_stand_ins:
        return _cache
    types = None
    if not force_stand_ins:
        try:
            from miles.rollout import base_types as bt  # type: ignore[import-not-found]
            from miles.utils.types import Sample  # type: ignore[import-not-found]

            types = SimpleNamespace(
                miles=True,
                Sample=Sample,
                Status=Sample.Status,
                ConstructorInput=bt.RolloutFnConstructorInput,
                TrainInput=bt.RolloutFnTrainInput,
                EvalInput=bt.RolloutFnEvalInput,
                TrainOutput=bt.RolloutFnTrainOutput,
                EvalOutput=bt.RolloutFnEvalOutput,
            )
        except ImportError:
            types = None
    if types is None:
        types = SimpleNamespace(
            miles=False,
            Sample=SampleStandIn,
            Status=_Status,
            ConstructorInput=RolloutFnConstructorInputStandIn,
            TrainInput=RolloutFnTrainInputStandIn,
            EvalInput=RolloutFnEvalInputStandIn,
            TrainOutput=RolloutFnTrainOutputStandIn,
            EvalOutput=RolloutFnEvalOutputStandIn,
        )
    if not force_stand_ins:
        _cache = types
    return types


def reset_types_cache() -> None:
    """Forget the resolved types (tests swap a fake ``miles`` package in and out)."""
    global _cache
    _cache = None
