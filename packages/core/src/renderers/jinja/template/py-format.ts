/**
 * How Python prints template values, for both evaluators (the compiled one and the patched
 * `@huggingface/jinja` interpreter): `{{ x }}` and `x | string` are `str(x)` (a list or dict
 * shows its items' `repr`, booleans `True`/`False`, floats their shortest repr), and `tojson` is
 * HF's `json.dumps(x, ensure_ascii=False, indent=…, separators=…, sort_keys=…)` (transformers
 * replaces jinja2's HTML-escaping `tojson` with exactly that call).
 *
 * Values are the evaluator's plain values (`values.ts`); a dict may also be a `Map` (what the
 * library holds), so the interpreter's values print through the same code.
 */

import { pyFloatRepr } from "../../../text/py-json.ts";
import { pyStrRepr } from "../../../text/python-str.ts";
import { Fn, Namespace, PyFloatValue, TUPLES, Unsupported } from "./values.ts";

function intStr(n: number): string {
  // Python ints print every digit; JavaScript switches to exponent form at 1e21.
  return Math.abs(n) >= 1e21 ? BigInt(n).toString() : String(n);
}

function floatStr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (x === Number.POSITIVE_INFINITY) return "inf";
  if (x === Number.NEGATIVE_INFINITY) return "-inf";
  return pyFloatRepr(x);
}

function entries(v: object): [string, unknown][] {
  return v instanceof Map ? [...v.entries()] : Object.entries(v);
}

/** Python `str(v)` (undefined, Jinja's undefined, prints as nothing). */
export function pyStr(v: unknown): string {
  if (typeof v === "string") return v;
  return pyRepr(v);
}

/** Python `repr(v)`. */
export function pyRepr(v: unknown): string {
  if (typeof v === "string") return pyStrRepr(v);
  if (typeof v === "number") return Number.isInteger(v) ? intStr(v) : floatStr(v);
  if (typeof v === "boolean") return v ? "True" : "False";
  if (v instanceof PyFloatValue) return floatStr(v.v);
  if (v === null) return "None";
  if (v === undefined) return "";
  if (v instanceof Fn) throw new Unsupported("printing a function");
  if (v instanceof Namespace) throw new Unsupported("printing a namespace");
  if (Array.isArray(v)) {
    const items = v.map(pyRepr);
    if (TUPLES.has(v)) return items.length === 1 ? `(${items[0]},)` : `(${items.join(", ")})`;
    return `[${items.join(", ")}]`;
  }
  if (typeof v === "object")
    return `{${entries(v)
      .map(([k, x]) => `${pyStrRepr(k)}: ${pyRepr(x)}`)
      .join(", ")}}`;
  throw new Unsupported(`printing ${typeof v}`);
}

export interface JSONOptions {
  indent?: number | null;
  ensureAscii?: boolean;
  sortKeys?: boolean;
  separators?: [string, string] | null;
}

function jsonString(s: string, ensureAscii: boolean): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += "\\\\";
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0d) out += "\\r";
    else if (c === 0x09) out += "\\t";
    else if (c === 0x08) out += "\\b";
    else if (c === 0x0c) out += "\\f";
    else if (c < 0x20 || (ensureAscii && c > 0x7e)) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += s[i];
  }
  return `${out}"`;
}

function jsonFloat(x: number): string {
  return pyFloatRepr(x); // NaN, Infinity, -Infinity as json.dumps writes them
}

/**
 * `json.dumps` with HF's defaults. `undefinedToNull`: how the interpreter's `tojson` treats
 * Jinja's undefined (null; Python would raise, a template error either way is not compared).
 */
export function pyJson(v: unknown, o: JSONOptions = {}, depth = 0): string {
  const { indent = null, ensureAscii = false, separators = null, sortKeys = false } = o;
  const [itemSep, keySep] = separators ?? (indent !== null ? [",", ": "] : [", ", ": "]);
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return Number.isInteger(v) ? intStr(v) : jsonFloat(v);
  if (v instanceof PyFloatValue) return jsonFloat(v.v);
  if (typeof v === "string") return jsonString(v, ensureAscii);
  if (v instanceof Fn) throw new Unsupported("JSON of a function");
  if (Array.isArray(v) && TUPLES.has(v)) throw new Error("Cannot convert to JSON: TupleValue");
  const pad = indent !== null ? " ".repeat(indent) : "";
  const base = `\n${pad.repeat(depth)}`;
  const child = base + pad;
  const wrap = (open: string, core: string[], close: string) =>
    core.length === 0
      ? open + close
      : indent !== null
        ? `${open}${child}${core.join(`${itemSep}${child}`)}${base}${close}`
        : `${open}${core.join(itemSep)}${close}`;
  if (Array.isArray(v))
    return wrap(
      "[",
      v.map((x) => pyJson(x, o, depth + 1)),
      "]",
    );
  let items = v instanceof Namespace ? [...v.map.entries()] : entries(v as object);
  // Python sorts str keys by code point; a UTF-16 comparison differs only above the BMP.
  if (sortKeys) items = items.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return wrap(
    "{",
    items.map(([k, x]) => `${jsonString(k, ensureAscii)}${keySep}${pyJson(x, o, depth + 1)}`),
    "}",
  );
}
