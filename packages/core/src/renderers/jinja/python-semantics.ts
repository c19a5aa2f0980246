/**
 * Python semantics for `@huggingface/jinja` where it differs from Jinja2 in ways that change
 * real templates' text (HF renders with Python Jinja2):
 * - `strip`/`lstrip`/`rstrip` ignore the `chars` argument (`content.lstrip('\n')` strips spaces
 *   too, which breaks Qwen3's template), and strip JavaScript's whitespace (U+FEFF yes, U+001C–
 *   U+001F and U+0085 no); `split`, `title`, `capitalize`, `trim`, `length` differ likewise;
 *   values print as JSON and booleans as `true` (`python-values.ts` has the Python forms).
 * - `{{ none }}` prints nothing; Jinja2 prints `None` (e.g. a tool message with null content).
 * Patched once, on the library's own classes (the string value class is not exported, so it is
 * reached through a value the library creates). The patch touches private internals, so before
 * patching it checks that the library still has the shape it patches, and after patching that
 * the patched behaviour is there; either failing throws — a library upgrade must not silently
 * change token ids.
 */
import * as jinja from "@huggingface/jinja";
import {
  patchPythonTests,
  patchPythonValues,
  pythonStringMethods,
  type RuntimeClasses,
  type RuntimeValue,
} from "./python-values.ts";

type RuntimeFn = (args: { value: unknown }[]) => unknown;

/** The parts of the library this module patches; a test passes a changed copy. */
export interface JinjaLibrary {
  Environment: new () => {
    set(name: string, value: unknown): unknown;
    lookupVariable(name: string): unknown;
  };
  Interpreter: { prototype: object };
  Template: new (source: string) => { render(items?: Record<string, unknown>): string };
}

/** Hooks the generic renderer installs around one render (see `attribution.ts`). */
export interface RenderTracker {
  /** Called when the interpreter starts a program, with its global scope. */
  onRun(global: unknown): void;
  /** Called with each evaluated block's output; returns the output to use. */
  onBlock(statements: unknown, scope: unknown, output: string): string;
  /** Called when a for loop starts and ends. */
  onFor(node: unknown, phase: "start" | "end", output?: string): string | undefined;
  /** Evaluates a for loop in place of the library (`fallback` is the library's own evaluation). */
  evaluateFor?(interp: unknown, node: unknown, env: unknown, fallback: () => Evaluated): Evaluated;
}

let activeTracker: RenderTracker | null = null;

/** Runs `fn` with `tracker` receiving the interpreter hooks (renders are synchronous). */
export function withRenderTracker<T>(tracker: RenderTracker, fn: () => T): T {
  const prev = activeTracker;
  activeTracker = tracker;
  try {
    return fn();
  } finally {
    activeTracker = prev;
  }
}

const patchedLibs = new WeakSet<object>();

export class JinjaShapeError extends Error {}

function shapeError(what: string): never {
  throw new JinjaShapeError(
    `@huggingface/jinja no longer has the shape envroll patches for Python semantics (${what}); ` +
      "pin the version envroll was tested with (see packages/core/package.json)",
  );
}

export function patchJinjaPythonSemantics(lib: JinjaLibrary = jinja as unknown as JinjaLibrary): void {
  if (patchedLibs.has(lib)) return;
  if (typeof lib.Environment !== "function" || typeof lib.Template !== "function") shapeError("exports");
  const env = new lib.Environment();
  env.set("probe", "x");
  const probe = env.lookupVariable("probe") as
    | { builtins?: Map<string, unknown>; value?: unknown }
    | undefined;
  if (!probe || probe.value !== "x") shapeError("string values");
  const proto = Object.getPrototypeOf(probe);
  const desc = Object.getOwnPropertyDescriptor(proto, "builtins");
  const original = desc?.get;
  if (!original) shapeError("StringValue.builtins getter");
  const builtins = original.call(probe) as unknown;
  if (!(builtins instanceof Map)) shapeError("StringValue.builtins map");
  const sample = builtins.get("strip") as { constructor: new (fn: RuntimeFn) => unknown; value?: unknown };
  if (!sample || typeof sample.value !== "function") shapeError("strip builtin");
  const interp = lib.Interpreter?.prototype as Partial<InterpreterProto> | undefined;
  for (const m of ["evaluate", "evaluateBlock", "evaluateFor", "run"] as const) {
    if (typeof interp?.[m] !== "function") shapeError(`Interpreter.${m}`);
  }
  const StringValue = proto.constructor as new (s: string) => unknown;
  const classes = runtimeClasses(lib, sample.constructor as RuntimeClasses["FunctionValue"]);
  Object.defineProperty(proto, "builtins", {
    configurable: true,
    get(this: { value: string; _pyPatched?: boolean }) {
      const map = original.call(this) as Map<string, unknown>;
      if (!this._pyPatched) {
        this._pyPatched = true;
        pythonStringMethods(this.value, map, classes);
      }
      return map;
    },
  });
  for (const m of ["applyFilter", "evaluateBinaryExpression", "evaluateArguments"] as const)
    if (typeof (interp as Record<string, unknown>)[m] !== "function") shapeError(`Interpreter.${m}`);
  patchPythonValues(interp as object, classes);
  patchInterpreter(interp as InterpreterProto, StringValue);
  patchedLibs.add(lib);
  verifyPatched(lib);
}

/** The library's value classes, from values it makes (they are not exported). */
function runtimeClasses(lib: JinjaLibrary, FunctionValue: RuntimeClasses["FunctionValue"]): RuntimeClasses {
  const env = new lib.Environment();
  const probes: Record<string, unknown> = { s: "", i: 1, b: true, f: 1.5, a: [], o: { k: 1 } };
  const got: Record<string, RuntimeValue> = {};
  for (const [name, value] of Object.entries(probes)) {
    env.set(name, value);
    got[name] = env.lookupVariable(name) as RuntimeValue;
  }
  const want = {
    s: "StringValue",
    i: "IntegerValue",
    b: "BooleanValue",
    f: "FloatValue",
    a: "ArrayValue",
    o: "ObjectValue",
  };
  for (const [name, type] of Object.entries(want)) if (got[name]?.type !== type) shapeError(`${type} probe`);
  const ctor = (v: RuntimeValue) => (v as object).constructor as new (x: unknown) => RuntimeValue;
  return {
    StringValue: ctor(got.s!),
    IntegerValue: ctor(got.i!),
    BooleanValue: ctor(got.b!),
    ArrayValue: ctor(got.a!),
    FunctionValue,
    printed: [got.b!, got.f!, got.a!, got.o!].map((v) => Object.getPrototypeOf(v) as object),
  };
}

/** The patched behaviour, checked once on the real library. */
function verifyPatched(lib: JinjaLibrary): void {
  const probe =
    '{{ "\\nxhi x\\n".strip("\\n") }}|{{ none }}|{{ x }}|{{ w.strip() }}|{{ [true, 1.0, "a"] }}|' +
    '{{ {"k": 2.5} | tojson }}|{{ w.split() | length }}|{{ "ab cd" | title }}|{{ 1 ~ none }}';
  const got = new lib.Template(probe).render({ x: null, w: "\u001c\u0085a\ufeff\u3000" });
  const want = "xhi x|None|None|a\ufeff|[True, 1.0, 'a']|{\"k\": 2.5}|1|Ab Cd|1None";
  if (got !== want) shapeError(`patched probe rendered ${JSON.stringify(got)}`);
}

type Evaluated = { type: string; value?: unknown; toString(): string };
type InterpreterProto = {
  evaluate(node: unknown, env: unknown): Evaluated;
  evaluateBlock(statements: { type: string }[], env: unknown): Evaluated;
  evaluateFor(node: unknown, env: unknown): Evaluated;
  run(program: unknown): Evaluated;
  global?: unknown;
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

/**
 * Output blocks print a null expression value as Python's `None` (undefined still prints
 * nothing), and the render tracker, when one is active, sees every block and loop.
 */
function patchInterpreter(proto: InterpreterProto, StringValue: new (s: string) => unknown): void {
  proto.evaluateBlock = function (this: InterpreterProto, statements, env) {
    let result = "";
    for (const statement of statements) {
      const v = this.evaluate(statement, env);
      if (v.type === "NullValue") {
        if (!STATEMENTS.has(statement.type)) result += "None";
      } else if (v.type !== "UndefinedValue") result += v.toString();
    }
    if (activeTracker) result = activeTracker.onBlock(statements, env, result);
    return new StringValue(result) as Evaluated;
  };
  const evaluateFor = proto.evaluateFor;
  proto.evaluateFor = function (this: InterpreterProto, node, env) {
    const tracker = activeTracker;
    if (!tracker) return evaluateFor.call(this, node, env);
    tracker.onFor(node, "start");
    const library = () => evaluateFor.call(this, node, env);
    const out = tracker.evaluateFor ? tracker.evaluateFor(this, node, env, library) : library();
    const replaced = tracker.onFor(node, "end", String(out.value ?? ""));
    return replaced === undefined ? out : (new StringValue(replaced) as Evaluated);
  };
  const run = proto.run;
  proto.run = function (this: InterpreterProto, program) {
    const tests = (this.global as { tests?: unknown } | undefined)?.tests;
    if (tests instanceof Map) patchPythonTests(tests);
    activeTracker?.onRun(this.global);
    return run.call(this, program);
  };
}
