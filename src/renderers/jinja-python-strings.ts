/**
 * Python string semantics for `@huggingface/jinja`: its `strip`/`lstrip`/`rstrip` ignore the
 * `chars` argument (`content.lstrip('\n')` strips spaces too), which changes the rendered text of
 * real templates such as Qwen3's. This patches the three methods on the library's string value
 * class, once, to honour `chars` like Python; the no-argument form keeps the library behaviour.
 *
 * The class is not exported, so it is reached through a value the library itself creates.
 */
import { Environment } from "@huggingface/jinja";
import { pyLstrip, pyRstrip, pyStrip } from "./py-str.ts";

type RuntimeFn = (args: { value: unknown }[]) => unknown;

let patched = false;

export function patchJinjaPythonStrings(): void {
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
}
