/**
 * Reading messages in any accepted shape: envroll's `Message` (tool calls `{id, name,
 * arguments: string}`), the OpenAI wire form (`{id, type, function: {name, arguments}}` with
 * object or string arguments), and content as a string, null, or text parts.
 */
import { PyFloat, pyFloatRepr, pyJsonDumps } from "../../text/py-json.ts";
import type { RenderMessage } from "../renderer.ts";

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
  // The template prints the name: a missing one as nothing, `null` as `None`, 42 as `42`.
  const name = jinjaStr(fn.name);
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

/** No lone surrogate (`String.prototype.isWellFormed`, Node 20; not yet in the ES2023 lib types). */
const wellFormed = (s: string) => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * A lone UTF-16 surrogate cannot be encoded as UTF-8: HF raises, so renderers do too, naming
 * the message (a silent U+FFFD would give the trainer ids for text nobody wrote).
 */
export function assertWellFormed(messages: readonly RenderMessage[]): void {
  for (let i = 0; i < messages.length; i++) {
    if (hasLoneSurrogate(messages[i], 0))
      throw new Error(
        `message ${i} (${String(messages[i]?.role)}) contains a lone UTF-16 surrogate, which cannot be encoded as UTF-8`,
      );
  }
}

/** A string (key or value) anywhere in `x` holds a lone surrogate; walked without entry arrays or closures (every render checks its messages). */
function hasLoneSurrogate(x: unknown, depth: number): boolean {
  if (typeof x === "string") return !wellFormed(x);
  if (depth > 32 || x === null || typeof x !== "object") return false;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) if (hasLoneSurrogate(x[i], depth + 1)) return true;
    return false;
  }
  const record = x as Record<string, unknown>;
  for (const k in record) {
    if (!Object.hasOwn(record, k)) continue;
    if (!wellFormed(k) || hasLoneSurrogate(record[k], depth + 1)) return true;
  }
  return false;
}

/**
 * A value as Jinja2 prints it (`{{ x }}` is Python `str(x)`): `None`, `True`/`False`, `42`,
 * `4.5`, and `repr`-style lists and dicts — what a template writes for a tool result of `42` or
 * a tool-call name of `null`. Undefined prints nothing.
 */
export function jinjaStr(x: unknown): string {
  if (typeof x === "string") return x;
  if (x === undefined) return "";
  return pyRepr(x);
}

function pyRepr(x: unknown): string {
  if (x === null || x === undefined) return "None";
  if (typeof x === "boolean") return x ? "True" : "False";
  if (x instanceof PyFloat) return pyFloatRepr(x.value);
  if (typeof x === "number") return Number.isInteger(x) ? String(x) : pyFloatRepr(x);
  if (typeof x === "bigint") return String(x);
  if (typeof x === "string") return pyStrRepr(x);
  if (Array.isArray(x)) return `[${x.map(pyRepr).join(", ")}]`;
  if (typeof x === "object")
    return `{${Object.entries(x as Record<string, unknown>)
      .map(([k, v]) => `${pyStrRepr(k)}: ${pyRepr(v)}`)
      .join(", ")}}`;
  return String(x);
}

function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === "\\" || ch === quote) out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return out + quote;
}
