/**
 * Turning a server declaration into a live toolset. A host command gets the host environment
 * less every variable whose name contains API_KEY (Verifiers' subprocess rule) plus its own
 * `env`; a colocated command is started through the rollout's runtime, so inside the sandbox
 * when that is the runtime. A rollout-scoped server also gets its rollout's state channel:
 * `VF_STATE_URL` and `VF_STATE_SECRET` (V1's names), with which it reads `GET /task` and
 * shares `GET/PUT /state`.
 */

import type { McpServerSpec } from "../config/mcp-spec.ts";
import { ToolsetError } from "../errors.ts";
import type { Runtime } from "../runtimes/runtime.ts";
import { McpClientProvider, type McpEndpoint } from "./client-provider.ts";

export interface StateChannel {
  /** `http://127.0.0.1:<port>/state` */
  url: string;
  secret: string;
}

function hostEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.includes("API_KEY")) env[k] = v;
  return env;
}

export function stateEnv(state: StateChannel | null): Record<string, string> {
  return state ? { VF_STATE_URL: state.url, VF_STATE_SECRET: state.secret } : {};
}

export function serverEndpoint(
  spec: McpServerSpec,
  runtime: Runtime | null,
  state: StateChannel | null,
): McpEndpoint {
  if (spec.url !== undefined) return { kind: "http", url: spec.url, headers: spec.headers };
  const argv = spec.command!;
  const env = { ...spec.env, ...stateEnv(state) };
  if (!spec.colocated) return { kind: "stdio", argv, env: { ...hostEnv(), ...env }, cwd: spec.cwd };
  if (!runtime?.interactiveCommand)
    throw new ToolsetError(
      `MCP server "${spec.name}": colocated = true, but the ${runtime?.kind ?? "missing"} runtime cannot host a long-lived program`,
    );
  const cmd = runtime.interactiveCommand([...argv], env);
  return { kind: "stdio", argv: cmd.argv, env: cmd.env, cwd: cmd.cwd };
}

export function openServer(
  spec: McpServerSpec,
  runtime: Runtime | null,
  state: StateChannel | null,
): McpClientProvider {
  return new McpClientProvider(spec.name, serverEndpoint(spec, runtime, state), spec.timeout_s * 1000);
}

/**
 * Worker-scoped servers: started once, on first use, and shared by every rollout of the eval
 * (V1 starts a taskset's shared toolsets once per eval). Closed with the interception server.
 */
export class SharedServers {
  private readonly servers = new Map<string, McpClientProvider>();

  get(spec: McpServerSpec): McpClientProvider {
    let s = this.servers.get(spec.name);
    if (!s) {
      s = openServer(spec, null, null);
      this.servers.set(spec.name, s);
    }
    return s;
  }

  async close(): Promise<void> {
    const all = [...this.servers.values()];
    this.servers.clear();
    await Promise.allSettled(all.map((s) => s.close()));
  }
}
