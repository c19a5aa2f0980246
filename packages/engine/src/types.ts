/**
 * Types shared across the built-in engine: options, the policy hook, stats.
 */
import type { Rng } from "envroll/internal/random.ts";
import type { EngineSampling } from "./sampling.ts";

/** What the engine needs from a tokenizer (the project's tokenizers satisfy it). */
export interface EngineTokenizer {
  encode(text: string): number[];
  decode(ids: number[], opts?: { skipSpecialTokens?: boolean }): string;
}

/** One turn read back from a chat-format prompt. */
export interface PromptMessage {
  role: string;
  content: string;
}

/** A message of a conversation read back from a chat-format prompt (tool results as `tool`). */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  /** The text as the prompt writes it (an assistant's tool-call markup included). */
  content: string;
  /** An assistant's tool calls, read in the family's format (absent where it writes none). */
  tool_calls?: readonly ReadToolCall[];
}

/** A tool call read back from a prompt: arguments parsed from JSON (the raw text when they are not JSON). */
export interface ReadToolCall {
  name: string;
  arguments: unknown;
}

/** One turn a reference source plays: text, then tool calls rendered in the model's format. */
export interface ReferenceTurn {
  content: string;
  tool_calls: readonly { name: string; arguments: unknown }[];
}

/**
 * Where the `reference` policy gets its answers (e.g. tasksets' reference solutions); null
 * means "no reference for this conversation" and the engine echoes instead.
 */
export type ReferenceSource = (messages: readonly ChatMessage[], rng: Rng) => ReferenceTurn | null;

/** Everything a policy may look at when choosing a reply. Text views are computed lazily. */
export interface PolicyContext {
  readonly promptIds: readonly number[];
  /** The whole prompt decoded with special tokens kept (computed on first access). */
  readonly promptText: string;
  /** The last message before the generation prompt (decodes only the prompt's tail), or null. */
  readonly lastMessage: PromptMessage | null;
  /** The conversation before the generation prompt, read in the served model's chat format. */
  readonly messages: readonly ChatMessage[];
  /** The tool names the prompt offers (its tools block, in the served model's chat format). */
  readonly tools: readonly string[];
  /** The served model's family (`qwen3`, `llama-3`, …), or null for a template the engine cannot read. */
  readonly family: string | null;
  readonly sampling: EngineSampling;
  readonly rid: string;
  /** Seeded from (engine seed, sampling_seed or rid, prompt): same inputs, same reply. */
  readonly rng: Rng;
}

/**
 * A reply: text (the content of a turn), a turn with tool calls (both written in the served
 * model's format, ending with its stop token), or exact ids (used verbatim).
 */
export type PolicyReply =
  | string
  | { text: string }
  | { turn: ReferenceTurn }
  | {
      ids: number[];
      /** Logprobs of `ids` (a recorded turn's): reported instead of drawn, so a replay is exact. */
      logprobs?: number[];
    };

export type PolicyFn = (ctx: PolicyContext) => PolicyReply;

/** Fault kinds the engine can inject on /generate. */
export type FaultKind = "5xx" | "429" | "408" | "reset" | "stall" | "abort";

export interface FaultOptions {
  /** Probability per /generate request, drawn from a seeded stream in arrival order. */
  rate: number;
  kinds: FaultKind[];
  seed?: number;
}

export interface EngineOptions {
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** `echo` (default), `reference`, `replay:<file.jsonl>`, or a function. */
  policy?: string | PolicyFn;
  /** The answers of the `reference` policy; without one it echoes every prompt. */
  reference?: ReferenceSource;
  /** Seed for logprobs, reply noise and faults (default 0). */
  seed?: number;
  /** K > 0 starts K workers behind a consistent-hash router; the returned URL is the router's. */
  workers?: number;
  /** Router policy in router mode (default `consistent_hashing`; `manual` is keyed the same way). */
  routerPolicy?: "consistent_hashing" | "manual" | "round_robin" | "random";
  faults?: FaultOptions;
  /** Delay before the first token (prefill), per request. */
  latencyMs?: number;
  /** Delay per generated token; > 0 makes requests observable mid-flight (abort, streaming). */
  tokenLatencyMs?: number;
  /** Bearer token required on every endpoint; mandatory when `host` is not loopback. */
  token?: string;
  contextLength?: number;
  /** Request body limit in bytes (default 64 MiB). */
  bodyLimit?: number;
  /** Stream deltas instead of cumulative chunks (`--incremental-streaming-output`). */
  incrementalStreaming?: boolean;
  /** Report pre-temperature logprobs (`SGLANG_RETURN_ORIGINAL_LOGPROB=True`). */
  returnOriginalLogprob?: boolean;
  /** How long a `stall` fault holds a request before dropping the socket (default 600 s). */
  stallMs?: number;
  /** Requests one worker runs at once; beyond it /generate answers 503 (queue full). Default unlimited. */
  maxRunningRequests?: number;
  /** Label returned in `weight_version` until updated (default `default`). */
  weightVersion?: string;
  /** Served model name (`/v1/models`, `/get_model_info`). */
  modelName?: string;
  /** Called with every parsed /generate body and its headers, for tests that pin the wire bytes. */
  onRequest?: (body: unknown, headers: Record<string, string | string[] | undefined>) => void;
  /**
   * The model served: a checkpoint folder (its tokenizer, chat template and stop ids; the
   * renderer is chosen from the template as a client's is), or "qwen3" (default, the carried files).
   */
  model?: string;
}

export interface EngineStats {
  /** `/generate` requests. */
  requests: number;
  /** `/v1/chat/completions` requests. */
  chatCompletions: number;
  generated: number;
  completionTokens: number;
  aborted: number;
  errors400: number;
  faults: Record<FaultKind, number>;
  inFlight: number;
  weightVersion: string;
  /** Router mode: per-worker request counts, in worker order. */
  workers?: { url: string; requests: number }[];
}

export interface EngineHandle {
  /** Base URL (router URL in router mode). */
  url: string;
  port: number;
  /** Worker URLs in router mode, else `[url]`. */
  workerUrls: string[];
  stats(): EngineStats;
  close(): Promise<void>;
}
