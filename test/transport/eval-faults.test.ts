/**
 * What an eval needs from the transport under engine faults (issue 15.11): a stalled /generate is
 * cut by a deadline derived from its `max_new_tokens` and retried, and a generation the engine
 * aborts is retried — while a training client keeps an abort as the end of the turn, and an
 * abort the client sent itself is never retried.
 *
 * The engine's stall fault holds a request for 10 minutes: only the deadline ends it, so a test
 * that passes proves the cut (the test timeout is the bound, no wall-clock threshold is asserted).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { TrainClient, TurnAbortedError } from "../../packages/core/src/clients/train.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import { attemptDeadlineMs } from "../../packages/core/src/transport/deadline.ts";
import {
  ProviderTimeoutError,
  type RetryOptions,
  SglangTransport,
  type SglangTransportOptions,
} from "../../packages/core/src/transport/index.ts";
import { type EngineHandle, type FaultKind, startEngine } from "../../packages/engine/src/index.ts";
import { untilStarted } from "../engine/wait.ts";

const PROMPT = [151644, 872, 198, 9707, 151645, 198, 151644, 77091, 198];
const FAST: RetryOptions = { maxAttempts: 6, baseDelayMs: 1, maxDelayMs: 5 };
// Generous against a loaded machine: a healthy echo reply takes milliseconds.
const DEADLINE = { baseMs: 1_500, perTokenMs: 1 };

function faulty(kind: FaultKind, rate: number, seed: number) {
  return startEngine({ faults: { rate, kinds: [kind], seed } });
}

function transport(url: string, opts: Partial<SglangTransportOptions>) {
  return new SglangTransport({ baseUrl: url, ...opts });
}

/** A long reply: the renderer's stop ids end the echo at <|im_end|>, even with ignore_eos. */
const long = () => startEngine({ tokenLatencyMs: 5, policy: () => "x ".repeat(1000) });

/**
 * Runs `body` with a Qwen3 TrainClient over `engine` (its transport built from `opts` and handed
 * to `body` for its stats), then closes the client and the engine.
 */
async function withClient(
  engine: EngineHandle,
  opts: Partial<SglangTransportOptions>,
  body: (client: TrainClient, t: SglangTransport) => Promise<void>,
): Promise<void> {
  const t = transport(engine.url, opts);
  const client = new TrainClient({ renderer: createRenderer("qwen3"), transport: t });
  try {
    await body(client, t);
  } finally {
    await client.close();
    await engine.close();
  }
}

const ask = (c: TrainClient, sessionId: string, sampling: Record<string, unknown> = { max_tokens: 16 }) =>
  c.getResponse({ messages: [{ role: "user", content: "go" }], tools: [], sampling, sessionId, turn: 0 });

test("the deadline is base + max_new_tokens × per-token, with SGLang's 128 when none is sent", () => {
  assert.equal(attemptDeadlineMs({ baseMs: 30_000, perTokenMs: 50 }, 1024), 81_200);
  assert.equal(attemptDeadlineMs({ baseMs: 1_000, perTokenMs: 10 }, null), 2_280);
  assert.equal(attemptDeadlineMs({ baseMs: 500, perTokenMs: 0 }, 4096), 500);
});

test("a stall on every attempt ends in a ProviderTimeoutError naming the derived deadline", async () => {
  const engine = await faulty("stall", 1, 0);
  const t = transport(engine.url, {
    deadline: { baseMs: 300, perTokenMs: 2 },
    retry: { ...FAST, maxAttempts: 3, onTimeout: true },
  });
  try {
    await assert.rejects(
      t.generate({ inputIds: PROMPT, sessionId: "s", sampling: { max_tokens: 50 } }),
      (e: Error) => e instanceof ProviderTimeoutError && /exceeded 400 ms/.test(e.message),
    );
    assert.equal(t.stats.requests, 3, "the retry budget was spent");
    assert.equal(engine.stats().faults.stall, 3);
    assert.deepEqual(t.stats.retriesByReason, { timeout: 2 });
  } finally {
    await t.close();
    await engine.close();
  }
});

test("a stalled request is cut by the deadline and retried into an answer", async () => {
  // Seed 1 at 40 %: the 2nd and 4th /generate requests stall, so two of three calls retry once.
  const engine = await faulty("stall", 0.4, 1);
  const t = transport(engine.url, { deadline: DEADLINE, retry: { ...FAST, onTimeout: true } });
  try {
    const results = [];
    for (let i = 0; i < 3; i++)
      results.push(await t.generate({ inputIds: PROMPT, sessionId: `s${i}`, sampling: { max_tokens: 16 } }));
    const stalls = engine.stats().faults.stall;
    assert.ok(stalls >= 2, `expected the seeded stalls, got ${stalls}`);
    for (const r of results) assert.notEqual(r.finishReason, "abort");
    assert.ok(
      results.some((r) => r.attempts > 1),
      "no call needed a second attempt",
    );
    // A loaded machine may cut a healthy attempt too; never fewer cuts than stalls.
    assert.ok((t.stats.retriesByReason.timeout ?? 0) >= stalls);
    assert.equal(t.stats.failed, 0);
  } finally {
    await t.close();
    await engine.close();
  }
});

test("engine aborts are retried with retry.onAbort; a training client ends the turn on them", async () => {
  // Seed 1 at 40 %: the 2nd and 4th /generate requests are aborted by the engine.
  const engine = await faulty("abort", 0.4, 1);
  await withClient(engine, { retry: { ...FAST, onAbort: true } }, async (evalClient, evalTransport) => {
    for (let i = 0; i < 3; i++) assert.notEqual((await ask(evalClient, `e${i}`)).finishReason, "abort");
    const aborted = engine.stats().faults.abort;
    assert.ok(aborted >= 2, `expected the seeded aborts, got ${aborted}`);
    assert.equal(evalTransport.stats.retriesByReason.abort, aborted, "each engine abort is one retry");
    assert.equal(evalTransport.stats.requests, 3 + aborted);
    assert.equal(evalTransport.stats.finishReasons.abort, 0);
  });
  const again = await faulty("abort", 0.4, 1);
  await withClient(again, { retry: FAST }, async (train) => {
    await ask(train, "t0");
    await assert.rejects(ask(train, "t1"), (e: Error) => e instanceof TurnAbortedError);
    assert.equal(again.stats().requests, 2, "the abort was not retried");
  });
});

test("an abort that never ends is a TurnAbortedError once the retry budget is spent", async () => {
  const engine = await faulty("abort", 1, 0);
  await withClient(engine, { retry: { ...FAST, maxAttempts: 3, onAbort: true } }, async (client) => {
    await assert.rejects(ask(client, "s"), (e: Error) => e.name === "TurnAbortedError");
    assert.equal(engine.stats().requests, 3);
  });
});

test("a weight update on a shared engine aborts an eval's turn, which is retried to its end", async () => {
  const engine = await long();
  await withClient(engine, { retry: { ...FAST, onAbort: true } }, async (client, t) => {
    const turn = ask(client, "w", { ignore_eos: true, max_tokens: 120 });
    await untilStarted(engine, 1);
    const r = await fetch(`${engine.url}/update_weight_version`, {
      method: "POST",
      body: JSON.stringify({ new_version: "v2" }),
    });
    assert.equal(r.status, 200);
    const answer = await turn;
    assert.equal(answer.finishReason, "length");
    assert.equal(answer.tokens?.completionIds.length, 120);
    assert.equal(answer.weightVersion, "v2");
    assert.equal(t.stats.retriesByReason.abort, 1);
  });
});

test("an abort the client sent itself is not retried, even with retry.onAbort", async () => {
  // What Ctrl-C in `envroll eval` does: the turn must end, not start over.
  const engine = await long();
  await withClient(engine, { retry: { ...FAST, onAbort: true } }, async (client, t) => {
    const turns = ["a", "b"].map((s) =>
      ask(client, s, { ignore_eos: true, max_tokens: 2000 }).then(
        () => "done",
        (e: Error) => e.name,
      ),
    );
    await untilStarted(engine, 2);
    await client.abort("a");
    assert.equal(await turns[0], "TurnAbortedError");
    await client.abort();
    assert.equal(await turns[1], "TurnAbortedError");
    assert.equal(t.stats.retriesByReason.abort, undefined);
    assert.equal(engine.stats().requests, 2);
  });
});
