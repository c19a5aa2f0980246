/**
 * Python's string and printing semantics for `@huggingface/jinja`'s interpreter, the same ones
 * the compiled evaluator has (`template/`), so that the fallback renders what HF's Python Jinja2
 * renders: string methods and filters use Python's whitespace set and case rules
 * (`text/python-str.ts`), `{{ x }}`, `|string`, `|join` and `~` print `str(x)` and `tojson` is
 * HF's `json.dumps` (`template/py-format.ts`). Installed by `patchJinjaPythonSemantics` on the
 * library's own classes, reached through values the library creates (they are not exported).
 */
import {
  jinjaTitle,
  pyCapitalize,
  pyIsLower,
  pyIsUpper,
  pyLen,
  pyLstrip,
  pyRstrip,
  pySplit,
  pyStrip,
  pyTitle,
} from "../../text/python-str.ts";
import { type JSONOptions, pyJson, pyStr } from "./template/py-format.ts";
import { Fn, Namespace, PyFloatValue, TUPLES } from "./template/values.ts";

/** A runtime value of the library: its class's `type` and the JavaScript value it wraps. */
export type RuntimeValue = { type: string; value?: unknown; toString(): string };
type Ctor = new (v: unknown) => RuntimeValue;
type FunctionCtor = new (fn: (args: RuntimeValue[]) => unknown) => RuntimeValue;

/** The library's classes this module needs, found from probe values by the caller. */
export interface RuntimeClasses {
  StringValue: Ctor;
  IntegerValue: Ctor;
  BooleanValue: Ctor;
  ArrayValue: Ctor;
  FunctionValue: FunctionCtor;
  /** Prototypes whose `toString` is how `{{ x }}` prints: boolean, float, array (and tuple), object. */
  printed: object[];
}

/** The evaluator's plain value for a runtime value (what `py-format.ts` prints). */
export function toPlain(v: RuntimeValue): unknown {
  switch (v.type) {
    case "StringValue":
    case "IntegerValue":
    case "BooleanValue":
      return v.value;
    case "FloatValue": {
      const x = v.value as number;
      return Number.isInteger(x) ? new PyFloatValue(x) : x;
    }
    case "NullValue":
      return null;
    case "UndefinedValue":
      return undefined;
    case "ArrayValue":
      return (v.value as RuntimeValue[]).map(toPlain);
    case "TupleValue": {
      const t = (v.value as RuntimeValue[]).map(toPlain);
      TUPLES.add(t);
      return t;
    }
    case "ObjectValue":
    case "KeywordArgumentsValue":
      return new Map([...(v.value as Map<string, RuntimeValue>)].map(([k, x]) => [k, toPlain(x)]));
    case "NamespaceValue":
      return new Namespace(
        new Map([...(v.value as Map<string, RuntimeValue>)].map(([k, x]) => [k, toPlain(x)])),
      );
    default:
      return new Fn(() => undefined);
  }
}

/** String methods with Python's rules, replacing the library's in a string's builtins map. */
export function pythonStringMethods(s: string, map: Map<string, unknown>, c: RuntimeClasses): void {
  const str = (x: string) => new c.StringValue(x);
  const fn = (f: (args: RuntimeValue[]) => unknown) => new c.FunctionValue(f);
  const chars = (args: RuntimeValue[]) =>
    args[0]?.type === "StringValue" ? (args[0].value as string) : undefined;
  map.set(
    "strip",
    fn((a) => str(pyStrip(s, chars(a)))),
  );
  map.set(
    "lstrip",
    fn((a) => str(pyLstrip(s, chars(a)))),
  );
  map.set(
    "rstrip",
    fn((a) => str(pyRstrip(s, chars(a)))),
  );
  map.set(
    "title",
    fn(() => str(pyTitle(s))),
  );
  map.set(
    "capitalize",
    fn(() => str(pyCapitalize(s))),
  );
  map.set("length", new c.IntegerValue(pyLen(s)));
  map.set(
    "split",
    fn((a) => {
      const sep = a[0] === undefined || a[0].type === "NullValue" ? null : a[0];
      if (sep !== null && sep.type !== "StringValue")
        throw new Error("sep argument must be a string or null");
      const max = a[1] ?? new c.IntegerValue(-1);
      if (max.type !== "IntegerValue") throw new Error("maxsplit argument must be a number");
      const parts = pySplit(s, sep === null ? null : (sep.value as string), max.value as number);
      return new c.ArrayValue(parts.map(str));
    }),
  );
}

type FilterNode = {
  type: string;
  value?: string;
  callee?: { type: string; value?: string };
  args?: unknown[];
};
type Interp = {
  evaluate(node: unknown, env: unknown): RuntimeValue;
  evaluateArguments(args: unknown[], env: unknown): [RuntimeValue[], Map<string, RuntimeValue>];
  applyFilter(operand: RuntimeValue, filter: FilterNode, env: unknown): RuntimeValue;
  evaluateBinaryExpression(node: unknown, env: unknown): RuntimeValue;
  global?: { tests?: Map<string, (v: RuntimeValue) => boolean> };
};

function jsonOptions(kw: Map<string, RuntimeValue>): JSONOptions {
  const indent = kw.get("indent");
  if (!(indent === undefined || indent.type === "IntegerValue" || indent.type === "NullValue"))
    throw new Error("If set, indent must be a number");
  const ensureAscii = kw.get("ensure_ascii");
  if (!(ensureAscii === undefined || ensureAscii.type === "BooleanValue"))
    throw new Error("If set, ensure_ascii must be a boolean");
  const sortKeys = kw.get("sort_keys");
  if (!(sortKeys === undefined || sortKeys.type === "BooleanValue"))
    throw new Error("If set, sort_keys must be a boolean");
  const seps = kw.get("separators");
  let separators: [string, string] | null = null;
  if (seps && (seps.type === "ArrayValue" || seps.type === "TupleValue")) {
    const [a, b] = seps.value as RuntimeValue[];
    if ((seps.value as unknown[]).length !== 2 || a?.type !== "StringValue" || b?.type !== "StringValue")
      throw new Error("separators must be a tuple of two strings");
    separators = [a.value as string, b.value as string];
  } else if (seps && seps.type !== "NullValue")
    throw new Error("If set, separators must be a tuple of two strings");
  return {
    indent: indent?.type === "IntegerValue" ? (indent.value as number) : null,
    ensureAscii: (ensureAscii?.value as boolean | undefined) ?? false,
    sortKeys: (sortKeys?.value as boolean | undefined) ?? false,
    separators,
  };
}

function joined(operand: RuntimeValue, sep: string): string {
  if (operand.type === "StringValue") return Array.from(operand.value as string).join(sep);
  if (operand.type !== "ArrayValue") throw new Error(`Cannot apply filter "join" to type: ${operand.type}`);
  return (operand.value as RuntimeValue[]).map((x) => pyStr(toPlain(x))).join(sep);
}

/** Printing, the filters whose text differs from Python's, `~`, and the case tests. */
export function patchPythonValues(interpProto: object, c: RuntimeClasses): void {
  for (const proto of c.printed)
    Object.defineProperty(proto, "toString", {
      configurable: true,
      writable: true,
      value(this: RuntimeValue) {
        return pyStr(toPlain(this));
      },
    });
  const proto = interpProto as Interp;
  const applyFilter = proto.applyFilter;
  proto.applyFilter = function (this: Interp, operand, filter, env) {
    const str = (x: string) => new c.StringValue(x);
    if (filter.type === "Identifier") {
      const isString = operand.type === "StringValue";
      switch (filter.value) {
        case "tojson":
          return str(pyJson(toPlain(operand)));
        case "string":
          return str(pyStr(toPlain(operand)));
        case "join":
          return str(joined(operand, ""));
        case "trim":
          if (isString) return str(pyStrip(operand.value as string));
          break;
        case "title":
          if (isString) return str(jinjaTitle(operand.value as string));
          break;
        case "capitalize":
          if (isString) return str(pyCapitalize(operand.value as string));
          break;
      }
    } else if (filter.type === "CallExpression" && filter.callee?.type === "Identifier") {
      const name = filter.callee.value;
      if (name === "tojson" || name === "join") {
        const [args, kw] = this.evaluateArguments(filter.args ?? [], env);
        if (name === "tojson") return str(pyJson(toPlain(operand), jsonOptions(kw)));
        const sep = args[0] ?? kw.get("separator") ?? str("");
        if (sep.type !== "StringValue") throw new Error("separator must be a string");
        return str(joined(operand, sep.value as string));
      }
    }
    return applyFilter.call(this, operand, filter, env);
  };
  const binary = proto.evaluateBinaryExpression;
  proto.evaluateBinaryExpression = function (this: Interp, node, env) {
    const n = node as { operator: { value: string }; left: unknown; right: unknown };
    if (n.operator.value !== "~") return binary.call(this, node, env);
    const l = this.evaluate(n.left, env);
    const r = this.evaluate(n.right, env);
    return new c.StringValue(pyStr(toPlain(l)) + pyStr(toPlain(r)));
  };
}

/** Python's `is lower` / `is upper` (`str.islower()`: some cased character, none upper). */
export function patchPythonTests(tests: Map<string, (v: RuntimeValue) => boolean>): void {
  tests.set("lower", (v) => v.type === "StringValue" && pyIsLower(v.value as string));
  tests.set("upper", (v) => v.type === "StringValue" && pyIsUpper(v.value as string));
}
