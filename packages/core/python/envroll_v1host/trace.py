"""A verifiers `Trace` rebuilt from envroll's snapshot of a rollout.

envroll owns the real trace (its message graph carries the tokens); Python task code only reads
it. The snapshot holds the main branch's messages and which of them the model sampled, plus the
metrics, (weighted) rewards, info and stop condition so far — what `last_reply`, `num_turns`,
`assistant_messages`, `metrics` and friends derive from.
"""

from __future__ import annotations


def build_trace(task, snap: dict, state):
    from verifiers.v1.graph import MessageNode
    from verifiers.v1.trace import Trace, TraceTask

    sampled = set(snap.get("sampled") or [])
    nodes = [
        MessageNode(parent=i - 1 if i else None, message=m, sampled=i in sampled)
        for i, m in enumerate(snap.get("messages") or [])
    ]
    trace = Trace(
        task=TraceTask(type=type(task).__name__, data=task.data),
        nodes=nodes,
        metrics=dict(snap.get("metrics") or {}),
        rewards=dict(snap.get("rewards") or {}),
        info=dict(snap.get("info") or {}),
        stop_condition=snap.get("stop_condition"),
    )
    if "id" in snap:
        trace.id = snap["id"]
    trace.state = state
    return trace


def message_dict(m) -> dict:
    if isinstance(m, dict):
        return m
    return m.model_dump(mode="json", exclude_none=True)
