/**
 * `summary.json`: the aggregates of one eval run, computed only from its traces so that the
 * file can always be regenerated (after `--resume`, or by hand) and checked against
 * `traces.jsonl`.
 *
 * Conventions (the ones verifiers' `vf-eval` metadata uses):
 * - means include errored rollouts (their reward is whatever was recorded, usually 0); the mean
 *   over non-errored rollouts is reported beside it, as the V1 dashboard shows both;
 * - std is the population standard deviation (numpy's default);
 * - a rollout is correct when its reward ≥ `pass_threshold` (0.5 by default);
 * - per-key means are over the traces that recorded that key.
 */
import type { TraceRecord } from "../trace/record.ts";
import { passStats } from "./pass-at-k.ts";
import { effectiveTraces, groupByTask, hasError, rolloutSeconds } from "./trace-set.ts";

export interface RunMeta {
  taskset: string;
  model: string;
  harness: string;
  run_id: string;
  /** Configured tasks (null = all the taskset has). */
  num_tasks: number | null;
  /** Configured rollouts per task (the group size n). */
  num_rollouts: number;
  pass_threshold?: number;
  /** Wall-clock seconds of the whole run, when known. */
  wall_seconds?: number | null;
}

export interface Summary {
  taskset: string;
  model: string;
  harness: string;
  run_id: string;
  num_tasks: number;
  num_rollouts: number;
  num_traces: number;
  num_errors: number;
  num_truncated: number;
  error_rate: number;
  truncation_rate: number;
  reward: { mean: number; std: number; min: number; max: number; mean_non_errored: number | null };
  rewards: Record<string, number>;
  metrics: Record<string, number>;
  pass_threshold: number;
  pass_at_k: Record<string, number>;
  pass_all_k: Record<string, number>;
  /** Tasks with all n rollouts present (those entering pass@k). */
  num_complete_tasks: number;
  stop_conditions: Record<string, number>;
  errors_by_type: Record<string, number>;
  tokens: { prompt: number; completion: number; total: number; mean_total_per_rollout: number };
  time: { rollout_seconds_total: number; rollout_seconds_mean: number; wall_seconds: number | null };
  turns: { total: number; mean: number };
}

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Population standard deviation. */
export function std(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const m = mean(xs);
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2)));
}

function keyMeans(records: readonly Record<string, number>[]): Record<string, number> {
  const sums = new Map<string, { sum: number; count: number }>();
  for (const rec of records) {
    for (const [k, v] of Object.entries(rec)) {
      if (typeof v !== "number" || !Number.isFinite(v)) continue;
      const s = sums.get(k) ?? { sum: 0, count: 0 };
      s.sum += v;
      s.count += 1;
      sums.set(k, s);
    }
  }
  const out: Record<string, number> = {};
  for (const k of [...sums.keys()].sort()) {
    const s = sums.get(k)!;
    out[k] = s.sum / s.count;
  }
  return out;
}

function countBy(xs: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
}

/** Summarizes a run. `traces` may contain superseded attempts; only the last per rollout counts. */
export function summarize(allTraces: readonly TraceRecord[], meta: RunMeta): Summary {
  const traces = effectiveTraces(allTraces);
  const threshold = meta.pass_threshold ?? 0.5;
  const rewards = traces.map((t) => t.reward);
  const ok = traces.filter((t) => !hasError(t));
  const errored = traces.filter(hasError);
  const truncated = traces.filter((t) => t.is_truncated);
  const groups = [...groupByTask(traces).values()].map((g) => g.map((t) => t.reward >= threshold));
  const pass = passStats(groups, meta.num_rollouts);
  const seconds = traces.map(rolloutSeconds).filter((s): s is number => s !== null);
  const tokens = {
    prompt: traces.reduce((a, t) => a + (t.usage?.prompt_tokens ?? 0), 0),
    completion: traces.reduce((a, t) => a + (t.usage?.completion_tokens ?? 0), 0),
    total: traces.reduce((a, t) => a + (t.usage?.total_tokens ?? 0), 0),
    mean_total_per_rollout: 0,
  };
  tokens.mean_total_per_rollout = traces.length ? tokens.total / traces.length : 0;
  const turns = traces.reduce((a, t) => a + t.num_turns, 0);
  const n = traces.length;
  return {
    taskset: meta.taskset,
    model: meta.model,
    harness: meta.harness,
    run_id: meta.run_id,
    num_tasks: groupByTask(traces).size,
    num_rollouts: meta.num_rollouts,
    num_traces: n,
    num_errors: errored.length,
    num_truncated: truncated.length,
    error_rate: n ? errored.length / n : 0,
    truncation_rate: n ? truncated.length / n : 0,
    reward: {
      mean: mean(rewards),
      std: std(rewards),
      // A reduce, not Math.min(...rewards): spreading >~120k values throws RangeError.
      min: n ? rewards.reduce((a, b) => Math.min(a, b)) : 0,
      max: n ? rewards.reduce((a, b) => Math.max(a, b)) : 0,
      mean_non_errored: ok.length ? mean(ok.map((t) => t.reward)) : null,
    },
    rewards: keyMeans(traces.map((t) => t.rewards)),
    metrics: keyMeans(traces.map((t) => t.metrics)),
    pass_threshold: threshold,
    pass_at_k: pass.pass_at_k,
    pass_all_k: pass.pass_all_k,
    num_complete_tasks: pass.num_tasks,
    stop_conditions: countBy(traces.map((t) => t.stop_condition ?? "none")),
    errors_by_type: countBy(errored.map((t) => t.errors[t.errors.length - 1]!.type)),
    tokens,
    time: {
      rollout_seconds_total: seconds.reduce((a, b) => a + b, 0),
      rollout_seconds_mean: mean(seconds),
      wall_seconds: meta.wall_seconds ?? null,
    },
    turns: { total: turns, mean: n ? turns / n : 0 },
  };
}
