/**
 * Message identity for the trace graph. Two messages are the same node when everything the
 * model could see of them is equal: role, content (text or parts), reasoning, tool calls and the
 * tool_call_id. Tool-call arguments are compared as canonical JSON (sorted keys) so that a
 * program re-serializing `{"b":1,"a":2}` as `{"a":2,"b":1}` does not fork the trace. An
 * assistant's empty content is one value whether a program echoes it as "" or null (SDKs and
 * agent frameworks differ; chat templates render both as nothing).
 *
 * The digest is computed in JS over the identity fields themselves (tagged and length-prefixed,
 * so the encoding is injective), not over a JSON text of them: text content — nearly every
 * message — is read in place, and no crypto call is made (md5 of the JSON was most of a
 * single-turn rollout's hashing cost). Digests are in-process keys only: nothing stores them.
 */
import { getOrCompute } from "../memo.ts";
import type { Message } from "../types.ts";
import { Hash128 } from "./hash128.ts";

/** JSON with object keys sorted at every depth. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ",";
      out += canonicalJson(value[i]);
    }
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  let out = "{";
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    if (!first) out += ",";
    first = false;
    out += `${JSON.stringify(k)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}

/**
 * `canonicalJson` of a list whose elements come back as the same objects (a program's tools,
 * resent every turn: ~40 KB of JSON for a coding agent's), written once while they do.
 */
export class ListJson {
  private last: readonly unknown[] | null = null;
  private json = "";

  of(list: readonly unknown[]): string {
    const last = this.last;
    if (last !== null && last.length === list.length && last.every((x, i) => x === list[i])) return this.json;
    this.last = list.slice();
    this.json = canonicalJson(list);
    return this.json;
  }
}

/** Arguments as canonical JSON when they parse; the raw string otherwise (malformed JSON is data). */
function canonicalArguments(raw: string): string {
  try {
    return canonicalJson(JSON.parse(raw));
  } catch {
    return raw;
  }
}

const NULL = 0;
const TEXT = 1;
const JSON_VALUE = 2;

/**
 * One identity field. Equal fields encode equally and unequal ones differently, exactly as
 * their canonical JSON would compare: null and undefined are one value, a string is its text,
 * anything else its canonical JSON (which never starts like a string's).
 */
function field(h: Hash128, v: unknown): void {
  if (v === null || v === undefined) h.word(NULL);
  else if (typeof v === "string") {
    h.word(TEXT);
    h.text(v);
  } else {
    h.word(JSON_VALUE);
    h.text(canonicalJson(v));
  }
}

const hasher = new Hash128();

function identityDigest(m: Message): string {
  const h = hasher.reset();
  h.text(m.role);
  switch (m.role) {
    case "system":
    case "user":
      field(h, m.content);
      break;
    case "tool":
      field(h, m.content);
      field(h, m.tool_call_id);
      break;
    case "assistant": {
      field(h, m.content === "" ? null : m.content);
      field(h, m.reasoning_content);
      const calls = m.tool_calls ?? [];
      h.word(calls.length);
      for (const c of calls) {
        field(h, c.id);
        field(h, c.name);
        field(h, canonicalArguments(c.arguments));
      }
      break;
    }
  }
  return h.hex();
}

// In-process harnesses resend the same message objects every turn; caching by identity keeps
// prefix matching O(new messages) per turn instead of re-hashing the whole history.
const cache = new WeakMap<Message, string>();

/** 128-bit hex digest of a message's identity (collisions here are not adversarial). */
export function messageHash(m: Message): string {
  return getOrCompute(cache, m, identityDigest);
}

/**
 * `messageHash` without the cache, for callers that keep the digests themselves (the trace
 * graph on its nodes). Adding a fresh message to the WeakMap costs far more than digesting it
 * (V8 gives the object an identity hash, and the GC walks the table), and most messages of a
 * short rollout are never hashed a second time.
 */
export function messageDigest(m: Message): string {
  return identityDigest(m);
}
