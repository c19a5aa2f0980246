/**
 * The rollout semaphore (`max_concurrent`): a task runs at once while fewer than `concurrency`
 * run, otherwise when one finishes, first come first served. It holds no per-call state beyond
 * a queued resume, so a rollout that finds a free slot costs one settled-callback and nothing
 * else (a general-purpose limiter queued, re-scheduled and wrapped every call).
 */
export interface Limiter {
  <T>(fn: () => Promise<T>): Promise<T>;
  readonly concurrency: number;
}

export function createLimiter(concurrency: number): Limiter {
  if (!(Number.isInteger(concurrency) || concurrency === Number.POSITIVE_INFINITY) || concurrency < 1)
    throw new TypeError(`concurrency must be an integer from 1 up (or Infinity), got ${String(concurrency)}`);
  let active = 0;
  // A FIFO read from `head`: shift() is a memmove once the array is large (an eval may queue all
  // of its rollouts at once), so the consumed front is dropped in one splice when it is half.
  let waiting: (() => void)[] = [];
  let head = 0;
  const release = () => {
    if (head === waiting.length) {
      active--;
      return;
    }
    const resume = waiting[head]!;
    waiting[head++] = undefined as never;
    if (head === waiting.length) {
      waiting = [];
      head = 0;
    } else if (head >= 1024 && head * 2 >= waiting.length) {
      waiting = waiting.slice(head);
      head = 0;
    }
    resume();
  };
  const start = <T>(fn: () => Promise<T>): Promise<T> => {
    let result: Promise<T>;
    try {
      result = fn();
    } catch (e) {
      result = Promise.reject(e);
    }
    result.then(release, release);
    return result;
  };
  const limit = <T>(fn: () => Promise<T>): Promise<T> => {
    if (active < concurrency) {
      active++;
      return start(fn);
    }
    // The slot passes straight to the next in line (`active` stays as it is).
    return new Promise<T>((resolve) => waiting.push(() => resolve(start(fn))));
  };
  return Object.assign(limit, { concurrency }) as Limiter;
}
