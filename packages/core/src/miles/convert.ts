/**
 * Trace → Miles Sample conversion.
 *
 * One branch (root-to-leaf path of the trace graph) is one training sample: the prompt is every
 * token before the first sampled one, the response is everything after it, and the loss mask is
 * the sampled mask over the response, so tool/user tokens bridged between turns stay in the
 * sequence with mask 0 and logprob 0.0 (Miles' multi-turn representation).
 *
 * A trace with several branches (compaction, forks) becomes a *compact rollout*: a list of
 * samples sharing one `rollout_id` inside the group, which Miles supports and the upstream
 * Verifiers adapter refuses. Because it changes what the trainer sees it is opt-in; without it
 * such a trace is an explicit ConversionError rather than a silently dropped branch. With it,
 * *every* trace is a list (a one-branch trace a list of one): Miles' `postprocess_rollout_data`
 * flattens a batch level by level, judging by its first element, so a batch must be all
 * `Sample` or all `list[Sample]` at each level.
 */
import {
  finalAttemptFailed as attemptFailed,
  type GroupFailureInfo,
  type MemberOutcome,
} from "../group-failure.ts";
import { taskPrompt } from "../harnesses/prompt.ts";
import { pyStrip } from "../text/python-str.ts";
import type { BranchRecord, NodeRecord, TraceRecord } from "../trace/record.ts";
import { contentText, type TaskData } from "../types.ts";
import type { GroupElement, MilesSample, SampleStatus } from "./sample.ts";
import { sampleViolations } from "./sample.ts";
import { versionSpans } from "./versions.ts";

export interface ConvertOptions {
  /** Miles `--reward-key` (or `--eval-reward-key` in eval): reward becomes `{...rewards, reward}`. */
  rewardKey?: string | null;
  /** Turn multi-branch traces into compact rollouts instead of failing. */
  compact?: boolean;
  /** The token standing in for the response of a trace that sampled nothing (default 0). */
  padTokenId?: number;
}

export class ConversionError extends Error {
  override name = "ConversionError";
}

/**
 * Hands out `group_index` / `index` values. Miles normalizes rewards by `group_index` and keys
 * samples by `index`, so both must be unique across a whole batch — one counter per batch,
 * shared by every request that contributes to it.
 */
export class SampleCounter {
  constructor(
    public nextGroupIndex = 0,
    public nextIndex = 0,
  ) {}
}

/**
 * Whether the rollout's final attempt failed. A rollout retried after a failure keeps the earlier
 * attempts' errors on its trace (`retries.rollout` prepends them), so `errors` alone would mark a
 * retry that then completed as failed and Miles would drop a good sample: a retried trace that
 * completed counts as a success.
 */
export function finalAttemptFailed(trace: TraceRecord): boolean {
  return attemptFailed({ errors: trace.errors, attempts: trace.attempts, completed: trace.is_completed });
}

/** `retries.group`'s re-runs of this member, when there were any (Miles logs their sums). */
function retriesOf(trace: TraceRecord): { member_retries?: number; group_retries?: number } {
  const info = trace.info.group_failure as GroupFailureInfo | undefined;
  if (!info) return {};
  return {
    ...(info.member_retries > 0 ? { member_retries: info.member_retries } : {}),
    ...(info.group_retries > 0 ? { group_retries: info.group_retries } : {}),
  };
}

/** The group-failure outcome the episode gave a member (group-failure.ts), if it gave one. */
export function groupOutcome(trace: TraceRecord): MemberOutcome | undefined {
  return (trace.info.group_failure as GroupFailureInfo | undefined)?.outcome;
}

/** failed > truncated > completed, as Miles reads them (FAILED = recoverable rollout failure). */
export function traceStatus(trace: TraceRecord): SampleStatus {
  if (finalAttemptFailed(trace)) return "failed";
  if (trace.is_truncated) return "truncated";
  return "completed";
}

export function traceReward(trace: TraceRecord, rewardKey?: string | null): number | Record<string, number> {
  return rewardKey ? { ...trace.rewards, reward: trace.reward } : trace.reward;
}

/** `label`, falling back to `answer`; Miles' field is a string. */
function taskLabel(trace: TraceRecord): string | null {
  const data = trace.task.data as Record<string, unknown>;
  const v = data.label ?? data.answer;
  if (v === undefined || v === null) return null;
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** The distinct weight versions of the sampled tokens, in order (Miles appends one per turn). */
function branchWeightVersions(branch: BranchRecord): string[] {
  const out: string[] = [];
  branch.sampled_mask.forEach((sampled, i) => {
    const v = branch.weight_versions[i];
    if (sampled && v != null && out[out.length - 1] !== v) out.push(v);
  });
  return out;
}

/** Content of the last sampled assistant node of a branch (what `trace.last_reply` is for the main one). */
function branchLastReply(nodes: readonly NodeRecord[], branch: BranchRecord): string {
  for (let i = branch.node_indices.length - 1; i >= 0; i--) {
    const node = nodes[branch.node_indices[i]!];
    if (node?.sampled && node.message.role === "assistant") return pyStrip(contentText(node.message.content));
  }
  return "";
}

/**
 * The task's prompt as the model saw it: with a system prompt, the opening messages (system
 * first, as the harness sends them); without one, the prompt as the task gave it.
 */
function milesPrompt(task: TaskData): string | unknown[] {
  if (task.system_prompt) return taskPrompt(task);
  return task.prompt == null ? "" : (task.prompt as string | unknown[]);
}

function baseSample(trace: TraceRecord, opts: ConvertOptions): MilesSample {
  const last = trace.errors[trace.errors.length - 1];
  return {
    group_index: null,
    index: null,
    rollout_id: null,
    prompt: milesPrompt(trace.task.data),
    tokens: [],
    multimodal_inputs: null,
    multimodal_train_inputs: null,
    response: trace.last_reply,
    response_length: 0,
    label: taskLabel(trace),
    reward: traceReward(trace, opts.rewardKey),
    loss_mask: [],
    weight_versions: [],
    rollout_log_probs: [],
    rollout_routed_experts: null,
    rollout_indexer_topk: null,
    remove_sample: false,
    teacher_log_probs: null,
    opd_reverse_kl: null,
    status: traceStatus(trace),
    metadata: {
      envroll: {
        trace_id: trace.id,
        branch_index: 0,
        num_branches: trace.branches.length,
        task_index: trace.task_index,
        rollout_index: trace.rollout_index,
        rewards: trace.rewards,
        metrics: trace.metrics,
        stop_condition: trace.stop_condition,
        num_turns: trace.num_turns,
        weight_versions: [],
        ...(last ? { error: `${last.type}: ${last.message}`, error_type: last.type } : {}),
        ...retriesOf(trace),
      },
    },
    generate_function_path: null,
    train_metadata: null,
    adapter: null,
    reward_spec: null,
    routing_key: trace.id,
    non_generation_time: 0,
    spec_info: {
      spec_accept_token_num: 0,
      spec_draft_token_num: 0,
      spec_verify_ct: 0,
      completion_token_num: 0,
    },
    // Summed over the trace's turns, as Miles sums `meta_info` per turn (hit rate = cached / total).
    prefix_cache_info: {
      cached_tokens: trace.usage.cached_tokens ?? 0,
      total_prompt_tokens: trace.usage.prompt_tokens,
    },
  };
}

/** One branch → one sample (indices not yet assigned). */
export function branchToSample(
  trace: TraceRecord,
  branchIndex: number,
  opts: ConvertOptions = {},
): MilesSample {
  const branch = trace.branches[branchIndex];
  if (!branch) throw new ConversionError(`trace ${trace.id} has no branch ${branchIndex}`);
  const n = branch.token_ids.length;
  if (branch.sampled_mask.length !== n || branch.logprobs.length !== n) {
    throw new ConversionError(
      `trace ${trace.id} branch ${branchIndex} is misaligned: ${n} tokens, ` +
        `${branch.sampled_mask.length} mask entries, ${branch.logprobs.length} logprobs`,
    );
  }
  const s = baseSample(trace, opts);
  s.metadata.envroll.branch_index = branchIndex;
  const first = branch.sampled_mask.indexOf(true);
  if (first < 0) return emptySample(trace, opts, branch.token_ids, branchIndex);
  s.tokens = branch.token_ids.slice();
  s.response_length = n - first;
  s.loss_mask = branch.sampled_mask.slice(first).map((m) => (m ? 1 : 0));
  // Logprobs are only meaningful where the model sampled; force 0.0 elsewhere whatever the record says.
  s.rollout_log_probs = branch.logprobs.slice(first).map((lp, i) => (s.loss_mask[i] ? lp : 0));
  s.weight_versions = branchWeightVersions(branch);
  s.metadata.envroll.weight_versions = s.weight_versions;
  s.metadata.envroll.version_spans = versionSpans(branch, first);
  if (trace.branches.length > 1) s.response = branchLastReply(trace.nodes, branch);
  s.spec_info.completion_token_num = s.loss_mask.reduce((a, b) => a + b, 0);
  return s;
}

/**
 * A trace that never sampled a token (it failed before its first turn). It still becomes a sample
 * so the group keeps its size (its reward still counts in the group's advantages) and the failure
 * is visible, in a shape Miles can carry: a zero-length response would break code that slices
 * `tokens[-response_length:]`, so one masked pad token stands for the response (after the prompt
 * tokens, or after a pad token when there were none: the trainer scores the response from the
 * position before it). Status failed, `remove_sample` so it never contributes loss. Its group
 * is dropped (reason `empty_trace`) unless `retries.group = shrink` excluded the member; eval
 * lists such traces as None rewards, never as samples.
 */
function emptySample(
  trace: TraceRecord,
  opts: ConvertOptions,
  promptIds: number[],
  branchIndex = 0,
): MilesSample {
  const s = baseSample(trace, opts);
  const pad = opts.padTokenId ?? 0;
  s.tokens = [...(promptIds.length > 0 ? promptIds : [pad]), pad];
  s.response_length = 1;
  s.loss_mask = [0];
  s.rollout_log_probs = [0];
  s.response = "";
  s.status = "failed";
  s.remove_sample = true;
  s.metadata.envroll.branch_index = branchIndex;
  s.metadata.envroll.empty = true;
  if (s.metadata.envroll.error === undefined) {
    s.metadata.envroll.error = "EmptyTrace: no sampled token";
    s.metadata.envroll.error_type = "EmptyTrace";
  }
  return s;
}

function assign(s: MilesSample, groupIndex: number, counter: SampleCounter): MilesSample {
  s.group_index = groupIndex;
  s.index = counter.nextIndex++;
  const bad = sampleViolations(s);
  if (bad.length > 0) {
    throw new ConversionError(
      `sample of trace ${s.metadata.envroll.trace_id} violates Miles invariants: ${bad.join("; ")}`,
    );
  }
  return s;
}

/**
 * One trace → one group element: a sample, or (with `compact`) a compact rollout, a list of one
 * sample per branch.
 */
export function traceToElement(
  trace: TraceRecord,
  groupIndex: number,
  counter: SampleCounter,
  opts: ConvertOptions = {},
): GroupElement {
  const count = trace.branches.length;
  if (!opts.compact) {
    if (count === 0) return assign(emptySample(trace, opts, []), groupIndex, counter);
    if (count === 1) return assign(branchToSample(trace, 0, opts), groupIndex, counter);
    throw new ConversionError(
      `trace ${trace.id} (task ${trace.task_index}) has ${count} branches (compaction or a forked ` +
        "conversation); enable compact rollouts (--envroll-compact-rollouts / request `compact: true`) " +
        "to train on them as one compact rollout",
    );
  }
  // Convert every branch first so a bad one fails the trace before any index is consumed.
  const siblings =
    count === 0
      ? [emptySample(trace, opts, [])]
      : trace.branches.map((_, b) => branchToSample(trace, b, opts));
  // One trace's turns are counted once (on its first branch), or the hit rate would double-count.
  for (const s of siblings.slice(1)) s.prefix_cache_info = { cached_tokens: 0, total_prompt_tokens: 0 };
  const rolloutId = counter.nextIndex;
  return siblings.map((s) => {
    s.rollout_id = rolloutId;
    return assign(s, groupIndex, counter);
  });
}

/** A task's n traces → one Miles group with a fresh `group_index`. */
export function tracesToGroup(
  traces: readonly TraceRecord[],
  counter: SampleCounter,
  opts: ConvertOptions = {},
): GroupElement[] {
  // Convert against a scratch counter first: a ConversionError must not leave holes in the batch.
  const scratch = new SampleCounter(counter.nextGroupIndex, counter.nextIndex);
  const groupIndex = scratch.nextGroupIndex++;
  const group = traces.map((t) => traceToElement(t, groupIndex, scratch, opts));
  maskExcluded(traces, group, opts);
  counter.nextGroupIndex = scratch.nextGroupIndex;
  counter.nextIndex = scratch.nextIndex;
  return group;
}

/**
 * `shrink` (retries.group): members the policy excluded stay in the group, since Miles needs
 * `n_samples_per_prompt` samples per group, but train nothing (`remove_sample`, zero loss mask)
 * and carry the survivors' mean reward, so the group's mean — the baseline of every survivor's
 * advantage — is the survivors' own. (With GRPO's std division the survivors' advantages are
 * scaled by one factor per group; with `--disable-grpo-std-normalization` they are exact.)
 */
function maskExcluded(traces: readonly TraceRecord[], group: GroupElement[], opts: ConvertOptions): void {
  const excluded = traces.map((t) => groupOutcome(t) === "excluded");
  if (!excluded.includes(true)) return;
  const survivors = traces.filter((_, i) => !excluded[i]).map((t) => traceReward(t, opts.rewardKey));
  const mean = meanReward(survivors);
  group.forEach((element, i) => {
    if (!excluded[i]) return;
    for (const s of Array.isArray(element) ? element : [element]) {
      s.remove_sample = true;
      s.loss_mask = s.loss_mask.map(() => 0);
      s.reward = mean;
      s.metadata.envroll.group_failure = "excluded";
    }
  });
}

function meanReward(rewards: readonly (number | Record<string, number>)[]): number | Record<string, number> {
  const avg = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const first = rewards[0];
  if (first === undefined || typeof first === "number") return avg(rewards as number[]);
  const keys = Object.keys(first);
  return Object.fromEntries(
    keys.map((k) => [k, avg(rewards.map((r) => (r as Record<string, number>)[k] ?? 0))]),
  );
}
