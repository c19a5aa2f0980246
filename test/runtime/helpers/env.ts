/** Builds an Environment for an inline taskset from TOML text (the same path users take). */
import { loadConfig } from "../../../src/config/load.ts";
import { type Environment, loadEnvironment } from "../../../src/environment.ts";
import type { Taskset } from "../../../src/task.ts";

export async function envFor(
  taskset: Taskset<any, any>,
  toml = "",
  overrides: Record<string, unknown> = {},
): Promise<Environment> {
  const config = await loadConfig(`taskset = { id = "${taskset.id}" }\n${toml}`, overrides, { taskset });
  return loadEnvironment(config, { taskset });
}
