/**
 * Which failures are worth another attempt, and how long to wait — the one retry policy of the
 * SGLang transport, the EvalClient (`--openai` and any OpenAI-compatible provider) and judges.
 *
 * Only transient conditions are retried: the connection failed, or the server/router said
 * "not now" (408 queue timeout, 429 queue full, 5xx). Any other 4xx means the request itself is
 * wrong, and repeating it would only repeat the error (Miles' own helper retries everything 60×,
 * which turns a bad sampling value into a minute of silence).
 */
import { ProviderConnectionError, ProviderHttpError, ProviderTimeoutError } from "./errors.ts";
import type { RetryOptions } from "./types.ts";

export interface ResolvedRetry {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** The longest `Retry-After` waited for; a server asking for more is waited for this long. */
  retryAfterCapMs: number;
  onTimeout: boolean;
  onAbort: boolean;
}

export function resolveRetry(opts: RetryOptions | undefined): ResolvedRetry {
  return {
    maxAttempts: Math.max(1, opts?.maxAttempts ?? 5),
    baseDelayMs: opts?.baseDelayMs ?? 200,
    maxDelayMs: opts?.maxDelayMs ?? 5_000,
    retryAfterCapMs: opts?.retryAfterCapMs ?? 60_000,
    onTimeout: opts?.onTimeout ?? false,
    onAbort: opts?.onAbort ?? false,
  };
}

export function isRetriableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/** The stats key for a retriable error, or null when the error must not be retried. */
export function retryReason(err: unknown, policy: ResolvedRetry): string | null {
  if (err instanceof ProviderConnectionError) return "connection";
  if (err instanceof ProviderTimeoutError) return policy.onTimeout ? "timeout" : null;
  if (err instanceof ProviderHttpError && err.statusCode !== null && isRetriableStatus(err.statusCode)) {
    return err.statusCode >= 500 ? "status_5xx" : `status_${err.statusCode}`;
  }
  return null;
}

/**
 * Delay before retry number `retry` (1-based): exponential backoff with equal jitter (half the
 * step fixed, half random) capped at `maxDelayMs`, raised to the server's `Retry-After` when it
 * sent one — a rate limiter saying "in 30 s" means it; that wait is capped at `retryAfterCapMs`.
 */
export function backoffDelayMs(
  retry: number,
  policy: ResolvedRetry,
  err: unknown,
  random = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  let delay = ceiling / 2 + (random() * ceiling) / 2;
  const after = err instanceof ProviderHttpError ? retryAfterMs(err.retryAfter) : null;
  if (after !== null) delay = Math.max(delay, Math.min(after, policy.retryAfterCapMs));
  return delay;
}

/** `Retry-After` as delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
function retryAfterMs(value: string | null): number | null {
  if (!value) return null;
  const seconds = Number(value);
  if (value.trim() !== "" && Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/**
 * Runs `attempt` until it succeeds, fails with an error `retryReason` refuses, or attempts run
 * out, sleeping `backoffDelayMs` in between (abortable by `signal`).
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  policy: ResolvedRetry,
  signal?: AbortSignal,
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (n >= policy.maxAttempts || signal?.aborted || retryReason(err, policy) === null) throw err;
      await sleep(backoffDelayMs(n, policy, err), signal);
    }
  }
}

/** Resolves after `ms`, or rejects early with the signal's reason. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
