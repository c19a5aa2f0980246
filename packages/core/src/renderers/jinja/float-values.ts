/**
 * Integral floats in template input. Python prints `1.0` where JavaScript's numbers say `1`:
 * a caller's `PyFloat` (a float literal in the JSON it sent) becomes the evaluator's
 * `PyFloatValue`, which the compiled evaluator prints as Python does, and which the library's
 * interpreter gets as its own float value (its conversion knows only JS numbers, so the
 * environment hands such input to `runtimeValue` here; see message-values.ts).
 *
 * Containers that hold one are remembered, so input without any — nearly all of it — is
 * converted by the library as before, with no extra walk.
 */
import { PyFloat } from "../../text/py-json.ts";
import { PyFloatValue } from "./template/values.ts";

type Value = { type: string; value?: unknown };

const HOLDS = new WeakSet<object>();

/** Plain template input: PyFloat → PyFloatValue when integral (else its number), bigint → number. */
export function plainValue(x: unknown): unknown {
  if (x instanceof PyFloat) return Number.isInteger(x.value) ? new PyFloatValue(x.value) : x.value;
  if (typeof x === "bigint") return Number(x);
  if (x === null || typeof x !== "object" || x instanceof PyFloatValue) return x;
  let holds = false;
  let out: unknown[] | Record<string, unknown>;
  if (Array.isArray(x)) {
    out = x.map((v) => {
      const p = plainValue(v);
      holds ||= holdsFloats(p);
      return p;
    });
  } else {
    const o: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) {
      o[k] = plainValue(v);
      holds ||= holdsFloats(o[k]);
    }
    out = o;
  }
  if (holds) HOLDS.add(out);
  return out;
}

/** Marks a container that a PyFloatValue was put into after `plainValue` made it. */
export function markHolding(container: object): void {
  HOLDS.add(container);
}

/** Whether `x` is, or holds, an integral float. */
export function holdsFloats(x: unknown): boolean {
  return x instanceof PyFloatValue || (x !== null && typeof x === "object" && HOLDS.has(x));
}

/**
 * The library's runtime value of input holding integral floats: its own conversion for every
 * part without one (`convert`), its float value for each PyFloatValue.
 */
export function runtimeValue(x: unknown, convert: (plain: unknown) => Value): Value {
  if (!holdsFloats(x)) return convert(x);
  const ctor = (probe: unknown) => convert(probe).constructor as new (v: unknown) => Value;
  if (x instanceof PyFloatValue) return new (ctor(0.5))(x.v);
  if (Array.isArray(x)) return new (ctor([]))(x.map((v) => runtimeValue(v, convert)));
  const map = new Map(Object.entries(x as object).map(([k, v]) => [k, runtimeValue(v, convert)]));
  return new (ctor({}))(map);
}
