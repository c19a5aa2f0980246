/**
 * The one worker-pool loop: `workers` loops pull the next item from a lazy source only when they
 * are free, so a source may be a cursor whose `take()` must not run ahead of the work (an item
 * pulled is an item handed out), or a generator of 100,000 jobs that costs nothing up front.
 *
 * The first error thrown by `run` stops every loop from pulling more (items already running
 * finish) and is rethrown once all have stopped; an aborted `signal` stops pulling too.
 */
export async function runPulled<T>(
  source: Iterator<T>,
  workers: number,
  run: (item: T) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  let failure: { error: unknown } | null = null;
  const loop = async () => {
    while (failure === null && !signal?.aborted) {
      const next = source.next();
      if (next.done) return;
      try {
        await run(next.value);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, workers) }, loop));
  if (failure !== null) throw (failure as { error: unknown }).error;
}
