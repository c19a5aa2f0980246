"""GRPO advantages (Miles' group normalization) and the PPO-clip policy loss."""

from __future__ import annotations

import torch

STD_EPS = 1e-6


def group_advantages(rewards: list[float], *, std_normalization: bool = True) -> list[float]:
    """Miles' default for --advantage-estimator grpo: r - mean(group), divided by
    (std + 1e-6) where std is torch's default *unbiased* (n-1) standard deviation.

    A group of one sample has no spread to normalise by (Miles disables the std division when
    n_samples_per_prompt == 1), so it gets r - mean = 0.
    """
    r = torch.tensor(rewards, dtype=torch.float32)
    centered = r - r.mean()
    if std_normalization and r.numel() > 1:
        centered = centered / (r.std() + STD_EPS)
    return centered.tolist()


def ppo_clip_loss(
    new_logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    eps_clip: float = 0.2,
    eps_clip_high: float | None = None,
) -> torch.Tensor:
    """Token-level mean over mask==1 of max(-A*ratio, -A*clip(ratio, 1-eps, 1+eps_high)),
    ratio = exp(new - old). All inputs are flat [tokens] tensors over the whole batch, so
    every masked token weighs the same regardless of which sample it came from."""
    hi = eps_clip if eps_clip_high is None else eps_clip_high
    ratio = torch.exp(new_logprobs - old_logprobs)
    unclipped = -advantages * ratio
    clipped = -advantages * torch.clamp(ratio, 1.0 - eps_clip, 1.0 + hi)
    per_token = torch.maximum(unclipped, clipped)
    m = mask.to(per_token.dtype)
    return (per_token * m).sum() / m.sum().clamp_min(1.0)
