/**
 * `loadConfig`: TOML text or file + dotted CLI overrides → a validated EnvConfig, and the taskset
 * it names.
 *
 * Precedence, highest first: CLI overrides, the TOML, the taskset's suggested defaults, the
 * built-in defaults (in the schema). The taskset must be resolved before validation because its
 * own `configSchema` decides which `[taskset]` keys exist; validation is `validateConfig`
 * (validate.ts), the one place, which sits above the tasksets, judges, harnesses and runtimes
 * whose validators it calls, while the schema (config/) stays below them.
 */
import { dirname, resolve } from "node:path";
import { normalizeAliases } from "../config/aliases.ts";
import {
  applyOverrides,
  type ConfigOverrides,
  type ConfigSource,
  isTable,
  isTomlText,
  readSource,
  type Table,
} from "../config/load.ts";
import { absolutizePaths } from "../config/paths.ts";
import type { EnvConfig } from "../config/schema.ts";
import { ConfigError } from "../errors.ts";
import type { Taskset } from "../task.ts";
import { resolveTaskset } from "./taskset.ts";
import { validateConfig } from "./validate.ts";

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
  return { config: await validateConfig(raw, taskset), taskset };
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
