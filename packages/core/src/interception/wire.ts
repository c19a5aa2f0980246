/**
 * The OpenAI chat-completions wire format, both directions. Programs speak it to the
 * interception server and the EvalClient speaks it to providers; envroll's own `Message` keeps
 * tool-call arguments as the raw string and reasoning in `reasoning_content`.
 */
import type { ModelResponse, Sampling } from "../clients/client.ts";
import { InterceptionError } from "../errors.ts";
import { type AssistantMessage, type Message, MessageSchema, type Tool } from "../types.ts";

type Json = Record<string, any>;

export interface WireToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** Reasoning arrives under several names depending on the provider. */
function readReasoning(m: Json): string | undefined {
  const r = m["reasoning_content"] ?? m["reasoning"];
  if (typeof r === "string") return r;
  const details = m["reasoning_details"];
  if (Array.isArray(details)) return details.map((d: Json) => d?.["text"] ?? "").join("");
  return undefined;
}

function readToolCalls(raw: unknown): AssistantMessage["tool_calls"] {
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  // Calls without a name cannot be executed or attributed; missing ids get stable fallbacks.
  return raw
    .filter((c: Json) => typeof c?.function?.name === "string" && c.function.name !== "")
    .map((c: Json, i: number) => {
      const args = c.function.arguments;
      return {
        id: typeof c.id === "string" && c.id !== "" ? c.id : `call_${i}`,
        name: c.function.name,
        arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}),
      };
    });
}

/** One wire message → Message; throws InterceptionError naming the index on a bad shape. */
export function messageFromWire(m: unknown, index: number): Message {
  if (typeof m !== "object" || m === null)
    throw new InterceptionError(`messages[${index}]: expected an object`);
  const w = m as Json;
  const role = w["role"] === "developer" ? "system" : w["role"];
  let candidate: Json;
  if (role === "assistant") {
    candidate = { role, content: w["content"] ?? null };
    const reasoning = readReasoning(w);
    if (reasoning !== undefined) candidate["reasoning_content"] = reasoning;
    const calls = readToolCalls(w["tool_calls"]);
    if (calls && calls.length > 0) candidate["tool_calls"] = calls;
  } else if (role === "tool") {
    candidate = { role, tool_call_id: w["tool_call_id"], content: w["content"] ?? "" };
    if (typeof w["name"] === "string") candidate["name"] = w["name"];
  } else {
    candidate = { role, content: w["content"] ?? "" };
  }
  const parsed = MessageSchema.safeParse(candidate);
  if (!parsed.success)
    throw new InterceptionError(
      `messages[${index}]: ${parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`,
    );
  return parsed.data;
}

export function messagesFromWire(raw: unknown): Message[] {
  if (!Array.isArray(raw)) throw new InterceptionError("messages: expected an array");
  return raw.map(messageFromWire);
}

export function toolsFromWire(raw: unknown): Tool[] {
  if (raw == null) return [];
  if (!Array.isArray(raw)) throw new InterceptionError("tools: expected an array");
  return raw.map((t: Json, i) => {
    const f = t?.["function"] ?? t;
    if (typeof f?.name !== "string") throw new InterceptionError(`tools[${i}]: missing function name`);
    const tool: Tool = {
      name: f.name,
      description: f.description ?? "",
      parameters: f.parameters ?? { type: "object", properties: {} },
    };
    if (typeof f.strict === "boolean") tool.strict = f.strict;
    return tool;
  });
}

export function messageToWire(m: Message): Json {
  if (m.role !== "assistant") return { ...m };
  const out: Json = { role: "assistant", content: m.content ?? null };
  if (m.reasoning_content != null) out["reasoning_content"] = m.reasoning_content;
  if (m.tool_calls && m.tool_calls.length > 0) out["tool_calls"] = m.tool_calls.map(toolCallToWire);
  return out;
}

export function toolCallToWire(c: { id: string; name: string; arguments: string }): WireToolCall {
  return { id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } };
}

export function toolToWire(t: Tool): Json {
  const fn: Json = { name: t.name, description: t.description, parameters: t.parameters };
  if (t.strict !== undefined) fn["strict"] = t.strict;
  return { type: "function", function: fn };
}

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

/** The `chat.completion` object returned to the program. */
export function completionToWire(r: ModelResponse, model: string): Json {
  return {
    id: r.id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      { index: 0, message: messageToWire(r.message), finish_reason: wireFinishReason(r), logprobs: null },
    ],
    usage: {
      prompt_tokens: r.usage.promptTokens,
      completion_tokens: r.usage.completionTokens,
      total_tokens: r.usage.promptTokens + r.usage.completionTokens,
    },
  };
}

/**
 * The same completion as server-sent events: one delta chunk carrying the whole message, then
 * the finish chunk and `[DONE]`. Single-shot because the turn must be committed before the
 * program sees its end (Verifiers withholds the terminal event the same way).
 */
export function completionToSse(r: ModelResponse, model: string): string {
  const base = { id: r.id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model };
  const msg = messageToWire(r.message);
  const delta: Json = { role: "assistant", content: msg["content"] ?? "" };
  if (msg["reasoning_content"] !== undefined) delta["reasoning_content"] = msg["reasoning_content"];
  if (msg["tool_calls"])
    delta["tool_calls"] = msg["tool_calls"].map((c: WireToolCall, index: number) => ({ index, ...c }));
  const chunks = [
    { ...base, choices: [{ index: 0, delta, finish_reason: null }] },
    {
      ...base,
      choices: [{ index: 0, delta: {}, finish_reason: wireFinishReason(r) }],
      usage: completionToWire(r, model)["usage"],
    },
  ];
  return `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")}data: [DONE]\n\n`;
}

export function errorBody(message: string, type: string, code: string | null = null): Json {
  return { error: { message, type, code } };
}
