/**
 * What one model turn produced, as the trace records it: the reply, its usage and, for token
 * clients, the sampled ids. Clients return it (clients/client.ts re-exports these types); the
 * trace stores it, so the record's shape lives with the trace, below the clients.
 */
import type { TokenSequence } from "../token-sequence.ts";
import type { AssistantMessage, FinishReason } from "../types.ts";

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

export interface ModelResponse {
  id: string;
  model: string;
  message: AssistantMessage;
  /** `messageHash(message)` when the client computed it (the trace's node then reuses it). */
  messageHash?: string;
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
