/**
 * Attribute access and the methods of strings and dicts, as `@huggingface/jinja` resolves them:
 * a dict's key first, then its methods (`get`, `items`, `keys`, `values`); a string's or a
 * list's `length` is a property; strings have the Python methods templates call, with
 * `strip`/`lstrip`/`rstrip` honouring `chars` (the Python patch). Anything else is undefined
 * (the library returns undefined, it does not raise) or, for a method the evaluator lacks,
 * `Unsupported`.
 */
import * as text from "../../../text/python-str.ts";
import { type Dict, Fn, isDict, isInteger, Namespace, typeName, Unsupported } from "./values.ts";

const STRING_METHODS = new Set([
  "upper",
  "lower",
  "strip",
  "lstrip",
  "rstrip",
  "title",
  "capitalize",
  "startswith",
  "endswith",
  "split",
  "replace",
]);
const DICT_METHODS = new Set(["get", "items", "keys", "values", "dictsort"]);

/** `obj.name` / `obj[key]` (a slice is handled by the caller). */
export function member(obj: unknown, key: unknown): unknown {
  if (isDict(obj) || obj instanceof Namespace) {
    if (typeof key !== "string")
      throw new Error(`Cannot access property with non-string: got ${typeName(key)}`);
    if (obj instanceof Namespace) return obj.map.get(key);
    // Own keys only; what a dict inherits from Object.prototype is a function or `__proto__`,
    // so a defined non-function value under any other key is the dict's own.
    const v = obj[key];
    if (v !== undefined && typeof v !== "function" && key !== "__proto__") return v;
    if (Object.hasOwn(obj, key)) return v;
    return DICT_METHODS.has(key) ? new Fn((args, kw) => callMethod(obj, key, args, kw)) : undefined;
  }
  if (Array.isArray(obj) || typeof obj === "string") {
    if (isInteger(key)) return obj.at(key);
    if (typeof key !== "string")
      throw new Error(`Cannot access property with non-string/non-number: got ${typeName(key)}`);
    if (key === "length") return typeof obj === "string" ? text.pyLen(obj) : obj.length;
    if (typeof obj === "string" && STRING_METHODS.has(key))
      return new Fn((args, kw) => callMethod(obj, key, args, kw));
    return undefined;
  }
  if (typeof key !== "string")
    throw new Error(`Cannot access property with non-string: got ${typeName(key)}`);
  return undefined;
}

/** `obj.name(args)`: the method directly, without making a bound function first. */
export function callMethod(
  obj: unknown,
  name: string,
  args: unknown[],
  kw: Map<string, unknown> | null,
): unknown {
  if (typeof obj === "string") return stringMethod(obj, name, args, kw);
  if (isDict(obj) && !Object.hasOwn(obj, name)) return dictMethod(obj, name, args, kw);
  const fn = member(obj, name);
  if (!(fn instanceof Fn))
    throw new Error(`Cannot call something that is not a function: got ${typeName(fn)}`);
  return fn.call(args, kw, null);
}

function dictMethod(d: Dict, name: string, args: unknown[], kw: Map<string, unknown> | null): unknown {
  if (kw) throw new Unsupported(`keyword arguments to dict.${name}`);
  switch (name) {
    case "get": {
      const key = args[0];
      if (typeof key !== "string") throw new Error(`Object key must be a string: got ${typeName(key)}`);
      if (Object.hasOwn(d, key)) return d[key];
      return args.length > 1 ? args[1] : null;
    }
    case "items":
      return Object.entries(d).map(([k, v]) => [k, v]);
    case "keys":
      return Object.keys(d);
    case "values":
      return Object.values(d);
    case "dictsort":
      throw new Unsupported("dict.dictsort");
    default:
      throw new Error(`Cannot call something that is not a function: got UndefinedValue`);
  }
}

function stringMethod(s: string, name: string, args: unknown[], kw: Map<string, unknown> | null): unknown {
  if (kw && name !== "replace") throw new Unsupported(`keyword arguments to str.${name}`);
  switch (name) {
    case "upper":
      return s.toUpperCase();
    case "lower":
      return s.toLowerCase();
    case "strip":
    case "lstrip":
    case "rstrip": {
      // No argument (or None): Python's whitespace, not JavaScript's `trim` set.
      const chars = typeof args[0] === "string" ? args[0] : undefined;
      return name === "strip"
        ? text.pyStrip(s, chars)
        : name === "lstrip"
          ? text.pyLstrip(s, chars)
          : text.pyRstrip(s, chars);
    }
    case "title":
      return text.pyTitle(s);
    case "capitalize":
      return text.pyCapitalize(s);
    case "startswith":
    case "endswith":
      return affix(s, name, args);
    case "split":
      return split(s, args);
    case "replace":
      return replace(s, args, kw);
    default:
      throw new Error(`Cannot call something that is not a function: got UndefinedValue`);
  }
}

function affix(s: string, name: string, args: unknown[]): boolean {
  if (args.length === 0) throw new Error(`${name}() requires at least one argument`);
  const test = (p: string) => (name === "startswith" ? s.startsWith(p) : s.endsWith(p));
  const pattern = args[0];
  if (typeof pattern === "string") return test(pattern);
  if (Array.isArray(pattern)) {
    for (const item of pattern) {
      if (typeof item !== "string") throw new Error(`${name}() tuple elements must be strings`);
      if (test(item)) return true;
    }
    return false;
  }
  throw new Error(`${name}() argument must be a string or tuple of strings`);
}

/** Python `str.split(sep=None, maxsplit=-1)`. */
function split(s: string, args: unknown[]): string[] {
  const sep = args[0] ?? null;
  const max = args.length > 1 ? args[1] : -1;
  if (!(typeof sep === "string" || sep === null)) throw new Error("sep argument must be a string or null");
  if (!isInteger(max)) throw new Error("maxsplit argument must be a number");
  return text.pySplit(s, sep, max);
}

function replace(s: string, args: unknown[], kw: Map<string, unknown> | null): string {
  if (args.length < 2) throw new Error("replace() requires at least two arguments");
  const [from, to] = args;
  if (typeof from !== "string" || typeof to !== "string")
    throw new Error("replace() arguments must be strings");
  const count = args.length > 2 ? args[2] : (kw?.get("count") ?? null);
  if (!(count === null || isInteger(count)))
    throw new Error("replace() count argument must be a number or null");
  if (count === 0) return s;
  // Callbacks, not replacement strings: `$&` in `to` is literal text, as in the library.
  if (count === null || count < 0)
    return from === "" ? s.replace(/(?=)/gu, () => to) : s.replaceAll(from, () => to);
  let left = count;
  const pattern = from === "" ? /(?=)/gu : new RegExp(from.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gu");
  return s.replaceAll(pattern, (m) => (left-- > 0 ? to : m));
}

/** The library's `items` of a dict: `[key, value]` lists (not tuples). */
export function items(d: Dict | Namespace): unknown[][] {
  return d instanceof Namespace ? [...d.map.entries()] : Object.entries(d);
}
