/**
 * Filters (`x | name(args)`) and tests (`x is name`) with `@huggingface/jinja`'s behaviour per
 * operand type. `FILTERS`/`TESTS` name what is implemented: a template using any other is not
 * compiled (the library renders it). A filter applied to an operand type the library rejects
 * throws, and the renderer lets the library raise its own error.
 */
import { jinjaTitle, pyCapitalize, pyIsLower, pyIsUpper, pyLen, pyStrip } from "../../../text/python-str.ts";
import { items } from "./methods.ts";
import { type JSONOptions, pyJson, pyStr } from "./py-format.ts";
import {
  type Dict,
  Fn,
  float,
  isDict,
  isFloat,
  isInteger,
  isNumber,
  type Namespace,
  num,
  PyFloatValue,
  TUPLES,
  truthy,
  typeName,
  Unsupported,
} from "./values.ts";

/** Filters written bare (`x | trim`), as the library implements them bare. */
export const BARE_FILTERS = new Set([
  "safe",
  "tojson",
  "length",
  "trim",
  "upper",
  "lower",
  "title",
  "capitalize",
  "string",
  "list",
  "first",
  "last",
  "reverse",
  "join",
  "items",
  "int",
  "float",
  "abs",
  "indent",
]);
/** Filters called with arguments (`x | join(', ')`): the library treats these differently. */
export const CALLED_FILTERS = new Set(["tojson", "join", "int", "float", "default", "indent"]);

const cannot = (name: string, v: unknown) =>
  new Error(`Cannot apply filter "${name}" to type: ${typeName(v)}`);

/** `args` is null for a bare filter. */
export function applyFilter(
  name: string,
  v: unknown,
  called: unknown[] | null,
  kw: Map<string, unknown> | null,
): unknown {
  const args = called ?? [];
  switch (name) {
    case "safe":
      return v;
    case "tojson":
      return pyJson(v, jsonOptions(kw));
    case "length":
      if (typeof v === "string") return pyLen(v);
      if (Array.isArray(v)) return v.length;
      if (isDict(v)) return Object.keys(v).length;
      throw cannot(name, v);
    case "trim":
      if (typeof v !== "string") throw cannot(name, v);
      return pyStrip(v);
    case "upper":
    case "lower":
    case "title":
    case "capitalize":
      if (typeof v !== "string") throw cannot(name, v);
      if (name === "upper") return v.toUpperCase();
      if (name === "lower") return v.toLowerCase();
      if (name === "title") return jinjaTitle(v);
      return pyCapitalize(v);
    case "string":
      return pyStr(v);
    case "list":
      if (Array.isArray(v)) return v;
      throw cannot(name, v);
    case "first":
    case "last":
      if (!Array.isArray(v)) throw cannot(name, v);
      return name === "first" ? v[0] : v[v.length - 1];
    case "reverse":
      if (!Array.isArray(v)) throw cannot(name, v);
      return v.slice().reverse();
    case "join":
      return join(v, args, kw);
    case "items":
      if (isDict(v)) return items(v);
      throw cannot(name, v);
    case "default": {
      const fallback = args.length > 0 ? args[0] : "";
      const boolean = args.length > 1 ? args[1] : (kw?.get("boolean") ?? false);
      if (typeof boolean !== "boolean") throw new Error("`default` filter flag must be a boolean");
      return v === undefined || (boolean && !truthy(v)) ? fallback : v;
    }
    case "int":
    case "float":
      return toNumber(name, v, called, kw);
    case "abs":
      if (!isNumber(v)) throw cannot(name, v);
      return isFloat(v) ? float(Math.abs(num(v))) : Math.abs(v as number);
    case "indent":
      return indent(v, args, kw);
    default:
      throw new Unsupported(`filter ${name}`);
  }
}

function jsonOptions(kw: Map<string, unknown> | null): JSONOptions {
  if (!kw) return {};
  const indentBy = kw.get("indent") ?? null;
  if (!(indentBy === null || isInteger(indentBy))) throw new Error("If set, indent must be a number");
  const ensureAscii = kw.get("ensure_ascii") ?? false;
  if (typeof ensureAscii !== "boolean") throw new Error("If set, ensure_ascii must be a boolean");
  const sortKeys = kw.get("sort_keys") ?? false;
  if (typeof sortKeys !== "boolean") throw new Error("If set, sort_keys must be a boolean");
  const seps = kw.get("separators") ?? null;
  let separators: [string, string] | null = null;
  if (Array.isArray(seps)) {
    if (seps.length !== 2 || typeof seps[0] !== "string" || typeof seps[1] !== "string")
      throw new Error("separators must be a tuple of two strings");
    separators = [seps[0], seps[1]];
  } else if (seps !== null) throw new Error("If set, separators must be a tuple of two strings");
  return { indent: indentBy as number | null, ensureAscii, sortKeys, separators };
}

/** `join`: Python's `sep.join(str(x) for x in items)`. */
function join(v: unknown, args: unknown[], kw: Map<string, unknown> | null): string {
  let parts: unknown[];
  if (typeof v === "string") parts = Array.from(v);
  else if (Array.isArray(v)) parts = v;
  else throw cannot("join", v);
  const sep = args.length > 0 ? args[0] : (kw?.get("separator") ?? "");
  if (typeof sep !== "string") throw new Error("separator must be a string");
  return parts.map(pyStr).join(sep);
}

/** `int`/`float`: called, a number passes unchanged; bare, it is converted. */
function toNumber(
  name: string,
  v: unknown,
  called: unknown[] | null,
  kw: Map<string, unknown> | null,
): unknown {
  const zero = name === "int" ? 0 : new PyFloatValue(0);
  const fallback = called && called.length > 0 ? called[0] : (kw?.get("default") ?? zero);
  if (typeof v === "string") {
    const x = name === "int" ? Number.parseInt(v, 10) : Number.parseFloat(v);
    if (Number.isNaN(x)) return called ? fallback : zero;
    return name === "int" ? x : float(x);
  }
  if (isNumber(v)) {
    if (called) return v;
    return name === "int" ? Math.floor(num(v)) : float(num(v));
  }
  if (typeof v === "boolean") return name === "int" ? (v ? 1 : 0) : new PyFloatValue(v ? 1 : 0);
  throw cannot(name, v);
}

function indent(v: unknown, args: unknown[], kw: Map<string, unknown> | null): string {
  if (typeof v !== "string") throw cannot("indent", v);
  const width = args.length > 0 ? args[0] : (kw?.get("width") ?? 4);
  if (!isInteger(width)) throw new Error("width must be a number");
  const first = truthy(args.length > 1 ? args[1] : (kw?.get("first") ?? false));
  const blank = truthy(args.length > 2 ? args[2] : (kw?.get("blank") ?? false));
  const pad = " ".repeat(width);
  return v
    .split("\n")
    .map((x, i) => ((!first && i === 0) || (!blank && x.length === 0) ? x : pad + x))
    .join("\n");
}

export const TESTS = new Set([
  "boolean",
  "callable",
  "odd",
  "even",
  "false",
  "true",
  "none",
  "string",
  "number",
  "integer",
  "iterable",
  "mapping",
  "sequence",
  "lower",
  "upper",
  "defined",
  "undefined",
]);

export function applyTest(name: string, v: unknown): boolean {
  switch (name) {
    case "boolean":
      return typeof v === "boolean";
    case "callable":
      return v instanceof Fn;
    case "odd":
    case "even":
      if (!isInteger(v)) throw new Error(`cannot ${name} on ${typeName(v)}`);
      return name === "odd" ? v % 2 !== 0 : v % 2 === 0;
    case "false":
      return v === false;
    case "true":
      return v === true;
    case "none":
      return v === null;
    case "string":
      return typeof v === "string";
    case "number":
      return isNumber(v);
    case "integer":
      return isInteger(v);
    case "iterable":
      return typeof v === "string" || (Array.isArray(v) && !TUPLES.has(v));
    case "mapping":
      return isDict(v);
    case "sequence":
      return typeof v === "string" || Array.isArray(v) || isDict(v);
    case "lower":
      return typeof v === "string" && pyIsLower(v);
    case "upper":
      return typeof v === "string" && pyIsUpper(v);
    case "defined":
      return v !== undefined;
    case "undefined":
      return v === undefined;
    default:
      throw new Unsupported(`test ${name}`);
  }
}

export type { Dict, Namespace };
