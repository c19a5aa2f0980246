/**
 * The template's view of the caller's messages, built once per message and kept with the
 * prompt, so that a bridge does not convert and fingerprint the whole history every turn.
 *
 * `@huggingface/jinja` converts every render's variables into its runtime values (a fresh
 * object per value). A message's runtime value is made once here, from the same plain JSON the
 * template would otherwise get, and reused for the same message at the same position in later
 * renders of the conversation — after checking, value by value, that the caller's message
 * still equals it (a caller may build new objects or change one in place; either is seen).
 * The template receives the prebuilt list through `Environment.set`, patched to pass such a
 * list through as-is; any other value is converted by the library as before.
 */
import * as jinja from "@huggingface/jinja";
import { PyFloat } from "../../text/py-json.ts";
import { MARKER_CHARS } from "./attribution.ts";
import { holdsFloats, runtimeValue } from "./float-values.ts";
import { PyFloatValue } from "./template/values.ts";

type Value = { type: string; value?: unknown };

export interface MessageValue {
  /** The runtime value of a caller's message, as the library would convert it. */
  readonly value: Value;
  /** The message's position (a value is only ever reused at the position it was made for). */
  readonly index: number;
  /** Whether its JSON holds the attribution marker characters (the marked render refuses it). */
  readonly hasMarker: boolean;
  /** Its fingerprint for the loop memo, once asked for. */
  fingerprint?: string | null;
}

/** A list of runtime values handed to the template unconverted (see `Environment.set`). */
class Prebuilt {
  constructor(readonly value: Value) {}
}

type EnvCtor = new () => {
  set(name: string, value: unknown): Value;
  declareVariable?(n: string, v: Value): Value;
};

let arrayValue: (new (items: Value[]) => Value) | null = null;

/**
 * Installs the pass-through once (and the conversion of integral floats, float-values.ts);
 * checks the library still has the method it patches.
 */
export function patchEnvironment(): NonNullable<typeof arrayValue> {
  if (arrayValue) return arrayValue;
  const Env = jinja.Environment as unknown as EnvCtor & { prototype: Record<string, unknown> };
  const proto = Env.prototype as {
    set(this: unknown, name: string, value: unknown): Value;
    declareVariable?(name: string, value: Value): Value;
  };
  const set = proto.set;
  if (typeof set !== "function" || typeof proto.declareVariable !== "function")
    throw new Error("@huggingface/jinja: Environment.set/declareVariable changed; pin the tested version");
  const plainConvert = (plain: unknown): Value => set.call(new Env(), "v", plain);
  proto.set = function (this: { declareVariable(n: string, v: Value): Value }, name, value) {
    if (value instanceof Prebuilt) return this.declareVariable(name, value.value);
    if (holdsFloats(value) || (Array.isArray(value) && value.some(holdsFloats)))
      return this.declareVariable(name, runtimeValue(value, plainConvert));
    return set.call(this, name, value);
  };
  arrayValue = (new Env().set("probe", []) as unknown as { constructor: never }).constructor;
  return arrayValue;
}

/** The runtime value the library makes of a plain JSON value. */
function convert(plain: unknown): Value {
  patchEnvironment();
  return new (jinja.Environment as unknown as EnvCtor)().set("v", plain);
}

/** The MessageValue each prebuilt runtime value belongs to. */
const owners = new WeakMap<object, MessageValue>();

/** The position of `v` in `values` when it is one of their runtime values, else -1. */
export function indexIn(values: readonly MessageValue[], v: unknown): number {
  const m = v !== null && typeof v === "object" ? owners.get(v) : undefined;
  return m !== undefined && values[m.index] === m ? m.index : -1;
}

/** True when `x` (a caller value) is what `v` was converted from (toPlain, then the library). */
function same(x: unknown, v: Value): boolean {
  if (typeof x === "string") return v.type === "StringValue" && v.value === x;
  if (x instanceof PyFloatValue) return v.type === "FloatValue" && Object.is(v.value, x.v);
  if (x instanceof PyFloat) x = x.value;
  else if (typeof x === "bigint") x = Number(x);
  switch (typeof x) {
    case "string":
      return v.type === "StringValue" && v.value === x;
    case "number":
      return (
        (v.type === "IntegerValue" || v.type === "FloatValue") &&
        Object.is(v.value, x) &&
        (v.type === "IntegerValue") === Number.isInteger(x)
      );
    case "boolean":
      return v.type === "BooleanValue" && v.value === x;
    case "undefined":
      return v.type === "UndefinedValue";
    case "object": {
      if (x === null) return v.type === "NullValue";
      if (Array.isArray(x)) {
        const items = v.value as Value[];
        if (v.type !== "ArrayValue" || items.length !== x.length) return false;
        for (let i = 0; i < x.length; i++) if (!same(x[i], items[i]!)) return false;
        return true;
      }
      if (v.type !== "ObjectValue" || Object.getPrototypeOf(x) !== Object.prototype) return false;
      const map = v.value as Map<string, Value>;
      const keys = Object.keys(x);
      if (keys.length !== map.size) return false;
      for (let i = 0; i < keys.length; i++) {
        const got = map.get(keys[i]!);
        if (got === undefined || !same((x as Record<string, unknown>)[keys[i]!], got)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/**
 * The runtime values of `messages`, reusing `previous[i]` where message i is unchanged;
 * `toPlain` is the renderer's conversion to plain JSON.
 */
export function messageValues(
  messages: readonly unknown[],
  previous: readonly MessageValue[] | null,
  toPlain: (x: unknown) => unknown,
): MessageValue[] {
  const out: (MessageValue | null)[] = [];
  const fresh: number[] = [];
  const plains: unknown[] = [];
  for (let i = 0; i < messages.length; i++) {
    const old = previous?.[i];
    // A message with tool calls is compared in the form the template got (the conversion
    // rewrites envroll's flat calls into the wire form); others as the caller gave them.
    const m = messages[i] as { tool_calls?: unknown } | null;
    const probe = old && Array.isArray(m?.tool_calls) ? toPlain(m) : m;
    if (old && same(probe, old.value)) {
      out.push(old);
      continue;
    }
    out.push(null);
    fresh.push(i);
    plains.push(toPlain(messages[i]));
  }
  if (fresh.length > 0) {
    // One conversion for all new messages (as the library converts the whole list).
    const values = convert(plains).value as Value[];
    fresh.forEach((i, j) => {
      const made: MessageValue = {
        value: values[j]!,
        index: i,
        hasMarker: MARKER_CHARS.test(JSON.stringify(plains[j]) ?? ""),
      };
      owners.set(made.value, made);
      out[i] = made;
    });
  }
  return out as MessageValue[];
}

/** The template variable for a message list: the prebuilt values, passed through unconverted. */
export function messagesVariable(values: readonly MessageValue[]): unknown {
  const ArrayValue = patchEnvironment();
  return new Prebuilt(new ArrayValue(values.map((v) => v.value)));
}
