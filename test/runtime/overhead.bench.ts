/**
 * Per-rollout overhead of the runtime itself: in-process chat rollouts against an instant,
 * token-producing scripted model, so everything measured is envroll (trace graph, scoring,
 * semaphore, records). Run: node --import tsx test/runtime/overhead.bench.ts [rollouts]
 */
import { defineTaskset } from "../../packages/core/src/task.ts";
import { envFor } from "./helpers/env.ts";
import { ScriptedClient, say } from "./helpers/scripted-client.ts";

const total = Number(process.argv[2] ?? 8000);
const ts = defineTaskset({
  id: "overhead",
  load: () =>
    Array.from({ length: total / 4 }, (_, i) => ({ idx: i, system_prompt: "s", prompt: "x".repeat(200) })),
  rewards: [{ name: "len", fn: ({ trace }) => trace.lastReply.length }],
});
const client = new ScriptedClient(() => say("hello world"), { tokens: true });
// The helper keeps requests for assertions; a benchmark must not.
(client.requests as unknown as { push: () => void }).push = () => {};
const env = await envFor(ts, "num_rollouts = 4\nmax_concurrent = 256", { "harness.id": "null" });
const t0 = performance.now();
let n = 0;
await env.run(undefined, { client, onTrace: () => void n++ });
const ms = performance.now() - t0;
const rss = process.memoryUsage().rss / 1e6;
console.log(
  `${n} rollouts in ${ms.toFixed(0)} ms: ${((ms * 1000) / n).toFixed(0)} µs/rollout, rss ${rss.toFixed(0)} MB`,
);
