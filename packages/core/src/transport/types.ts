/**
 * Public types of the SGLang transport: options, one generate call, its result, counters.
 * The transport speaks token ids only; it knows nothing of messages or renderers.
 */
import type { TokenIds } from "../token-sequence.ts";
import type { DeadlineOptions } from "./deadline.ts";

/** SGLang Model Gateway policies (`--policy`). Only `consistent_hashing` and `manual` read the routing key. */
export type RoutingPolicy =
  | "cache_aware"
  | "consistent_hashing"
  | "manual"
  | "round_robin"
  | "random"
  | "power_of_two"
  | "bucket"
  | "prefix_hash"
  | "none";

/**
 * Sampling parameters as callers hold them: OpenAI names (`max_tokens`, `min_tokens`, `seed`) or
 * SGLang's native names; the transport renames to native. Unknown keys pass through so the server
 * rejects them loudly instead of the client dropping them silently.
 */
export interface SamplingInput {
  temperature?: number;
  top_p?: number;
  top_k?: number;
  min_p?: number;
  max_tokens?: number;
  max_new_tokens?: number;
  min_tokens?: number;
  min_new_tokens?: number;
  seed?: number;
  sampling_seed?: number;
  stop?: string | string[] | null;
  stop_token_ids?: number[] | null;
  repetition_penalty?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  ignore_eos?: boolean;
  [key: string]: unknown;
}

export interface RetryOptions {
  /** Total attempts including the first (default 5). */
  maxAttempts?: number;
  /** First backoff delay; doubles per retry (default 200 ms). */
  baseDelayMs?: number;
  /** Cap on one exponential backoff delay (default 5,000 ms). */
  maxDelayMs?: number;
  /** Cap on a server's `Retry-After` (default 60,000 ms). */
  retryAfterCapMs?: number;
  /** Retry a request that hit its time limit (default false: a timed-out generation is usually a stuck one). */
  onTimeout?: boolean;
  /**
   * Retry a generation the engine finished as `abort` (default false). In training an abort is
   * the trainer's own signal to stop (a weight update, a pause), so it must end the turn; an eval
   * wants every rollout answered. Aborts this transport sent itself are never retried.
   */
  onAbort?: boolean;
}

export interface SglangTransportOptions {
  /** Server or router root, e.g. `http://127.0.0.1:30000` (a path prefix is kept). */
  baseUrl: string;
  /** Max sockets in the undici Pool (default 256). */
  connections?: number;
  /** Router policy; decides whether `X-SMG-Routing-Key` is sent (default `cache_aware`: not sent). */
  routingPolicy?: RoutingPolicy;
  /** `rollout_max_context_len`: prompt + new tokens must fit. */
  contextLength?: number;
  /** `rollout_max_response_len`: per-turn cap on new tokens. */
  maxResponseLength?: number;
  /** `rollout_max_prompt_len`, checked on each session's first request (default `contextLength − 1`). */
  maxPromptLength?: number;
  retry?: RetryOptions;
  /** Per-attempt wall-clock limit (default 1 h). undici's own 300 s header/body timeouts are disabled. */
  timeoutMs?: number;
  /**
   * Per-attempt limit derived from each request's `max_new_tokens` (see deadline.ts), used when
   * `timeoutMs` is not set. Default none: the 1 h limit, as training expects.
   */
  deadline?: DeadlineOptions;
  /** Connect timeout (default 10 s). */
  connectTimeoutMs?: number;
  /** LoRA adapter name sent as `lora_path` on every request (e.g. `miles_lora`). */
  lora?: string | null;
  /** `skip_special_tokens` forced on every request (default false, like `rollout_skip_special_tokens`). */
  skipSpecialTokens?: boolean;
  /** Added to each request's renderer stop ids (`--rollout-stop-token-ids`). */
  extraStopTokenIds?: number[];
  /** Default stop strings when a request has none (`--rollout-stop`). */
  stop?: string[];
  /** Bearer token for a protected server (`Authorization: Bearer …`). */
  apiKey?: string;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Per-session state is kept in an LRU of this many sessions (default 10,000). */
  sessionCapacity?: number;
}

export interface GenerateRequest {
  /** A TokenSequence extended turn by turn is serialised without re-formatting its history. */
  inputIds: TokenIds;
  sampling?: SamplingInput;
  /** Rollout/trace id: routing key and rid prefix. */
  sessionId: string;
  /** Turn number for the rid; defaults to a per-session counter. */
  turn?: number;
  /** Explicit rid; default `${sessionId}:${turn}`. */
  rid?: string;
  /** The renderer's stop ids; unioned with `extraStopTokenIds` and `sampling.stop_token_ids`. */
  stopTokenIds?: number[];
  /** Overrides the transport's LoRA adapter for this call (`null` = none). */
  lora?: string | null;
  priority?: number;
  /** Sent as `extra_key` (cache salt / adapter version namespace). */
  extraKey?: string;
  signal?: AbortSignal;
  /**
   * Stream the turn (SGLang's `"stream": true`): called with every id sampled so far as tokens
   * arrive. The result is the same turn the unstreamed call returns. Once tokens were delivered
   * a failed attempt is not retried (the listener already saw them).
   */
  onTokens?: (ids: readonly number[], rid: string) => void;
}

export type GenerateFinishReason = "stop" | "length" | "abort";

/** What set a turn's `max_new_tokens`: the request, the context left, or `maxResponseLength`. */
export type TokenCap = "requested" | "context_length" | "max_response_length";

export interface GenerateResult {
  /** Sampled ids, from `meta_info.output_token_logprobs` (covers the terminating token). */
  outputIds: number[];
  /** One logprob per sampled id. */
  logprobs: number[];
  finishReason: GenerateFinishReason;
  /** Stop token id(s) or stop string when `finishReason` is `stop`. */
  matchedStop: number | string | number[] | null;
  /** Server message when `finishReason` is `abort`. */
  abortMessage: string | null;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  weightVersion: string | null;
  /** Spans over output tokens when weights changed mid-request (newer servers). */
  weightVersions: { version: string; start: number; end: number }[] | null;
  /** Server-side seconds (`meta_info.e2e_latency`). */
  e2eLatency: number;
  /** Client-side seconds including retries. */
  clientLatency: number;
  rid: string;
  /** Decoded text when the server returned it. */
  text: string | null;
  /** The `max_new_tokens` that was sent after capping. */
  maxNewTokens: number | null;
  /** Which limit set `maxNewTokens` (null: none, the server default applied). */
  cappedBy: TokenCap | null;
  /** HTTP attempts made (1 = no retry). */
  attempts: number;
}

/** Counters for the reliability suite; plain numbers so they serialize as-is. */
export interface TransportStats {
  /** `generate()` calls that reached the network. */
  calls: number;
  /** HTTP attempts (calls + retries). */
  requests: number;
  succeeded: number;
  failed: number;
  retries: number;
  /** Retry counts keyed by reason: `connection`, `timeout`, `abort`, `status_408`, `status_429`, `status_5xx`. */
  retriesByReason: Record<string, number>;
  /** Failures keyed by error name. */
  failuresByName: Record<string, number>;
  finishReasons: Record<GenerateFinishReason, number>;
  overlongPrompts: number;
  abortCalls: number;
}
