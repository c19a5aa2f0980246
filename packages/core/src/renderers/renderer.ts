/**
 * The renderer contract: one model family's chat format, token-exact.
 *
 * A renderer turns messages into the exact token ids the model was trained on, says for each
 * token which message it came from and whether the model would have sampled it, parses sampled
 * ids back into a message, and — the point of the whole design — extends an already-sampled
 * prompt+completion with new turns without re-tokenizing what the model produced.
 * Renderers know nothing of HTTP.
 */
import type { TokenIds, TokenSequence } from "../token-sequence.ts";

/**
 * A message as renderers accept it: envroll's own `Message` or the OpenAI wire form
 * (`tool_calls[].function.{name, arguments}` with arguments as an object or a raw string).
 */
export type RenderMessage = {
  role: string;
  content?: unknown;
  reasoning_content?: string | null;
  tool_calls?: unknown[] | null;
  tool_call_id?: string | null;
  name?: string | null;
  [key: string]: unknown;
};

/** A tool spec as renderers accept it: `{type:"function", function:{…}}` or bare `{name, …}`. */
export type RenderTool = Record<string, unknown>;

export interface RenderOptions {
  tools?: RenderTool[] | null;
  addGenerationPrompt?: boolean;
  /** Overrides the renderer's configured default for this call. */
  enableThinking?: boolean;
}

/** Token ids with per-token attribution; all arrays have the same length. */
export interface RenderedTokens {
  tokenIds: number[];
  /** Index of the source message (relative to the rendered list), or -1 for scaffold. */
  messageIndices: number[];
  /** True where the model would have emitted the token. */
  sampledMask: boolean[];
  /** True for message body bytes (content, reasoning, tool calls), false for template scaffold. */
  isContent: boolean[];
  messageRoles: string[];
  messageToolNames: (string | null)[];
}

/** Ids with the attribution of each, as one rendered piece; all arrays have the same length. */
export type TokenAttribution = Pick<
  RenderedTokens,
  "tokenIds" | "messageIndices" | "sampledMask" | "isContent"
>;

/**
 * A bridged prompt: the carried history exactly as sampled, then the newly rendered tail. The
 * ids share storage with the previous prompt, and attribution covers only the tail — the
 * history is by definition index −1, not sampled, not content — so a bridge costs what the new
 * messages cost, whatever the history's length. `expandBridged` gives the full-length arrays.
 */
export interface BridgedTokens {
  tokenIds: TokenSequence;
  /** Where the tail starts: ids before it are the carried history. */
  prefixLength: number;
  /** `tokenIds[prefixLength:]` with attribution; message indices relative to the new messages. */
  tail: TokenAttribution;
  messageRoles: string[];
  messageToolNames: (string | null)[];
}

/** Inputs of a bridge beyond the ids: what the previous turn was rendered with, and a reporter. */
export interface BridgeOptions {
  tools?: RenderTool[] | null;
  enableThinking?: boolean;
  /**
   * The whole conversation of this request (its tail is `newMessages`). Renderers that derive
   * the format from a template need it; hand-written ones ignore it.
   */
  messages?: RenderMessage[];
  /** Told why, whenever the bridge declines (returns null). */
  onDecline?: (reason: string) => void;
}

export type ToolCallStatus =
  | "ok"
  | "invalid_json"
  | "unclosed_block"
  | "missing_name"
  | "malformed_structure";

export interface ParsedToolCall {
  raw: string;
  name: string | null;
  arguments: unknown;
  /** [start, end) into the completion ids after truncation at the first stop id. */
  tokenSpan: [number, number];
  status: ToolCallStatus;
  id: string | null;
  /**
   * The arguments exactly as sampled, where the format writes them as a JSON text of their own
   * (gpt-oss): a tool call built from it re-renders to the sampled bytes.
   */
  argumentsText?: string;
}

export interface ParsedResponse {
  content: string;
  reasoningContent: string | null;
  toolCalls: ParsedToolCall[];
}

/**
 * The arguments of `Renderer.bridge`, declared once: the families' bridge functions take them as
 * a rest tuple after their own context.
 */
export type BridgeArgs = Parameters<Renderer["bridge"]>;

export interface Renderer {
  /** Family name, e.g. "qwen3". */
  readonly name: string;
  /** The verified family where `name` is something else (a generic renderer named by its folder). */
  readonly family?: string;
  render(messages: RenderMessage[], options?: RenderOptions): RenderedTokens;
  parse(completionIds: number[], options?: { tools?: RenderTool[] | null }): ParsedResponse;
  /**
   * Ids that start with `prevPromptIds + prevCompletionIds` exactly as sampled (trimmed to the
   * last turn close in the completion) and end at the next generation prompt, or null whenever
   * that cannot be proven — the caller then renders in full.
   */
  bridge(
    prevPromptIds: TokenIds,
    prevCompletionIds: readonly number[],
    newMessages: RenderMessage[],
    options?: BridgeOptions,
  ): BridgedTokens | null;
  readonly stopTokenIds: number[];
  /** Decodes ids to text (special tokens kept). */
  decode(ids: number[]): string;
}
