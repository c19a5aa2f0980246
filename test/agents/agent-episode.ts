/**
 * One real agent (Codex or Claude Code, through the `codex` / `claude_code` / `acp` harness)
 * running a multi-turn tool episode through envroll against the built-in engine with a replay
 * policy: a shell command first, then the task's MCP tool, then the answer. Shared by the
 * agent tests and by scripts/capture-agent-requests.ts, which records what the agents send.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

export const SECRET_WORD = "envroll-shell-7f3a";
export const KV_VALUE = "blue-heron-42";

/** One tool, `lookup`, served to the agent over MCP as the toolset `kv`. */
export const kvTaskset = defineTaskset({
  id: "kv-agent",
  load: () => [
    {
      idx: 0,
      system_prompt: "You are a careful agent. Use the tools you are given.",
      prompt:
        "Run `echo` in the shell, then look up the key `color` with the kv lookup tool, and report the value.",
    },
  ],
  tools: [
    {
      name: "lookup",
      description: "Look up a key in the key-value store.",
      parameters: {
        type: "object",
        properties: { key: { type: "string", description: "the key" } },
        required: ["key"],
      },
      execute: (x: { key: string }) => (x.key === "color" ? KV_VALUE : "missing"),
    },
  ],
  toolPrefix: "kv",
  rewards: [{ name: "correct", fn: ({ trace }) => (trace.lastReply.includes(KV_VALUE) ? 1 : 0) }],
});

export type AgentId = "codex" | "claude_code";

/** The model's three turns in Qwen3's tool-call syntax, keyed by what the prompt already holds. */
export function replayRows(agent: AgentId): string {
  const call = (name: string, args: object) =>
    `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
  const shell =
    agent === "codex"
      ? call("exec_command", { cmd: `echo ${SECRET_WORD}` })
      : call("Bash", { command: `echo ${SECRET_WORD}`, description: "Print a word" });
  const mcp = call("mcp__kv__lookup", { key: "color" });
  const rows = [
    { match: KV_VALUE, reply: `<think>\nI have the value.\n</think>\n\nThe value of color is ${KV_VALUE}.` },
    { match: SECRET_WORD, reply: `<think>\nThe shell works; now the lookup.\n</think>\n\n${mcp}` },
    { reply: `<think>\nFirst the shell.\n</think>\n\n${shell}` },
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
  },
): Promise<AgentRun> {
  const dir = mkdtempSync(join(tmpdir(), "envroll-agent-test-"));
  const replay = join(dir, "replay.jsonl");
  writeFileSync(replay, replayRows(agent));
  const generates: number[][] = [];
  const engine = await startEngine({
    policy: `replay:${replay}`,
    contextLength: opts.contextLength ?? 131072,
    onRequest: (body) => {
      const ids = (body as { input_ids?: number[] }).input_ids;
      if (ids) generates.push(ids);
    },
  });
  const taskset = kvTaskset;
  const toml = `taskset = { id = "${taskset.id}" }\nmodel = "Qwen/Qwen3-0.6B"\nmax_turns = 8\n[harness]\nid = "${harness}"\n${opts.acp ?? ""}\n[sampling]\n${opts.sampling ?? "max_tokens = 400"}\n`;
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
