/**
 * Assembling one rollout's toolbox: the taskset's `tools` (as the toolset `toolPrefix`, default
 * the taskset id in snake_case), its `toolsets`, the config's `[[toolsets]]` and whatever the
 * harness adds (the coding tools). Rollout-scoped commands are started for this rollout with its
 * state channel; worker-scoped ones come from the eval's shared pool and are told the rollout's
 * channel per call in `_meta` (`envroll/state_url`, `envroll/state_secret`).
 */

import { type McpServerSpec, parseServerSpec, snakeCase } from "../config/mcp-spec.ts";
import type { Runtime } from "../runtimes/runtime.ts";
import { type HandlerContext, isLocalToolset, type Taskset, type ToolDefinition } from "../task.ts";
import type { TaskData } from "../types.ts";
import { openServer, type SharedServers, type StateChannel } from "./launch.ts";
import { LocalToolProvider, type ToolProvider } from "./provider.ts";
import { RolloutToolbox, type ToolboxOptions } from "./toolbox.ts";

export interface OpenToolboxOptions<D extends TaskData> extends ToolboxOptions {
  taskset: Taskset<D, any>;
  task: D;
  /** The taskset's tools after `disabled_tools`. */
  tools: readonly ToolDefinition<D>[];
  /** Config `[[toolsets]]` (already validated). */
  configured: readonly McpServerSpec[];
  context: () => HandlerContext<D>;
  runtime: Runtime;
  /** The worker-scoped servers' pool (the interception server's: asked for only when a spec needs it). */
  shared: () => Promise<SharedServers>;
  /** The rollout's state channel (registers the rollout with the interception server on first call). */
  state: () => Promise<StateChannel>;
  /** Toolsets the harness brings. */
  extra?: readonly ToolProvider[];
}

/** The taskset's declared servers, validated (a ConfigError names `toolsets[i]`). */
export function declaredServers(taskset: Taskset<any, any>): McpServerSpec[] {
  return (taskset.toolsets ?? []).flatMap((t, i) =>
    isLocalToolset(t) ? [] : [parseServerSpec(t, `taskset "${taskset.id}" toolsets[${i}]`)],
  );
}

export function tasksetPrefix(taskset: Taskset<any, any>): string {
  return taskset.toolPrefix ?? snakeCase(taskset.id);
}

/**
 * The rollout's toolbox: made at once when no MCP server is declared or configured (nothing to
 * start or ask for), else once the servers it needs are open.
 */
export function openToolbox<D extends TaskData>(
  o: OpenToolboxOptions<D>,
): RolloutToolbox | Promise<RolloutToolbox> {
  const providers: ToolProvider[] = [];
  if (o.tools.length > 0) providers.push(new LocalToolProvider(tasksetPrefix(o.taskset), o.tools, o.context));
  for (const t of o.taskset.toolsets ?? [])
    if (isLocalToolset(t)) {
      const tools = typeof t.tools === "function" ? t.tools(o.task) : t.tools;
      providers.push(new LocalToolProvider(t.name, tools, o.context));
    }
  const declared = o.taskset.toolsets === undefined ? [] : declaredServers(o.taskset);
  const servers = o.configured.length === 0 ? declared : [...declared, ...o.configured];
  if (servers.length === 0) {
    if (o.extra) for (const p of o.extra) providers.push(p);
    return new RolloutToolbox(providers, o);
  }
  return openServers(o, providers, servers);
}

async function openServers<D extends TaskData>(
  o: OpenToolboxOptions<D>,
  providers: ToolProvider[],
  servers: readonly McpServerSpec[],
): Promise<RolloutToolbox> {
  let state: StateChannel | null = null;
  let workers: Set<string> | null = null;
  for (const spec of servers) {
    if (spec.scope === "worker") {
      workers ??= new Set();
      workers.add(spec.name);
      providers.push(borrowed((await o.shared()).get(spec)));
      continue;
    }
    if (spec.command !== undefined) state ??= await o.state();
    providers.push(openServer(spec, o.runtime, spec.command !== undefined ? state : null));
  }
  if (o.extra) for (const p of o.extra) providers.push(p);
  const worker = workers;
  const meta =
    worker === null
      ? o.meta
      : (server: string) => {
          if (!worker.has(server) || !state) return o.meta?.(server);
          return {
            ...o.meta?.(server),
            "envroll/state_url": state.url,
            "envroll/state_secret": state.secret,
          };
        };
  if (worker !== null) state ??= await o.state();
  return new RolloutToolbox(providers, meta === o.meta ? o : { ...o, meta });
}

/** A shared server as one rollout's toolset: closing the rollout must not stop it for the others. */
function borrowed(p: ToolProvider): ToolProvider {
  return {
    name: p.name,
    listTools: (signal) => p.listTools(signal),
    callTool: (tool, args, options) => p.callTool(tool, args, options),
    close: async () => {},
  };
}
