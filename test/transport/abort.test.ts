/**
 * Aborting one rollout (rid prefix) stops only its turn, on a single server and behind a router.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";
import { startEngine } from "../../packages/engine/src/index.ts";
import { LONG, untilStarted } from "../engine/wait.ts";

const PROMPT = [151644, 872, 198, ...Array(40).fill(9707), 151645, 198, 151644, 77091, 198];

for (const workers of [0, 3]) {
  test(`abortSession stops one rollout and leaves the others running (workers=${workers})`, async () => {
    const engine = await startEngine({ tokenLatencyMs: 5, workers });
    const t = new SglangTransport({ baseUrl: engine.url, routingPolicy: "consistent_hashing" });
    try {
      const sessions = ["alpha", "beta", "gamma", "delta"];
      // beta is long (it must still be running when aborted); the others run 150 tokens.
      const pending = sessions.map((s) =>
        t.generate({
          inputIds: PROMPT,
          sessionId: s,
          sampling: s === "beta" ? LONG : { ignore_eos: true, max_new_tokens: 150 },
        }),
      );
      await untilStarted(engine, 4);
      await t.abortSession("beta");
      const results = await Promise.all(pending);
      const byName = Object.fromEntries(sessions.map((s, i) => [s, results[i]]));
      assert.equal(byName.beta.finishReason, "abort");
      assert.ok(byName.beta.outputIds.length > 0, "partial tokens came back");
      assert.ok(byName.beta.outputIds.length < LONG.max_new_tokens, "fewer than a full reply");
      assert.equal(byName.beta.logprobs.length, byName.beta.outputIds.length);
      for (const s of ["alpha", "gamma", "delta"]) {
        assert.equal(byName[s].finishReason, "length", s);
        assert.equal(byName[s].outputIds.length, 150);
      }
      assert.equal(t.stats.finishReasons.abort, 1);
      assert.equal(engine.stats().aborted, 1);
    } finally {
      await t.close();
      await engine.close();
    }
  });
}

test("abortAll reaches every worker behind the router", async () => {
  const engine = await startEngine({ tokenLatencyMs: 5, workers: 3 });
  const t = new SglangTransport({ baseUrl: engine.url, routingPolicy: "consistent_hashing" });
  try {
    assert.deepEqual(await t.listWorkers(), engine.workerUrls);
    const pending = Array.from({ length: 9 }, (_, i) =>
      t.generate({ inputIds: PROMPT, sessionId: `s${i}`, sampling: LONG }),
    );
    await untilStarted(engine, 9);
    await t.abortAll();
    const results = await Promise.all(pending);
    assert.deepEqual(
      results.map((r) => r.finishReason),
      Array(9).fill("abort"),
    );
    const perWorker = engine.stats().workers?.map((w) => w.requests) ?? [];
    assert.ok(perWorker.filter((n) => n > 0).length >= 2, `spread over workers: ${perWorker}`);
  } finally {
    await t.close();
    await engine.close();
  }
});

test("abort needs a prefix; an empty one is refused client-side", async () => {
  const t = new SglangTransport({ baseUrl: "http://127.0.0.1:9" });
  await assert.rejects(t.abort(""), /non-empty rid prefix/);
  await t.close();
});
