/**
 * Python `json.dumps` / `json.loads` semantics where they differ from JavaScript's JSON.
 *
 * The Qwen3 template writes tools and dict arguments with Python's `json.dumps(x,
 * ensure_ascii=False)`: `", "` and `": "` separators, non-ASCII kept literally, floats in
 * Python `repr` form (`1.0`, `1e-05`, `1e+16`). A JavaScript number cannot say whether it was
 * `1` or `1.0`, so `PyFloat` marks numbers that were floats in the source JSON
 * (`parseJsonKeepingFloats` produces them) and the dumper prints them with the `.0`.
 */

/** A number that was a float literal in the source (so `1.0` stays `1.0`, not `1`). */
export class PyFloat {
  constructor(readonly value: number) {}
  toJSON(): number {
    return this.value;
  }
}

/** `json.loads` as Python does it: JSON plus NaN / Infinity / -Infinity; numbers come back plain. */
export function pyJsonLoads(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!/NaN|Infinity/.test(text)) throw err;
    return toPlainNumbers(parseJsonKeepingFloats(text, { pythonConstants: true }));
  }
}

function toPlainNumbers(x: unknown): unknown {
  if (x instanceof PyFloat) return x.value;
  if (typeof x === "bigint") return Number(x);
  if (Array.isArray(x)) return x.map(toPlainNumbers);
  if (x && typeof x === "object") {
    for (const k of Object.keys(x))
      (x as Record<string, unknown>)[k] = toPlainNumbers((x as Record<string, unknown>)[k]);
  }
  return x;
}

/** Python `repr(float)`: shortest round-trip digits, exponent form outside [1e-4, 1e16). */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Number.POSITIVE_INFINITY) return "Infinity";
  if (x === Number.NEGATIVE_INFINITY) return "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mant, expStr] = x.toExponential().split("e");
  const exp = Number(expStr);
  const neg = mant!.startsWith("-");
  const digits = mant!.replace("-", "").replace(".", "");
  const sign = neg ? "-" : "";
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
    const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
    const frac = digits.slice(exp + 1);
    return `${sign}${intPart}.${frac || "0"}`;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const e = Math.abs(exp).toString().padStart(2, "0");
  return `${sign}${m}e${exp < 0 ? "-" : "+"}${e}`;
}

/**
 * JavaScript lists integer-like keys ("1", "42") first whatever the source order; Python dicts
 * keep insertion order. Objects parsed by `parseJsonKeepingFloats` that have such keys carry
 * their source order under this (non-enumerable) symbol, and `pyJsonDumps` follows it.
 */
export const KEY_ORDER: unique symbol = Symbol("envroll.pyKeyOrder");

function withKeyOrder(obj: Record<string, unknown>, order: string[]): Record<string, unknown> {
  const natural = Object.keys(obj);
  if (natural.some((k, i) => k !== order[i])) Object.defineProperty(obj, KEY_ORDER, { value: order });
  return obj;
}

function dumpString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += "\\\\";
    else if (c >= 0x20) out += s[i];
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0d) out += "\\r";
    else if (c === 0x09) out += "\\t";
    else if (c === 0x08) out += "\\b";
    else if (c === 0x0c) out += "\\f";
    else out += `\\u${c.toString(16).padStart(4, "0")}`;
  }
  return `${out}"`;
}

function dumpNumber(n: number): string {
  // Integral JS numbers are Python ints (the common case for JSON input); print every digit.
  if (Number.isInteger(n)) return BigInt(n).toString();
  return pyFloatRepr(n);
}

/** `json.dumps(value, ensure_ascii=False)` with Python's default separators. */
export function pyJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "string") return dumpString(value);
  if (typeof value === "number") return dumpNumber(value);
  if (typeof value === "bigint") return value.toString();
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(", ")}]`;
  if (typeof value === "object") {
    const parts: string[] = [];
    const obj = value as Record<string | symbol, unknown>;
    const keys = (obj[KEY_ORDER] as string[] | undefined) ?? Object.keys(obj);
    for (const k of keys) {
      const v = obj[k];
      if (v === undefined || typeof v === "function") continue;
      parts.push(`${dumpString(k)}: ${pyJsonDumps(v)}`);
    }
    return `{${parts.join(", ")}}`;
  }
  throw new TypeError(`Object of type ${typeof value} is not JSON serializable`);
}

/**
 * JSON.parse that keeps float literals as `PyFloat` when they are integral (`1.0`, `2e3`) and
 * integers beyond 2^53 as `bigint`, so a request read from JSON re-serializes exactly as Python
 * would. Non-integral floats stay plain numbers (their repr round-trips anyway).
 */
export function parseJsonKeepingFloats(text: string, opts: { pythonConstants?: boolean } = {}): unknown {
  if (!opts.pythonConstants && !/[0-9][.eE]|[0-9]{16}|"[0-9]+"\s*:/.test(text)) return JSON.parse(text);
  let pos = 0;
  const ws = () => {
    while (pos < text.length && " \t\n\r".includes(text[pos]!)) pos++;
  };
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at position ${pos}`);
  };
  /** Just past an opening bracket: true (and past `close` too) when the container is empty. */
  const closedAt = (close: string): boolean => {
    ws();
    if (text[pos] !== close) return false;
    pos++;
    return true;
  };
  /** After a member: true past a comma, false past `close`; anything else is an error. */
  const another = (close: string): boolean => {
    ws();
    const sep = text[pos++];
    if (sep === close) return false;
    if (sep !== ",") fail(`expected ',' or '${close}'`);
    return true;
  };
  const value = (): unknown => {
    ws();
    const ch = text[pos];
    if (ch === "{") {
      pos++;
      const obj: Record<string, unknown> = {};
      const order: string[] = [];
      if (closedAt("}")) return obj;
      do {
        ws();
        if (text[pos] !== '"') fail("expected string key");
        const key = str();
        ws();
        if (text[pos++] !== ":") fail("expected ':'");
        if (!Object.hasOwn(obj, key)) order.push(key);
        Object.defineProperty(obj, key, {
          value: value(),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } while (another("}"));
      return withKeyOrder(obj, order);
    }
    if (ch === "[") {
      pos++;
      const arr: unknown[] = [];
      if (closedAt("]")) return arr;
      do arr.push(value());
      while (another("]"));
      return arr;
    }
    if (ch === '"') return str();
    const m = /^-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(pos, pos + 400));
    if (m && m[0].length > 0 && m[0] !== "-") {
      pos += m[0].length;
      const n = Number(m[0]);
      if (m[1] || m[2]) return Number.isInteger(n) ? new PyFloat(n) : n;
      // Python ints are exact at any size; keep big ones exact too.
      return Number.isSafeInteger(n) ? n : BigInt(m[0]);
    }
    const literals: [string, unknown][] = [
      ["true", true],
      ["false", false],
      ["null", null],
    ];
    // Python's json.loads also takes these (allow_nan); opt-in, since JSON does not.
    if (opts.pythonConstants) {
      literals.push(["NaN", new PyFloat(Number.NaN)], ["Infinity", new PyFloat(Number.POSITIVE_INFINITY)]);
      literals.push(["-Infinity", new PyFloat(Number.NEGATIVE_INFINITY)]);
    }
    for (const [lit, v] of literals) {
      if (text.startsWith(lit, pos)) {
        pos += lit.length;
        return v;
      }
    }
    return fail("unexpected token");
  };
  const str = (): string => {
    const start = pos;
    pos++;
    while (pos < text.length && text[pos] !== '"') pos += text[pos] === "\\" ? 2 : 1;
    if (pos >= text.length) fail("unterminated string");
    pos++;
    return JSON.parse(text.slice(start, pos));
  };
  const out = value();
  ws();
  if (pos !== text.length) fail("unexpected trailing data");
  return out;
}
