/**
 * The caller's values as the template engine takes them: plain JSON (a `PyFloat` is its number,
 * a bigint a number), and for families whose templates treat tool-call arguments as a dict
 * (Llama 3.x: `arguments | tojson`), those arguments parsed from the JSON text callers send.
 */
import { PyFloat } from "../../text/py-json.ts";

/** Plain JSON values for the template engine (PyFloat → number, bigint → number). */
export function toPlain(x: unknown): unknown {
  if (x instanceof PyFloat) return x.value;
  if (typeof x === "bigint") return Number(x);
  if (Array.isArray(x)) return x.map(toPlain);
  if (x && typeof x === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) out[k] = toPlain(v);
    return out;
  }
  return x;
}

/**
 * The template's messages: plain values, with envroll's flat tool calls (`{id, name, arguments}`)
 * in the wire form HF's callers pass (`{id, type: "function", function: {name, arguments}}`):
 * templates such as Llama 3.1's and DeepSeek-V3's read `tool_call.function` unconditionally.
 * With `objectArguments`, arguments given as JSON text are parsed (Llama 3.x: `arguments | tojson`).
 */
export function toTemplateMessages(x: unknown, objectArguments: boolean): unknown {
  const out = toPlain(x);
  for (const m of Array.isArray(out) ? out : [out]) {
    const msg = m as { tool_calls?: unknown } | null;
    if (!msg || !Array.isArray(msg.tool_calls)) continue;
    msg.tool_calls = msg.tool_calls.map((tc: unknown) => {
      if (tc === null || typeof tc !== "object") return tc;
      let call = tc as Record<string, unknown>;
      if (!("function" in call) && "name" in call) {
        const { name, arguments: args, ...rest } = call;
        call = { ...rest, type: rest.type ?? "function", function: { name, arguments: args } };
      }
      const fn = call.function as Record<string, unknown> | undefined;
      if (objectArguments && fn && typeof fn === "object" && typeof fn.arguments === "string") {
        try {
          fn.arguments = JSON.parse(fn.arguments);
        } catch {
          // Not JSON: the template gets the text, as HF would.
        }
      }
      return call;
    });
  }
  return out;
}
