/**
 * The model side of a rollout: one call per turn.
 *
 * Two implementations: the TrainClient (renderer + SGLang `/generate`, token-exact, returns
 * prompt/completion ids and logprobs) and the EvalClient (any OpenAI-compatible endpoint, text
 * level, `tokens` is null). The interception layer talks only to this interface.
 */

import type { ModelResponse } from "../trace/turn.ts";
import type { Message, Tool } from "../types.ts";

export type { ModelResponse, TokenBudget, ToolCallFailure, TurnTokens, Usage } from "../trace/turn.ts";

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

export interface ModelRequest {
  messages: Message[];
  tools: Tool[];
  sampling: Sampling;
  /** The trace id: routes every turn of one rollout to one engine, and scopes aborts. */
  sessionId: string;
  turn: number;
  signal?: AbortSignal;
  /**
   * Streaming: called with parts of the turn as they are sampled, each known to stay (the
   * returned turn's reasoning and content start with what was sent). A client
   * that cannot stream never calls it; the answer then carries everything at the end.
   */
  onDelta?: (delta: StreamDelta) => void;
  /**
   * False when no other rollout opens with this conversation (its group is one rollout), so a
   * client need not keep its first-turn prompt for others; undefined: it may be shared.
   */
  promptShared?: boolean;
  /**
   * `messageHash` of each of `messages` when the caller has them (the trace's turn plan), so a
   * client that keys on message identity need not digest the conversation again.
   */
  messageHashes?: readonly string[];
}

/** A part of a turn known while it is sampled. */
export interface StreamDelta {
  /** The turn's id, as the response will carry it. */
  id: string;
  promptTokens: number;
  /** Reasoning that follows what was sent before; it all comes before any content. */
  reasoning?: string;
  /** Content that follows what was sent before. */
  content?: string;
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
