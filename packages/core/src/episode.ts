/**
 * An episode (Verifiers `Episode.run`): the n rollouts of one task under the shared rollout
 * semaphore, each with whole-rollout retries, then the task's group rewards once over all n
 * traces — errored ones included — after every rollout's runtime has been stopped. A group
 * reward failure escapes as GroupRewardError: it is the one failure that is not trace data,
 * because the group's scores would be unattributable.
 */
import type { RetryPolicy } from "./config/schema.ts";
import { ConfigError } from "./errors.ts";
import { runWithRetry } from "./retries.ts";
import { type RolloutSpec, runRollout } from "./rollout.ts";
import { scoreGroup } from "./scoring.ts";
import type { Taskset } from "./task.ts";
import type { Trace } from "./trace/trace.ts";
import type { TaskData } from "./types.ts";

export interface EpisodeSpec<D extends TaskData = TaskData> extends Omit<RolloutSpec<D>, "rolloutIndex"> {
  n: number;
  /** The rollout semaphore (`max_concurrent`), shared by every episode of a run. */
  limit: RolloutLimit;
  retry: RetryPolicy;
  /** Adds per-rollout sampling (e.g. a derived seed) over the config sampling. */
  samplingFor?: (rolloutIndex: number) => Record<string, unknown> | undefined;
  /** Called per finished rollout (only when the task has no group rewards, so traces are final). */
  onTrace?: (trace: Trace) => void;
}

/** Runs a rollout when a slot is free. */
export type RolloutLimit = <T>(fn: () => Promise<T>) => Promise<T>;

/** Raised before anything runs: a group reward compares rollouts, so it needs at least two. */
export function checkGroupSize(taskset: Taskset<any, any>, n: number): void {
  if ((taskset.groupRewards?.length ?? 0) > 0 && n < 2)
    throw new ConfigError(
      `num_rollouts: taskset "${taskset.id}" has group rewards (${taskset.groupRewards!.map((g) => g.name).join(", ")}), which need at least 2 rollouts per task, got ${n}`,
      { path: "num_rollouts" },
    );
}

export async function runEpisode<D extends TaskData>(spec: EpisodeSpec<D>): Promise<Trace[]> {
  checkGroupSize(spec.taskset, spec.n);
  const rollouts = new Array<Promise<Trace>>(spec.n);
  for (let i = 0; i < spec.n; i++) rollouts[i] = spec.limit(() => retriedRollout(spec, i));
  const traces = await Promise.all(rollouts);
  if ((spec.taskset.groupRewards?.length ?? 0) > 0)
    await scoreGroup(spec.taskset.groupRewards, spec.task, traces);
  return traces;
}

async function retriedRollout<D extends TaskData>(spec: EpisodeSpec<D>, i: number): Promise<Trace> {
  const trace = await runWithRetry(() => runRollout(rolloutSpec(spec, i)), spec.retry, spec.signal);
  spec.onTrace?.(trace);
  return trace;
}

/** Rollout `i` of the episode (its per-rollout sampling made afresh for every attempt). */
function rolloutSpec<D extends TaskData>(spec: EpisodeSpec<D>, i: number): RolloutSpec<D> {
  const extra = spec.samplingFor?.(i);
  return { ...spec, rolloutIndex: i, sampling: extra ? { ...spec.sampling, ...extra } : spec.sampling };
}
