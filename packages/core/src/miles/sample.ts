/**
 * The wire form of a Miles `Sample` (`miles/utils/types.py`): exactly the dict that
 * `Sample.to_dict()` produces, so the Python side can rebuild a `Sample` field by field and
 * `--dump-details`-style files read the same as Miles' own.
 *
 * snake_case on purpose: this is a JSON format shared with Python.
 */

/** Miles' `Sample.Status` enum values (serialized as the string value). */
export type SampleStatus = "pending" | "completed" | "truncated" | "aborted" | "failed";

/** What envroll records about the rollout a sample came from (`metadata.envroll`). */
export interface EnvrollSampleMetadata {
  trace_id: string;
  branch_index: number;
  num_branches: number;
  task_index: number;
  rollout_index: number;
  rewards: Record<string, number>;
  metrics: Record<string, number>;
  stop_condition: string | null;
  num_turns: number;
  /** The last error of the trace ("type: message"), when it failed. */
  error?: string;
  /** That error's type (class name); `UnsupportedError` is a refusal that stops a train step. */
  error_type?: string;
  weight_versions: string[];
  /**
   * [start, end, version] over response positions: which version sampled which turn (the
   * trainer teacher-forces each turn with its own version's weights).
   */
  version_spans?: [number, number, string][];
  /** True when the trace produced no sampled token: one masked pad token stands for its response. */
  empty?: boolean;
  /** `excluded`: a failed member `retries.group = shrink` keeps in the group untrained. */
  group_failure?: "excluded";
  /** `retries.group`: times this member was re-run alone (`retry`), when any. */
  member_retries?: number;
  /** `retries.group`: times its whole group was re-issued (`retry-group`), when any. */
  group_retries?: number;
}

export interface MilesSample {
  group_index: number | null;
  index: number | null;
  /** Shared by the siblings of a compact rollout; null otherwise (Miles then keys by `index`). */
  rollout_id: number | null;
  prompt: string | unknown[];
  tokens: number[];
  multimodal_inputs: null;
  multimodal_train_inputs: null;
  response: string;
  response_length: number;
  label: string | null;
  reward: number | Record<string, number> | null;
  loss_mask: number[];
  weight_versions: string[];
  rollout_log_probs: number[];
  rollout_routed_experts: null;
  rollout_indexer_topk: null;
  remove_sample: boolean;
  teacher_log_probs: null;
  opd_reverse_kl: null;
  status: SampleStatus;
  metadata: { envroll: EnvrollSampleMetadata; [key: string]: unknown };
  generate_function_path: null;
  train_metadata: null;
  adapter: null;
  reward_spec: null;
  routing_key: string | null;
  non_generation_time: number;
  spec_info: {
    spec_accept_token_num: number;
    spec_draft_token_num: number;
    spec_verify_ct: number;
    completion_token_num: number;
  };
  prefix_cache_info: { cached_tokens: number; total_prompt_tokens: number };
}

/**
 * One element of a Miles group: a sample, or a compact rollout (siblings sharing `rollout_id`,
 * one per branch of a trace that compacted or forked).
 */
export type GroupElement = MilesSample | MilesSample[];

/**
 * Miles' `Sample.validate()` alignment invariants, re-checked before a sample leaves envroll so a
 * misaligned sample fails here with a clear message instead of deep inside the trainer.
 * Returns the list of violations (empty when valid).
 */
export function sampleViolations(s: MilesSample): string[] {
  const out: string[] = [];
  if (s.response_length < 0) out.push(`response_length ${s.response_length} < 0`);
  if (s.tokens.length < s.response_length) {
    out.push(`len(tokens) ${s.tokens.length} < response_length ${s.response_length}`);
  }
  if (s.loss_mask.length !== s.response_length) {
    out.push(`len(loss_mask) ${s.loss_mask.length} != response_length ${s.response_length}`);
  }
  if (s.rollout_log_probs.length !== s.response_length) {
    out.push(`len(rollout_log_probs) ${s.rollout_log_probs.length} != response_length ${s.response_length}`);
  }
  return out;
}

/** Flattens a group's elements (compact rollouts expand to their siblings). */
export function groupSamples(group: readonly GroupElement[]): MilesSample[] {
  return group.flatMap((e) => (Array.isArray(e) ? e : [e]));
}
