/**
 * The judge phase of scoring (Verifiers `Task.score`, step 3): after the rewards, every judge
 * concurrently; each value recorded as value × weight under the judge's name (a mapping: one
 * reward per key), its metrics recorded, and every judge call appended to `trace.info.judge` in
 * judge order. Successful judges are recorded even when a sibling fails; then the first failure
 * (in judge order) is thrown as a JudgeError, so the rollout errors instead of scoring 0.
 */
import { errorMessage, isTypedError, JudgeError } from "../errors.ts";
import type { Trace } from "../trace/trace.ts";
import type { TaskData } from "../types.ts";
import type { JudgeCallRecord } from "./call.ts";
import type { JudgeValue } from "./judge.ts";
import type { LoadedJudge } from "./loader.ts";

function checked(judge: string, key: string, v: unknown): number {
  if (typeof v !== "number" || !Number.isFinite(v))
    throw new JudgeError(`judge ${judge} returned ${String(v)} for ${key}, not a finite number`);
  return v;
}

function record(trace: Trace, judge: LoadedJudge, value: JudgeValue): void {
  if (typeof value === "number") {
    trace.recordReward(judge.name, checked(judge.name, judge.name, value) * judge.weight);
    return;
  }
  if (typeof value !== "object" || value === null)
    throw new JudgeError(`judge ${judge.name} returned ${String(value)}, not a number or a mapping`);
  const scores = Object.entries(value).map(([k, v]) => [k, checked(judge.name, k, v)] as const);
  for (const [k, v] of scores) trace.recordReward(k, v * judge.weight);
}

export async function scoreJudges(
  judges: readonly LoadedJudge[],
  trace: Trace,
  task: TaskData,
  signal?: AbortSignal,
): Promise<void> {
  if (judges.length === 0) return;
  const runs = judges.map(() => ({ calls: [] as JudgeCallRecord[], metrics: {} as Record<string, number> }));
  const results = await Promise.allSettled(
    judges.map(async (j, i) => j.score({ task, trace, signal, ...runs[i]! })),
  );
  const calls = runs.flatMap((r) => r.calls);
  for (const c of calls) {
    // The provider's own count, as V1 adds a judge response's usage to the trace.
    const usage = (c.response as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } } | null)
      ?.usage;
    const count = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
    trace.addJudgeUsage(count(usage?.prompt_tokens), count(usage?.completion_tokens));
  }
  if (calls.length > 0) {
    const list = Array.isArray(trace.info["judge"]) ? (trace.info["judge"] as unknown[]) : [];
    trace.info["judge"] = [...list, ...calls];
  }
  let failure: Error | null = null;
  results.forEach((r, i) => {
    const judge = judges[i]!;
    try {
      if (r.status === "rejected") throw r.reason;
      record(trace, judge, r.value);
      for (const [k, v] of Object.entries(runs[i]!.metrics)) trace.recordMetric(k, checked(judge.name, k, v));
    } catch (e) {
      failure ??= isTypedError(e)
        ? e
        : new JudgeError(`judge ${judge.name} failed: ${errorMessage(e)}`, { cause: e });
    }
  });
  if (failure) throw failure;
}
