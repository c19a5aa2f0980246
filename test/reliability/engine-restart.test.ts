/**
 * The engine goes away mid-eval (its in-flight connections are cut) and comes back on the same
 * port a moment later, as a restarted SGLang server would. Transport retries bridge the gap:
 * every group comes back, nothing hangs, and every retry is counted as a connection retry.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { TrainClient } from "../../packages/core/src/clients/train.ts";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { builtinReferenceBook } from "../../packages/core/src/references.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";
import { type EngineHandle, startEngine } from "../../packages/engine/src/index.ts";
import { checkTrace } from "./faults.ts";

const reference = (await builtinReferenceBook()).answer;
const engineAt = (port: number) =>
  startEngine({ port, policy: "reference", reference, seed: 5, tokenLatencyMs: 2 });

test("an engine restart mid-eval costs retries, not rollouts", { timeout: 120_000 }, async () => {
  let engine: EngineHandle = await engineAt(0);
  const port = engine.port;
  const env = await loadEnvironment(
    await loadConfig(
      'model = "Qwen/Qwen3-0.6B"\nnum_rollouts = 2\nnum_tasks = 30\nmax_concurrent = 16\n[taskset]\nid = "tool-math"\n',
    ),
  );
  const transport = new SglangTransport({
    baseUrl: engine.url,
    timeoutMs: 10_000,
    // Enough attempts to outlast a ~1 s outage (backoff capped at 400 ms).
    retry: { maxAttempts: 12, baseDelayMs: 25, maxDelayMs: 400 },
  });
  const client = new TrainClient({ renderer: createRenderer("qwen3"), transport });
  const groups = new Map<number, TraceRecord[]>();
  let restarted = false;
  const onGroup = (i: number, records: TraceRecord[]) => {
    groups.set(i, records);
    // After the first few groups: stop the engine (cutting what is in flight), restart it 1 s later.
    if (groups.size === 5 && !restarted) {
      restarted = true;
      const old = engine;
      void old.close().then(async () => {
        await new Promise((r) => setTimeout(r, 1_000));
        engine = await engineAt(port);
      });
    }
  };
  try {
    await env.run(undefined, { client, onGroup });
    const traces = [...groups.values()].flat();
    const outcomes = traces.map(checkTrace);
    console.log(
      JSON.stringify({
        suite: "engine_restart",
        rollouts: traces.length,
        retries: transport.stats.retriesByReason,
        failed: outcomes.filter((o) => o === "failed").length,
        lost: 30 - groups.size,
      }),
    );
    assert.ok(restarted);
    assert.equal(groups.size, 30, "a group was lost");
    assert.equal(traces.length, 60);
    assert.ok((transport.stats.retriesByReason.connection ?? 0) > 0, "the outage was not noticed");
    assert.deepEqual(Object.keys(transport.stats.retriesByReason), ["connection"]);
    assert.equal(transport.stats.failed, 0, "a request failed despite the engine coming back");
    assert.ok(outcomes.every((o) => o === "ok"));
    // The restarted engine served the rest.
    assert.ok(engine.stats().requests > 0);
  } finally {
    await client.close();
    await env.close();
    await engine.close();
  }
});
