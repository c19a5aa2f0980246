/**
 * OpenAI chat-completions messages and tools, both directions. Programs speak them to the
 * interception server (the chat dialect) and the EvalClient speaks them to providers; envroll's
 * own `Message` keeps tool-call arguments as the raw string and reasoning in `reasoning_content`.
 */
import { InterceptionError } from "../errors.ts";
import { getOrCompute, type MemoCache } from "../memo.ts";
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
  // A call without a name (a malformed one the model produced, echoed back) is kept as "": it
  // is part of what the model saw, and dropping it would fork the trace at this message.
  // Missing ids get stable fallbacks.
  return raw
    .filter((c: Json) => typeof c?.function === "object" && c.function !== null)
    .map((c: Json, i: number) => {
      const args = c.function.arguments;
      return {
        id: typeof c.id === "string" && c.id !== "" ? c.id : `call_${i}`,
        name: typeof c.function.name === "string" ? c.function.name : "",
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

/** `translated`: wire messages already translated (the same objects give the same messages). */
export function messagesFromWire(raw: unknown, translated?: MemoCache<object, Message>): Message[] {
  if (!Array.isArray(raw)) throw new InterceptionError("messages: expected an array");
  if (!translated) return raw.map(messageFromWire);
  return raw.map((m, i) =>
    typeof m === "object" && m !== null
      ? getOrCompute(translated, m, () => messageFromWire(m, i))
      : messageFromWire(m, i),
  );
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
