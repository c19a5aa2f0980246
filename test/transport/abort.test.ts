/**
 * Aborting one rollout stops only its turns — each live rid by its exact id, as SGLang's
 * TokenizerManager requires — on a single server and behind a router; a client's abort without a
 * session stops only that client's requests, never everything on a shared engine.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TrainClient } from "../../packages/core/src/clients/train.ts";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";
import { startEngine } from "../../packages/engine/src/index.ts";
import { qwen3TrainClient } from "../clients/qwen3-client.ts";
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
      assert.equal(byName.beta!.finishReason, "abort");
      assert.ok(byName.beta!.outputIds.length > 0, "partial tokens came back");
      assert.ok(byName.beta!.outputIds.length < LONG.max_new_tokens, "fewer than a full reply");
      assert.equal(byName.beta!.logprobs.length, byName.beta!.outputIds.length);
      for (const s of ["alpha", "gamma", "delta"]) {
        assert.equal(byName[s]!.finishReason, "length", s);
        assert.equal(byName[s]!.outputIds.length, 150);
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

test("abort needs a rid; an empty one is refused client-side", async () => {
  const t = new SglangTransport({ baseUrl: "http://127.0.0.1:9" });
  await assert.rejects(t.abort(""), /non-empty rid/);
  await t.close();
});

test("concurrent calls within one rollout get distinct, prefix-free rids; abortSession stops all of them", async () => {
  const rids: string[] = [];
  const engine = await startEngine({
    tokenLatencyMs: 5,
    onRequest: (body) => rids.push((body as { rid: string }).rid),
  });
  const t = new SglangTransport({ baseUrl: engine.url });
  try {
    // A program making parallel calls: same rollout, same turn number.
    const calls = [0, 1, 2].map(() =>
      t.generate({ inputIds: PROMPT, sessionId: "par", turn: 0, sampling: LONG }),
    );
    const other = t.generate({
      inputIds: PROMPT,
      sessionId: "par-2",
      turn: 0,
      sampling: { max_new_tokens: 20 },
    });
    await untilStarted(engine, 4);
    assert.equal(new Set(rids).size, 4, `rids ${rids.join(", ")}`);
    for (const a of rids)
      for (const b of rids) if (a !== b) assert.ok(!b.startsWith(a), `${a} is a prefix of ${b}`);
    await t.abortSession("par");
    for (const r of await Promise.all(calls)) assert.equal(r.finishReason, "abort");
    assert.notEqual((await other).finishReason, "abort");
  } finally {
    await t.close();
    await engine.close();
  }
});

test("a client's abort() stops its own requests only, not another client's on the same engine", async () => {
  // What Ctrl-C in `envroll eval` does: the engine may be shared with a trainer or another eval.
  // A long reply, since the renderer's stop ids end a turn at <|im_end|> even with ignore_eos.
  const engine = await startEngine({ tokenLatencyMs: 5, policy: () => "x ".repeat(1000) });
  const mine = qwen3TrainClient(engine.url);
  const theirs = qwen3TrainClient(engine.url);
  const ask = (c: TrainClient, sessionId: string, sampling: Record<string, unknown>) =>
    c.getResponse({ messages: [{ role: "user", content: "go" }], tools: [], sampling, sessionId, turn: 0 });
  try {
    const own = [ask(mine, "m1", {}), ask(mine, "m2", {})].map((p) =>
      p.then(
        () => "done",
        (e: Error) => e.name,
      ),
    );
    const other = ask(theirs, "t1", { ignore_eos: true, max_new_tokens: 150 });
    await untilStarted(engine, 3);
    await mine.abort();
    assert.deepEqual(await Promise.all(own), ["TurnAbortedError", "TurnAbortedError"]);
    assert.equal((await other).finishReason, "length", "the other client's turn ran to its end");
  } finally {
    await mine.close();
    await theirs.close();
    await engine.close();
  }
});
