/**
 * The transport against the engine's seeded fault injection: every retriable fault costs exactly
 * one retry, aborts come back as partial results (not retried), and every call completes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";
import { startEngine } from "../../packages/engine/src/index.ts";

const PROMPT = [151644, 872, 198, 9707, 11, 1879, 151645, 198, 151644, 77091, 198];

for (const workers of [0, 2]) {
  test(`seeded faults (5xx, 429, reset, abort) are absorbed by retries (workers=${workers})`, async () => {
    const engine = await startEngine({
      workers,
      seed: 3,
      faults: { rate: 0.3, kinds: ["5xx", "429", "reset", "abort"] },
    });
    const t = new SglangTransport({
      baseUrl: engine.url,
      routingPolicy: "consistent_hashing",
      connections: 16,
      retry: { maxAttempts: 12, baseDelayMs: 1, maxDelayMs: 4 },
    });
    try {
      const results = await Promise.all(
        Array.from({ length: 80 }, (_, i) =>
          t.generate({ inputIds: PROMPT, sessionId: `r${i}`, stopTokenIds: [151645] }),
        ),
      );
      const faults = engine.stats().faults;
      console.log(
        `workers=${workers} faults=${JSON.stringify(faults)} retries=${JSON.stringify(t.stats.retriesByReason)}`,
      );
      assert.ok(faults["5xx"] + faults["429"] + faults.reset > 5, "enough faults drawn to mean something");
      assert.equal(t.stats.retriesByReason.status_5xx ?? 0, faults["5xx"]);
      assert.equal(t.stats.retriesByReason.status_429 ?? 0, faults["429"]);
      assert.equal(t.stats.retriesByReason.connection ?? 0, faults.reset);
      assert.equal(t.stats.failed, 0);
      const aborted = results.filter((r) => r.finishReason === "abort");
      assert.equal(aborted.length, faults.abort);
      assert.equal(results.length - aborted.length, results.filter((r) => r.finishReason === "stop").length);
    } finally {
      await t.close();
      await engine.close();
    }
  });
}

test("a stall beyond the request timeout surfaces as ProviderTimeoutError and is counted", async () => {
  const engine = await startEngine({ faults: { rate: 1, kinds: ["stall"] } });
  const t = new SglangTransport({
    baseUrl: engine.url,
    timeoutMs: 150,
    retry: { maxAttempts: 3, baseDelayMs: 1 },
  });
  try {
    await assert.rejects(t.generate({ inputIds: PROMPT, sessionId: "x" }), { name: "ProviderTimeoutError" });
    assert.equal(engine.stats().faults.stall, 1);
    assert.deepEqual(t.stats.failuresByName, { ProviderTimeoutError: 1 });
  } finally {
    await t.close();
    await engine.close();
  }
});
