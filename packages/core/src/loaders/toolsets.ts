/**
 * Load-time checks of a taskset's MCP declarations against the harness, so a bad server spec or
 * an impossible pairing is a ConfigError naming the key before any rollout starts.
 */

import { type McpServerSpec, parseServerSpec } from "../config/mcp-spec.ts";
import { ConfigError } from "../errors.ts";
import type { Harness } from "../harnesses/harness.ts";
import { declaredServers } from "../mcp/open.ts";
import type { Taskset } from "../task.ts";

export function checkToolsets(
  taskset: Taskset<any, any>,
  harness: Harness,
  configured: readonly McpServerSpec[],
): void {
  const servers = declaredServers(taskset);
  if (taskset.userServer) parseServerSpec(taskset.userServer, `taskset "${taskset.id}" userServer`);
  if (taskset.userServer && !harness.supportsUserSim)
    throw new ConfigError(
      `harness.id: harness "${harness.id}" cannot drive the user simulator of "${taskset.id}"`,
      {
        path: "harness.id",
      },
    );
  const hasToolsets = servers.length > 0 || (taskset.toolsets?.length ?? 0) > 0 || configured.length > 0;
  if (hasToolsets && !harness.supportsTools)
    throw new ConfigError(
      `harness.id: taskset "${taskset.id}" has toolsets, which harness "${harness.id}" does not offer (use "default", "openai-agents" or "command")`,
      { path: "harness.id" },
    );
  const names = new Set<string>();
  for (const s of [...servers, ...configured]) {
    if (names.has(s.name))
      throw new ConfigError(`toolsets: two toolsets are named "${s.name}"`, { path: "toolsets" });
    names.add(s.name);
  }
}
