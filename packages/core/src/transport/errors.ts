/**
 * Typed transport errors.
 *
 * envroll's retry and error-taxonomy layers match errors by `name` (the class name), not by
 * `instanceof`, because errors cross worker/HTTP boundaries as plain `{name, message}` records.
 * Every class therefore sets `name` to its own class name, and the rollout error taxonomy can
 * re-export or subclass these without losing that property.
 */

/** Base of every error the SGLang transport raises. `statusCode` is the HTTP status, if any. */
export class ProviderError extends Error {
  readonly statusCode: number | null;
  /** Raw response body (truncated) when the error came from an HTTP response. */
  readonly body: string | null;

  constructor(
    message: string,
    opts: { statusCode?: number | null; body?: string | null; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.statusCode = opts.statusCode ?? null;
    this.body = opts.body ?? null;
  }
}

/**
 * The prompt cannot be sent: it exceeds the prompt cap, or no room is left for any new token
 * (`min(requested, context − prompt, max_response) ≤ 0`). Raised before any request is made,
 * mirroring Miles, which marks such samples TRUNCATED instead of calling the server.
 */
export class OverlongPromptError extends ProviderError {
  readonly promptTokens: number;
  readonly limit: number;

  constructor(message: string, promptTokens: number, limit: number) {
    super(message, { statusCode: 400 });
    this.promptTokens = promptTokens;
    this.limit = limit;
  }
}

/** The server answered with a non-2xx status (not retriable, or retries ran out). */
export class ProviderHttpError extends ProviderError {
  /** The `Retry-After` header, when the server sent one (429/503). */
  readonly retryAfter: string | null;

  constructor(
    message: string,
    opts: { statusCode: number; body?: string | null; retryAfter?: string | null },
  ) {
    super(message, opts);
    this.retryAfter = opts.retryAfter ?? null;
  }
}

/** The request (or the wait for headers/body) exceeded the configured timeout. */
export class ProviderTimeoutError extends ProviderError {}

/** The connection failed: refused, reset, closed mid-response. */
export class ProviderConnectionError extends ProviderError {}

/** The 2xx body does not have the /generate shape, or its logprobs disagree with its counts. */
export class ResponseShapeError extends ProviderError {}

/** The caller's AbortSignal fired; the request was cancelled client-side. */
export class RequestCancelledError extends ProviderError {}
