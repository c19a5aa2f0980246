/**
 * Training samples from an eval's traces: the same Miles conversion the rollout service uses
 * (`src/miles/convert.ts`), so an exported file holds exactly what the trainer would have seen.
 * One group per task (in task order, last attempt per rollout); multi-branch traces (compaction,
 * forks) export every branch as a compact rollout rather than failing the export.
 */
import { SampleCounter, tracesToGroup } from "../../miles/convert.ts";
import { groupSamples, type MilesSample } from "../../miles/sample.ts";
import type { TraceRecord } from "../../trace/record.ts";
import { effectiveTraces, groupByTask } from "../trace-set.ts";

export interface ExportOptions {
  /** Miles `--reward-key`: the sample reward becomes `{...rewards, reward}`. */
  rewardKey?: string | null;
  /** Leave out samples of errored rollouts (they carry `status: "failed"` otherwise). */
  skipErrored?: boolean;
}

export function tracesToSamples(allTraces: readonly TraceRecord[], opts: ExportOptions = {}): MilesSample[] {
  const traces = effectiveTraces(allTraces).filter((t) => !(opts.skipErrored && t.errors.length > 0));
  const counter = new SampleCounter();
  const out: MilesSample[] = [];
  for (const group of groupByTask(traces).values()) {
    const sorted = [...group].sort((a, b) => a.rollout_index - b.rollout_index);
    out.push(
      ...groupSamples(tracesToGroup(sorted, counter, { rewardKey: opts.rewardKey ?? null, compact: true })),
    );
  }
  return out;
}
