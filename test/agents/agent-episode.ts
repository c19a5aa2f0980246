/**
 * One real agent (Codex or Claude Code, through the `codex` / `claude_code` / `acp` harness)
 * running a multi-turn tool episode through envroll against the built-in engine with a replay
 * policy: a shell command first, then the task's MCP tool, then the answer. Shared by the
 * agent tests and by scripts/capture-agent-requests.ts, which records what the agents send.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Client, ModelRequest, ModelResponse } from "../../packages/core/src/clients/client.ts";
import { EvalClient } from "../../packages/core/src/clients/eval.ts";
import { TrainClient } from "../../packages/core/src/clients/train.ts";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import { defineTaskset } from "../../packages/core/src/task.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";
import { startEngine } from "../../packages/engine/src/index.ts";

/** A toolset whose server takes 2 s to list its tools (see slow-mcp-server.ts). */
export const SLOW_TOOLSET = `[[toolsets]]\nname = "slow"\ncommand = ${JSON.stringify([process.execPath, "--import", "tsx", fileURLToPath(new URL("./slow-mcp-server.ts", import.meta.url))])}\n`;

export const SECRET_WORD = "envroll-shell-7f3a";
export const KV_VALUE = "blue-heron-42";

/** The key the user simulator asks about in its second interaction turn, and its value. */
export const SECOND_KEY = "zephyr";
export const SECOND_VALUE = "amber-fox-17";
const SECOND_ASK = `Thanks. Now look up the key \`${SECOND_KEY}\` the same way and tell me its value.`;

const lookup = {
  name: "lookup",
  description: "Look up a key in the key-value store.",
  parameters: {
    type: "object",
    properties: { key: { type: "string", description: "the key" } },
    required: ["key"],
  },
  execute: (x: { key: string }) =>
    x.key === "color" ? KV_VALUE : x.key === SECOND_KEY ? SECOND_VALUE : "missing",
};

const SYSTEM = "You are a careful agent. Use the tools you are given.";
const PROMPT =
  "Run `echo` in the shell, then look up the key `color` with the kv lookup tool, and report the value.";

/** One tool, `lookup`, served to the agent over MCP as the toolset `kv`. */
export const kvTaskset = defineTaskset({
  id: "kv-agent",
  load: () => [{ idx: 0, system_prompt: SYSTEM, prompt: PROMPT }],
  tools: [lookup],
  toolPrefix: "kv",
  rewards: [{ name: "correct", fn: ({ trace }) => (trace.lastReply.includes(KV_VALUE) ? 1 : 0) }],
});

/**
 * The kv task opened by a user simulator (the task has no prompt): it asks for `color`, then,
 * answered, for a second key (a new `session/prompt` in the same ACP session), then has nothing
 * more to say.
 */
export const kvUserTaskset = defineTaskset({
  id: "kv-agent-user",
  load: () => [{ idx: 0, system_prompt: SYSTEM }],
  tools: [lookup],
  toolPrefix: "kv",
  user: () => {
    const script = [PROMPT, SECOND_ASK];
    return { respond: () => script.splice(0, 1).map((content) => ({ role: "user" as const, content })) };
  },
  rewards: [{ name: "correct", fn: ({ trace }) => (trace.lastReply.includes(SECOND_VALUE) ? 1 : 0) }],
});

export type AgentId = "codex" | "claude_code";

/** The model's three turns in Qwen3's tool-call syntax, keyed by what the prompt already holds. */
export function replayRows(agent: AgentId, shell = `echo ${SECRET_WORD}`): string {
  return replayRowList(agent, shell)
    .map((r) => JSON.stringify(r))
    .join("\n");
}

/** The user-simulated episode: the three turns, then (asked for the second key) two more. */
export function userSimReplay(agent: AgentId): string {
  const call = `<tool_call>\n${JSON.stringify({ name: "mcp__kv__lookup", arguments: { key: SECOND_KEY } })}\n</tool_call>`;
  const rows = [
    {
      match: SECOND_VALUE,
      reply: `<think>\nGot it.\n</think>\n\nThe value of ${SECOND_KEY} is ${SECOND_VALUE}.`,
    },
    { match: SECOND_ASK, reply: `<think>\nThe second lookup.\n</think>\n\n${call}` },
    ...replayRowList(agent),
  ];
  return rows.map((r) => JSON.stringify(r)).join("\n");
}

function replayRowList(agent: AgentId, command = `echo ${SECRET_WORD}`): { match?: string; reply: string }[] {
  const call = (name: string, args: object) =>
    `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
  const shell =
    agent === "codex"
      ? call("exec_command", { cmd: command })
      : call("Bash", { command, description: "Print a word" });
  const mcp = call("mcp__kv__lookup", { key: "color" });
  const rows = [
    { match: KV_VALUE, reply: `<think>\nI have the value.\n</think>\n\nThe value of color is ${KV_VALUE}.` },
    { match: SECRET_WORD, reply: `<think>\nThe shell works; now the lookup.\n</think>\n\n${mcp}` },
    { reply: `<think>\nFirst the shell.\n</think>\n\n${shell}` },
  ];
  return rows;
}

/**
 * The generic harness runs an agent from its command, its packages and harness.env alone; the
 * toolsets go to it in `session/new`, the endpoint in the standard variables
 * (OPENAI_BASE_URL/OPENAI_API_KEY, ANTHROPIC_BASE_URL/ANTHROPIC_API_KEY), which harness.env can
 * also place where an agent reads them (codex-acp: DEFAULT_AUTH_REQUEST), with a per-rollout
 * state folder (ENVROLL_AGENT_HOME) for CODEX_HOME. Codex is given the preset's config layer
 * (the model's name, which turns off its "code mode"); CODEX_CODE_MODE is the same without it.
 */
/** `${NAME}`: a rollout variable, expanded by the acp harness. */
const rolloutVar = (name: string) => "$".concat("{", name, "}");
const CODEX_AUTH = JSON.stringify({
  methodId: "gateway",
  _meta: {
    gateway: {
      baseUrl: rolloutVar("OPENAI_BASE_URL"),
      headers: { Authorization: `Bearer ${rolloutVar("OPENAI_API_KEY")}` },
    },
  },
});
/** Codex's config layer, as the preset writes it: the model named, multi-agent tools off. */
const CODEX_LAYER = {
  model: "Qwen/Qwen3-0.6B",
  features: { apps: false, plugins: false, multi_agent: false, multi_agent_v2: { enabled: false } },
};
function genericCodex(layer: object | null): string {
  const config = layer ? `CODEX_CONFIG = ${JSON.stringify(JSON.stringify(layer))}, ` : "";
  return `env = { CODEX_HOME = "${rolloutVar("ENVROLL_AGENT_HOME")}", HOME = "${rolloutVar("ENVROLL_AGENT_HOME")}", ${config}INITIAL_AGENT_MODE = "agent-full-access", NO_BROWSER = "1", DEFAULT_AUTH_REQUEST = ${JSON.stringify(CODEX_AUTH)} }\n[harness.acp]\ncommand = ["codex-acp"]\npackages = ["@agentclientprotocol/codex-acp@2.6.0"]\nprompt_timeout = 300\n`;
}

export const GENERIC: Record<AgentId, string> = {
  codex: genericCodex(CODEX_LAYER),
  claude_code: `env = { CLAUDE_CONFIG_DIR = "${rolloutVar("ENVROLL_AGENT_HOME")}", HOME = "${rolloutVar("ENVROLL_AGENT_HOME")}", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = "1", DISABLE_AUTOUPDATER = "1" }\n[harness.acp]\ncommand = ["claude-agent-acp"]\npackages = ["@agentclientprotocol/claude-agent-acp@0.67.0"]\nprompt_timeout = 300\n`,
};

/**
 * Codex through the generic harness with no config layer at all: under its own default model it
 * runs in "code mode" — its tools arrive in an `additional_tools` input item, and the model
 * calls one freeform tool, `exec` (in the `functions` namespace), whose JavaScript calls the
 * shell and the MCP tools.
 */
export const CODEX_CODE_MODE = genericCodex(null);

/** The code-mode episode: shell and MCP lookup each through `exec`, then the answer. */
export function codeModeReplay(): string {
  const exec = (js: string) =>
    `<tool_call>\n${JSON.stringify({ name: "functions__exec", arguments: { input: js } })}\n</tool_call>`;
  const rows = [
    { match: KV_VALUE, reply: `<think>\nI have the value.\n</think>\n\nThe value of color is ${KV_VALUE}.` },
    {
      match: SECRET_WORD,
      reply: `<think>\nNow the lookup.\n</think>\n\n${exec('const r = await tools.mcp__kv__lookup({ key: "color" });\ntext(JSON.stringify(r));')}`,
    },
    {
      reply: `<think>\nFirst the shell.\n</think>\n\n${exec(`const r = await tools.exec_command({ cmd: "echo ${SECRET_WORD}" });\ntext(r.output);`)}`,
    },
  ];
  return rows.map((r) => JSON.stringify(r)).join("\n");
}
/** Records every sampled turn as the client returned it (ids and logprobs for training). */
export class Recorder implements Client {
  readonly turns: { completionIds: number[]; logprobs: number[] }[] = [];
  constructor(readonly inner: Client) {}
  get kind() {
    return this.inner.kind;
  }
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const r = await this.inner.getResponse(request);
    if (r.tokens)
      this.turns.push({ completionIds: r.tokens.completionIds, logprobs: r.tokens.completionLogprobs });
    return r;
  }
  countTokens = (...a: Parameters<NonNullable<Client["countTokens"]>>) => this.inner.countTokens!(...a);
  abort = (id?: string) => this.inner.abort?.(id);
  close = () => this.inner.close?.();
}

export interface AgentRun {
  record: TraceRecord;
  generates: number[][];
  turns: Recorder["turns"];
  bridged: number;
}

export async function runAgentEpisode(
  harness: string,
  agent: AgentId,
  opts: {
    mode: "train" | "eval";
    acp?: string;
    engineDown?: boolean;
    /** The engine's context (default 131072) and the config's `[sampling]` body. */
    contextLength?: number;
    sampling?: string;
    /** The replay policy's rows (default: replayRows(agent)). */
    replay?: string;
    /** TOML appended to the config (e.g. `[[toolsets]]` tables). */
    extraToml?: string;
    /** The kv task with a user simulator (kvUserTaskset) instead of kvTaskset. */
    userSim?: boolean;
  },
): Promise<AgentRun> {
  const dir = mkdtempSync(join(tmpdir(), "envroll-agent-test-"));
  const replay = join(dir, "replay.jsonl");
  writeFileSync(replay, opts.replay ?? replayRows(agent));
  const generates: number[][] = [];
  const engine = await startEngine({
    policy: `replay:${replay}`,
    contextLength: opts.contextLength ?? 131072,
    onRequest: (body) => {
      const ids = (body as { input_ids?: number[] }).input_ids;
      if (ids) generates.push(ids);
    },
  });
  const taskset = opts.userSim ? kvUserTaskset : kvTaskset;
  const toml = `taskset = { id = "${taskset.id}" }\nmodel = "Qwen/Qwen3-0.6B"\nmax_turns = 8\n[harness]\nid = "${harness}"\n${opts.acp ?? ""}\n[sampling]\n${opts.sampling ?? "max_tokens = 400"}\n${opts.extraToml ?? ""}`;
  const env = await loadEnvironment(await loadConfig(toml, {}, { taskset }), { taskset });
  const transport = new SglangTransport({ baseUrl: engine.url });
  const inner: Client =
    opts.mode === "train"
      ? new TrainClient({ renderer: createRenderer("qwen3"), transport })
      : new EvalClient({ baseUrl: `${engine.url}/v1`, apiKey: "none", model: "Qwen/Qwen3-0.6B" });
  const client = new Recorder(inner);
  if (opts.engineDown) await engine.close();
  try {
    const [record] = await env.runGroup(0, 1, { client });
    const bridged = inner instanceof TrainClient ? inner.counts.bridged : 0;
    return { record: record!, generates, turns: client.turns, bridged };
  } finally {
    await env.close();
    await client.close();
    if (!opts.engineDown) await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
