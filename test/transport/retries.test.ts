/**
 * Retries happen only for transient failures (connection, 408, 429, 5xx), with counts that
 * match exactly; other 4xx and malformed bodies fail at once with typed errors.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type GenerateResult,
  ProviderConnectionError,
  ProviderHttpError,
  ProviderTimeoutError,
  RequestCancelledError,
  ResponseShapeError,
  type RetryOptions,
  SglangTransport,
} from "../../packages/core/src/transport/index.ts";
import { backoffDelayMs, resolveRetry } from "../../packages/core/src/transport/retry.ts";
import { type Step, startScripted } from "./scripted-server.ts";

const FAST: RetryOptions = { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 5 };
const REQ = { inputIds: [1, 2, 3], sessionId: "s" };

async function run(steps: Step[], retry = FAST, extra: Record<string, unknown> = {}) {
  const server = await startScripted(steps);
  const t = new SglangTransport({ baseUrl: server.url, retry, ...extra });
  try {
    let ok: GenerateResult | undefined;
    let err: Error | undefined;
    try {
      ok = await t.generate(REQ);
    } catch (e) {
      err = e as Error;
    }
    return {
      ok,
      err,
      stats: t.stats,
      requests: server.bodies.length,
      bodies: server.bodies,
      paths: server.paths,
    };
  } finally {
    await t.close();
    await server.close();
  }
}

for (const status of [408, 429, 500, 502, 503, 504]) {
  test(`${status} is retried, then succeeds`, async () => {
    const r = await run([{ status }, { status }]);
    assert.ok(r.ok, "succeeded after retries");
    assert.equal(r.ok.attempts, 3);
    assert.equal(r.requests, 3);
    assert.equal(r.stats.retries, 2);
    const reason = status >= 500 ? "status_5xx" : `status_${status}`;
    assert.deepEqual(r.stats.retriesByReason, { [reason]: 2 });
  });
}

for (const status of [400, 401, 403, 404, 409, 413, 422]) {
  test(`${status} is never retried`, async () => {
    const r = await run([{ status, body: { error: { message: "bad sampling value" } } }]);
    assert.ok(r.err instanceof ProviderHttpError);
    assert.equal(r.err?.name, "ProviderHttpError");
    assert.equal((r.err as ProviderHttpError).statusCode, status);
    assert.match(r.err?.message ?? "", /bad sampling value/);
    assert.equal(r.requests, 1);
    assert.equal(r.stats.retries, 0);
    assert.deepEqual(r.stats.failuresByName, { ProviderHttpError: 1 });
  });
}

test("a connection reset is retried as a connection error", async () => {
  const r = await run([{ reset: true }]);
  assert.ok(r.ok);
  assert.equal(r.requests, 2);
  assert.deepEqual(r.stats.retriesByReason, { connection: 1 });
});

test("retries stop at maxAttempts and surface the last typed error", async () => {
  const r = await run([{ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }]);
  assert.ok(r.err instanceof ProviderHttpError);
  assert.equal((r.err as ProviderHttpError).statusCode, 503);
  assert.equal(r.requests, 4);
  assert.equal(r.stats.retries, 3);
});

test("connection refused: retried, then ProviderConnectionError", async () => {
  const server = await startScripted([]);
  const url = server.url;
  await server.close();
  const t = new SglangTransport({ baseUrl: url, retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 } });
  await assert.rejects(t.generate(REQ), (e: unknown) => {
    assert.ok(e instanceof ProviderConnectionError);
    assert.equal((e as Error).name, "ProviderConnectionError");
    return true;
  });
  assert.equal(t.stats.retries, 2);
  assert.deepEqual(t.stats.retriesByReason, { connection: 2 });
  await t.close();
});

test("a stalled server hits the explicit timeout; not retried unless asked", async () => {
  const r = await run([{ stallMs: 2_000 }], FAST, { timeoutMs: 100 });
  assert.ok(r.err instanceof ProviderTimeoutError);
  assert.equal(r.err?.name, "ProviderTimeoutError");
  assert.equal(r.stats.retries, 0);
  const again = await run([{ stallMs: 2_000 }], { ...FAST, onTimeout: true }, { timeoutMs: 100 });
  assert.ok(again.ok);
  assert.deepEqual(again.stats.retriesByReason, { timeout: 1 });
  // The stuck attempt is aborted first and the retry carries its own rid.
  assert.ok(again.paths.includes("POST /abort_request"));
  const rids = again.bodies.map((b) => (b as { rid: string }).rid);
  assert.equal(rids.length, 2);
  assert.notEqual(rids[0], rids[1]);
  for (const rid of rids) assert.match(rid, /^s:0:[0-9a-f]{8}$/);
});

test("a slow answer within timeoutMs is waited for, not cut or retried", async () => {
  const r = await run([{ stallMs: 400 }], FAST, { timeoutMs: 5_000 });
  assert.ok(r.ok);
  assert.equal(r.requests, 1);
  assert.equal(r.stats.retries, 0);
});

test("logprobs that disagree with completion_tokens are a ResponseShapeError, not retried", async () => {
  const r = await run([{ ok: true, ids: [5, 6, 7], completionTokens: 4 }]);
  assert.ok(r.err instanceof ResponseShapeError);
  assert.equal(r.err?.name, "ResponseShapeError");
  assert.match(r.err?.message ?? "", /3 entries but completion_tokens is 4/);
  assert.equal(r.requests, 1);
});

test("Retry-After on 429 is honoured (capped by maxDelayMs)", async () => {
  const started = performance.now();
  const r = await run([{ status: 429, headers: { "retry-after": "0.3" } }], { ...FAST, maxDelayMs: 1_000 });
  assert.ok(r.ok);
  assert.ok(performance.now() - started >= 290, "waited for Retry-After");
});

test("the caller's AbortSignal cancels the request with RequestCancelledError", async () => {
  const server = await startScripted([{ stallMs: 2_000 }]);
  const t = new SglangTransport({ baseUrl: server.url, retry: FAST });
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 50);
  await assert.rejects(t.generate({ ...REQ, signal: ac.signal }), RequestCancelledError);
  assert.equal(t.stats.retries, 0);
  await t.close();
  await server.close();
});

test("close() during a generation fails it once, without retrying against the destroyed pool", async () => {
  const server = await startScripted([{ stallMs: 2_000 }]);
  const t = new SglangTransport({
    baseUrl: server.url,
    retry: { maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 1_000 },
  });
  try {
    const pending = t.generate(REQ).then(
      () => null,
      (e: Error) => e,
    );
    await new Promise((r) => setTimeout(r, 100));
    const t0 = performance.now();
    await t.close();
    const err = await pending;
    assert.ok(err instanceof Error, "the generation fails");
    assert.match(err.message, /closed/);
    assert.equal(t.stats.retries, 0);
    assert.equal(t.stats.requests, 1);
    assert.ok(performance.now() - t0 < 500, "no backoff after close");
  } finally {
    await server.close();
  }
});

test("Retry-After is honoured up to a configurable cap (default 60 s), not the 5 s backoff cap", () => {
  const err = (after: string) =>
    new ProviderHttpError("/generate returned 429: busy", { statusCode: 429, retryAfter: after });
  const none = () => 0;
  assert.equal(backoffDelayMs(1, resolveRetry({}), err("30"), none), 30_000);
  assert.equal(backoffDelayMs(1, resolveRetry({}), err("600"), none), 60_000);
  assert.equal(backoffDelayMs(1, resolveRetry({ retryAfterCapMs: 10_000 }), err("30"), none), 10_000);
  // An HTTP date is a Retry-After too.
  const inTwenty = new Date(Date.now() + 20_000).toUTCString();
  const d = backoffDelayMs(1, resolveRetry({}), err(inTwenty), none);
  assert.ok(d > 15_000 && d <= 20_000, `date: ${d}`);
  // Without one, the exponential backoff keeps its own cap.
  assert.ok(backoffDelayMs(20, resolveRetry({}), err(""), () => 1) <= 5_000);
});
