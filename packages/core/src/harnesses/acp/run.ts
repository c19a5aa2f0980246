/**
 * Running one rollout's ACP agent: install its packages (cached), start it in the rollout's
 * runtime with the interception endpoint in its environment, open one session with the
 * rollout's toolsets as HTTP MCP servers, send the task prompt (then, with a user simulator, each
 * of its replies as the next prompt in the same session), and judge each prompt's outcome by the
 * trace, not by the agent: an agent whose model calls all failed still ends its prompt with
 * `end_turn` (Codex retries, then answers with the error text), so a prompt that committed no
 * model turn is a HarnessError carrying the agent's stderr, and a failure kept on the session
 * (a failing model endpoint) cancels the prompt at once and is what the rollout reports.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import type { AcpConfig } from "../../config/acp-schema.ts";
import { boundary, HarnessError, UserError } from "../../errors.ts";
import { mcpServersConfig, type RolloutEndpoint } from "../../mcp/endpoint.ts";
import type { UserSimulator } from "../../task.ts";
import { contentText, type Message, type TaskData } from "../../types.ts";
import type { HarnessContext } from "../harness.ts";
import { programEnv } from "../program.ts";
import { AcpAgent } from "./connection.ts";
import { binPath, ensureInstalled, readableMirror } from "./install.ts";

const DEFAULT_PROMPT_TIMEOUT_S = 1800;
const DEFAULT_MCP_READY_TIMEOUT_S = 30;
/** How often a running prompt checks whether the session failed or stopped. */
const WATCH_MS = 200;

/** What a preset (codex, claude_code) adds for its agent; the generic harness adds nothing. */
export interface AgentSetup {
  env: Record<string, string>;
  sessionMeta?: Record<string, unknown>;
  /** The system prompt goes in `sessionMeta` (true) or before the first prompt's text. */
  systemInMeta?: boolean;
  /** Set as the session's title before the first prompt (see AcpAgent.setTitle). */
  sessionTitle?: string;
}

export interface AcpPlan {
  /** The resolved `[harness.acp]` settings (preset defaults under the config's). */
  acp: AcpConfig;
  setup?(
    ctx: HarnessContext<any>,
    ep: RolloutEndpoint,
    system: string | null,
    state: StateDirs,
  ): Promise<AgentSetup>;
}

/** V1's framing for agents that take no system prompt: it leads the first prompt. */
export function promptText(system: string | null, user: string): string {
  return system ? `(system)\n${system}\n\n[user]\n${user}` : user;
}

function splitPrompt<D extends TaskData>(ctx: HarnessContext<D>): { system: string | null; user: string } {
  const system = ctx.prompt
    .filter((m) => m.role === "system")
    .map((m) => contentText(m.content))
    .join("\n\n");
  const user = ctx.prompt
    .filter((m) => m.role !== "system")
    .map((m) => contentText(m.content))
    .join("\n\n");
  return { system: system === "" ? null : system, user };
}

/**
 * `harness.env` values may name the rollout's own variables as `${NAME}` (the endpoint and
 * secret exist only per rollout, so a config cannot spell them out): an agent that wants them in
 * its own variable, e.g. codex-acp's DEFAULT_AUTH_REQUEST, gets them so.
 */
export function expandEnv(
  env: Record<string, string>,
  rollout: Record<string, string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env))
    out[k] = v.replace(/\$\{([A-Z0-9_]+)\}/g, (whole, name: string) => rollout[name] ?? whole);
  return out;
}

/** The agent's argv, and the installed folder it runs from (null: a command on the PATH). */
async function resolveArgv(
  config: AcpConfig,
  runtime: HarnessContext["runtime"],
): Promise<{ argv: string[]; dir: string | null }> {
  const argv = config.command;
  if (!argv) throw new HarnessError("harness.acp.command is not set");
  if (!config.packages || config.packages.length === 0) return { argv, dir: null };
  let dir = await ensureInstalled(config.packages);
  // A sandbox shows the folder read-only at its path; it must be one its user can open.
  if (runtime.readableInside && !runtime.readableInside(dir))
    dir = await readableMirror(dir, config.packages);
  const { existsSync } = await import("node:fs");
  const bin = binPath(dir, argv[0]!);
  return { argv: existsSync(bin) ? [bin, ...argv.slice(1)] : argv, dir };
}

/**
 * A per-rollout state folder holding `files`, where the agent can write it: in a runtime that
 * hides the host (the sandbox), under the workdir (`.envroll-agent/<name>`, owned by the
 * sandbox's user); otherwise a host temp folder, removed by `cleanup`.
 */
export interface StateDirs {
  make(name: string, files?: Record<string, string>): Promise<string>;
  cleanup(): Promise<void>;
}

function stateDirs(runtime: HarnessContext["runtime"]): StateDirs {
  const made: string[] = [];
  return {
    async make(name, files = {}) {
      if (runtime.readableInside) {
        const rel = `.envroll-agent/${name}`;
        const entries = Object.entries(files);
        if (entries.length === 0) await runtime.writeFile(`${rel}/.keep`, "");
        for (const [file, data] of entries) await runtime.writeFile(`${rel}/${file}`, data);
        return join(runtime.workdir, rel);
      }
      const dir = await mkdtemp(join(tmpdir(), `envroll-${name}-`));
      made.push(dir);
      for (const [file, data] of Object.entries(files)) await writeFile(join(dir, file), data);
      return dir;
    },
    async cleanup() {
      await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
    },
  };
}

export async function runAcp<D extends TaskData>(ctx: HarnessContext<D>, plan: AcpPlan): Promise<void> {
  const config = plan.acp;
  const { argv, dir } = await resolveArgv(config, ctx.runtime);
  const ep = await ctx.endpoint();
  const { system, user } = splitPrompt(ctx);
  const state = stateDirs(ctx.runtime);
  const session = ctx.session;
  const trace = session.trace;
  let agent: AcpAgent | null = null;
  let setup: AgentSetup | null = null;
  const stop = new AbortController();
  const watch = setInterval(() => {
    if (session.error !== null || trace.stopCondition !== null || ctx.signal.aborted) stop.abort();
  }, WATCH_MS);
  try {
    if (!ctx.runtime.interactiveCommand)
      throw new HarnessError(`runtime "${ctx.runtime.kind}" cannot run a long-lived ACP agent`);
    setup = plan.setup ? await plan.setup(ctx, ep, system, state) : { env: {} };
    // A state folder per rollout, for agents that keep state in a folder their variables name
    // (CODEX_HOME, CLAUDE_CONFIG_DIR): `${ENVROLL_AGENT_HOME}` in harness.env.
    const home = await state.make("home");
    const rollout = { ...(await programEnv(ctx)), ENVROLL_AGENT_HOME: home };
    const env = { ...expandEnv(ctx.config.env, rollout), ...rollout, ...setup.env };
    const cmd = ctx.runtime.interactiveCommand(argv, env, { readOnly: dir ? [dir] : [] });
    agent = await AcpAgent.start({
      argv: cmd.argv,
      env: cmd.env,
      cwd: cmd.cwd,
      permission: config.permission ?? "allow",
    });
    await agent.initialize();
    if (config.auth_method) await agent.authenticate(config.auth_method);
    const servers = config.mcp === "config" ? {} : mcpServersConfig(ctx.toolbox, ep).mcpServers;
    const mcpServers: acp.McpServer[] = Object.entries(servers).map(([name, s]) => ({
      type: "http",
      name,
      url: s.url,
      headers: Object.entries(s.headers).map(([k, v]) => ({ name: k, value: v })),
    }));
    const meta = { ...config.session_meta, ...setup.sessionMeta };
    await agent.newSession({
      cwd: cmd.cwd,
      mcpServers,
      ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
    });
    // Named up front: an agent that titles its sessions itself (codex-acp, after the first turn)
    // would ask a model for it, a side call that is no part of the episode.
    await agent.setTitle(setup.sessionTitle ?? `envroll ${trace.id}`);
    await awaitMcpListing(ctx, config, stop.signal);
    const timeout = (config.prompt_timeout ?? DEFAULT_PROMPT_TIMEOUT_S) * 1000;
    // The session's own failure (or stop) is the rollout's outcome, whatever the agent made of
    // it: Claude Code turns a refused request into a JSON-RPC error, Codex into an answer.
    const settled = () => session.error !== null || trace.stopCondition !== null || ctx.signal.aborted;
    const simulator = ctx.user ?? null;
    // A task without a prompt is opened by its user simulator.
    const opening = user === "" && simulator ? userTurnText(await simulate(simulator, "")) : user;
    let text = setup.systemInMeta ? opening : promptText(system, opening);
    // One interaction turn per prompt, all in the one session: the user simulator answers the
    // agent's last message, and its reply is the next prompt, until it has nothing to say.
    for (;;) {
      const before = trace.numTurns;
      let outcome: Awaited<ReturnType<AcpAgent["prompt"]>>;
      try {
        outcome = await agent.prompt(text, timeout, stop.signal);
      } catch (e) {
        if (settled()) return;
        throw e;
      }
      if (settled()) return;
      if (trace.numTurns === before)
        throw new HarnessError(
          `ACP agent completed without committing a model turn (stopReason ${outcome.stopReason}; reply: ${outcome.reply.slice(0, 500)})\n--- agent stderr ---\n${agent.stderrTail()}`,
        );
      if (!simulator) return;
      const reply = await simulate(simulator, outcome.reply);
      if (reply.length === 0 || settled()) return;
      text = userTurnText(reply);
    }
  } finally {
    clearInterval(watch);
    await agent?.close();
    await state.cleanup();
  }
}

/**
 * The agent's first turn must see the toolsets' tools: wait until it has listed each server
 * (through envroll's MCP endpoint, whether it found the server in `session/new` or in its own
 * config). A server still unlisted at the deadline is named on the trace (`info.mcp_unlisted`):
 * the agent may list lazily, or its first turn went without those tools.
 */
async function awaitMcpListing<D extends TaskData>(
  ctx: HarnessContext<D>,
  config: AcpConfig,
  signal: AbortSignal,
): Promise<void> {
  const servers = ctx.toolbox.serverNames;
  const seconds = config.mcp_ready_timeout ?? DEFAULT_MCP_READY_TIMEOUT_S;
  if (servers.length === 0 || seconds === 0) return;
  const missing = await ctx.toolbox.whenServed(servers, seconds * 1000, signal);
  if (missing.length > 0) ctx.session.trace.info["mcp_unlisted"] = missing;
}

function simulate(user: UserSimulator, message: string): Promise<Message[]> {
  return boundary(UserError, "user simulator", async () => user.respond(message));
}

/** An interaction turn is user messages only (V1): their texts, joined as V1's runner joins them. */
function userTurnText(messages: readonly Message[]): string {
  messages.forEach((m, i) => {
    if (m.role !== "user")
      throw new UserError(
        `user simulator: message ${i} has role "${m.role}"; an ACP agent's interaction turn carries user messages only`,
      );
  });
  return messages.map((m) => contentText(m.content)).join("\n\n");
}
