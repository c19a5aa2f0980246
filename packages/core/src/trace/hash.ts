/**
 * Message identity for the trace graph. Two messages are the same node when everything the
 * model could see of them is equal: role, content (text or parts), reasoning, tool calls and the
 * tool_call_id. Tool-call arguments are compared as canonical JSON (sorted keys) so that a
 * program re-serializing `{"b":1,"a":2}` as `{"a":2,"b":1}` does not fork the trace. An
 * assistant's empty content is one value whether a program echoes it as "" or null (SDKs and
 * agent frameworks differ; chat templates render both as nothing).
 */
import * as crypto from "node:crypto";
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

/** `canonicalJson` of the identity tuple, written directly (no tuple is built per message). */
function identityJson(m: Message): string {
  const role = JSON.stringify(m.role);
  switch (m.role) {
    case "system":
    case "user":
      return `[${role},${canonicalJson(m.content)}]`;
    case "tool":
      return `[${role},${canonicalJson(m.content)},${canonicalJson(m.tool_call_id)}]`;
    case "assistant":
      return `[${role},${canonicalJson(m.content === "" ? null : (m.content ?? null))},${canonicalJson(m.reasoning_content ?? null)},${canonicalJson(
        (m.tool_calls ?? []).map((c) => [c.id, c.name, canonicalArguments(c.arguments)]),
      )}]`;
  }
}

// One-shot `crypto.hash` (Node ≥ 20.12) skips the Hash object: about a third cheaper per message.
const md5Hex: (text: string) => string =
  typeof crypto.hash === "function"
    ? (text) => crypto.hash("md5", text, "hex")
    : (text) => crypto.createHash("md5").update(text).digest("hex");

// In-process harnesses resend the same message objects every turn; caching by identity keeps
// prefix matching O(new messages) per turn instead of re-hashing the whole history.
const cache = new WeakMap<Message, string>();

/** 128-bit hex digest of a message's identity (md5 is ample: collisions here are not adversarial). */
export function messageHash(m: Message): string {
  let h = cache.get(m);
  if (h === undefined) {
    h = md5Hex(identityJson(m));
    cache.set(m, h);
  }
  return h;
}
