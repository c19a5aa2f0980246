/**
 * Llama 3.x tool calls from sampled ids. Llama 3.1 writes a call to a JSON-schema tool as one
 * JSON object, `{"name": NAME, "parameters": {…}}` — bare and ended by `<|eot_id|>` (what its
 * template renders), or after `<|python_tag|>` and ended by `<|eom_id|>` (ipython mode) — and a
 * call to a built-in tool as `<|python_tag|>NAME.call(key="value", …)`. `<|python_tag|>` is
 * found by its id (text that merely spells it is content). Bare JSON is a call only where tools
 * were offered and the whole reply is one object with a name and `parameters` (or `arguments`); a reply that opens
 * like a call (`{"name":`) but does not parse is kept as a failed attempt, so the harness and
 * the parse-failure counts see it rather than a silent plain-text answer.
 */

import { parseJsonKeepingFloats } from "../../text/py-json.ts";
import { pyStrip } from "../../text/python-str.ts";
import type { Tokenizer } from "../../tokenizer/index.ts";
import type { ParsedToolCall, ToolCallStatus } from "../renderer.ts";

/** The opening of a JSON call: what makes an unparsable reply an attempted call. */
const CALL_OPENING = /^\{\s*"name"\s*:/;
/** `NAME.call(k="v", …)`, Llama 3.1's built-in tool form. */
const BUILTIN_CALL = /^([A-Za-z_][\w.]*)\.call\(([\s\S]*)\)$/;
// The template writes each value between quotes as it is (no escaping), so the text is the value.
const BUILTIN_ARG = /\s*([A-Za-z_]\w*)="([^"]*)"\s*(,|$)/y;

export function parseLlama3ToolCalls(
  tokenizer: Tokenizer,
  ids: readonly number[],
  pythonTag: number | undefined,
  options: { bareJson: boolean } = { bareJson: true },
): { contentIds: number[]; toolCalls: ParsedToolCall[] } {
  const tag = pythonTag === undefined ? -1 : ids.indexOf(pythonTag);
  if (tag >= 0) {
    const raw = pyStrip(tokenizer.decode(ids.slice(tag + 1)));
    return { contentIds: ids.slice(0, tag), toolCalls: [call(raw, [tag, ids.length], true)] };
  }
  if (!options.bareJson) return { contentIds: ids.slice(), toolCalls: [] };
  const raw = pyStrip(tokenizer.decode(ids as number[]));
  if (!raw.startsWith("{")) return { contentIds: ids.slice(), toolCalls: [] };
  const parsed = call(raw, [0, ids.length], false);
  // A JSON answer that is not a call (no name/parameters) is plain content.
  if (parsed.status !== "ok" && !CALL_OPENING.test(raw)) return { contentIds: ids.slice(), toolCalls: [] };
  return { contentIds: [], toolCalls: [parsed] };
}

function call(raw: string, tokenSpan: [number, number], tagged: boolean): ParsedToolCall {
  const record = (name: string | null, args: unknown, status: ToolCallStatus): ParsedToolCall => ({
    raw,
    name,
    arguments: args,
    tokenSpan,
    status,
    id: null,
  });
  let obj: unknown;
  try {
    obj = parseJsonKeepingFloats(raw);
  } catch {
    if (tagged) {
      const builtin = parseBuiltin(raw);
      if (builtin) return record(builtin.name, builtin.args, "ok");
      return record(
        null,
        null,
        CALL_OPENING.test(raw) || raw.startsWith("{") ? "invalid_json" : "malformed_structure",
      );
    }
    return record(null, null, "invalid_json");
  }
  if (obj === null || typeof obj !== "object" || Array.isArray(obj))
    return record(null, null, "malformed_structure");
  const o = obj as Record<string, unknown>;
  const hasArgs = Object.hasOwn(o, "parameters") || Object.hasOwn(o, "arguments");
  if (!hasArgs) return record(null, null, "malformed_structure");
  const args = Object.hasOwn(o, "parameters") ? o.parameters : o.arguments;
  if (typeof o.name !== "string" || o.name === "") return record(null, args, "missing_name");
  return record(o.name, args, "ok");
}

function parseBuiltin(raw: string): { name: string; args: Record<string, string> } | null {
  const m = BUILTIN_CALL.exec(raw);
  if (!m) return null;
  const args: Record<string, string> = {};
  const body = m[2]!;
  BUILTIN_ARG.lastIndex = 0;
  while (BUILTIN_ARG.lastIndex < body.length) {
    const at = BUILTIN_ARG.lastIndex;
    const a = BUILTIN_ARG.exec(body);
    if (!a || a.index !== at) return pyStrip(body.slice(at)) === "" ? { name: m[1]!, args } : null;
    args[a[1]!] = a[2]!;
  }
  return { name: m[1]!, args };
}
