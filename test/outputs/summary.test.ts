import assert from "node:assert/strict";
import { test } from "node:test";
import { mean, std, summarize } from "../../packages/core/src/outputs/summary.ts";
import { errored, grid, makeTrace } from "./fixtures.ts";
import { checkSummaryAgainstTraces } from "./recompute.ts";

const meta = {
  taskset: "reverse-text",
  model: "m",
  harness: "null",
  run_id: "r1",
  num_tasks: 3,
  num_rollouts: 4,
};

test("mean and population std", () => {
  assert.equal(mean([]), 0);
  assert.equal(std([2, 4, 4, 4, 5, 5, 7, 9]), 2);
});

test("summary numbers agree with an independent recomputation", () => {
  const traces = grid(3, 4, (t, r) => [0.2, 0.9, 0.5, 0.49][(t + r) % 4]!);
  traces[5] = errored(1, 1);
  traces[6] = makeTrace({
    task_index: 1,
    rollout_index: 2,
    reward: 0.7,
    is_truncated: true,
    metrics: { len: 3 },
  });
  const s = summarize(traces, meta);
  checkSummaryAgainstTraces(s, traces, 4);
  assert.equal(s.num_errors, 1);
  assert.equal(s.errors_by_type["ProviderError"], 1);
  assert.equal(s.num_truncated, 1);
  assert.equal(s.metrics["len"], 3);
  assert.equal(s.num_complete_tasks, 3);
  assert.equal(s.time.rollout_seconds_total, 24);
  assert.equal(s.tokens.total, 12 * 15);
  assert.equal(s.stop_conditions["error"], 1);
});

test("superseded attempts do not count (last line per rollout wins)", () => {
  const traces = [errored(0, 0), ...grid(1, 2, () => 1)];
  const s = summarize(traces, { ...meta, num_rollouts: 2 });
  assert.equal(s.num_traces, 2);
  assert.equal(s.num_errors, 0);
  assert.equal(s.reward.mean, 1);
  assert.equal(s.pass_all_k["2"], 1);
});

test("mean over non-errored is reported beside the global mean", () => {
  const traces = [makeTrace({ task_index: 0, rollout_index: 0, reward: 1 }), errored(0, 1)];
  const s = summarize(traces, { ...meta, num_rollouts: 2 });
  assert.equal(s.reward.mean, 0.5);
  assert.equal(s.reward.mean_non_errored, 1);
});

test("incomplete groups are left out of pass@k; one rollout gives no pass@k", () => {
  const traces = [...grid(1, 4, () => 1), ...grid(2, 2, () => 0).slice(2)];
  const s = summarize(traces, meta);
  assert.equal(s.num_complete_tasks, 1);
  assert.equal(s.pass_at_k["4"], 1);
  const one = summarize(
    grid(2, 1, () => 1),
    { ...meta, num_rollouts: 1 },
  );
  assert.deepEqual(one.pass_at_k, {});
});

test("empty run", () => {
  const s = summarize([], meta);
  assert.equal(s.num_traces, 0);
  assert.equal(s.reward.mean, 0);
  assert.equal(s.reward.mean_non_errored, null);
  assert.equal(s.error_rate, 0);
});

test("custom pass threshold", () => {
  const s = summarize(
    grid(1, 2, (_t, r) => (r === 0 ? 0.6 : 0.9)),
    { ...meta, num_rollouts: 2, pass_threshold: 0.8 },
  );
  assert.equal(s.pass_at_k["1"], 0.5);
  assert.equal(s.pass_threshold, 0.8);
});

test("a 200k-trace run summarizes (min/max without spreading every reward into one call)", () => {
  const traces = grid(100_000, 2, (t, r) => ((t + r) % 5) / 4);
  const s = summarize(traces, { ...meta, num_tasks: 100_000, num_rollouts: 2 });
  assert.equal(s.num_traces, 200_000);
  assert.equal(s.reward.min, 0);
  assert.equal(s.reward.max, 1);
});
