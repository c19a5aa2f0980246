/**
 * Reading messages in any accepted shape: envroll's `Message` (tool calls `{id, name,
 * arguments: string}`), the OpenAI wire form (`{id, type, function: {name, arguments}}` with
 * object or string arguments), and content as a string, null, or text parts.
 */
import { pyJsonDumps } from "./py-json.ts";
import type { RenderMessage } from "./renderer.ts";

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** Message content as text: strings as-is, text parts joined, anything else (null, images) empty. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    let out = "";
    for (const part of content) {
      if (isRecord(part) && part.type === "text" && typeof part.text === "string") out += part.text;
    }
    return out;
  }
  return "";
}

export interface ToolCallText {
  name: string;
  /** Arguments as the template writes them: a string verbatim, anything else `json.dumps`ed. */
  argumentsText: string;
}

/** `function` wrapper if present (and non-empty), else the call itself: the template's rule. */
export function toolCallText(call: unknown): ToolCallText {
  const tc = isRecord(call) ? call : {};
  const fn = isRecord(tc.function) && Object.keys(tc.function).length > 0 ? tc.function : tc;
  const name = typeof fn.name === "string" ? fn.name : fn.name == null ? "" : String(fn.name);
  const args = "arguments" in fn ? fn.arguments : {};
  return { name, argumentsText: typeof args === "string" ? args : pyJsonDumps(args) };
}

export function messageRoles(messages: readonly RenderMessage[]): string[] {
  return messages.map((m) => (typeof m?.role === "string" ? m.role : ""));
}

/**
 * Per-message tool name: a tool message's own `name`, else its `tool_call_id` joined against an
 * earlier-or-later assistant call in the same list. Like the Python renderer, only calls in the
 * wire form (`function.name`) take part in the join; flat calls do not.
 */
export function messageToolNames(messages: readonly RenderMessage[]): (string | null)[] {
  const byId = new Map<string, string>();
  for (const m of messages) {
    if (!isRecord(m) || m.role !== "assistant" || !Array.isArray(m.tool_calls)) continue;
    for (const tc of m.tool_calls) {
      if (!isRecord(tc) || typeof tc.id !== "string" || !isRecord(tc.function)) continue;
      if (typeof tc.function.name === "string") byId.set(tc.id, tc.function.name);
    }
  }
  return messages.map((m) => {
    if (!isRecord(m) || m.role !== "tool") return null;
    if (typeof m.name === "string" && m.name) return m.name;
    const joined = typeof m.tool_call_id === "string" ? byId.get(m.tool_call_id) : undefined;
    return joined ? joined : null;
  });
}
