/**
 * The JSON body of a Hermes-style tool call, `{"name": …, "arguments": …}`, classified the way
 * the Python renderer does: unparsable → invalid_json; a falsy or absent name → missing_name
 * (arguments still reported); otherwise ok. Arguments default to `{}`.
 */
import { pyJsonLoads } from "../../text/py-json.ts";
import type { ToolCallStatus } from "../renderer.ts";

export interface ToolCallJson {
  name: string | null;
  arguments: unknown;
  status: ToolCallStatus;
}

/** Python truthiness, for the name check (`if not name`). */
function pyTruthy(x: unknown): boolean {
  if (x === null || x === undefined || x === false || x === 0 || x === "") return false;
  if (Array.isArray(x)) return x.length > 0;
  if (typeof x === "object") return Object.keys(x as object).length > 0;
  return true;
}

export function parseToolCallJson(raw: string): ToolCallJson {
  let parsed: unknown;
  try {
    parsed = pyJsonLoads(raw);
  } catch {
    return { name: null, arguments: null, status: "invalid_json" };
  }
  const isDict = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed);
  const obj = isDict ? (parsed as Record<string, unknown>) : {};
  const name = "name" in obj ? obj.name : "";
  const args = "arguments" in obj ? obj.arguments : {};
  if (!pyTruthy(name)) return { name: null, arguments: args, status: "missing_name" };
  return { name: name as string, arguments: args, status: "ok" };
}
