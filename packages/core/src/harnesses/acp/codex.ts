/**
 * The `codex` preset: Codex through its ACP adapter (`@agentclientprotocol/codex-acp`, which
 * pins the `@openai/codex` binary it drives). As V1 configures it: a per-rollout `CODEX_HOME`
 * whose `config.toml` lists the toolsets as MCP servers (Codex takes them there, with the
 * rollout secret as a header), a JSON config layer in `CODEX_CONFIG` (the model; apps, plugins
 * and multi-agent off; the MCP namespaces called directly), the interception endpoint as a
 * Responses gateway through `DEFAULT_AUTH_REQUEST`, and full-access mode (no approvals, Codex's
 * own sandbox off: the rollout's runtime is the sandbox).
 */
import type { AcpConfig } from "../../config/acp-schema.ts";
import { mcpServersConfig } from "../../mcp/endpoint.ts";
import type { AcpPlan } from "./run.ts";

export const CODEX_PACKAGES = ["@agentclientprotocol/codex-acp@2.6.0"];

/** Codex's name for a server's tool namespace. */
export function codexNamespace(server: string): string {
  const base = server.replace(/[^a-zA-Z0-9_]/g, "_") || "_";
  return base.startsWith("mcp__") ? base : `mcp__${base}`;
}

/** TOML basic strings take JSON's escapes. */
const tomlString = (s: string) => JSON.stringify(s);

export function codexPlan(acp: AcpConfig): AcpPlan {
  const config: AcpConfig = {
    command: ["codex-acp"],
    packages: CODEX_PACKAGES,
    mcp: "config",
    ...acp,
  };
  return {
    acp: config,
    async setup(ctx, ep, _system, state) {
      const servers = config.mcp === "config" ? mcpServersConfig(ctx.toolbox, ep).mcpServers : {};
      const toml = Object.entries(servers)
        .map(
          ([name, s]) =>
            `[mcp_servers.${tomlString(name)}]\nurl = ${tomlString(s.url)}\nrequired = true\nstartup_timeout_sec = 60.0\nhttp_headers = { ${Object.entries(
              s.headers,
            )
              .map(([k, v]) => `${tomlString(k)} = ${tomlString(v)}`)
              .join(", ")} }\n`,
        )
        .join("\n");
      const home = await state.make("codex", { "config.toml": toml });
      const namespaces = Object.keys(servers).map(codexNamespace);
      const layer = {
        model: ctx.session.model,
        features: {
          apps: false,
          plugins: false,
          multi_agent: false,
          multi_agent_v2: { enabled: false },
          ...(namespaces.length > 0 ? { code_mode: { direct_only_tool_namespaces: namespaces } } : {}),
        },
      };
      return {
        env: {
          CODEX_HOME: home,
          // Its shell tool runs a login shell, which reads the profile under HOME: the host
          // user's (pyenv's rehash there waited a minute on a lock held by other shells) is no
          // part of the rollout.
          HOME: await state.make("codex-user"),
          CODEX_CONFIG: JSON.stringify(layer),
          DEFAULT_AUTH_REQUEST: JSON.stringify({
            methodId: "gateway",
            _meta: {
              gateway: {
                baseUrl: ep.baseUrl,
                headers: { Authorization: `Bearer ${ep.secret}` },
                providerName: "envroll",
              },
            },
          }),
          INITIAL_AGENT_MODE: "agent-full-access",
          NO_BROWSER: "1",
        },
      };
    },
  };
}
