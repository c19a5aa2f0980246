/**
 * `loadConfig`: TOML text or file + dotted CLI overrides → a validated EnvConfig.
 *
 * Precedence, highest first: CLI overrides, the TOML, the taskset's suggested defaults, the
 * built-in defaults (in the schema). The taskset must be resolved before validation because its
 * own `configSchema` decides which `[taskset]` keys exist.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parse as parseToml, TomlError } from "smol-toml";
import { ConfigError } from "../errors.ts";
import { resolveJudgeConfigs } from "../judges/config.ts";
import { resolveTaskset } from "../loaders.ts";
import type { Taskset } from "../task.ts";
import { canonicalPath, normalizeAliases, TOP_LEVEL_ALIASES } from "./aliases.ts";
import { configErrorFromIssues, didYouMean } from "./issues.ts";
import { absolutizeOverride, absolutizePaths } from "./paths.ts";
import { checkSamplingKeys } from "./sampling-keys.ts";
import { type EnvConfig, EnvConfigSchema } from "./schema.ts";

/**
 * A config is parsed once per process: zod's fast path would first compile a parser per object
 * schema with `new Function` (code no code cache keeps), which cost more than the one parse.
 */
const ONCE = { jitless: true } as const;

export type ConfigSource = string | Record<string, unknown> | null | undefined;
/** Dotted keys (`retries.rollout.max_retries`) to values; strings are read as TOML values when they parse. */
export type ConfigOverrides = Record<string, unknown> | readonly (readonly [string, unknown])[];

export interface LoadConfigOptions {
  /** Use this taskset instead of resolving `taskset.id` (inline tasksets, tests). */
  taskset?: Taskset<any, any>;
  /**
   * The folder relative paths in the source are read against (config/paths.ts): by default the
   * config file's folder, or the working folder for TOML text and tables.
   */
  baseDir?: string;
  /** The same for the overrides (command-line values): by default the working folder. */
  overridesBaseDir?: string;
}

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === "object" && v !== null && !Array.isArray(v);

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

async function readSource(source: ConfigSource): Promise<Table> {
  return rejectReservedKeys(await readTable(source));
}

/**
 * A string source is TOML text or a file path. Text has a newline or a `key = value` shape; a
 * `.toml` name or an existing file is always a path, even with `=` in it (`runs/lr=1e-5/x.toml`).
 */
function isTomlText(source: string): boolean {
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
function deepMerge(base: Table, over: Table): Table {
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

export async function loadConfig(
  source: ConfigSource,
  overrides?: ConfigOverrides,
  options: LoadConfigOptions = {},
): Promise<EnvConfig> {
  return (await loadConfigAndTaskset(source, overrides, options)).config;
}

/** The config and the taskset it names, resolved once (hand the taskset on to `loadEnvironment`). */
export async function loadConfigAndTaskset(
  source: ConfigSource,
  overrides?: ConfigOverrides,
  options: LoadConfigOptions = {},
): Promise<{ config: EnvConfig; taskset: Taskset<any, any> }> {
  const fromFile = typeof source === "string" && !isTomlText(source);
  const baseDir = options.baseDir ?? (fromFile ? dirname(resolve(source)) : process.cwd());
  const raw = applyOverrides(
    absolutizePaths(normalizeAliases(await readSource(source)), baseDir),
    overrides,
    options.overridesBaseDir ?? process.cwd(),
  );
  if (raw["taskset"] === undefined && options.taskset) raw["taskset"] = { id: options.taskset.id };
  const ts = raw["taskset"];
  if (ts !== undefined && !isTable(ts))
    throw new ConfigError(`taskset: expected a table, got ${JSON.stringify(ts)}`, { path: "taskset" });
  const id = ts?.["id"];
  if (typeof id !== "string" || id === "")
    throw new ConfigError(
      `taskset.id: required: name a taskset${id === undefined ? "" : `, got ${JSON.stringify(id)}`}`,
      {
        path: "taskset.id",
      },
    );
  const taskset = options.taskset ?? (await resolveTaskset(id, process.cwd(), pythonOptions(raw)));
  return { config: resolveConfig(raw, taskset), taskset };
}

/** The `[python]` table as given (it picks the host that resolves the taskset, before validation). */
export function pythonOptions(raw: Table): { python?: string | null; path?: string[] } {
  const py = raw["python"];
  if (!isTable(py)) return {};
  const out: { python?: string | null; path?: string[] } = {};
  if (typeof py["executable"] === "string") out.python = py["executable"];
  if (Array.isArray(py["path"])) out.path = py["path"].filter((p): p is string => typeof p === "string");
  return out;
}

/** Validates an alias-normalized raw config against the schema and the taskset's own keys. */
export function resolveConfig(raw: Table, taskset: Taskset<any, any>): EnvConfig {
  // A taskset's preferred runtime (e.g. a sandbox for model-written code) is a default like any other.
  const suggested: Table = taskset.runtime ? { harness: { runtime: taskset.runtime } } : {};
  const defaults = deepMerge(suggested, normalizeAliases(structuredClone(taskset.defaults ?? {})));
  const merged = deepMerge(defaults, raw);
  const harness = merged["harness"];
  // A command without an id can only mean the command harness.
  if (
    isTable(harness) &&
    harness["command"] !== undefined &&
    (raw["harness"] as Table | undefined)?.["id"] === undefined
  )
    harness["id"] = "command";
  const client = merged["client"];
  if (isTable(client) && client["type"] === undefined) client["type"] = "eval";

  const parsed = EnvConfigSchema.safeParse(merged, ONCE);
  if (!parsed.success)
    throw configErrorFromIssues(
      parsed.error.issues,
      merged,
      EnvConfigSchema,
      "",
      Object.keys(TOP_LEVEL_ALIASES),
    );
  const config = parsed.data;
  // Checked against the client that will run it when the config names one.
  checkSamplingKeys(config.sampling, isTable(merged["client"]) ? config.client.type : "any");

  const { id, task, ...fields } = config.taskset;
  const schema = taskset.configSchema as any;
  let tasksetFields: Table = fields;
  if (schema) {
    // Taskset schemas are usually plain objects; make them strict so typos are caught here too.
    const strict = typeof schema.strict === "function" ? schema.strict() : schema;
    const res = strict.safeParse(fields, ONCE);
    if (!res.success) throw configErrorFromIssues(res.error.issues, fields, strict, "taskset");
    tasksetFields = res.data;
  } else if (Object.keys(fields).length > 0) {
    throw new ConfigError(
      Object.keys(fields)
        .map((k) => `taskset.${k}: unknown key (taskset "${taskset.id}" has no options)`)
        .join("\n"),
      { path: `taskset.${Object.keys(fields)[0]}` },
    );
  }
  const allowed = new Set(taskset.taskConfigKeys ?? []);
  const unknown = Object.keys(task).filter((k) => k !== "judges" && !allowed.has(k));
  if (unknown.length > 0)
    throw new ConfigError(
      unknown
        .map(
          (k) =>
            `taskset.task.${k}: unknown key${didYouMean(k, ["judges", ...allowed])} (taskset "${taskset.id}" takes ${["judges", ...allowed].join(", ")})`,
        )
        .join("\n"),
      { path: `taskset.task.${unknown[0]}` },
    );
  config.taskset = {
    id,
    task: { ...task, judges: resolveJudgeConfigs(task.judges, taskset) },
    ...tasksetFields,
  };
  return config;
}

/** The taskset-specific fields of a resolved config (what `taskset.load` receives). */
export function tasksetFields(config: EnvConfig): Table {
  const { id: _id, task: _task, ...fields } = config.taskset;
  return fields;
}
