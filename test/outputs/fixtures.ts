/** Hand-built TraceRecords for the outputs tests (no runtime needed). */
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";

export function makeTrace(
  over: Partial<TraceRecord> & { task_index: number; rollout_index: number },
): TraceRecord {
  const reply = over.last_reply ?? "<reversed_text>olleh</reversed_text>";
  const reward = over.reward ?? 1;
  return {
    id: `id-${over.task_index}-${over.rollout_index}-${Math.random().toString(16).slice(2, 8)}`,
    task: { type: "ReverseTextData", data: { idx: over.task_index, prompt: `hello ${over.task_index}` } },
    nodes: [
      {
        parent: null,
        message: { role: "system", content: "Reverse the text." },
        sampled: false,
        timestamp: 1,
      },
      {
        parent: 0,
        message: { role: "user", content: `hello ${over.task_index}` },
        sampled: false,
        timestamp: 2,
      },
      {
        parent: 1,
        message: { role: "assistant", content: reply },
        sampled: true,
        timestamp: 3,
        token_ids: [1, 2, 3],
        mask: [false, true, true],
        logprobs: [0, -0.5, -0.25],
        finish_reason: "stop",
      },
    ],
    branches: [
      {
        node_indices: [0, 1, 2],
        token_ids: [10, 11, 1, 2, 3],
        sampled_mask: [false, false, false, true, true],
        logprobs: [0, 0, 0, -0.5, -0.25],
        weight_versions: [null, null, null, null, null],
      },
    ],
    reward,
    rewards: over.rewards ?? { lcs: reward },
    metrics: over.metrics ?? {},
    ...completedOneTurn(),
    last_reply: reply,
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    timing: { start: 1000, end: 1002 },
    ...over,
  };
}

/** A tasks × rollouts grid with rewards from `rewardOf`. */
export function grid(
  tasks: number,
  rollouts: number,
  rewardOf: (t: number, r: number) => number,
): TraceRecord[] {
  const out: TraceRecord[] = [];
  for (let t = 0; t < tasks; t++) {
    for (let r = 0; r < rollouts; r++)
      out.push(makeTrace({ task_index: t, rollout_index: r, reward: rewardOf(t, r) }));
  }
  return out;
}

export function errored(taskIndex: number, rolloutIndex: number, message = "boom"): TraceRecord {
  return makeTrace({
    task_index: taskIndex,
    rollout_index: rolloutIndex,
    reward: 0,
    rewards: {},
    errors: [{ type: "ProviderError", message }],
    stop_condition: "error",
    is_completed: false,
  });
}

/** The status fields of a rollout that ended on its own after one turn, fresh each call. */
export function completedOneTurn() {
  return {
    info: {},
    errors: [],
    stop_condition: "agent_completed",
    is_completed: true,
    is_truncated: false,
    num_turns: 1,
    attempts: 0,
  };
}
