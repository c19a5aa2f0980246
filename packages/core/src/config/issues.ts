/**
 * Turns zod issues into one readable ConfigError: every line names the dotted key path and
 * what was found there, e.g. `retries.rollout.max_retries: expected a whole number ≥ 0, got "3x"`.
 * Unknown keys get a did-you-mean from the schema's own keys when one is close.
 */
import type { z } from "zod";
import { ConfigError } from "../errors.ts";

type Issue = z.core.$ZodIssue;

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const k of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

function show(v: unknown): string {
  if (v === undefined) return "nothing";
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** Inner schema of wrappers (default/optional/nullable/pipe/lazy) so object shapes can be read. */
function unwrap(s: any): any {
  for (let i = 0; i < 10 && s; i++) {
    const def = s._zod?.def;
    if (!def) return s;
    if (def.innerType) s = def.innerType;
    else if (def.type === "pipe") s = def.in;
    else if (def.type === "lazy") s = def.getter();
    else return s;
  }
  return s;
}

function keysAt(schema: unknown, path: readonly PropertyKey[]): string[] {
  let s = unwrap(schema);
  for (const k of path) {
    const shape = s?._zod?.def?.shape;
    if (!shape || typeof k !== "string") return [];
    s = unwrap(shape[k]);
  }
  const shape = s?._zod?.def?.shape;
  return shape ? Object.keys(shape) : [];
}

function distance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = d[j]!;
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return d[b.length]!;
}

export function didYouMean(key: string, candidates: readonly string[]): string {
  let best: string | null = null;
  let bestD = Math.max(2, Math.floor(key.length / 3)) + 1;
  for (const c of candidates) {
    const dist = distance(key, c);
    if (dist < bestD) {
      best = c;
      bestD = dist;
    }
  }
  return best ? ` (did you mean "${best}"?)` : "";
}

const join = (prefix: string, path: readonly PropertyKey[]) =>
  [prefix, ...path.map(String)].filter((p) => p !== "").join(".") || "(top level)";

function describe(
  issue: Issue,
  input: unknown,
  schema: unknown,
  prefix: string,
  extraKeys: readonly string[],
): string[] {
  const where = join(prefix, issue.path);
  const got = `, got ${show(valueAt(input, issue.path))}`;
  const generic = issue.message.startsWith("Invalid input") || issue.message.startsWith("Too ");
  switch (issue.code) {
    case "unrecognized_keys": {
      const known = [...keysAt(schema, issue.path), ...(issue.path.length === 0 ? extraKeys : [])];
      return issue.keys.map((k) => `${join(prefix, [...issue.path, k])}: unknown key${didYouMean(k, known)}`);
    }
    case "invalid_type":
      return [`${where}: ${generic ? `expected ${issue.expected}` : issue.message}${got}`];
    case "invalid_union": {
      const opts = (issue as { options?: unknown[] }).options;
      if (opts) return [`${where}: expected one of ${opts.map((o) => JSON.stringify(o)).join(", ")}${got}`];
      return [`${where}: ${issue.message}${got}`];
    }
    case "invalid_value":
      return [`${where}: expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}${got}`];
    case "too_small":
    case "too_big": {
      const bound = issue.code === "too_small" ? `≥ ${issue.minimum}` : `≤ ${issue.maximum}`;
      const text = generic ? `expected ${issue.origin === "array" ? "length " : ""}${bound}` : issue.message;
      return [`${where}: ${text}${got}`];
    }
    default:
      return [`${where}: ${issue.message}${got}`];
  }
}

/** One ConfigError listing every issue; `prefix` places a sub-schema's issues (e.g. "taskset"). */
export function configErrorFromIssues(
  issues: readonly Issue[],
  input: unknown,
  schema: unknown,
  prefix = "",
  extraKeys: readonly string[] = [],
): ConfigError {
  const lines = issues.flatMap((i) => describe(i, input, schema, prefix, extraKeys));
  return new ConfigError(lines.join("\n"), { path: join(prefix, issues[0]?.path ?? []) });
}
