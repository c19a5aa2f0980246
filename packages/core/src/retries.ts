/**
 * Whole-rollout retries (Verifiers `retries.rollout`). Matching is by error type name so the
 * policy reads like the traces it acts on; `exclude` wins over `include`, and an empty `include`
 * means "any type". Earlier attempts' errors are kept (prepended) on the final trace so a
 * flaky provider stays visible in the data even when a retry succeeded.
 */
import type { RetryPolicy } from "./config/schema.ts";
import type { Trace, TraceError } from "./trace/trace.ts";

export function shouldRetry(errorType: string, policy: RetryPolicy): boolean {
  if (policy.exclude.includes(errorType)) return false;
  return policy.include.length === 0 || policy.include.includes(errorType);
}

export async function runWithRetry(
  run: (attempt: number) => Promise<Trace>,
  policy: RetryPolicy,
  signal?: AbortSignal,
): Promise<Trace> {
  const earlier: TraceError[] = [];
  for (let attempt = 0; ; attempt++) {
    const trace = await run(attempt);
    const last = trace.errors[trace.errors.length - 1];
    if (!last || attempt >= policy.max_retries || signal?.aborted || !shouldRetry(last.type, policy)) {
      if (earlier.length > 0) trace.errors = [...earlier, ...trace.errors];
      trace.attempts = attempt;
      return trace;
    }
    earlier.push(...trace.errors);
  }
}
