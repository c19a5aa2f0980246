/**
 * Reading a config: TOML text, a file or a table, plus dotted CLI overrides, into one raw table
 * (aliases normalized, relative paths absolutized). Validation is loaders/config.ts's
 * `resolveConfig`, which needs the taskset (its own schema decides the `[taskset]` keys).
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { parse as parseToml, TomlError } from "smol-toml";
import { ConfigError } from "../errors.ts";
import { canonicalPath } from "./aliases.ts";
import { absolutizeOverride } from "./paths.ts";
import type { EnvConfig } from "./schema.ts";

/**
 * A config is parsed once per process: zod's fast path would first compile a parser per object
 * schema with `new Function` (code no code cache keeps), which cost more than the one parse.
 */
export const ONCE = { jitless: true } as const;

export type ConfigSource = string | Record<string, unknown> | null | undefined;
/** Dotted keys (`retries.rollout.max_retries`) to values; strings are read as TOML values when they parse. */
export type ConfigOverrides = Record<string, unknown> | readonly (readonly [string, unknown])[];

export type Table = Record<string, unknown>;
export const isTable = (v: unknown): v is Table => typeof v === "object" && v !== null && !Array.isArray(v);

function parseTomlText(text: string, where: string): Table {
  try {
    return parseToml(text) as Table;
  } catch (e) {
    if (e instanceof TomlError) {
      const first = e.message.split("\n")[0]!.replace(/^Invalid TOML document: /, "");
      throw new ConfigError(`${where}:${e.line}:${e.column}: TOML syntax error: ${first}`, {
        line: e.line,
        column: e.column,
      });
    }
    throw new ConfigError(`${where}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * `__proto__` as a key (TOML allows `[__proto__]`) would set the prototype of the merged table
 * instead of adding a key, so validation then names the wrong keys. Refused up front by name.
 */
const RESERVED_KEYS: ReadonlySet<string> = new Set(["__proto__"]);

function reservedKeyError(path: readonly string[]): ConfigError {
  const key = path.join(".");
  return new ConfigError(`${key}: reserved key name, not allowed in a config`, { path: key });
}

function rejectReservedKeys(t: Table, path: string[] = []): Table {
  for (const k of Object.keys(t)) {
    if (RESERVED_KEYS.has(k)) throw reservedKeyError([...path, k]);
    const v = t[k];
    if (isTable(v)) rejectReservedKeys(v, [...path, k]);
    else if (Array.isArray(v)) for (const e of v) if (isTable(e)) rejectReservedKeys(e, [...path, k]);
  }
  return t;
}

export async function readSource(source: ConfigSource): Promise<Table> {
  return rejectReservedKeys(await readTable(source));
}

/**
 * A string source is TOML text or a file path. Text has a newline or a `key = value` shape; a
 * `.toml` name or an existing file is always a path, even with `=` in it (`runs/lr=1e-5/x.toml`).
 */
export function isTomlText(source: string): boolean {
  if (source.includes("\n") || source.trim() === "") return true;
  if (/\.toml$/i.test(source.trim()) || existsSync(source)) return false;
  return source.includes("=");
}

async function readTable(source: ConfigSource): Promise<Table> {
  if (source == null) return {};
  if (isTable(source)) return structuredClone(source);
  if (isTomlText(source)) return parseTomlText(source, "config");
  let text: string;
  try {
    text = await readFile(source, "utf8");
  } catch (e) {
    throw new ConfigError(
      `cannot read config file ${source}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
    );
  }
  return parseTomlText(text, source);
}

/** A CLI string becomes the TOML value it spells (`3`, `true`, `[1, 2]`), or stays a string. */
export function overrideValue(v: unknown): unknown {
  if (typeof v !== "string") return v;
  try {
    return (parseToml(`v = ${v}`) as Table)["v"];
  } catch {
    return v;
  }
}

function setPath(target: Table, path: string[], value: unknown): void {
  let t = target;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i]!;
    if (!isTable(t[k])) t[k] = {};
    t = t[k] as Table;
  }
  t[path[path.length - 1]!] = value;
}

export function applyOverrides(
  target: Table,
  overrides: ConfigOverrides | undefined,
  baseDir: string | null = null,
): Table {
  if (!overrides) return target;
  const entries = Array.isArray(overrides) ? overrides : Object.entries(overrides);
  for (const [key, value] of entries) {
    const path = canonicalPath(key.replace(/^--/, "").split("."));
    if (path.some((p) => p === "")) throw new ConfigError(`${key}: malformed key`, { path: key });
    if (path.some((p) => RESERVED_KEYS.has(p))) throw reservedKeyError(path);
    const v = overrideValue(value);
    setPath(target, path, baseDir === null ? v : absolutizeOverride(path, v, baseDir));
  }
  return target;
}

/**
 * `over` wins; tables merge key by key, anything else is replaced whole. A table that changes its
 * `type` (a runtime, a client) is replaced whole too: its other keys belonged to the old type.
 */
export function deepMerge(base: Table, over: Table): Table {
  const out: Table = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    const retyped = isTable(v) && isTable(b) && v["type"] !== undefined && v["type"] !== b["type"];
    out[k] = isTable(v) && isTable(b) && !retyped ? deepMerge(b, v) : v;
  }
  return out;
}

/** A config file read and parsed once (callers that also inspect its raw keys pass this table on). */
export function readConfigFile(path: string): Promise<Table> {
  return readSource(path);
}

/** The taskset-specific fields of a resolved config (what `taskset.load` receives). */
export function tasksetFields(config: EnvConfig): Table {
  const { id: _id, task: _task, ...fields } = config.taskset;
  return fields;
}
