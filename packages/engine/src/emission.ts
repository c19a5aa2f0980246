/**
 * Emitting a planned completion over simulated time: `latencyMs` before the first token, then
 * one token every `tokenLatencyMs`. This is what makes a request observable mid-flight — for
 * streaming chunks, for `/abort_request` returning partial tokens, for pause/continue.
 */
import type { InFlight } from "./inflight.ts";
import type { PauseGate } from "./pause.ts";

export interface EmissionTiming {
  latencyMs: number;
  tokenLatencyMs: number;
  /** Tokens per streaming chunk (`stream_interval`). */
  interval: number;
}

/**
 * Waits until `cut` tokens are visible or the entry is aborted; returns how many tokens were
 * emitted. `onChunk(count)` fires at each chunk boundary when streaming.
 */
export async function emitOverTime(
  cut: number,
  entry: InFlight,
  timing: EmissionTiming,
  gate: PauseGate,
  onChunk?: (count: number) => void,
): Promise<number> {
  const { latencyMs, tokenLatencyMs } = timing;
  let started = performance.now();
  const visible = () => {
    const elapsed = performance.now() - started - latencyMs;
    if (elapsed < 0) return 0;
    return tokenLatencyMs > 0 ? Math.min(cut, Math.floor(elapsed / tokenLatencyMs)) : cut;
  };
  let emitted = 0;
  while (emitted < cut && !entry.aborted) {
    if (gate.paused) {
      // Frozen time: shift the clock by the pause so no token "appears" while paused.
      started += await pausedWait(gate, entry);
      continue;
    }
    // Wake for the next visible chunk when streaming, else once at the end.
    const target = onChunk ? Math.min(cut, emitted + timing.interval) : cut;
    const wait = started + latencyMs + target * tokenLatencyMs - performance.now();
    if (wait > 0) await sleepUnlessWoken(wait, entry);
    // Woken early (abort, pause) → only what is visible by now; on time → the target.
    emitted = Math.max(emitted, entry.aborted || gate.paused ? visible() : target);
    if (onChunk && emitted > 0 && emitted < cut && !entry.aborted) onChunk(emitted);
  }
  return emitted;
}

/** Waits for the gate to open or the entry to be woken (an abort); returns ms waited. */
async function pausedWait(gate: PauseGate, entry: InFlight): Promise<number> {
  const t0 = performance.now();
  await Promise.race([
    gate.wait(),
    new Promise<void>((resolve) => {
      entry.wake = resolve;
    }),
  ]);
  entry.wake = () => {};
  return performance.now() - t0;
}

function sleepUnlessWoken(ms: number, entry: InFlight): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      entry.wake = () => {};
      resolve();
    }
    entry.wake = done;
  });
}
