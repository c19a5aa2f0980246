/**
 * The caller's values as the template engine takes them: plain JSON (an integral `PyFloat` is a
 * `PyFloatValue`, which prints as Python's float; a bigint a number), and for families whose
 * templates treat tool-call arguments as a dict (Llama 3.x: `arguments | tojson`), those
 * arguments parsed from the JSON text callers send, keeping its integral floats (`1.0`).
 */
import { parseJsonKeepingFloats } from "../../text/py-json.ts";
import { holdsFloats, markHolding, plainValue } from "./float-values.ts";

/** Plain JSON values for the template engine (see float-values.ts). */
export const toPlain = plainValue;

/**
 * The template's messages: plain values, with envroll's flat tool calls (`{id, name, arguments}`)
 * in the wire form HF's callers pass (`{id, type: "function", function: {name, arguments}}`):
 * templates such as Llama 3.1's and DeepSeek-V3's read `tool_call.function` unconditionally.
 * With `objectArguments`, arguments given as JSON text are parsed (Llama 3.x: `arguments | tojson`).
 */
export function toTemplateMessages(x: unknown, objectArguments: boolean): unknown {
  const out = toPlain(x);
  const list = Array.isArray(out) ? out : [out];
  for (const m of list) {
    const msg = m as { tool_calls?: unknown } | null;
    if (!msg || !Array.isArray(msg.tool_calls)) continue;
    const calls = msg.tool_calls.map((tc: unknown) => {
      if (tc === null || typeof tc !== "object") return tc;
      let call = tc as Record<string, unknown>;
      if (!("function" in call) && "name" in call) {
        const { name, arguments: args, ...rest } = call;
        call = { ...rest, type: rest.type ?? "function", function: { name, arguments: args } };
      }
      const fn = call.function as Record<string, unknown> | undefined;
      if (objectArguments && fn && typeof fn === "object" && typeof fn.arguments === "string") {
        try {
          fn.arguments = toPlain(parseJsonKeepingFloats(fn.arguments));
        } catch {
          // Not JSON: the template gets the text, as HF would.
        }
      }
      // The containers made or filled here above arguments with floats hold them too.
      if (fn && holdsFloats(fn.arguments)) for (const c of [fn, call, msg, out]) markHolding(c as object);
      return call;
    });
    if (calls.some(holdsFloats)) markHolding(calls);
    msg.tool_calls = calls;
  }
  return out;
}
