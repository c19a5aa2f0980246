/**
 * The OpenAI chat-completions dialect (`POST /v1/chat/completions`). The wire messages are
 * envroll's own shape but for tool calls (`function.{name, arguments}`) and reasoning field
 * names, so parsing is `wire.ts`; this module adds the request knobs and the answers.
 */
import type { ModelResponse, Sampling } from "../../clients/client.ts";
import { messagesFromWire, messageToWire, toolsFromWire, type WireToolCall } from "../../clients/wire.ts";
import { InterceptionError } from "../../errors.ts";
import { bearerToken } from "../../http/index.ts";
import { mergeSplitTurns } from "../split-turns.ts";
import { type Dialect, type DialectRequest, type SseEvent, unixSeconds } from "./dialect.ts";

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
 * reasoning, content, each tool call's header then its arguments, the finish reason, the usage
 * chunk when `stream_options.include_usage` asked for it, then `[DONE]`.
 */
export function completionToChunks(r: ModelResponse, model: string, includeUsage: boolean): SseEvent[] {
  const base = { id: r.id, object: "chat.completion.chunk", created: unixSeconds(), model };
  const chunk = (delta: Json, finish: string | null = null) => ({
    data: JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] }),
  });
  const msg = messageToWire(r.message);
  const out: SseEvent[] = [chunk({ role: "assistant", content: "" })];
  if (typeof msg["reasoning_content"] === "string" && msg["reasoning_content"] !== "")
    out.push(chunk({ reasoning_content: msg["reasoning_content"] }));
  if (typeof msg["content"] === "string" && msg["content"] !== "")
    out.push(chunk({ content: msg["content"] }));
  (msg["tool_calls"] as WireToolCall[] | undefined)?.forEach((c, index) => {
    out.push(
      chunk({
        tool_calls: [
          { index, id: c.id, type: "function", function: { name: c.function.name, arguments: "" } },
        ],
      }),
    );
    if (c.function.arguments !== "")
      out.push(chunk({ tool_calls: [{ index, function: { arguments: c.function.arguments } }] }));
  });
  out.push(chunk({}, wireFinishReason(r)));
  if (includeUsage) out.push({ data: JSON.stringify({ ...base, choices: [], usage: usageToWire(r) }) });
  out.push({ data: "[DONE]" });
  return out;
}

export function openAiErrorBody(message: string, type: string, code: string | null = null): Json {
  return { error: { message, type, code } };
}

export const chatDialect: Dialect = {
  name: "chat",
  path: "/v1/chat/completions",
  secret: bearerToken,
  errorBody: openAiErrorBody,
  parse(body): DialectRequest {
    const streamOptions = body["stream_options"];
    if (streamOptions != null && typeof streamOptions !== "object")
      throw new InterceptionError("stream_options: expected an object");
    return {
      messages: mergeSplitTurns(messagesFromWire(body["messages"])),
      tools: toolsFromWire(body["tools"]),
      sampling: samplingFromWire(body),
      stream: body["stream"] === true,
      model: typeof body["model"] === "string" ? body["model"] : null,
      echo: { includeUsage: streamOptions?.["include_usage"] === true },
    };
  },
  respond: (response, _request, model) => completionToWire(response, model),
  events: (response, request, model) =>
    completionToChunks(response, model, request.echo["includeUsage"] === true),
  // The OpenAI SDKs raise on a chunk that carries `error`.
  errorEvent: (message, type) => [{ data: JSON.stringify(openAiErrorBody(message, type)) }],
};
