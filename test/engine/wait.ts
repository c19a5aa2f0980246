import type { EngineHandle } from "../../packages/engine/src/index.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sampling for a request meant to be aborted: thousands of tokens, far beyond any test's wait. */
export const LONG = { ignore_eos: true, max_new_tokens: 2000 } as const;

/**
 * Waits until the engine has received `n` /generate requests, then `settleMs` more so each has
 * emitted some tokens. Polling instead of a fixed sleep keeps abort tests stable on a busy box;
 * tests make the requests they abort LONG, so "received" implies "still generating".
 */
export async function untilStarted(engine: EngineHandle, n: number, settleMs = 30): Promise<void> {
  await until(() => engine.stats().requests >= n, 10_000, `${n} requests received`);
  await sleep(settleMs);
}

export async function until(cond: () => boolean, timeoutMs = 10_000, what = "condition"): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}
