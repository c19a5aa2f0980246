/**
 * How a harness program finds its rollout: the interception endpoint and secret, and the
 * rollout's MCP servers in the `{"mcpServers": {name: {url, headers}}}` shape agents read
 * (V1 hands the same JSON to its programs as `--mcp-config` and to rlm as `RLM_MCP_CONFIG`).
 * The MCP URLs are `<origin>/mcp/<server>`, authenticated by the rollout secret as a bearer token.
 */
import type { RolloutToolbox } from "./toolbox.ts";

export interface RolloutEndpoint {
  /** `http://127.0.0.1:<port>/v1`: the OpenAI-style base URL. */
  baseUrl: string;
  /** `http://127.0.0.1:<port>`: the state routes and MCP servers hang off it. */
  origin: string;
  /** The agent program's credential. */
  secret: string;
  /** The environment's own servers' credential (sees hidden task fields). */
  serverSecret: string;
}

export interface McpServersConfig {
  mcpServers: Record<string, { url: string; headers: Record<string, string> }>;
}

export function mcpServersConfig(toolbox: RolloutToolbox, ep: RolloutEndpoint): McpServersConfig {
  const mcpServers: McpServersConfig["mcpServers"] = {};
  for (const name of toolbox.serverNames)
    mcpServers[name] = {
      url: `${ep.origin}/mcp/${encodeURIComponent(name)}`,
      headers: { Authorization: `Bearer ${ep.secret}` },
    };
  return { mcpServers };
}

/** The variables a harness program gets for its MCP servers. */
export function mcpEnv(toolbox: RolloutToolbox, ep: RolloutEndpoint): Record<string, string> {
  const config = JSON.stringify(mcpServersConfig(toolbox, ep));
  return { ENVROLL_MCP_CONFIG: config, RLM_MCP_CONFIG: config };
}
