/** Hand-built TraceRecords for the conversion and service tests. */

import type { BranchRecord, TraceRecord } from "../../packages/core/src/trace/record.ts";
import { completedOneTurn } from "../outputs/fixtures.ts";

/** A branch from segments: `[ids, sampled]`; logprobs are −0.1·(position+1) on sampled tokens. */
export function branch(segments: [number[], boolean][], weightVersion: string | null = "v1"): BranchRecord {
  const token_ids: number[] = [];
  const sampled_mask: boolean[] = [];
  for (const [ids, sampled] of segments) {
    for (const id of ids) {
      token_ids.push(id);
      sampled_mask.push(sampled);
    }
  }
  return {
    node_indices: segments.map((_, i) => i),
    token_ids,
    sampled_mask,
    logprobs: sampled_mask.map((s, i) => (s ? -0.1 * (i + 1) : 0)),
    weight_versions: sampled_mask.map((s) => (s ? weightVersion : null)),
  };
}

/** Prompt, first reply with a tool call, bridged tool response (unsampled), final reply. */
export function multiTurnBranch(): BranchRecord {
  return branch([
    [[1, 2, 3, 4], false],
    [[10, 11, 12], true],
    [[20, 21, 22, 23], false],
    [[13, 14], true],
  ]);
}

/** Two branches (a compaction or a fork): [1 | 2] and [3 | 4], prompt | sampled. */
export function twoBranches(): BranchRecord[] {
  return [
    branch([
      [[1], false],
      [[2], true],
    ]),
    branch([
      [[3], false],
      [[4], true],
    ]),
  ];
}

let counter = 0;

export function trace(over: Partial<TraceRecord> = {}): TraceRecord {
  counter++;
  return {
    id: `trace-${counter}`,
    task_index: 0,
    rollout_index: 0,
    task: { type: "Task", data: { idx: 0, prompt: [{ role: "user", content: "hi" }], answer: "42" } },
    nodes: [],
    branches: [
      branch([
        [[1, 2], false],
        [[7, 8, 9], true],
      ]),
    ],
    reward: 1,
    rewards: { correct: 1 },
    metrics: { len: 3 },
    ...completedOneTurn(),
    last_reply: "done",
    usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 },
    timing: { start: 0, end: 1 },
    ...over,
  };
}
