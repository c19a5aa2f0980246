/**
 * Shared pieces of the fault suite: the faulty engine, a ticker that aborts everything in flight
 * the way a weight update does, and the checks every finished trace must pass.
 */
import assert from "node:assert/strict";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import type { EngineHandle, FaultKind } from "../../packages/engine/src/index.ts";
import { referenceEngine } from "../engine/reference-engine.ts";

/** Every kind the issue names, at 10 % of /generate requests. */
export const FAULT_KINDS: FaultKind[] = ["5xx", "429", "408", "reset", "stall", "abort"];
export const FAULT_RATE = 0.1;
/** The client's request timeout; a stall holds its request longer than that, then drops it. */
export const REQUEST_TIMEOUT_MS = 2_000;
export const STALL_MS = 2_500;
/** No single rollout may take longer than this (a hung episode would). */
export const MAX_ROLLOUT_S = 30;

/**
 * Error types a rollout may end with under these faults: each names the boundary that failed.
 * A bare `Error`, a `TypeError` or an unknown name would be a crash leaking into the data.
 */
export const TYPED_FAILURES = new Set([
  "TurnAbortedError",
  "ProviderTimeoutError",
  "ProviderHttpError",
  "ProviderConnectionError",
]);

export async function faultyEngine(seed: number): Promise<EngineHandle> {
  return referenceEngine({
    workers: 2,
    seed,
    tokenLatencyMs: 1,
    faults: { rate: FAULT_RATE, kinds: FAULT_KINDS, seed },
    stallMs: STALL_MS,
  });
}

/**
 * Every `everyMs`, aborts all in-flight generation: alternately a weight-version update (Miles
 * pushes new weights; the engine aborts everything) and an explicit `abort_all` from the client.
 */
export function abortAllTicker(engine: EngineHandle, everyMs: number, abortAll: () => Promise<void>) {
  let ticks = 0;
  let pending: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    ticks++;
    pending =
      ticks % 2 === 1
        ? fetch(`${engine.url}/update_weight_version`, {
            method: "POST",
            body: JSON.stringify({ new_version: `v${ticks}` }),
          }).then((r) => r.arrayBuffer())
        : abortAll();
  }, everyMs);
  return {
    get ticks() {
      return ticks;
    },
    async stop() {
      clearInterval(timer);
      await pending;
    },
  };
}

/**
 * The per-trace contract: it finished (not hung), and either succeeded with real sampled tokens
 * and no aborted turn in it, or failed with a typed error. Never a silently empty success.
 */
export function checkTrace(t: TraceRecord): "ok" | "failed" {
  const where = `task ${t.task_index} rollout ${t.rollout_index}`;
  assert.ok(t.timing.end !== null, `${where}: no end time`);
  assert.ok((t.timing.end as number) - t.timing.start < MAX_ROLLOUT_S, `${where}: took too long`);
  for (const e of t.errors)
    assert.ok(TYPED_FAILURES.has(e.type), `${where}: untyped error ${e.type}: ${e.message}`);
  const sampled = t.nodes.filter((n) => n.sampled);
  // Retries keep earlier attempts' errors; the final attempt's outcome is `is_completed`.
  if (t.is_completed) {
    assert.ok(sampled.length > 0 && t.num_turns > 0, `${where}: completed without a turn`);
    for (const n of sampled) {
      assert.notEqual(n.finish_reason, "abort", `${where}: an aborted turn counted as a finished one`);
      assert.ok((n.token_ids?.length ?? 0) > 0, `${where}: a sampled turn without tokens`);
    }
    return "ok";
  }
  assert.ok(t.errors.length > 0, `${where}: not completed, yet no error recorded`);
  return "failed";
}
