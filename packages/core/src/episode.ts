/**
 * An episode (Verifiers `Episode.run`): the n rollouts of one task under the shared rollout
 * semaphore, each with whole-rollout retries, then the group-failure policy (`retries.group`:
 * re-run, shrink or drop a group with failed members; group-failure.ts), then the task's group
 * rewards once over the members that count — after every rollout's runtime has been stopped. A
 * group reward failure escapes as GroupRewardError: it is the one failure that is not trace
 * data, because the group's scores would be unattributable.
 */
import type { GroupFailurePolicy, RetryPolicy } from "./config/schema.ts";
import { applyGroupFailure, scoredMembers } from "./group-failure.ts";
import { runWithRetry } from "./retries.ts";
import { type RolloutSpec, runRollout } from "./rollout.ts";
import { scoreGroup } from "./scoring.ts";
import { isThenable } from "./thenable.ts";
import type { Trace } from "./trace/trace.ts";
import type { TaskData } from "./types.ts";

export interface EpisodeSpec<D extends TaskData = TaskData> extends Omit<RolloutSpec<D>, "rolloutIndex"> {
  n: number;
  /** The rollout semaphore (`max_concurrent`), shared by every episode of a run. */
  limit: RolloutLimit;
  retry: RetryPolicy;
  groupFailure: GroupFailurePolicy;
  /** Adds per-rollout sampling (e.g. a derived seed) over the config sampling. */
  samplingFor?: (rolloutIndex: number) => Record<string, unknown> | undefined;
  /**
   * Called once per final trace: as its rollout ends where nothing later can replace or re-mark
   * it (one rollout, no group rewards, no re-runs), else once the group is decided and scored.
   */
  onTrace?: (trace: Trace) => void;
}

/** Runs a rollout when a slot is free. */
export type RolloutLimit = <T>(fn: () => Promise<T>) => Promise<T>;

export async function runEpisode<D extends TaskData>(spec: EpisodeSpec<D>): Promise<Trace[]> {
  const grouped = (spec.taskset.groupRewards?.length ?? 0) > 0;
  const minSurvivors = grouped ? 2 : 1;
  const policy = spec.groupFailure;
  const decide = (group: Trace[]) =>
    applyGroupFailure(
      group,
      policy,
      (i) => spec.limit(() => retriedRollout(spec, i)),
      minSurvivors,
      spec.signal,
    );
  // A lone rollout without group rewards or re-runs is decided the moment it ends: stream it.
  const alone = !grouped && spec.n === 1 && (policy.policy === "shrink" || policy.policy === "drop-group");
  const emit = (t: Trace) => {
    spec.onTrace?.(t);
    return t;
  };
  const rollouts = new Array<Promise<Trace>>(spec.n);
  for (let i = 0; i < spec.n; i++) {
    const run = spec.limit(() => retriedRollout(spec, i));
    rollouts[i] = alone
      ? run.then((t) => {
          const decided = decide([t]);
          return isThenable(decided) ? decided.then(() => emit(t)) : emit(t);
        })
      : run;
  }
  if (alone) return Promise.all(rollouts);
  const traces = await decide(await Promise.all(rollouts));
  if (grouped) await scoreGroup(spec.taskset.groupRewards, spec.task, scoredMembers(traces));
  for (const t of traces) spec.onTrace?.(t);
  return traces;
}

function retriedRollout<D extends TaskData>(spec: EpisodeSpec<D>, i: number): Promise<Trace> {
  return runWithRetry(() => runRollout(rolloutSpec(spec, i)), spec.retry, spec.signal);
}

/** Rollout `i` of the episode (its per-rollout sampling made afresh for every attempt). */
function rolloutSpec<D extends TaskData>(spec: EpisodeSpec<D>, i: number): RolloutSpec<D> {
  const extra = spec.samplingFor?.(i);
  // Field by field, not `{ ...spec }`: copying the episode's spec (its own fields too) was ~2% of
  // a single-turn rollout's CPU. The type lists every RolloutSpec key, so a new one cannot be
  // left out here.
  const rollout: { [K in keyof Required<RolloutSpec<D>>]: RolloutSpec<D>[K] } = {
    taskset: spec.taskset,
    task: spec.task,
    taskIndex: spec.taskIndex,
    rolloutIndex: i,
    harness: spec.harness,
    harnessConfig: spec.harnessConfig,
    runtime: spec.runtime,
    client: spec.client,
    model: spec.model,
    sampling: extra ? { ...spec.sampling, ...extra } : spec.sampling,
    limits: spec.limits,
    timeouts: spec.timeouts,
    interception: spec.interception,
    toolsets: spec.toolsets,
    signal: spec.signal,
    judges: spec.judges,
    toolCallFailures: spec.toolCallFailures,
    groupSize: spec.n,
  };
  return rollout;
}
