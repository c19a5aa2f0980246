/**
 * EvalClient: any OpenAI-compatible `/chat/completions` endpoint, at the text level (`tokens` is
 * null). Config sampling has already been merged over the program's own values by the session;
 * provider failures are mapped onto the transport's ProviderError classes with their status, so
 * the interception server can relay them and retries can match them by name.
 */

import type { EvalClientConfig } from "../config/schema.ts";
import {
  OverlongPromptError,
  ProviderConnectionError,
  ProviderError,
  ProviderHttpError,
  ProviderTimeoutError,
  RequestCancelledError,
} from "../errors.ts";
import type { DeadlineOptions } from "../transport/deadline.ts";
import { type ResolvedRetry, resolveRetry, withRetries } from "../transport/retry.ts";
import type { RetryOptions } from "../transport/types.ts";
import type { FinishReason } from "../types.ts";
import { Agent, errors as undiciErrors } from "../undici.ts";
import type { Client, ModelRequest, ModelResponse } from "./client.ts";
import { messagesFromWire, messageToWire, toolToWire } from "./wire.ts";

export interface EvalClientOptions {
  /** Base URL including `/v1` (or the provider's equivalent); `/chat/completions` is appended. */
  baseUrl: string;
  model: string;
  apiKey?: string | null;
  headers?: Record<string, string>;
  /** Per-request timeout in ms; when set it replaces `deadline`. */
  timeoutMs?: number;
  /**
   * Per-attempt stall deadline, scaled by the request's `max_tokens` (or `max_completion_tokens`;
   * without either, EVAL_DEADLINE_TOKENS): a provider that has not answered by then is cut and
   * the attempt fails as a ProviderTimeoutError (retried when `retry.onTimeout`). Neither this nor
   * `timeoutMs`: it waits as long as the provider takes.
   */
  deadline?: DeadlineOptions;
  /** Connections per origin. */
  connections?: number;
  /** Retries of a turn on 408/429/5xx and connection errors (`Retry-After` honoured). */
  retry?: RetryOptions;
}

/** Provider phrasings of "the prompt does not fit the context window". */
const OVERLONG =
  /context[ _-]?length|maximum context|context window|too many tokens|prompt is too long|input is too long/i;
const FINISH: ReadonlySet<string> = new Set(["stop", "length", "tool_calls", "abort"]);

/**
 * The token budget a stall deadline assumes for a request that names no `max_tokens`: providers
 * then stop at the model's own output limit, which reasoning models put in the tens of thousands.
 */
export const EVAL_DEADLINE_TOKENS = 32_768;

/** The stall deadline of one attempt of `body`, in ms. */
function deadlineMs(deadline: DeadlineOptions, body: Record<string, unknown>): number {
  const cap = body["max_tokens"] ?? body["max_completion_tokens"];
  const tokens = typeof cap === "number" && cap > 0 ? cap : EVAL_DEADLINE_TOKENS;
  return Math.ceil(deadline.baseMs + tokens * deadline.perTokenMs);
}

export class EvalClient implements Client {
  readonly kind = "eval" as const;
  private readonly origin: string;
  private readonly path: string;
  private readonly headers: Record<string, string>;
  private readonly dispatcher: Agent;
  private readonly inflight = new Map<string, Set<AbortController>>();
  private readonly retry: ResolvedRetry;

  constructor(private readonly options: EvalClientOptions) {
    this.retry = resolveRetry(options.retry);
    const url = new URL(`${options.baseUrl.replace(/\/+$/, "")}/chat/completions`);
    this.origin = url.origin;
    this.path = url.pathname;
    this.headers = { "content-type": "application/json", ...options.headers };
    if (options.apiKey) this.headers["authorization"] = `Bearer ${options.apiKey}`;
    const t = options.timeoutMs ?? 0; // 0 disables undici's own timers
    this.dispatcher = new Agent({
      connections: options.connections ?? 256,
      headersTimeout: t,
      bodyTimeout: t,
    });
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const body: Record<string, unknown> = {
      ...request.sampling,
      model: this.options.model,
      messages: request.messages.map(messageToWire),
    };
    if (request.tools.length > 0) body["tools"] = request.tools.map(toolToWire);
    // A provider's "not now" (429, 5xx, a dropped connection) is retried here, as the transport
    // does for SGLang; one 429 must not end a rollout.
    const text = await withRetries(
      () => this.post(body, request.sessionId, request.signal),
      this.retry,
      request.signal,
    );
    return completionFrom(parseJson(text), this.options.model);
  }

  /**
   * One call with a body sent as given (its own `model`): the provider's JSON next to the parsed
   * response, for callers that keep the raw exchange (judges record it on the trace).
   */
  async chat(
    body: Record<string, unknown>,
    sessionId: string,
    signal?: AbortSignal,
  ): Promise<{ raw: unknown; response: ModelResponse }> {
    const raw = parseJson(await this.post(body, sessionId, signal));
    return { raw, response: completionFrom(raw, typeof body["model"] === "string" ? body["model"] : "") };
  }

  private async post(
    body: Record<string, unknown>,
    sessionId: string,
    signal?: AbortSignal,
  ): Promise<string> {
    const ac = new AbortController();
    const onAbort = () => ac.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) ac.abort();
    const set = this.inflight.get(sessionId) ?? new Set();
    set.add(ac);
    this.inflight.set(sessionId, set);
    // A fixed timeout is undici's (headers/body timers); the stall deadline is this attempt's own.
    const limitMs =
      this.options.timeoutMs === undefined && this.options.deadline
        ? deadlineMs(this.options.deadline, body)
        : null;
    let stalled = false;
    const timer =
      limitMs === null
        ? null
        : setTimeout(() => {
            stalled = true;
            ac.abort();
          }, limitMs);
    try {
      const res = await this.dispatcher.request({
        origin: this.origin,
        path: this.path,
        method: "POST",
        headers: { ...this.headers, "x-session-id": sessionId },
        body: JSON.stringify(body),
        signal: ac.signal,
      });
      const text = await res.body.text();
      const after = res.headers["retry-after"];
      if (res.statusCode < 200 || res.statusCode >= 300)
        throw httpError(res.statusCode, text, typeof after === "string" ? after : null);
      return text;
    } catch (e) {
      if (stalled)
        throw new ProviderTimeoutError(
          `provider gave no reply within the stall deadline of ${(limitMs! / 1000).toFixed(1)} s (client.deadline: base + max_tokens × per_token)`,
          { cause: e },
        );
      throw mapError(e, ac.signal.aborted);
    } finally {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      set.delete(ac);
      if (set.size === 0) this.inflight.delete(sessionId);
    }
  }

  async abort(sessionId?: string): Promise<void> {
    const sets =
      sessionId === undefined ? [...this.inflight.values()] : [this.inflight.get(sessionId) ?? new Set()];
    for (const s of sets) for (const ac of s) ac.abort();
  }

  async close(): Promise<void> {
    await this.abort();
    await this.dispatcher.close();
  }
}

function httpError(status: number, text: string, retryAfter: string | null): ProviderError {
  let message = text.slice(0, 2000);
  try {
    const j = JSON.parse(text);
    message = j?.error?.message ?? j?.message ?? message;
  } catch {}
  if (status === 400 && OVERLONG.test(message)) return new OverlongPromptError(message, 0, 0);
  return new ProviderHttpError(`provider returned ${status}: ${message}`, {
    statusCode: status,
    body: text.slice(0, 2000),
    retryAfter,
  });
}

function mapError(e: unknown, aborted: boolean): unknown {
  if (e instanceof ProviderError) return e;
  if (aborted) return new RequestCancelledError("request aborted", { cause: e });
  const code = (e as { code?: string })?.code ?? "";
  if (
    e instanceof undiciErrors.HeadersTimeoutError ||
    e instanceof undiciErrors.BodyTimeoutError ||
    e instanceof undiciErrors.ConnectTimeoutError
  )
    return new ProviderTimeoutError(`provider timed out: ${(e as Error).message}`, { cause: e });
  if (/^(ECONN|EPIPE|ENOTFOUND|EAI_AGAIN|UND_ERR_SOCKET|UND_ERR_CLOSED)/.test(code))
    return new ProviderConnectionError(`cannot reach provider: ${(e as Error).message}`, { cause: e });
  return new ProviderError(`provider request failed: ${e instanceof Error ? e.message : String(e)}`, {
    cause: e,
  });
}

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError(`provider returned invalid JSON: ${text.slice(0, 200)}`, { statusCode: 502 });
  }
}

function completionFrom(j: any, model: string): ModelResponse {
  const choice = j?.choices?.[0];
  if (!choice?.message)
    throw new ProviderError("provider response has no choices[0].message", { statusCode: 502 });
  const [message] = messagesFromWire([{ ...choice.message, role: "assistant" }]);
  const fr = choice.finish_reason;
  return {
    id: typeof j.id === "string" ? j.id : "chatcmpl",
    model: typeof j.model === "string" ? j.model : model,
    message: message as ModelResponse["message"],
    finishReason: (typeof fr === "string" && FINISH.has(fr)
      ? fr
      : fr == null
        ? null
        : "stop") as FinishReason,
    usage: {
      promptTokens: j.usage?.prompt_tokens ?? 0,
      completionTokens: j.usage?.completion_tokens ?? 0,
      cachedTokens: j.usage?.prompt_tokens_details?.cached_tokens,
    },
    tokens: null,
  };
}

/** An EvalClient from the `[client]` config (the key is read from `api_key_var` in the environment). */
export function createEvalClient(config: EvalClientConfig, model: string): EvalClient {
  return new EvalClient({
    baseUrl: config.base_url,
    model,
    apiKey: config.api_key_var ? (process.env[config.api_key_var] ?? null) : null,
    headers: config.headers,
    timeoutMs: config.timeout == null ? undefined : config.timeout * 1000,
    deadline: { baseMs: config.deadline.base * 1000, perTokenMs: config.deadline.per_token * 1000 },
    // A stalled attempt is cut by the deadline and asked again, as the TrainClient does.
    retry: { onTimeout: true },
  });
}
