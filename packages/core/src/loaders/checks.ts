/**
 * The config rules that need the plugins a config names, step 4 of the one validation
 * (validate.ts): the harness (its id, what it can drive, what it needs installed), the
 * taskset's tools, user simulator and declared MCP servers against it, toolset names, group
 * rewards against the group size, and the runtime (its type and its own schema). Each is a
 * ConfigError naming the key, raised before anything loads or runs.
 */
import { configErrorFromIssues, didYouMean } from "../config/issues.ts";
import { parseServerSpec } from "../config/mcp-spec.ts";
import type { EnvConfig } from "../config/schema.ts";
import { ConfigError, errorMessage } from "../errors.ts";
import type { Harness } from "../harnesses/harness.ts";
import { findHarness, harnessIds } from "../harnesses/index.ts";
import { declaredServers, tasksetPrefix } from "../mcp/open.ts";
import { findRuntime, type RuntimeEntry, runtimeTypes } from "../runtimes/index.ts";
import { isLocalToolset, type Taskset } from "../task.ts";

/** Rollouts per task a taskset needs: a group reward compares rollouts, so two at least. */
export function minGroupSize(taskset: Taskset<any, any>): number {
  return (taskset.groupRewards?.length ?? 0) > 0 ? 2 : 1;
}

/** The harness `harness.id` names, imported now; an unknown id with did-you-mean. */
async function harnessFor(config: EnvConfig): Promise<Harness> {
  const id = config.harness.id;
  const harness = await findHarness(id);
  if (!harness) {
    const known = harnessIds();
    throw new ConfigError(
      `harness.id: unknown harness "${id}"${didYouMean(id, known)} (known: ${known.join(", ")})`,
      {
        path: "harness.id",
      },
    );
  }
  const missing = (await harness.requirements?.(config.harness)) ?? null;
  if (missing !== null) throw new ConfigError(`harness.id: ${missing}`, { path: "harness.id" });
  return harness;
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
  const names = new Map<string, string>();
  for (const [name, what] of toolsetNames(taskset, harness, config)) {
    const other = names.get(name);
    if (other !== undefined)
      throw new ConfigError(`toolsets: two toolsets are named "${name}" (${other} and ${what})`, {
        path: "toolsets",
      });
    names.set(name, what);
  }
}

/**
 * Every toolset a rollout's toolbox will hold (mcp/open.ts), with where it comes from: the
 * taskset's tools under its prefix, its local toolsets and declared servers, the config's
 * `[[toolsets]]`, and the harness's own (the coding tools).
 */
function toolsetNames(taskset: Taskset<any, any>, harness: Harness, config: EnvConfig): [string, string][] {
  const out: [string, string][] = [];
  const tools = taskset.tools;
  if (typeof tools === "function" || (tools !== undefined && tools.length > 0))
    out.push([tasksetPrefix(taskset), `the tools of taskset "${taskset.id}"`]);
  for (const t of taskset.toolsets ?? [])
    if (isLocalToolset(t)) out.push([t.name, `a toolset of taskset "${taskset.id}"`]);
  for (const s of declaredServers(taskset)) out.push([s.name, `a server of taskset "${taskset.id}"`]);
  for (const s of config.toolsets) out.push([s.name, "a [[toolsets]] entry"]);
  // Providers are made with a context they call only while a rollout runs, so naming them is safe.
  const unused = () => {
    throw new Error("a harness toolset's context is only for a running rollout");
  };
  for (const p of harness.toolsets?.(unused, config.harness) ?? [])
    out.push([p.name, `a toolset of harness "${harness.id}"`]);
  return out;
}

/** `num_rollouts` against the taskset's group rewards. */
function checkGroupSize(taskset: Taskset<any, any>, n: number): void {
  if (n < minGroupSize(taskset))
    throw new ConfigError(
      `num_rollouts: taskset "${taskset.id}" has group rewards (${taskset.groupRewards!.map((g) => g.name).join(", ")}), which need at least 2 rollouts per task, got ${n}`,
      { path: "num_rollouts" },
    );
}

/** The runtime `harness.runtime.type` names, loaded now, and its keys by its own schema. */
async function checkRuntime(config: EnvConfig): Promise<void> {
  const runtime = config.harness.runtime;
  // "auto" becomes a built-in spec made in code when the environment loads (runtimes/auto.ts).
  if (runtime.type === "auto") return;
  const where = "harness.runtime.type";
  let entry: RuntimeEntry | null;
  try {
    entry = await findRuntime(runtime.type);
  } catch (e) {
    throw new ConfigError(`${where}: runtime "${runtime.type}" is not available: ${errorMessage(e)}`, {
      path: where,
    });
  }
  if (!entry)
    throw new ConfigError(
      `${where}: unknown runtime "${runtime.type}" (known: ${runtimeTypes().join(", ")})`,
      {
        path: where,
      },
    );
  const checked = entry.schema?.safeParse(runtime);
  if (checked && !checked.success)
    throw configErrorFromIssues(checked.error.issues, runtime, entry.schema, "harness.runtime");
}

/** Every plugin rule, for a config already through the schema, the taskset's keys and the judges. */
export async function checkWithPlugins(config: EnvConfig, taskset: Taskset<any, any>): Promise<void> {
  const harness = await harnessFor(config);
  checkHarness(taskset, harness, config);
  checkGroupSize(taskset, config.num_rollouts);
  await checkRuntime(config);
}
