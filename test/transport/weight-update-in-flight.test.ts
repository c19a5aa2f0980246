/**
 * A weight update with turns in flight, through SGLang's RL flow (pause_generation → update →
 * continue_generation) on the stand-in engine: no turn is lost. The turn being generated comes
 * back aborted by the pause and is sent again; it waits at the paused engine like a turn sent
 * during the pause, and both are sampled by the new version and say so.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";
import { startEngine } from "../../packages/engine/src/index.ts";

const post = (url: string, path: string, body: unknown) =>
  fetch(`${url}${path}`, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(cond(), "condition never held");
}

test("turns in flight across pause → update → continue finish on the new version, none lost", async () => {
  const engine = await startEngine({ tokenLatencyMs: 5, weightVersion: "0" });
  const transport = new SglangTransport({
    baseUrl: engine.url,
    contextLength: 4096,
    retry: { onAbort: true, maxAttempts: 5, baseDelayMs: 5, maxDelayMs: 20 },
  });
  try {
    const turn = (sessionId: string) =>
      transport.generate({
        inputIds: [1, 2, 3, 4],
        sessionId,
        sampling: { max_tokens: 60, temperature: 1, seed: 7, ignore_eos: true },
      });
    const running = turn("running");
    await until(() => engine.stats().inFlight === 1);
    await new Promise((r) => setTimeout(r, 30)); // a few tokens in
    assert.equal((await post(engine.url, "/pause_generation", { mode: "abort" })).status, 200);
    const waiting = turn("waiting"); // reaches the engine while it is paused
    await new Promise((r) => setTimeout(r, 50));
    const upd = await post(engine.url, "/update_weight_version", {
      new_version: "1",
      abort_all_requests: false,
    });
    assert.equal(upd.status, 200);
    assert.equal((await post(engine.url, "/continue_generation", {})).status, 200);

    const [r1, r2] = await Promise.all([running, waiting]);
    for (const r of [r1, r2]) {
      assert.notEqual(r.finishReason, "abort");
      assert.equal(r.weightVersion, "1");
      assert.equal(r.outputIds.length, r.logprobs.length);
      assert.ok(r.outputIds.length > 0);
    }
    assert.equal(r1.attempts, 2, "the aborted turn was sent once more");
    assert.equal(r2.attempts, 1);
    assert.equal(transport.stats.retriesByReason.abort, 1);
    assert.equal(transport.stats.failed, 0);
  } finally {
    await transport.close();
    await engine.close();
  }
});
