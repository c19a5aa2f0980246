/**
 * `loadConfig`: TOML text or file + dotted CLI overrides → a validated EnvConfig, and the taskset
 * it names.
 *
 * Precedence, highest first: CLI overrides, the TOML, the taskset's suggested defaults, the
 * built-in defaults (in the schema). The taskset must be resolved before validation because its
 * own `configSchema` decides which `[taskset]` keys exist; so loading sits above the tasksets,
 * judges and harnesses whose validators it calls, while the schema (config/) stays below them.
 */
import { dirname, resolve } from "node:path";
import { normalizeAliases, TOP_LEVEL_ALIASES } from "../config/aliases.ts";
import { configErrorFromIssues, didYouMean } from "../config/issues.ts";
import {
  applyOverrides,
  type ConfigOverrides,
  type ConfigSource,
  deepMerge,
  isTable,
  isTomlText,
  ONCE,
  readSource,
  type Table,
} from "../config/load.ts";
import { absolutizePaths } from "../config/paths.ts";
import { checkSamplingKeys } from "../config/sampling-keys.ts";
import { type EnvConfig, EnvConfigSchema } from "../config/schema.ts";
import { ConfigError } from "../errors.ts";
import { resolveJudgeConfigs } from "../judges/config.ts";
import type { Taskset } from "../task.ts";
import { resolveTaskset } from "./taskset.ts";

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
