/**
 * The model side of a rollout: one call per turn.
 *
 * Two implementations: the TrainClient (renderer + SGLang `/generate`, token-exact, returns
 * prompt/completion ids and logprobs) and the EvalClient (any OpenAI-compatible endpoint, text
 * level, `tokens` is null). The interception layer talks only to this interface.
 */
import type { TokenSequence } from "../token-sequence.ts";
import type { AssistantMessage, FinishReason, Message, Tool } from "../types.ts";

/** Sampling settings in OpenAI vocabulary; extra keys pass through to the provider. */
export interface Sampling {
  temperature?: number;
  top_p?: number;
  top_k?: number;
  min_p?: number;
  max_tokens?: number;
  min_tokens?: number;
  seed?: number;
  stop?: string[];
  stop_token_ids?: number[];
  [key: string]: unknown;
}

/** The sampled tokens of one turn; what reaches the trainer. */
export interface TurnTokens {
  /** The prompt as sent; a bridged prompt shares storage with the turn it extends. */
  promptIds: TokenSequence;
  completionIds: number[];
  /** One per completion id. */
  completionLogprobs: number[];
  /**
   * Where `promptMessageIndices` / `promptIsContent` start (default 0): the prompt ids before it
   * are the already-sampled history a bridged prompt carries (index −1, not content), so a turn
   * costs what its new tokens cost.
   */
  attributionStart?: number;
  /** Per prompt token from `attributionStart`: index into the request's messages, or −1 for scaffold. */
  promptMessageIndices?: number[];
  /** Per prompt token from `attributionStart`: true for message body tokens. */
  promptIsContent?: boolean[];
  /** True when the prompt was built by bridging the previous turn instead of a full render. */
  bridged?: boolean;
  /** Why the renderer declined to bridge this turn (then the prompt is a full render, a new branch). */
  bridgeDeclined?: string;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
}

export interface ModelRequest {
  messages: Message[];
  tools: Tool[];
  sampling: Sampling;
  /** The trace id: routes every turn of one rollout to one engine, and scopes aborts. */
  sessionId: string;
  turn: number;
  signal?: AbortSignal;
}

export interface ModelResponse {
  id: string;
  model: string;
  message: AssistantMessage;
  finishReason: FinishReason;
  usage: Usage;
  tokens: TurnTokens | null;
  weightVersion?: string | null;
  /**
   * When a weight update landed mid-turn (the engine paused in `retract` mode): which version
   * sampled which completion positions, `end` exclusive. Absent for a one-version turn.
   */
  weightVersionSpans?: { version: string; start: number; end: number }[] | null;
  /** The `max_new_tokens` the turn was sent with and which limit set it (token clients only). */
  tokenBudget?: TokenBudget;
  /** Tool-call attempts in the sampled turn that did not parse (token clients only). */
  toolCallFailures?: ToolCallFailure[];
}

/** One attempted tool call that did not parse: the renderer family, the parser's status, the text. */
export interface ToolCallFailure {
  family: string;
  reason: string;
  raw: string;
}

export interface TokenBudget {
  maxNewTokens: number | null;
  /** null: no limit anywhere, so the engine's own default applied. */
  cappedBy: "requested" | "context_length" | "max_response_length" | null;
}

/**
 * A token estimate for clients without a tokenizer: UTF-8 bytes of the chat-wire messages and
 * tools / 4. A program only uses the figure to budget its context.
 */
export function estimateTokens(messages: readonly Message[], tools: readonly Tool[]): number {
  return Math.ceil(Buffer.byteLength(JSON.stringify([messages, tools])) / 4);
}

export interface Client {
  readonly kind: "train" | "eval";
  getResponse(request: ModelRequest): Promise<ModelResponse>;
  /**
   * Prompt tokens of a conversation as this client would send it (Anthropic `count_tokens`).
   * Exact for a TrainClient (its renderer); without it the interception server estimates.
   */
  countTokens?(messages: Message[], tools: Tool[]): Promise<number>;
  /**
   * Aborts in-flight requests of one session (rollout), or all of this client's when omitted —
   * never requests other clients sent to the same (possibly shared) server.
   */
  abort(sessionId?: string): Promise<void>;
  /** The rollout `sessionId` is over: per-rollout state (e.g. the bridge's) can go. */
  endSession?(sessionId: string): void;
  close(): Promise<void>;
}
