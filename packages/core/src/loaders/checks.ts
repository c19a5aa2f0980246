/**
 * The config rules that need the plugins a config names: the taskset (its tools, user simulator,
 * declared MCP servers, group rewards), the harness (what it can drive) and the runtime (its own
 * schema). They run once, when an environment is loaded, before any rollout starts; each is a
 * ConfigError naming the key. Rules that need no plugin are the schema's (config/schema.ts), the
 * taskset's and judges' own keys are checked by `resolveConfig` (loaders/config.ts).
 */
import { configErrorFromIssues } from "../config/issues.ts";
import { parseServerSpec } from "../config/mcp-spec.ts";
import type { EnvConfig } from "../config/schema.ts";
import { ConfigError } from "../errors.ts";
import type { Harness } from "../harnesses/harness.ts";
import { declaredServers } from "../mcp/open.ts";
import { runtimeSchema } from "../runtimes/index.ts";
import type { Taskset } from "../task.ts";

/** Rollouts per task a taskset needs: a group reward compares rollouts, so two at least. */
export function minGroupSize(taskset: Taskset<any, any>): number {
  return (taskset.groupRewards?.length ?? 0) > 0 ? 2 : 1;
}

/** `n` rollouts per task against the taskset's group rewards (`num_rollouts`, or a service's group size). */
export function checkGroupSize(taskset: Taskset<any, any>, n: number): void {
  if (n < minGroupSize(taskset))
    throw new ConfigError(
      `num_rollouts: taskset "${taskset.id}" has group rewards (${taskset.groupRewards!.map((g) => g.name).join(", ")}), which need at least 2 rollouts per task, got ${n}`,
      { path: "num_rollouts" },
    );
}

/** What the taskset asks of the harness: a user simulator, tools, toolsets; names unique. */
function checkHarness(taskset: Taskset<any, any>, harness: Harness, config: EnvConfig): void {
  const servers = declaredServers(taskset);
  if (taskset.userServer) parseServerSpec(taskset.userServer, `taskset "${taskset.id}" userServer`);
  if ((taskset.user || taskset.userServer) && !harness.supportsUserSim)
    throw new ConfigError(
      `harness.id: harness "${harness.id}" cannot drive the user simulator of "${taskset.id}"`,
      { path: "harness.id" },
    );
  if (taskset.tools && !harness.supportsTools)
    throw new ConfigError(
      `harness.id: taskset "${taskset.id}" has tools, which harness "${harness.id}" does not offer (use "default" or "command")`,
      { path: "harness.id" },
    );
  const hasToolsets = servers.length > 0 || (taskset.toolsets?.length ?? 0) > 0 || config.toolsets.length > 0;
  if (hasToolsets && !harness.supportsTools)
    throw new ConfigError(
      `harness.id: taskset "${taskset.id}" has toolsets, which harness "${harness.id}" does not offer (use "default", "openai-agents" or "command")`,
      { path: "harness.id" },
    );
  const names = new Set<string>();
  for (const s of [...servers, ...config.toolsets]) {
    if (names.has(s.name))
      throw new ConfigError(`toolsets: two toolsets are named "${s.name}"`, { path: "toolsets" });
    names.add(s.name);
  }
}

/** Every plugin rule, for a config already through the schema and `resolveConfig`. */
export async function checkWithPlugins(
  config: EnvConfig,
  taskset: Taskset<any, any>,
  harness: Harness,
): Promise<void> {
  checkHarness(taskset, harness, config);
  checkGroupSize(taskset, config.num_rollouts);
  const runtime = config.harness.runtime;
  // "auto" becomes a spec built in code when the environment loads; the types a user names own their keys.
  if (runtime.type === "auto") return;
  const schema = await runtimeSchema(runtime.type);
  const checked = schema?.safeParse(runtime);
  if (checked && !checked.success)
    throw configErrorFromIssues(checked.error.issues, runtime, schema, "harness.runtime");
}
