/**
 * The effective set of traces in a run folder.
 *
 * `traces.jsonl` is append-only: a resumed run appends new attempts for rollouts that errored
 * (or whole groups, for group-reward tasks) instead of rewriting the file, so the file can hold
 * several lines for one (task, rollout). The last line wins — a rerun only happens when the
 * earlier attempt was missing or errored, or when its whole group was rescored together.
 */
import type { BranchRecord, NodeRecord, TraceRecord } from "../trace/record.ts";

export function rolloutKey(taskIndex: number, rolloutIndex: number): string {
  return `${taskIndex}:${rolloutIndex}`;
}

/** The last trace per (task_index, rollout_index), ordered by task then rollout. */
export function effectiveTraces(traces: readonly TraceRecord[]): TraceRecord[] {
  const latest = new Map<string, TraceRecord>();
  for (const t of traces) latest.set(rolloutKey(t.task_index, t.rollout_index), t);
  return [...latest.values()].sort(
    (a, b) => a.task_index - b.task_index || a.rollout_index - b.rollout_index,
  );
}

/** Traces grouped by task index (keys ascending). */
export function groupByTask(traces: readonly TraceRecord[]): Map<number, TraceRecord[]> {
  const groups = new Map<number, TraceRecord[]>();
  for (const t of [...traces].sort((a, b) => a.task_index - b.task_index)) {
    const g = groups.get(t.task_index);
    if (g) g.push(t);
    else groups.set(t.task_index, [t]);
  }
  return groups;
}

export function hasError(t: TraceRecord): boolean {
  return t.errors.length > 0;
}

/**
 * Wall-clock seconds of one rollout, or null when it never finished. Trace timestamps are
 * epoch seconds (as in Verifiers); values that look like milliseconds are converted so a
 * producer on the other convention still yields sane totals.
 */
export function rolloutSeconds(t: TraceRecord): number | null {
  const { start, end } = t.timing;
  if (typeof start !== "number" || typeof end !== "number") return null;
  const d = end - start;
  return start > 1e11 ? d / 1000 : d;
}

/** A node or branch whose token arrays were dropped keeps their sizes. */
export type SlimCounts = { num_tokens?: number; num_sampled?: number };

/**
 * The record without token-level arrays (node `token_ids`/`mask`/`is_content`/`logprobs`,
 * branch arrays), which are replaced by counts. Idempotent. Used for summaries and the report,
 * which read messages, rewards and timing but never tokens.
 */
export function slimRecord(t: TraceRecord): TraceRecord {
  const nodes = t.nodes.map((n): NodeRecord & SlimCounts => {
    const { token_ids, mask, is_content: _ic, logprobs: _lp, ...rest } = n as NodeRecord & SlimCounts;
    return {
      ...rest,
      ...(token_ids ? { num_tokens: token_ids.length } : {}),
      ...(mask ? { num_sampled: mask.filter(Boolean).length } : {}),
    };
  });
  const branches = t.branches.map((b): BranchRecord & SlimCounts => {
    const slim = b as BranchRecord & SlimCounts;
    return {
      node_indices: b.node_indices,
      token_ids: [],
      sampled_mask: [],
      logprobs: [],
      weight_versions: [],
      num_tokens: slim.num_tokens ?? b.token_ids.length,
      num_sampled: slim.num_sampled ?? b.sampled_mask.filter(Boolean).length,
    };
  });
  return { ...t, nodes, branches };
}
