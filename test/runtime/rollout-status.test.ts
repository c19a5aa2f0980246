/**
 * Rollout status: a failure while stopping the runtime after the rollout was scored is
 * recorded, but it neither fails the rollout nor makes `retries.rollout` run it again.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { registerRuntime } from "../../packages/core/src/runtimes/index.ts";
import { createSubprocessRuntime } from "../../packages/core/src/runtimes/subprocess.ts";
import { defineTaskset } from "../../packages/core/src/task.ts";
import { envFor } from "./helpers/env.ts";
import { ScriptedClient, say } from "./helpers/scripted-client.ts";

let stops = 0;
registerRuntime("stop-fails", (spec, ctx) => {
  const inner = createSubprocessRuntime(spec, ctx);
  return Object.assign(Object.create(inner), {
    stop: async () => {
      stops++;
      await inner.stop();
      throw new Error("container already gone");
    },
  });
});

test("a runtime that fails to stop after scoring: the rollout stays completed, scored, not retried", async () => {
  const ts = defineTaskset({
    id: "stop-status",
    load: () => [{ idx: 0, prompt: "q" }],
    rewards: [{ name: "one", fn: () => 1 }],
  });
  const env = await envFor(
    ts,
    'harness.runtime = { type = "stop-fails" }\nretries.rollout = { max_retries = 2 }',
  );
  const [r] = await env.runGroup(0, 1, { client: new ScriptedClient(() => say("a")) });
  assert.ok(r);
  assert.deepEqual(r.errors, [], "no error: the rollout had finished");
  assert.equal(r.is_completed, true);
  assert.equal(r.stop_condition, "agent_completed");
  assert.equal(r.reward, 1);
  assert.equal(r.attempts, 0, "not retried");
  assert.equal(stops, 1);
  assert.match(String(r.info["runtime_stop_error"]), /container already gone/, "still on the record");
});
