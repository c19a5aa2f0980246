/**
 * The template evaluator's values: plain JavaScript values with the semantics that
 * `@huggingface/jinja` (patched for Python, `../python-semantics.ts`) gives its runtime
 * values, so that a compiled template prints exactly what the library's interpreter prints.
 *
 * string, boolean, null (Python `None`), undefined (Jinja's undefined) and arrays are
 * themselves; an integer is a JS integer number; a float is a non-integer JS number or, when
 * its value is integral (`1.0`, `4 / 2`), a `PyFloatValue` — the library prints `2.0` for those,
 * while an input number is an integer exactly when `Number.isInteger` holds (as the library
 * converts it). Dicts are plain objects (own keys only), namespaces `Namespace`, callables `Fn`,
 * tuples arrays listed in `TUPLES`. Values print as Python prints them (`py-format.ts`, shared
 * with the patched library); the library's other quirks are mirrored on purpose (`==` is
 * JavaScript's loose equality of the inner values): the differential test holds the evaluator to
 * the library, and both to Python by the golden tests.
 */

/** A construct the evaluator does not implement: the renderer uses the library's interpreter. */
export class Unsupported extends Error {}

/** A float whose value is integral (prints with `.0`). */
export class PyFloatValue {
  constructor(readonly v: number) {}
}

/** `namespace(...)`: the one mutable object templates write attributes of. */
export class Namespace {
  constructor(readonly map: Map<string, unknown>) {}
}

/** A callable: positional arguments, keyword arguments (null when none), the caller's scope. */
export class Fn {
  constructor(
    readonly call: (args: unknown[], kwargs: Map<string, unknown> | null, scope: unknown) => unknown,
  ) {}
}

/** Arrays made by tuple literals (the library's TupleValue: not `iterable`, JSON like a list). */
export const TUPLES = new WeakSet<unknown[]>();

export type Dict = Record<string, unknown>;

export function isDict(v: unknown): v is Dict {
  if (v === null || typeof v !== "object") return false;
  // Plain objects (every input dict, every dict literal) first: no class checks for those.
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) return true;
  return !Array.isArray(v) && !(v instanceof PyFloatValue) && !(v instanceof Namespace) && !(v instanceof Fn);
}

export function isNumber(v: unknown): v is number | PyFloatValue {
  return typeof v === "number" || v instanceof PyFloatValue;
}

export function isFloat(v: unknown): boolean {
  return v instanceof PyFloatValue || (typeof v === "number" && !Number.isInteger(v));
}

export function isInteger(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v);
}

/** The JS number inside a numeric value. */
export function num(v: number | PyFloatValue): number {
  return typeof v === "number" ? v : v.v;
}

/** A float result: wrapped when integral so it keeps printing as a float. */
export function float(x: number): number | PyFloatValue {
  return Number.isInteger(x) ? new PyFloatValue(x) : x;
}

/** The library's `__bool__`: empty containers and strings, 0, none and undefined are false. */
export function truthy(v: unknown): boolean {
  if (typeof v === "boolean") return v;
  if (typeof v === "string") return v.length > 0;
  if (typeof v === "number") return v !== 0 && !Number.isNaN(v);
  if (v === null || v === undefined) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof PyFloatValue) return v.v !== 0;
  if (v instanceof Namespace || v instanceof Fn) return true;
  for (const k in v as Dict) if (Object.hasOwn(v as Dict, k)) return true;
  return false;
}

/** The library's inner value, for `==` and `in` (JavaScript equality on it). */
export function inner(v: unknown): unknown {
  return v instanceof PyFloatValue ? v.v : v;
}

/** A dict's own value for `key` (undefined when absent: never an inherited property). */
export function own(d: Dict, key: string): unknown {
  return Object.hasOwn(d, key) ? d[key] : undefined;
}

/** The library's `type` name of a value, for error messages and type tests. */
export function typeName(v: unknown): string {
  if (typeof v === "string") return "StringValue";
  if (typeof v === "boolean") return "BooleanValue";
  if (typeof v === "number") return Number.isInteger(v) ? "IntegerValue" : "FloatValue";
  if (v instanceof PyFloatValue) return "FloatValue";
  if (v === null) return "NullValue";
  if (v === undefined) return "UndefinedValue";
  if (Array.isArray(v)) return TUPLES.has(v) ? "TupleValue" : "ArrayValue";
  if (v instanceof Namespace) return "NamespaceValue";
  if (v instanceof Fn) return "FunctionValue";
  return "ObjectValue";
}
