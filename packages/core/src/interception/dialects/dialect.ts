/**
 * A dialect is a translation layer between one model API's wire format and envroll's
 * `Message`/`Tool` types. The session, trace graph, renderer and client never see a wire
 * format: the server parses with the dialect the route belongs to, runs the turn, and answers
 * in the same dialect (as JSON, or as the SSE event sequence that dialect's SDK stream helpers
 * parse).
 */
import type { IncomingMessage } from "node:http";
import type { ModelResponse, Sampling, StreamDelta } from "../../clients/client.ts";
import type { Message, Tool } from "../../types.ts";

export type DialectName = "chat" | "responses" | "anthropic";

export interface DialectRequest {
  messages: Message[];
  tools: Tool[];
  /** The program's own sampling values, in envroll's vocabulary (config sampling wins). */
  sampling: Sampling;
  stream: boolean;
  /** The model the program asked for; answers echo it. */
  model: string | null;
  /** Request fields the answer echoes back (the dialect's own business). */
  echo: Record<string, unknown>;
  /**
   * How a tool the model calls by `tools[i].name` is named on the wire when that differs (a
   * Responses `namespace` member or a `custom` tool): the answer maps the call back.
   */
  wireTools?: ReadonlyMap<string, WireTool>;
  /** Tools the program offered that the environment cannot serve, left out of the prompt. */
  droppedTools?: string[];
}

export interface ParseOptions {
  /** Refuse tools the environment cannot serve (hosted tools) instead of leaving them out. */
  refuseHostedTools?: boolean;
  /**
   * One rollout's wire history objects → what they translated to. A program's resent history
   * arrives as the very objects parsed before (resent-body.ts reuses them, and nothing mutates
   * them), and an element's translation depends on it alone, so it is translated once.
   */
  translated?: WeakMap<object, unknown>;
}

export interface WireTool {
  name: string;
  namespace?: string;
  /** A freeform tool: its call carries `input` text, not JSON arguments. */
  custom?: boolean;
}

/** A streaming answer, written as the turn is sampled and finished once it is committed. */
export interface LiveAnswer {
  /** Events for a part of the turn known while it is sampled. */
  delta(d: StreamDelta): SseEvent[];
  /** Everything not yet sent, then the terminal events. */
  finish(response: ModelResponse): SseEvent[];
  /** After `finish`: text was streamed that the committed turn does not start with. */
  readonly diverged: boolean;
}

/** One server-sent event; `data` is the JSON text (or `[DONE]`). */
export interface SseEvent {
  event?: string;
  data: string;
}

export interface Dialect {
  readonly name: DialectName;
  /** The model-turn route. */
  readonly path: string;
  /** The body member holding the conversation a program resends each turn (see resent-body.ts). */
  readonly historyKey: string;
  /** The rollout secret the dialect's SDKs send. */
  secret(req: IncomingMessage): string | null;
  /** An error body in the dialect's shape (what its SDK reads a message from). */
  errorBody(message: string, type: string): unknown;
  /** Wire body → typed request; throws InterceptionError naming the field on a bad shape. */
  parse(body: Record<string, any>, options?: ParseOptions): DialectRequest;
  /** The JSON answer to a non-streaming request. */
  respond(response: ModelResponse, request: DialectRequest, model: string): unknown;
  /**
   * The SSE answer to a streaming request: events for what is known while the turn is sampled,
   * then the rest once it is committed (whose last events end the turn).
   */
  live(request: DialectRequest, model: string): LiveAnswer;
  /** An error reported inside a stream whose headers already went out. */
  errorEvent(message: string, type: string): SseEvent[];
  /**
   * The arguments text this dialect's `parse` gives for an answered call sent back in a later
   * history, when that is not `args` itself (a wire format that cannot carry them verbatim).
   */
  echoArguments?(args: string): string | null;
}

export function sseText(events: readonly SseEvent[]): string {
  let out = "";
  for (const e of events) out += e.event ? `event: ${e.event}\ndata: ${e.data}\n\n` : `data: ${e.data}\n\n`;
  return out;
}

export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
