/**
 * Binary and unary operators and slicing with `@huggingface/jinja`'s semantics (checked in the
 * library's order, which decides the result for mixed operand types): `==` is JavaScript's
 * loose equality of the inner values, arithmetic is on numbers only (booleans only for `**`),
 * a float operand makes a float result, `+` with a string operand concatenates, and `in`
 * looks into lists (strict equality), strings and dict keys.
 */

import { pyStr } from "./py-format.ts";
import {
  Fn,
  float,
  inner,
  isDict,
  isFloat,
  isNumber,
  Namespace,
  num,
  PyFloatValue,
  truthy,
  typeName,
  Unsupported,
} from "./values.ts";

const isObjectLike = (v: unknown) => v !== null && typeof v === "object" && !(v instanceof PyFloatValue);

/**
 * The string JavaScript makes of the library's inner value (its `value.toString()`, also what
 * `==` coerces an object to): a list's inner value is a JS array of runtime values, so it joins
 * their own `toString()`s with commas; a dict's or namespace's is a Map.
 */
function text(v: unknown): string {
  if (Array.isArray(v)) return v.map(runtimeString).join(",");
  if (v instanceof Fn) throw new Unsupported("string of a function");
  if (isObjectLike(v)) return "[object Map]";
  return String(inner(v));
}

/** A runtime value's own `toString()` (none and undefined hold no value: "undefined"). */
function runtimeString(v: unknown): string {
  if (v === null || v === undefined) return "undefined";
  if (v instanceof Fn) throw new Unsupported("string of a function");
  return pyStr(v);
}

export function equals(l: unknown, r: unknown): boolean {
  const a = inner(l);
  const b = inner(r);
  const objA = isObjectLike(a);
  const objB = isObjectLike(b);
  if (objA && objB) return a === b;
  // An object against a scalar: JavaScript compares the object's string (see `text`).
  // biome-ignore lint/suspicious/noDoubleEquals: the library compares with JavaScript's `==`.
  if (objA || objB) return (objA ? text(a) : a) == (objB ? text(b) : b);
  // biome-ignore lint/suspicious/noDoubleEquals: the library compares with JavaScript's `==`.
  return a == b;
}

export function binary(op: string, l: unknown, r: unknown): unknown {
  if (op === "==") return equals(l, r);
  // Python's `~` is `str(l) + str(r)` for any operands (None prints `None`, undefined nothing).
  if (op === "~") return pyStr(l) + pyStr(r);
  if (op === "!=") return !equals(l, r);
  if (l === undefined || r === undefined) {
    if (r === undefined && (op === "in" || op === "not in")) return op === "not in";
    throw new Error(`Cannot perform operation ${op} on undefined values`);
  }
  if (l === null || r === null) throw new Error("Cannot perform operation on null values");
  const lNum = isNumber(l);
  const rNum = isNumber(r);
  if (op === "**" && (lNum || typeof l === "boolean") && (rNum || typeof r === "boolean")) {
    const a = typeof l === "boolean" ? Number(l) : num(l as number);
    const b = typeof r === "boolean" ? Number(r) : num(r as number);
    if (a === 0 && b < 0) throw new Error("0.0 cannot be raised to a negative power");
    const result = a ** b;
    if (!Number.isFinite(result)) throw new Error("Exponentiation result is not a finite real number");
    return isFloat(l) || isFloat(r) || b < 0 ? float(result) : result;
  }
  if (lNum && rNum) {
    const a = num(l as number);
    const b = num(r as number);
    const f = isFloat(l) || isFloat(r);
    switch (op) {
      case "+":
        return f ? float(a + b) : a + b;
      case "-":
        return f ? float(a - b) : a - b;
      case "*":
        return f ? float(a * b) : a * b;
      case "/":
        return float(a / b);
      case "//":
        return f ? float(Math.floor(a / b)) : Math.floor(a / b);
      case "%":
        return f ? float(a % b) : a % b;
      case "<":
        return a < b;
      case ">":
        return a > b;
      case ">=":
        return a >= b;
      case "<=":
        return a <= b;
    }
  } else if (Array.isArray(l) && Array.isArray(r)) {
    if (op === "+") return l.concat(r);
  } else if (Array.isArray(r)) {
    if (op === "in" || op === "not in") {
      const x = inner(l);
      const member = r.some((y) => inner(y) === x);
      return op === "in" ? member : !member;
    }
  }
  if ((typeof l === "string" || typeof r === "string") && op === "+") return text(l) + text(r);
  if (typeof l === "string" && typeof r === "string") {
    if (op === "in") return r.includes(l);
    if (op === "not in") return !r.includes(l);
  }
  if (typeof l === "string" && isDict(r) && !(r instanceof Namespace)) {
    if (op === "in") return Object.hasOwn(r, l);
    if (op === "not in") return !Object.hasOwn(r, l);
  }
  throw new SyntaxError(`Unknown operator "${op}" between ${typeName(l)} and ${typeName(r)}`);
}

export function unary(op: string, v: unknown): unknown {
  if (op === "not") return !truthy(v);
  if (op === "+" || op === "-") {
    const sign = op === "-" ? -1 : 1;
    if (isNumber(v) || typeof v === "boolean") {
      const x = typeof v === "boolean" ? (v ? 1 : 0) : num(v);
      return isFloat(v) ? float(sign * x) : sign * x;
    }
    throw new SyntaxError(`Unknown operator "${op}" for ${typeName(v)}`);
  }
  throw new SyntaxError(`Unknown operator: ${op}`);
}

/** `x[start:stop:step]` on a list or a string (by code point), as the library slices. */
export function sliced(obj: unknown, start: unknown, stop: unknown, step: unknown): unknown {
  if (!(Array.isArray(obj) || typeof obj === "string"))
    throw new Error("Slice object must be an array or string");
  for (const [what, v] of [
    ["start", start],
    ["stop", stop],
    ["step", step],
  ] as const)
    if (!(v === undefined || (typeof v === "number" && Number.isInteger(v))))
      throw new Error(`Slice ${what} must be numeric or undefined`);
  const items = Array.isArray(obj) ? obj : Array.from(obj);
  const out = slice(items, start as number | undefined, stop as number | undefined, (step as number) ?? 1);
  return Array.isArray(obj) ? out : out.join("");
}

function slice<T>(
  array: readonly T[],
  start: number | undefined,
  stop: number | undefined,
  step: number,
): T[] {
  const n = array.length;
  const direction = Math.sign(step);
  let a: number;
  let b: number;
  if (direction >= 0) {
    a = (start ?? 0) < 0 ? Math.max(n + start!, 0) : Math.min(start ?? 0, n);
    b = (stop ?? n) < 0 ? Math.max(n + stop!, 0) : Math.min(stop ?? n, n);
  } else {
    a = (start ?? n - 1) < 0 ? Math.max(n + start!, -1) : Math.min(start ?? n - 1, n - 1);
    b = (stop ?? -1) < -1 ? Math.max(n + stop!, -1) : Math.min(stop ?? -1, n - 1);
  }
  const out: T[] = [];
  for (let i = a; direction * i < direction * b; i += step) out.push(array[i]!);
  return out;
}
