/**
 * The global names `@huggingface/jinja` defines for every render, with its behaviour:
 * constants, `raise_exception`, `range`, `namespace` and `strftime_now` (local time, the
 * library's subset of directives).
 */
import { Fn, isDict, Namespace, typeName, Unsupported } from "./values.ts";

export const GLOBALS = new Map<string, unknown>([
  ["true", true],
  ["false", false],
  ["none", null],
  ["True", true],
  ["False", false],
  ["None", null],
  [
    "raise_exception",
    new Fn((args) => {
      throw new Error(String(args[0]));
    }),
  ],
  ["range", new Fn(range)],
  ["namespace", new Fn(namespace)],
  [
    "strftime_now",
    new Fn((args) => {
      if (typeof args[0] !== "string") throw new Unsupported("strftime_now of a non-string");
      return strftime(new Date(), args[0]);
    }),
  ],
]);

function range(args: unknown[], kw: Map<string, unknown> | null): number[] {
  if (kw || args.some((a) => typeof a !== "number" || !Number.isInteger(a)))
    throw new Unsupported("range() of non-integers");
  let [start, stop, step = 1] = args as number[];
  if (stop === undefined) {
    stop = start!;
    start = 0;
  }
  if (step === 0) throw new Error("range() step must not be zero");
  const out: number[] = [];
  if (step > 0) for (let i = start!; i < stop; i += step) out.push(i);
  else for (let i = start!; i > stop; i += step) out.push(i);
  return out;
}

function namespace(args: unknown[], kw: Map<string, unknown> | null): Namespace {
  if (args.length > 1) throw new Error(`namespace expected at most 1 argument, got ${args.length}`);
  const map = new Map<string, unknown>();
  if (args.length === 1) {
    const source = args[0];
    if (isDict(source)) for (const [k, v] of Object.entries(source)) map.set(k, v);
    else throw new Unsupported(`namespace(${typeName(source)})`);
  }
  if (kw) for (const [k, v] of kw) map.set(k, v);
  return new Namespace(map);
}

function strftime(date: Date, format: string): string {
  const pad2 = (n: number) => (n < 10 ? `0${n}` : n.toString());
  return format.replace(/%[YmdbBHM%]/g, (token) => {
    switch (token) {
      case "%Y":
        return date.getFullYear().toString();
      case "%m":
        return pad2(date.getMonth() + 1);
      case "%d":
        return pad2(date.getDate());
      case "%b":
        return new Intl.DateTimeFormat(undefined, { month: "short" }).format(date);
      case "%B":
        return new Intl.DateTimeFormat(undefined, { month: "long" }).format(date);
      case "%H":
        return pad2(date.getHours());
      case "%M":
        return pad2(date.getMinutes());
      default:
        return "%";
    }
  });
}
