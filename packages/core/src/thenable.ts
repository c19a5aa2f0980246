/**
 * Steps that may finish at once return their result, not a promise: the caller waits only when
 * there is something to wait for (an `await` is a microtask round trip and a promise per step,
 * which a single-turn rollout took dozens of).
 */

/** Whether `v` is a promise (or any thenable) to wait for rather than a result. */
export function isThenable<T = unknown>(v: unknown): v is PromiseLike<T> {
  return typeof v === "object" && v !== null && typeof (v as { then?: unknown }).then === "function";
}
