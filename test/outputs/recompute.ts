/**
 * An independent recomputation of the summary numbers straight from traces.jsonl lines, used to
 * check that `summary.json` agrees with `traces.jsonl` (written separately from src/outputs on
 * purpose: brute-force subsets instead of the closed forms).
 */
import assert from "node:assert/strict";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";

function subsets(n: number, k: number): number[][] {
  const out: number[][] = [];
  const rec = (start: number, acc: number[]) => {
    if (acc.length === k) return void out.push([...acc]);
    for (let i = start; i < n; i++) rec(i + 1, [...acc, i]);
  };
  rec(0, []);
  return out;
}

export function checkSummaryAgainstTraces(summary: any, lines: TraceRecord[], numRollouts: number): void {
  const last = new Map<string, TraceRecord>();
  for (const t of lines) last.set(`${t.task_index}:${t.rollout_index}`, t);
  const traces = [...last.values()];
  const n = traces.length;
  const close = (a: number, b: number, what: string) =>
    assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} vs ${b}`);
  assert.equal(summary.num_traces, n);
  const rewards = traces.map((t) => t.reward);
  const m = rewards.reduce((a, b) => a + b, 0) / n;
  close(summary.reward.mean, m, "reward.mean");
  close(summary.reward.std, Math.sqrt(rewards.reduce((a, r) => a + (r - m) ** 2, 0) / n), "reward.std");
  const errs = traces.filter((t) => t.errors.length > 0).length;
  close(summary.error_rate, errs / n, "error_rate");
  close(summary.truncation_rate, traces.filter((t) => t.is_truncated).length / n, "truncation_rate");
  for (const key of new Set(traces.flatMap((t) => Object.keys(t.rewards)))) {
    const vals = traces.filter((t) => key in t.rewards).map((t) => t.rewards[key]!);
    close(summary.rewards[key], vals.reduce((a, b) => a + b, 0) / vals.length, `rewards.${key}`);
  }
  for (const key of new Set(traces.flatMap((t) => Object.keys(t.metrics)))) {
    const vals = traces.filter((t) => key in t.metrics).map((t) => t.metrics[key]!);
    close(summary.metrics[key], vals.reduce((a, b) => a + b, 0) / vals.length, `metrics.${key}`);
  }
  assert.equal(
    summary.tokens.total,
    traces.reduce((a, t) => a + t.usage.total_tokens, 0),
  );
  assert.equal(
    summary.tokens.completion,
    traces.reduce((a, t) => a + t.usage.completion_tokens, 0),
  );
  const byTask = new Map<number, TraceRecord[]>();
  for (const t of traces) byTask.set(t.task_index, [...(byTask.get(t.task_index) ?? []), t]);
  const complete = [...byTask.values()].filter((g) => g.length === numRollouts);
  const ks: string[] = [];
  for (let k = 1; numRollouts > 1 && complete.length > 0 && k <= numRollouts; k *= 2) {
    ks.push(String(k));
    let at = 0;
    let all = 0;
    for (const g of complete) {
      const ss = subsets(numRollouts, k);
      at += ss.filter((s) => s.some((i) => g[i]!.reward >= 0.5)).length / ss.length;
      all += ss.filter((s) => s.every((i) => g[i]!.reward >= 0.5)).length / ss.length;
    }
    close(summary.pass_at_k[String(k)], at / complete.length, `pass@${k}`);
    close(summary.pass_all_k[String(k)], all / complete.length, `pass^${k}`);
  }
  assert.deepEqual(Object.keys(summary.pass_at_k), ks);
}
