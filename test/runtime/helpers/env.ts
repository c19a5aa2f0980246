/** Builds an Environment for an inline taskset from TOML text (the same path users take). */

import { type Environment, loadEnvironment } from "../../../packages/core/src/environment.ts";
import { loadConfig } from "../../../packages/core/src/loaders/config.ts";
import type { Taskset } from "../../../packages/core/src/task.ts";

export async function envFor(
  taskset: Taskset<any, any>,
  toml = "",
  overrides: Record<string, unknown> = {},
): Promise<Environment> {
  const config = await loadConfig(`taskset = { id = "${taskset.id}" }\n${toml}`, overrides, { taskset });
  return loadEnvironment(config, { taskset });
}
