import assert from "node:assert/strict";
import { test } from "node:test";
import { defineTaskset } from "../../packages/core/src/task.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { envFor } from "./helpers/env.ts";
import { ScriptedClient, say } from "./helpers/scripted-client.ts";

const tasks = defineTaskset({
  id: "many",
  load: () => Array.from({ length: 6 }, (_, i) => ({ idx: i, prompt: `task ${i}` })),
  rewards: [{ name: "echo", fn: ({ trace }) => Number(trace.lastReply) }],
});

test("run streams every trace under the global semaphore and summarizes", async () => {
  let inflight = 0;
  let peak = 0;
  const client = new ScriptedClient(async (m) => {
    inflight++;
    peak = Math.max(peak, inflight);
    await new Promise((r) => setTimeout(r, 10));
    inflight--;
    return say(String(m[0]!.content).split(" ")[1]!);
  });
  const env = await envFor(tasks, "num_rollouts = 2", { "harness.id": "null" });
  const seen: TraceRecord[] = [];
  const groups: number[] = [];
  const summary = await env.run(undefined, {
    client,
    concurrency: 3,
    onTrace: (r) => seen.push(r),
    onGroup: (i, rs) => {
      assert.equal(rs.length, 2);
      groups.push(i);
    },
    samplingFor: (t, r) => ({ seed: t * 100 + r }),
  });
  assert.equal(seen.length, 12);
  assert.equal(groups.length, 6);
  assert.ok(peak <= 3, `peak in-flight rollouts ${peak} ≤ 3`);
  assert.equal(summary.num_traces, 12);
  assert.equal(summary.reward.mean, 2.5, "mean of 0..5");
  assert.deepEqual(summary.rewards, { echo: 2.5 });
  assert.deepEqual(
    new Set(client.requests.map((r) => r.sampling["seed"])),
    new Set([0, 1, 100, 101, 200, 201, 300, 301, 400, 401, 500, 501]),
  );
  assert.equal(new Set(seen.map((r) => r.id)).size, 12, "unique rollout ids");
  assert.deepEqual(
    seen
      .filter((r) => r.task_index === 4)
      .map((r) => r.rollout_index)
      .sort(),
    [0, 1],
  );
  // The override was for that run only: the next one is bounded by max_concurrent (128) again.
  peak = 0;
  await env.run(undefined, { client });
  assert.ok(peak > 3, `peak ${peak} > 3 once the per-run concurrency is gone`);
});

test("an abort stops scheduling and cancels in-flight turns", async () => {
  const client = new ScriptedClient(() => say("1"), { latencyMs: 5_000 });
  const env = await envFor(tasks, "num_rollouts = 2\nmax_concurrent = 2", { "harness.id": "null" });
  const ac = new AbortController();
  const seen: TraceRecord[] = [];
  setTimeout(() => ac.abort(), 100);
  const started = Date.now();
  await env.run(undefined, { client, signal: ac.signal, onTrace: (r) => seen.push(r) });
  assert.ok(Date.now() - started < 2000, "did not wait for the slow model");
  // Groups already handed to the semaphore come back at once as cancelled traces; no new
  // group is scheduled and nothing queued reaches the model.
  assert.ok(seen.length < 12, `${seen.length} traces`);
  assert.equal(client.requests.length, 2, "only the two in-flight rollouts ever called the model");
  for (const r of seen) assert.equal(r.errors[0]!.type, "RequestCancelledError");
});
