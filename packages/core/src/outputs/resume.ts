/**
 * What a resumed run still has to do.
 *
 * A rollout is done when its effective (last) trace has no error. Missing and errored rollouts
 * are rerun; for a task with group rewards the whole group is rerun, because group rewards
 * compare the n rollouts with each other and cannot be recomputed for a subset.
 */
import type { TraceRecord } from "../trace/record.ts";
import { effectiveTraces, hasError, rolloutKey } from "./trace-set.ts";

export interface ResumeWork {
  taskIndex: number;
  rolloutIndices: number[];
}

export interface ResumePlan {
  work: ResumeWork[];
  /** Rollouts that are already done and kept. */
  done: number;
  /** Rollouts to (re)run. */
  todo: number;
}

export interface ResumeOptions {
  /** The task indices the run covers (re-derived from the saved config). */
  taskIndices: readonly number[];
  numRollouts: number;
  /** Whether a task is scored with group rewards. */
  isGroupTask(taskIndex: number): boolean;
}

export function planResume(traces: readonly TraceRecord[], opts: ResumeOptions): ResumePlan {
  const latest = new Map(effectiveTraces(traces).map((t) => [rolloutKey(t.task_index, t.rollout_index), t]));
  const work: ResumeWork[] = [];
  let done = 0;
  let todo = 0;
  for (const taskIndex of opts.taskIndices) {
    const missing: number[] = [];
    for (let r = 0; r < opts.numRollouts; r++) {
      const t = latest.get(rolloutKey(taskIndex, r));
      if (!t || hasError(t)) missing.push(r);
    }
    if (missing.length === 0) {
      done += opts.numRollouts;
      continue;
    }
    const rerun = opts.isGroupTask(taskIndex)
      ? Array.from({ length: opts.numRollouts }, (_, r) => r)
      : missing;
    work.push({ taskIndex, rolloutIndices: rerun });
    done += opts.numRollouts - rerun.length;
    todo += rerun.length;
  }
  return { work, done, todo };
}
