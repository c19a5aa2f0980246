/**
 * Incremental evaluation of a chat template's message loops: a render records, for every `for`
 * loop whose body `loop-shape.ts` can describe, each iteration's output and the state it
 * left (the loop scope's variables, the attributes of the namespaces it writes); the next render
 * of the same conversation grown by a few messages replays the longest prefix of iterations
 * whose inputs are unchanged and interprets only the rest.
 *
 * Why a replay is exact: the interpreter is deterministic and a body observes state only through
 * the names it looks up. An iteration is replayed only when (1) every name the body can read had
 * the same value (fingerprint) at loop entry as when recorded, (2) every item up to it is the
 * same message at the same index, and (3) every `loop` field the body can read (`last`,
 * `length`, `nextitem`, …) has the same value — so by induction each replayed iteration starts
 * from the recorded state and writes the recorded output and state. Values that cannot be
 * fingerprinted (functions other than the built-in `raise_exception`/`range`, unknown types)
 * make the loop evaluate in full, as does anything `loopShape` refuses.
 */
import * as jinja from "@huggingface/jinja";
import { loopShape, type Node } from "./loop-shape.ts";

type Value = { type: string; value?: unknown };
type Env = { parent?: Env; variables: Map<string, Value>; setVariable(n: string, v: Value): Value };
export type Interp = {
  evaluate(node: unknown, env: Env): Value;
  evaluateBlock(statements: unknown, env: Env): Value;
};

interface IterationRecord {
  /** The item itself (a message's runtime value is kept across renders: identity is equality). */
  value: Value;
  /** The item's message index (-1: not a caller message) and fingerprint (a message's: once asked). */
  index: number;
  item: string | null | undefined;
  /** Fingerprints of the `loop` fields the body can read. */
  fields: string;
  /** Output of iterations 0..j, concatenated. */
  out: string;
  /** Whether the render tracker had marked a message in iterations 0..j. */
  marked: boolean;
  /** The loop scope's variables after the iteration (loop variable, `loop`, `namespace` excluded). */
  vars: [string, Value][];
  /** Attributes of each namespace the body writes, after the iteration (LoopShape order). */
  namespaces: Map<string, Value>[];
}

interface LoopRecord {
  entry: string;
  iterations: IterationRecord[];
}

/** A render's loop records, by For node, one per evaluation of that node in the render. */
export type LoopRecords = Map<object, LoopRecord[]>;

export interface MemoHooks {
  /** Index among the caller's messages of a value that is one (else -1). */
  messageIndex(v: unknown): number;
  /** Fingerprint of the caller's message k (`fingerprintValue` of its value, cached). */
  messageFingerprint(k: number): string | null;
  isMarked(): boolean;
  setMarked(): void;
}

const ALL_FIELDS = [
  "index",
  "index0",
  "revindex",
  "revindex0",
  "first",
  "last",
  "length",
  "previtem",
  "nextitem",
];
/** Fields fixed by the iteration's position and the items before it (matched before it). */
const PREFIX_FIELDS = new Set(["index", "index0", "first", "previtem"]);
/** Built-ins that read nothing but their arguments. */
const PURE_FUNCTIONS = new Set(["raise_exception", "range"]);

let classes: {
  Environment: new (parent?: Env) => Env;
  StringValue: new (s: string) => Value;
  ObjectValue: new (m: Map<string, Value>) => Value;
  IntegerValue: new (n: number) => Value;
  BooleanValue: new (b: boolean) => Value;
  UndefinedValue: new () => Value;
} | null = null;

/**
 * Whether the library's own loops look as this module re-creates them (the same `loop` fields,
 * loop-body assignments kept in the loop's scope): checked once on the real library; a
 * different version makes every loop run through the library instead of the memo.
 */
let libraryShapeOk: boolean | null = null;

function libraryMatches(): boolean {
  if (libraryShapeOk === null) {
    const probe = "{% for x in [1, 2] %}{{ loop.keys() | join(',') }};{% set y = x %}{% endfor %}{{ y }}";
    const fields = ALL_FIELDS.join(",");
    try {
      libraryShapeOk = new jinja.Template(probe).render({}) === `${fields};${fields};`;
    } catch {
      libraryShapeOk = false;
    }
  }
  return libraryShapeOk;
}

/** The library's value classes (only Environment is exported; the rest through values it makes). */
function lib(): NonNullable<typeof classes> {
  if (classes) return classes;
  const Environment = jinja.Environment as unknown as new (
    parent?: Env,
  ) => Env & { set(n: string, v: unknown): Value };
  const env = new Environment();
  const ctor = (v: unknown) => (v as { constructor: unknown }).constructor as never;
  classes = {
    Environment,
    StringValue: ctor(env.set("s", "")),
    ObjectValue: ctor(env.set("o", {})),
    IntegerValue: ctor(env.set("i", 1)),
    BooleanValue: ctor(env.set("b", true)),
    UndefinedValue: ctor(env.set("u", undefined)),
  };
  return classes;
}

function lookup(env: Env | undefined, name: string): Value | undefined {
  for (let e = env; e; e = e.parent) {
    const v = e.variables.get(name);
    if (v !== undefined || e.variables.has(name)) return v;
  }
  return undefined;
}

function rootOf(env: Env): Env {
  let e = env;
  while (e.parent) e = e.parent;
  return e;
}

export class LoopMemo {
  readonly recorded: LoopRecords = new Map();
  /** Iterations replayed from the previous records / interpreted, in this render. */
  replayed = 0;
  evaluated = 0;

  constructor(
    private readonly previous: LoopRecords | null,
    private readonly hooks: MemoHooks,
    /** Names the template itself assigns or defines anywhere (they shadow built-ins). */
    private readonly defined: ReadonlySet<string>,
  ) {}

  evaluateFor(interp: Interp, node: Node, env: Env, fallback: () => Value): Value {
    const shape = libraryMatches() ? loopShape(node) : null;
    if (!shape) return fallback();
    const { Environment, StringValue, ObjectValue, IntegerValue, BooleanValue, UndefinedValue } = lib();
    const scope = new Environment(env);
    const iterable = interp.evaluate(node.iterable, scope);
    if (iterable.type !== "ArrayValue" && iterable.type !== "TupleValue") return fallback();
    const items = iterable.value as Value[];
    if (items.length === 0) return fallback();
    const entry = this.entryFingerprint(shape.reads, shape.namespaces, env);
    if (entry === null) return fallback();
    const namespaces = shape.namespaces.map((n) => lookup(env, n)!);

    const records = this.recorded.get(node) ?? [];
    this.recorded.set(node, records);
    const previous = this.previous?.get(node)?.[records.length];
    const record: LoopRecord = { entry, iterations: [] };
    records.push(record);

    const fields = shape.loopFields === "all" ? ALL_FIELDS : shape.loopFields;
    const n = items.length;
    const indexOf = (j: number) => this.hooks.messageIndex(items[j]);
    const itemFp = (j: number): string | null => {
      if (j < 0 || j >= n) return "U";
      const k = indexOf(j);
      return k >= 0 ? this.hooks.messageFingerprint(k) : fingerprintValue(items[j]!, this.hooks);
    };
    const fieldsFp = (j: number): string | null => {
      let out = "";
      for (const f of fields) {
        const fp = fieldFingerprint(f, j, n, itemFp);
        if (fp === null) return null;
        out += `${fp.length}:${fp}`;
      }
      return out;
    };
    const positional = fields.every((f) => PREFIX_FIELDS.has(f));
    const matches = (j: number, r: IterationRecord): boolean => {
      if (r.value === items[j] && positional) return true;
      if (r.index !== indexOf(j)) return false;
      if (r.item === undefined) r.item = fingerprintValue(r.value);
      return r.item !== null && r.item === itemFp(j) && r.fields === fieldsFp(j);
    };

    let result = "";
    let start = 0;
    if (previous && previous.entry === entry) {
      const limit = Math.min(n, previous.iterations.length);
      while (start < limit && matches(start, previous.iterations[start]!)) start++;
    }
    if (start > 0) {
      const last = previous!.iterations[start - 1]!;
      for (const [name, v] of last.vars) scope.setVariable(name, v);
      namespaces.forEach((ns, i) => {
        const map = ns.value as Map<string, Value>;
        map.clear();
        for (const [k, v] of last.namespaces[i]!) map.set(k, v);
      });
      result = last.out;
      if (last.marked) this.hooks.setMarked();
      record.iterations = previous!.iterations.slice(0, start);
      this.replayed += start;
    }
    const loopvar = (node.loopvar as { value: string }).value;
    let recording = true;
    for (let j = start; j < n; j++) {
      // The library's own loop object and scope updates (runtime.ts evaluateFor).
      const loop = new Map<string, Value>([
        ["index", new IntegerValue(j + 1)],
        ["index0", new IntegerValue(j)],
        ["revindex", new IntegerValue(n - j)],
        ["revindex0", new IntegerValue(n - j - 1)],
        ["first", new BooleanValue(j === 0)],
        ["last", new BooleanValue(j === n - 1)],
        ["length", new IntegerValue(n)],
        ["previtem", j > 0 ? items[j - 1]! : new UndefinedValue()],
        ["nextitem", j < n - 1 ? items[j + 1]! : new UndefinedValue()],
      ]);
      scope.setVariable("loop", new ObjectValue(loop));
      scope.setVariable(loopvar, items[j]!);
      result += interp.evaluateBlock(node.body, scope).value as string;
      this.evaluated++;
      // An item (or a neighbour the body reads) that cannot be fingerprinted ends the record:
      // later iterations could not be matched to it.
      // A message's fingerprint waits until a later render cannot match it by identity.
      const index = indexOf(j);
      const item = !recording ? null : index >= 0 ? undefined : itemFp(j);
      const fieldFps = item === null ? null : fieldsFp(j);
      if (item === null || fieldFps === null) {
        recording = false;
        continue;
      }
      const vars: [string, Value][] = [];
      for (const [name, v] of scope.variables)
        if (name !== "loop" && name !== loopvar && name !== "namespace") vars.push([name, v]);
      record.iterations.push({
        value: items[j]!,
        index,
        item,
        fields: fieldFps,
        out: result,
        marked: this.hooks.isMarked(),
        vars,
        namespaces: namespaces.map((ns) => new Map(ns.value as Map<string, Value>)),
      });
    }
    return new StringValue(result);
  }

  /** One fingerprint of every name the body can read, as bound where the loop starts. */
  private entryFingerprint(reads: readonly string[], written: readonly string[], env: Env): string | null {
    let out = "";
    const root = rootOf(env);
    for (const name of reads) {
      const v = lookup(env, name);
      if (v?.type === "FunctionValue") {
        if (!PURE_FUNCTIONS.has(name) || this.defined.has(name) || root.variables.get(name) !== v)
          return null;
        out += `${name}=fn;`;
        continue;
      }
      // A body that reads a list of the caller's messages (the whole conversation, typically)
      // sees it change every turn: not worth fingerprinting, the loop runs in the library.
      if ((v?.type === "ArrayValue" || v?.type === "TupleValue") && holdsMessages(v, this.hooks)) return null;
      const fp = v === undefined ? "U" : fingerprintValue(v, this.hooks);
      if (fp === null) return null;
      out += `${name.length}:${name}=${fp}`;
    }
    for (const name of written) if (lookup(env, name)?.type !== "NamespaceValue") return null;
    return out;
  }
}

/**
 * An injective string for a runtime value (null: not fingerprintable); a caller's message
 * nested in it is named by its index and fingerprint.
 */
export function fingerprintValue(
  v: Value,
  hooks?: Pick<MemoHooks, "messageIndex" | "messageFingerprint">,
): string | null {
  switch (v.type) {
    case "StringValue": {
      const s = v.value as string;
      return `s${s.length}:${s}`;
    }
    case "IntegerValue":
      return `i${v.value};`;
    case "FloatValue":
      return `f${v.value};`;
    case "BooleanValue":
      return v.value ? "T" : "F";
    case "NullValue":
      return "N";
    case "UndefinedValue":
      return "U";
    case "ArrayValue":
    case "TupleValue": {
      let out = v.type === "ArrayValue" ? "[" : "(";
      for (const x of v.value as Value[]) {
        const fp = fingerprintValue(x, hooks);
        if (fp === null) return null;
        out += fp;
      }
      return `${out}]`;
    }
    case "ObjectValue":
    case "KeywordArgumentsValue":
    case "NamespaceValue": {
      const k = hooks && v.type === "ObjectValue" ? hooks.messageIndex(v) : -1;
      if (k >= 0) {
        const message = hooks!.messageFingerprint(k);
        return message === null ? null : `m${k}:${message.length}:${message}`;
      }
      let out = v.type === "NamespaceValue" ? "n{" : v.type === "ObjectValue" ? "{" : "k{";
      for (const [key, x] of v.value as Map<string, Value>) {
        const fp = fingerprintValue(x, hooks);
        if (fp === null) return null;
        out += `${key.length}:${key}${fp}`;
      }
      return `${out}}`;
    }
    default:
      return null;
  }
}

function holdsMessages(v: Value, hooks: MemoHooks): boolean {
  const items = v.value as Value[];
  return items.length > 0 && (hooks.messageIndex(items[0]) >= 0 || hooks.messageIndex(items.at(-1)) >= 0);
}

function fieldFingerprint(
  field: string,
  j: number,
  n: number,
  item: (j: number) => string | null,
): string | null {
  switch (field) {
    case "index":
      return `${j + 1}`;
    case "index0":
      return `${j}`;
    case "revindex":
      return `${n - j}`;
    case "revindex0":
      return `${n - j - 1}`;
    case "first":
      return j === 0 ? "T" : "F";
    case "last":
      return j === n - 1 ? "T" : "F";
    case "length":
      return `${n}`;
    case "previtem":
      return item(j - 1);
    case "nextitem":
      return item(j + 1);
    default:
      // The library's loop object has no other field: the body reads undefined.
      return "U";
  }
}
