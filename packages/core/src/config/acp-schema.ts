/**
 * `[harness.acp]`: how the `acp` harness (and its `codex` / `claude_code` presets) runs an Agent
 * Client Protocol agent. Strict, so a misspelt key is a config error naming it.
 */
import { z } from "zod";
import { lazySchema } from "../lazy-schema.ts";

/** An npm spec pinned to an exact version: `name@1.2.3` or `@scope/name@1.2.3`. */
const pinnedPackage = () =>
  z.string().regex(/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*@\d+\.\d+\.\d+[\w.+-]*$/i, {
    error: "expected an npm package pinned to an exact version (name@1.2.3)",
  });

/** Built on first use (lazy-schema.ts): only an ACP harness's config has this table. */
export const AcpSchema = lazySchema(() =>
  z.strictObject({
    /**
     * The agent's argv. With `packages`, a first word naming one of their executables
     * (`codex-acp`) runs the installed one.
     */
    command: z.array(z.string(), { error: "expected an argv array of strings" }).min(1).optional(),
    /** Installed on first use into the shared agent cache (see harnesses/acp/install.ts). */
    packages: z.array(pinnedPackage(), { error: "expected an array of npm specs" }).optional(),
    /**
     * An `authenticate` method to call after `initialize` (one of the agent's `authMethods`, e.g.
     * codex-acp's `api-key`, which reads OPENAI_API_KEY — the rollout secret).
     */
    auth_method: z.string().min(1).optional(),
    /** How permission requests are answered: the first allow option, or the first reject one. */
    permission: z.enum(["allow", "deny"]).optional(),
    /** Seconds one `session/prompt` may take before it is cancelled and the rollout fails. */
    prompt_timeout: z
      .number({ error: "expected a number of seconds > 0" })
      .positive({ error: "expected a number of seconds > 0" })
      .optional(),
    /**
     * How the toolsets reach the agent: as HTTP MCP servers in `session/new` (`session`), or in
     * the agent's own config file (`config`, where the preset knows it; Codex).
     */
    mcp: z.enum(["session", "config"]).optional(),
    /**
     * Seconds to wait, before the first prompt, for the agent to list the tools of every MCP
     * server it was given (0: do not wait). An agent that connects them in the background would
     * otherwise sample its first turn without them. Default 30.
     */
    mcp_ready_timeout: z
      .number({ error: "expected a number of seconds >= 0" })
      .nonnegative({ error: "expected a number of seconds >= 0" })
      .optional(),
    /** `_meta` for `session/new` (agent-specific options, e.g. Claude Code's). */
    session_meta: z.record(z.string(), z.unknown(), { error: "expected a table" }).optional(),
  }),
);

export type AcpConfig = z.infer<typeof AcpSchema>;
