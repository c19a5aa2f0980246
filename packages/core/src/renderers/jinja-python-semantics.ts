/**
 * Python semantics for `@huggingface/jinja` where it differs from Jinja2 in ways that change
 * real templates' text (HF renders with Python Jinja2):
 * - `strip`/`lstrip`/`rstrip` ignore the `chars` argument (`content.lstrip('\n')` strips spaces
 *   too, which breaks Qwen3's template); patched to honour `chars` like Python.
 * - `{{ none }}` prints nothing; Jinja2 prints `None` (e.g. a tool message with null content).
 * Patched once, on the library's own classes (the string value class is not exported, so it is
 * reached through a value the library creates).
 */
import { Environment, Interpreter } from "@huggingface/jinja";
import { pyLstrip, pyRstrip, pyStrip } from "../text/python-str.ts";

type RuntimeFn = (args: { value: unknown }[]) => unknown;

let patched = false;

export function patchJinjaPythonSemantics(): void {
  if (patched) return;
  patched = true;
  const env = new Environment();
  env.set("probe", "x");
  const probe = env.lookupVariable("probe") as unknown as { builtins: Map<string, unknown> };
  const proto = Object.getPrototypeOf(probe);
  const desc = Object.getOwnPropertyDescriptor(proto, "builtins");
  const original = desc?.get;
  const sample = probe.builtins.get("strip") as { constructor: new (fn: RuntimeFn) => unknown } | undefined;
  if (!original || !sample) return; // library changed shape: leave it alone
  const FunctionValue = sample.constructor;
  const StringValue = proto.constructor as new (s: string) => unknown;
  Object.defineProperty(proto, "builtins", {
    configurable: true,
    get(this: { value: string; _pyPatched?: boolean }) {
      const map = original.call(this) as Map<string, unknown>;
      if (!this._pyPatched) {
        this._pyPatched = true;
        const wrap = (name: string, fn: (s: string, chars?: string) => string) => {
          const base = map.get(name);
          map.set(
            name,
            new FunctionValue((args) => {
              const chars = args[0]?.value;
              if (typeof chars !== "string") return (base as { value: RuntimeFn }).value(args);
              return new StringValue(fn(this.value, chars));
            }),
          );
        };
        wrap("strip", pyStrip);
        wrap("lstrip", pyLstrip);
        wrap("rstrip", pyRstrip);
      }
      return map;
    },
  });
  patchNonePrinting(StringValue);
}

type Evaluated = { type: string; toString(): string };
type InterpreterProto = {
  evaluate(node: unknown, env: unknown): Evaluated;
  evaluateBlock(statements: { type: string }[], env: unknown): unknown;
};

/** Statement nodes legitimately evaluate to null (no output); only expressions print `None`. */
const STATEMENTS = new Set([
  "Set",
  "If",
  "For",
  "Macro",
  "Comment",
  "Break",
  "Continue",
  "FilterStatement",
  "CallStatement",
]);

/** Output blocks print a null expression value as Python's `None` (undefined still prints nothing). */
function patchNonePrinting(StringValue: new (s: string) => unknown): void {
  const proto = Interpreter.prototype as unknown as InterpreterProto;
  if (typeof proto.evaluateBlock !== "function" || typeof proto.evaluate !== "function") return;
  proto.evaluateBlock = function (this: InterpreterProto, statements, env) {
    let result = "";
    for (const statement of statements) {
      const v = this.evaluate(statement, env);
      if (v.type === "NullValue") {
        if (!STATEMENTS.has(statement.type)) result += "None";
      } else if (v.type !== "UndefinedValue") result += v.toString();
    }
    return new StringValue(result);
  };
}
