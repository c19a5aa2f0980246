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
import type { GroupFailureInfo } from "../group-failure.ts";
import type { TasksetOrigin } from "../task.ts";
import type { TraceRecord } from "../trace/record.ts";
import { passStats } from "./pass-at-k.ts";
import { effectiveTraces, hasError, rolloutSeconds } from "./trace-set.ts";

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
  /** Which taskset code ran, when the taskset says (a Python V1 taskset: module, version). */
  taskset_origin?: TasksetOrigin;
}

export interface Summary {
  taskset: string;
  taskset_origin?: TasksetOrigin;
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
  /** What `retries.group` did: groups dropped or re-run, members excluded or re-run. */
  group_failure: {
    groups_dropped: number;
    groups_retried: number;
    members_excluded: number;
    member_retries: number;
  };
  /**
   * Sampled turns whose text looked like a tool call but did not parse: how many turns, and the
   * failed attempts by renderer family and parser status (`invalid_json`, `unclosed_block`, …).
   */
  tool_call_failures: { turns: number; attempts: number; by_family: Record<string, Record<string, number>> };
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

/** Running per-key sums: the mean of a key is over the traces that recorded it. */
class KeyMeans {
  private readonly sums = new Map<string, { sum: number; count: number }>();

  add(rec: Readonly<Record<string, number>>): void {
    for (const [k, v] of Object.entries(rec)) {
      if (typeof v !== "number" || !Number.isFinite(v)) continue;
      const s = this.sums.get(k) ?? { sum: 0, count: 0 };
      s.sum += v;
      s.count += 1;
      this.sums.set(k, s);
    }
  }

  result(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const k of [...this.sums.keys()].sort()) {
      const s = this.sums.get(k)!;
      out[k] = s.sum / s.count;
    }
    return out;
  }
}

function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/**
 * The one summary builder: traces are added as they finish (an eval streams them; a run folder
 * replays its file) and only the numbers a summary needs are kept — a few per trace, never the
 * trace — so a 100,000-rollout run summarizes in memory bounded by its number of tasks. Each (task, rollout) must be
 * added once; `summarize` picks the effective attempt first.
 */
export class SummaryBuilder {
  private count = 0;
  private rewardSum = 0;
  /** Welford's running sum of squared deviations, for the population std. */
  private rewardM2 = 0;
  private rewardMean = 0;
  private rewardMin = Number.POSITIVE_INFINITY;
  private rewardMax = Number.NEGATIVE_INFINITY;
  private okSum = 0;
  private okCount = 0;
  private errored = 0;
  private truncated = 0;
  /** Per task: rollouts seen and how many were correct. */
  private readonly correct = new Map<number, { n: number; c: number }>();
  private readonly rewards = new KeyMeans();
  private readonly metrics = new KeyMeans();
  private readonly stops: Record<string, number> = {};
  private readonly errorTypes: Record<string, number> = {};
  private readonly tokens = { prompt: 0, completion: 0, total: 0 };
  private secondsSum = 0;
  private secondsCount = 0;
  private turns = 0;
  private readonly groupsDropped = new Set<number>();
  private readonly groupsRetried = new Set<number>();
  private membersExcluded = 0;
  private memberRetries = 0;
  private readonly toolFailures = {
    turns: 0,
    attempts: 0,
    by_family: {} as Record<string, Record<string, number>>,
  };

  constructor(private readonly meta: RunMeta) {}

  private get threshold(): number {
    return this.meta.pass_threshold ?? 0.5;
  }

  add(t: TraceRecord): void {
    const r = t.reward;
    this.count++;
    this.rewardSum += r;
    const delta = r - this.rewardMean;
    this.rewardMean += delta / this.count;
    this.rewardM2 += delta * (r - this.rewardMean);
    this.rewardMin = Math.min(this.rewardMin, r);
    this.rewardMax = Math.max(this.rewardMax, r);
    if (hasError(t)) {
      this.errored++;
      bump(this.errorTypes, t.errors[t.errors.length - 1]!.type);
    } else {
      this.okSum += t.reward;
      this.okCount++;
    }
    if (t.is_truncated) this.truncated++;
    const group = this.correct.get(t.task_index) ?? { n: 0, c: 0 };
    group.n++;
    if (r >= this.threshold) group.c++;
    this.correct.set(t.task_index, group);
    this.rewards.add(t.rewards);
    this.metrics.add(t.metrics);
    bump(this.stops, t.stop_condition ?? "none");
    this.tokens.prompt += t.usage?.prompt_tokens ?? 0;
    this.tokens.completion += t.usage?.completion_tokens ?? 0;
    this.tokens.total += t.usage?.total_tokens ?? 0;
    const s = rolloutSeconds(t);
    if (s !== null) {
      this.secondsSum += s;
      this.secondsCount++;
    }
    this.turns += t.num_turns;
    const g = t.info.group_failure as GroupFailureInfo | undefined;
    if (g) {
      if (g.outcome === "dropped") this.groupsDropped.add(t.task_index);
      if (g.outcome === "excluded") this.membersExcluded++;
      if (g.group_retries > 0) this.groupsRetried.add(t.task_index);
      this.memberRetries += g.member_retries;
    }
    for (const node of t.nodes ?? []) if (node.tool_call_failures?.length) this.toolFailures.turns++;
    for (const [family, reasons] of Object.entries(t.tool_call_failures ?? {}))
      for (const [reason, n] of Object.entries(reasons)) {
        const byReason = this.toolFailures.by_family[family] ?? {};
        byReason[reason] = (byReason[reason] ?? 0) + n;
        this.toolFailures.by_family[family] = byReason;
        this.toolFailures.attempts += n;
      }
  }

  result(): Summary {
    const meta = this.meta;
    const n = this.count;
    const byTask = [...this.correct.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([, g]) => Array.from({ length: g.n }, (_, i) => i < g.c));
    const pass = passStats(byTask, meta.num_rollouts);
    return {
      taskset: meta.taskset,
      ...(meta.taskset_origin ? { taskset_origin: meta.taskset_origin } : {}),
      model: meta.model,
      harness: meta.harness,
      run_id: meta.run_id,
      num_tasks: this.correct.size,
      num_rollouts: meta.num_rollouts,
      num_traces: n,
      num_errors: this.errored,
      num_truncated: this.truncated,
      error_rate: n ? this.errored / n : 0,
      truncation_rate: n ? this.truncated / n : 0,
      reward: {
        mean: n ? this.rewardSum / n : 0,
        std: n ? Math.sqrt(Math.max(0, this.rewardM2 / n)) : 0,
        min: n ? this.rewardMin : 0,
        max: n ? this.rewardMax : 0,
        mean_non_errored: this.okCount ? this.okSum / this.okCount : null,
      },
      rewards: this.rewards.result(),
      metrics: this.metrics.result(),
      pass_threshold: this.threshold,
      pass_at_k: pass.pass_at_k,
      pass_all_k: pass.pass_all_k,
      num_complete_tasks: pass.num_tasks,
      stop_conditions: { ...this.stops },
      errors_by_type: { ...this.errorTypes },
      tokens: { ...this.tokens, mean_total_per_rollout: n ? this.tokens.total / n : 0 },
      time: {
        rollout_seconds_total: this.secondsSum,
        rollout_seconds_mean: this.secondsCount ? this.secondsSum / this.secondsCount : 0,
        wall_seconds: meta.wall_seconds ?? null,
      },
      turns: { total: this.turns, mean: n ? this.turns / n : 0 },
      group_failure: {
        groups_dropped: this.groupsDropped.size,
        groups_retried: this.groupsRetried.size,
        members_excluded: this.membersExcluded,
        member_retries: this.memberRetries,
      },
      tool_call_failures: {
        turns: this.toolFailures.turns,
        attempts: this.toolFailures.attempts,
        by_family: structuredClone(this.toolFailures.by_family),
      },
    };
  }
}

/** Summarizes a run. `traces` may contain superseded attempts; only the last per rollout counts. */
export function summarize(allTraces: readonly TraceRecord[], meta: RunMeta): Summary {
  const builder = new SummaryBuilder(meta);
  for (const t of effectiveTraces(allTraces)) builder.add(t);
  return builder.result();
}
