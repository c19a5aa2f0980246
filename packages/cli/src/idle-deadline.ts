/**
 * A deadline that counts only the time this process was free to notice an answer.
 *
 * The preflight probe runs while the eval loads its environment, which is synchronous work
 * (tokenizer, templates, config). On a busy machine that work can hold the event loop for longer
 * than the probe's whole timeout; a plain `setTimeout` then fires before the poll phase reads the
 * answer already waiting on the socket, and a healthy endpoint is reported as silent. Here time
 * passes in short ticks, and a tick that comes late (the loop was held) counts as one tick, not as
 * the whole wait: our own busy time cannot use up the endpoint's budget.
 */
const TICK_MS = 100;

/** Calls `onExpire` once `ms` of loop-free time has passed; the returned function cancels it. */
export function idleDeadline(ms: number, onExpire: () => void): () => void {
  let counted = 0;
  let last = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    const now = performance.now();
    counted += Math.min(now - last, 2 * TICK_MS);
    last = now;
    if (counted >= ms) {
      timer = undefined;
      onExpire();
    } else timer = setTimeout(tick, TICK_MS);
  };
  timer = setTimeout(tick, TICK_MS);
  return () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
}
