/**
 * The OpenAI chat-completions dialect (`POST /v1/chat/completions`). The wire messages are
 * envroll's own shape but for tool calls (`function.{name, arguments}`) and reasoning field
 * names, so parsing is `wire.ts`; this module adds the request knobs and the answers.
 */
import type { ModelResponse, Sampling, StreamDelta } from "../../clients/client.ts";
import { messagesFromWire, messageToWire, toolsFromWire, type WireToolCall } from "../../clients/wire.ts";
import { InterceptionError } from "../../errors.ts";
import { bearerToken } from "../../http/index.ts";
import type { Message } from "../../types.ts";
import { mergeSplitTurns } from "../split-turns.ts";
import { type Dialect, type DialectRequest, type LiveAnswer, type SseEvent, unixSeconds } from "./dialect.ts";
import { LiveTurn } from "./live-turn.ts";
import { chatToolChoice, offeredTools } from "./tool-choice.ts";

type Json = Record<string, any>;

/** Request keys that are not sampling settings (everything else is passed on as sampling). */
const NON_SAMPLING = new Set([
  "model",
  "messages",
  "tools",
  "tool_choice",
  "stream",
  "stream_options",
  "n",
  "user",
  "parallel_tool_calls",
  "functions",
  "function_call",
  "metadata",
  "store",
]);

/** The program's own sampling values (config sampling is merged over these by the session). */
export function samplingFromWire(body: Json): Sampling {
  const out: Sampling = {};
  for (const [k, v] of Object.entries(body)) {
    if (NON_SAMPLING.has(k) || v === undefined) continue;
    out[k === "max_completion_tokens" ? "max_tokens" : k] = v;
  }
  return out;
}

function wireFinishReason(r: ModelResponse): string {
  if (r.message.tool_calls && r.message.tool_calls.length > 0 && r.finishReason !== "length")
    return "tool_calls";
  return r.finishReason === "length" ? "length" : "stop";
}

function usageToWire(r: ModelResponse): Json {
  const usage: Json = {
    prompt_tokens: r.usage.promptTokens,
    completion_tokens: r.usage.completionTokens,
    total_tokens: r.usage.promptTokens + r.usage.completionTokens,
  };
  if (r.usage.cachedTokens) usage["prompt_tokens_details"] = { cached_tokens: r.usage.cachedTokens };
  return usage;
}

/** The `chat.completion` object returned to the program. */
export function completionToWire(r: ModelResponse, model: string): Json {
  return {
    id: r.id,
    object: "chat.completion",
    created: unixSeconds(),
    model,
    choices: [
      { index: 0, message: messageToWire(r.message), finish_reason: wireFinishReason(r), logprobs: null },
    ],
    usage: usageToWire(r),
  };
}

/**
 * The completion as `chat.completion.chunk` events, in the order OpenAI streams them: the role,
 * reasoning, content (as it is sampled, when the client streams), each tool call's header then
 * its arguments, the finish reason, the usage chunk when `stream_options.include_usage` asked
 * for it, then `[DONE]`.
 */
class ChatLive implements LiveAnswer {
  private readonly turn = new LiveTurn();
  private base: Json | null = null;

  constructor(
    private readonly model: string,
    private readonly includeUsage: boolean,
  ) {}

  get diverged(): boolean {
    return this.turn.diverged;
  }

  private chunk(delta: Json, finish: string | null = null): SseEvent {
    return {
      data: JSON.stringify({
        ...this.base,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      }),
    };
  }

  private open(id: string, out: SseEvent[]): void {
    if (this.base) return;
    this.base = { id, object: "chat.completion.chunk", created: unixSeconds(), model: this.model };
    out.push(this.chunk({ role: "assistant", content: "" }));
  }

  delta(d: StreamDelta): SseEvent[] {
    const out: SseEvent[] = [];
    this.open(d.id, out);
    const add = this.turn.note(d);
    if (add.reasoning) out.push(this.chunk({ reasoning_content: add.reasoning }));
    if (add.content) out.push(this.chunk({ content: add.content }));
    return out;
  }

  finish(r: ModelResponse): SseEvent[] {
    const out: SseEvent[] = [];
    this.open(r.id, out);
    const rest = this.turn.rest(r);
    if (rest.reasoning) out.push(this.chunk({ reasoning_content: rest.reasoning }));
    if (rest.content !== "") out.push(this.chunk({ content: rest.content }));
    const msg = messageToWire(r.message);
    (msg["tool_calls"] as WireToolCall[] | undefined)?.forEach((c, index) => {
      out.push(
        this.chunk({
          tool_calls: [
            { index, id: c.id, type: "function", function: { name: c.function.name, arguments: "" } },
          ],
        }),
      );
      if (c.function.arguments !== "")
        out.push(this.chunk({ tool_calls: [{ index, function: { arguments: c.function.arguments } }] }));
    });
    out.push(this.chunk({}, wireFinishReason(r)));
    if (this.includeUsage)
      out.push({ data: JSON.stringify({ ...this.base, choices: [], usage: usageToWire(r) }) });
    out.push({ data: "[DONE]" });
    return out;
  }
}

/** The whole stream of a finished completion. */
export function completionToChunks(r: ModelResponse, model: string, includeUsage: boolean): SseEvent[] {
  return new ChatLive(model, includeUsage).finish(r);
}

export function openAiErrorBody(message: string, type: string, code: string | null = null): Json {
  return { error: { message, type, code } };
}

export const chatDialect: Dialect = {
  name: "chat",
  historyKey: "messages",
  path: "/v1/chat/completions",
  secret: bearerToken,
  errorBody: openAiErrorBody,
  parse(body, options = {}): DialectRequest {
    const streamOptions = body["stream_options"];
    if (streamOptions != null && typeof streamOptions !== "object")
      throw new InterceptionError("stream_options: expected an object");
    return {
      messages: mergeSplitTurns(
        messagesFromWire(body["messages"], options.translated as WeakMap<object, Message> | undefined),
      ),
      tools: offeredTools(chatToolChoice(body["tool_choice"]), toolsFromWire(body["tools"]), "tool_choice"),
      sampling: samplingFromWire(body),
      stream: body["stream"] === true,
      model: typeof body["model"] === "string" ? body["model"] : null,
      echo: { includeUsage: streamOptions?.["include_usage"] === true },
    };
  },
  respond: (response, _request, model) => completionToWire(response, model),
  live: (request, model) => new ChatLive(model, request.echo["includeUsage"] === true),
  // The OpenAI SDKs raise on a chunk that carries `error`.
  errorEvent: (message, type) => [{ data: JSON.stringify(openAiErrorBody(message, type)) }],
};
