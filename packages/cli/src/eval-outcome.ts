/**
 * What an eval prints when it ends, and whether it failed: a run in which every rollout errored,
 * or whose error rate is above `max_error_rate`, exits non-zero and names the most common error
 * type with one example message, so a broken endpoint or harness is not mistaken for a result.
 */
import { FILES } from "envroll/internal/outputs/run-folder.ts";
import type { Summary } from "envroll/internal/outputs/summary.ts";
import { effectiveTraces } from "envroll/internal/outputs/trace-set.ts";
import type { TraceRecord } from "envroll/internal/trace/record.ts";

export function summaryLines(s: Summary, dir: string): string[] {
  const f = (x: number | null) => (x === null ? "–" : x.toFixed(3));
  const lines = [
    `reward ${f(s.reward.mean)} ± ${f(s.reward.std)} (non-errored ${f(s.reward.mean_non_errored)}) over ${s.num_traces} rollouts of ${s.num_tasks} tasks`,
    `errors ${(s.error_rate * 100).toFixed(1)}%  truncated ${(s.truncation_rate * 100).toFixed(1)}%`,
  ];
  const ks = Object.keys(s.pass_at_k);
  if (ks.length)
    lines.push(
      ks.map((k) => `pass@${k} ${f(s.pass_at_k[k]!)}  pass^${k} ${f(s.pass_all_k[k]!)}`).join("  |  "),
    );
  for (const [k, v] of Object.entries(s.rewards)) lines.push(`  reward ${k}: ${f(v)}`);
  for (const [k, v] of Object.entries(s.metrics)) lines.push(`  metric ${k}: ${f(v)}`);
  lines.push(`outputs: ${dir}/{${FILES.traces},${FILES.summary},${FILES.report},${FILES.config}}`);
  return lines;
}

/**
 * How many model requests were retried and why — faults the run survived (an engine abort, a
 * stall cut by the deadline, a 5xx) leave no error on a trace, so this is where they show.
 */
export function retryLine(byReason: Record<string, number>): string | null {
  const reasons = Object.entries(byReason).filter(([, n]) => n > 0);
  if (reasons.length === 0) return null;
  const total = reasons.reduce((sum, [, n]) => sum + n, 0);
  const parts = reasons.sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k} ${n}`);
  return `model requests retried: ${total} (${parts.join(", ")})`;
}

/** The most common final error type over the run's effective traces, with one example. */
export function commonError(
  traces: readonly TraceRecord[],
): { type: string; count: number; example: string } | null {
  const byType = new Map<string, { count: number; example: string }>();
  for (const t of effectiveTraces(traces)) {
    const e = t.errors[t.errors.length - 1];
    if (!e) continue;
    const entry = byType.get(e.type) ?? { count: 0, example: e.message };
    entry.count++;
    byType.set(e.type, entry);
  }
  let best: { type: string; count: number; example: string } | null = null;
  for (const [type, v] of byType) if (!best || v.count > best.count) best = { type, ...v };
  return best;
}

/**
 * Null when the run counts as a result; else the lines saying why it failed. `traces` are read
 * only when it failed (to find the example).
 */
export function failureLines(
  s: Summary,
  maxErrorRate: number | null,
  traces: () => readonly TraceRecord[],
): string[] | null {
  const allErrored = s.num_traces > 0 && s.num_errors === s.num_traces;
  const overRate = maxErrorRate !== null && s.error_rate > maxErrorRate;
  if (!allErrored && !overRate) return null;
  const head = allErrored
    ? `all ${s.num_traces} rollouts errored`
    : `error rate ${(s.error_rate * 100).toFixed(1)}% (${s.num_errors} of ${s.num_traces}) is above max_error_rate ${maxErrorRate}`;
  const top = commonError(traces());
  const lines = [`eval failed: ${head}`];
  if (top) {
    lines.push(`most common error: ${top.type} (${top.count} of ${s.num_errors})`);
    const example = top.example.length > 600 ? `${top.example.slice(0, 600)}…` : top.example;
    lines.push(`example: ${example}`);
  }
  return lines;
}
