import type { EngineHandle } from "../../src/engine/index.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until `n` requests are generating on the engine, then `settleMs` more so each has
 * emitted some tokens. Polling instead of a fixed sleep keeps abort tests stable on a busy box.
 */
export async function untilInFlight(
  engine: EngineHandle,
  n: number,
  settleMs = 30,
  timeoutMs = 5_000,
): Promise<void> {
  await until(() => engine.stats().inFlight >= n, timeoutMs, `${n} requests in flight`);
  await sleep(settleMs);
}

export async function until(cond: () => boolean, timeoutMs = 5_000, what = "condition"): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}
