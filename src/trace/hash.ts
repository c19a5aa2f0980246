/**
 * Message identity for the trace graph. Two messages are the same node when everything the
 * model could see of them is equal: role, content (text or parts), reasoning, tool calls and the
 * tool_call_id. Tool-call arguments are compared as canonical JSON (sorted keys) so that a
 * program re-serializing `{"b":1,"a":2}` as `{"a":2,"b":1}` does not fork the trace.
 */
import { createHash } from "node:crypto";
import type { Message } from "../types.ts";

/** JSON with object keys sorted at every depth. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
}

/** Arguments as canonical JSON when they parse; the raw string otherwise (malformed JSON is data). */
function canonicalArguments(raw: string): string {
  try {
    return canonicalJson(JSON.parse(raw));
  } catch {
    return raw;
  }
}

function identity(m: Message): unknown[] {
  switch (m.role) {
    case "system":
    case "user":
      return [m.role, m.content];
    case "tool":
      return [m.role, m.content, m.tool_call_id];
    case "assistant":
      return [
        m.role,
        m.content ?? null,
        m.reasoning_content ?? null,
        (m.tool_calls ?? []).map((c) => [c.id, c.name, canonicalArguments(c.arguments)]),
      ];
  }
}

// In-process harnesses resend the same message objects every turn; caching by identity keeps
// prefix matching O(new messages) per turn instead of re-hashing the whole history.
const cache = new WeakMap<Message, string>();

/** 128-bit hex digest of a message's identity (md5 is ample: collisions here are not adversarial). */
export function messageHash(m: Message): string {
  let h = cache.get(m);
  if (h === undefined) {
    h = createHash("md5")
      .update(canonicalJson(identity(m)))
      .digest("hex");
    cache.set(m, h);
  }
  return h;
}
