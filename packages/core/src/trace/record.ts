/**
 * The serialized form of a finished rollout: one line of `traces.jsonl`, what the rollout
 * service streams, and what Miles sample conversion reads. snake_case because it is a wire and
 * file format shared with Python.
 */
import type { FinishReason, Message, TaskData } from "../types.ts";

/** One message node of the trace graph; `token_ids` are the delta this node adds to its parent. */
export interface NodeRecord {
  parent: number | null;
  message: Message;
  sampled: boolean;
  timestamp: number;
  token_ids?: number[];
  /** True only on sampled completion tokens. */
  mask?: boolean[];
  is_content?: boolean[];
  /** One per token (0.0 where mask is false). */
  logprobs?: number[];
  finish_reason?: FinishReason;
  weight_version?: string | null;
  /** Why this turn's prompt was fully rendered instead of bridged from the previous turn. */
  bridge_declined?: string;
  /** What the sampled turn was allowed: `max_new_tokens` sent and the limit that set it. */
  token_budget?: { max_new_tokens: number | null; capped_by: string | null };
  /** Tool-call attempts in this sampled turn that did not parse (family, parser status, text). */
  tool_call_failures?: { family: string; reason: string; raw: string }[];
}

/** A root-to-leaf path: one training sample. Arrays are aligned. */
export interface BranchRecord {
  node_indices: number[];
  token_ids: number[];
  sampled_mask: boolean[];
  /** 0.0 on unsampled positions. */
  logprobs: number[];
  weight_versions: (string | null)[];
}

export interface TraceRecord {
  id: string;
  /** Index of the task in the taskset's loaded list (the group key). */
  task_index: number;
  /** Which of the n rollouts of the group. */
  rollout_index: number;
  task: { type: string; data: TaskData };
  nodes: NodeRecord[];
  branches: BranchRecord[];
  reward: number;
  rewards: Record<string, number>;
  metrics: Record<string, number>;
  info: Record<string, unknown>;
  errors: { type: string; message: string; traceback?: string }[];
  stop_condition: string | null;
  is_completed: boolean;
  is_truncated: boolean;
  num_turns: number;
  last_reply: string;
  /**
   * Summed over turns; `cached_tokens` is the engine's prefix-cache hits (0 when it reports none).
   * `judge_*`: what the judges' calls reported, present when they reported any; not part of the
   * policy's counts above.
   */
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    cached_tokens?: number;
    judge_prompt_tokens?: number;
    judge_completion_tokens?: number;
  };
  timing: { start: number; end: number | null; [stage: string]: unknown };
  /** Retried attempts before this one (their errors are also prepended to `errors`). */
  attempts: number;
  /**
   * Failed tool-call attempts over the sampled turns, family → parser status → count (absent
   * when none): text that looked like a call but did not parse.
   */
  tool_call_failures?: Record<string, Record<string, number>>;
}
