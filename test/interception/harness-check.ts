/**
 * The acceptance harness for dialects: a real SDK program (Python or Node) runs as the
 * `command` harness of a tool task, through the TrainClient against the built-in engine, and
 * the run is checked token-exactly — every `/generate` input is a prefix of the trace's branch,
 * and every sampled id and logprob the engine returned is exactly a loss-masked token of the
 * Miles sample, in order.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Client, ModelRequest, ModelResponse } from "../../packages/core/src/clients/client.ts";
import type { TrainClient } from "../../packages/core/src/clients/train.ts";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { branchToSample } from "../../packages/core/src/miles/convert.ts";
import { defineTaskset, type Taskset } from "../../packages/core/src/task.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { parseChatPrompt, startEngine } from "../../packages/engine/src/index.ts";
import type { PolicyFn } from "../../packages/engine/src/types.ts";
import { qwen3TrainClient } from "../clients/qwen3-client.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const AGENTS = join(dirname(fileURLToPath(import.meta.url)), "agents");

/** The project venv's interpreter when there is one (where the SDK wheels are installed). */
export function python(): string {
  const venv = join(ROOT, ".venv", "bin", "python");
  return existsSync(venv) ? venv : "python3";
}

/** A reason to skip when `module` cannot be imported by `python()`, else null. */
export function missingPython(module: string): string | null {
  const r = spawnSync(python(), ["-c", `import ${module}`], { encoding: "utf8" });
  return r.status === 0
    ? null
    : `python package '${module}' is not installed for ${python()} (pip install ${module})`;
}

export const calculator = defineTaskset({
  id: "calc",
  load: () => [{ idx: 0, system_prompt: "Use the tools.", prompt: "Compute (2 + 3) * 4." }],
  tools: [
    {
      name: "add",
      description: "a + b",
      parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
      execute: (x: { a: number; b: number }) => String(x.a + x.b),
    },
    {
      name: "mul",
      description: "a * b",
      parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
      execute: (x: { a: number; b: number }) => String(x.a * x.b),
    },
  ],
  rewards: [{ name: "correct", fn: ({ trace }) => (trace.lastReply.trim() === "20" ? 1 : 0) }],
});

/** The model: thinks, then add(2, 3), then mul(<sum>, 4), then answers; text beside each call. */
export const calculatorPolicy: PolicyFn = (ctx) => {
  const results = [...ctx.promptText.matchAll(/<tool_response>\n([\s\S]*?)\n<\/tool_response>/g)].map(
    (m) => m[1],
  );
  const call = (name: string, args: string) =>
    `<tool_call>\n{"name": "${name}", "arguments": ${args}}\n</tool_call>`;
  if (results.length === 0)
    return `<think>\nAdd first, then multiply.\n</think>\n\nAdding.\n${call("add", '{"a": 2, "b": 3}')}`;
  if (results.length === 1)
    return `<think>\nNow times four.\n</think>\n\n${call("mul", `{"a": ${Number(results[0])}, "b": 4}`)}`;
  return `<think>\nThat is the answer.\n</think>\n\n${results[1]}`;
};

/** Guess-the-number against the simulated user, bisecting on what the prompt shows. */
export const bisectPolicy: PolicyFn = (ctx) => {
  let lo = 1;
  let hi = 100;
  let last = 0;
  for (const m of parseChatPrompt(ctx.promptText)) {
    const text = m.content.replace(/<think>[\s\S]*?<\/think>\s*/, "").trim();
    if (m.role === "assistant") last = Number(text);
    if (m.role === "user" && text === "higher") lo = last + 1;
    if (m.role === "user" && text === "lower") hi = last - 1;
  }
  return String(Math.floor((lo + hi) / 2));
};

/** Records every sampled turn the engine returned, as the TrainClient received it. */
class Recorder implements Client {
  readonly kind = "train" as const;
  readonly turns: { completionIds: number[]; logprobs: number[] }[] = [];
  constructor(readonly inner: TrainClient) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const r = await this.inner.getResponse(request);
    this.turns.push({ completionIds: r.tokens!.completionIds, logprobs: r.tokens!.completionLogprobs });
    return r;
  }
  countTokens = (...a: Parameters<TrainClient["countTokens"]>) => this.inner.countTokens(...a);
  abort = (id?: string) => this.inner.abort(id);
  close = () => this.inner.close();
}

export interface HarnessRun {
  record: TraceRecord;
  /** input_ids of every /generate the engine received, in order. */
  generates: number[][];
  turns: Recorder["turns"];
  bridged: number;
}

export async function runHarness(
  command: string[],
  opts: {
    taskset?: Taskset<any, any>;
    policy?: PolicyFn;
    toml?: string;
    env?: Record<string, string>;
    /** Extra `[harness]` keys (TOML lines). */
    harness?: string;
  } = {},
): Promise<HarnessRun> {
  const generates: number[][] = [];
  const engine = await startEngine({
    policy: opts.policy ?? calculatorPolicy,
    onRequest: (body) => generates.push((body as { input_ids: number[] }).input_ids),
  });
  const taskset = opts.taskset ?? calculator;
  const env = await loadEnvironment(
    await loadConfig(
      `taskset = { id = "${taskset.id}" }\nmax_turns = 8\n${opts.toml ?? ""}\n[harness]\ncommand = ${JSON.stringify(command)}\nenv = ${tomlTable(opts.env ?? {})}\n${opts.harness ?? ""}\n[sampling]\nmax_tokens = 200\n`,
      {},
      { taskset },
    ),
    { taskset },
  );
  const train = qwen3TrainClient(engine.url);
  const client = new Recorder(train);
  try {
    const [record] = await env.runGroup(0, 1, { client });
    return { record: record!, generates, turns: client.turns, bridged: train.counts.bridged };
  } finally {
    await env.close();
    await client.close();
    await engine.close();
  }
}

function tomlTable(o: Record<string, string>): string {
  return `{ ${Object.entries(o)
    .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
    .join(", ")} }`;
}

/** The token-exact acceptance check on one finished run. */
export function assertTokenExact(run: HarnessRun, label: string): void {
  assert.deepEqual(run.record.errors, [], `${label}: ${JSON.stringify(run.record.errors)}`);
  assert.equal(run.record.branches.length, 1, `${label}: the echoed history stays on one branch`);
  assertSampledExact(run, label);
}

/**
 * The first branch holds every /generate as a prefix, its loss-masked tokens and logprobs are
 * exactly the sampled ones, and every turn after the first was bridged.
 */
export function assertSampledExact(run: HarnessRun, label: string): void {
  const { record, generates, turns } = run;
  assert.equal(generates.length, turns.length, label);
  const branch = record.branches[0]!.token_ids;
  generates.forEach((ids, i) => {
    assert.deepEqual(
      branch.slice(0, ids.length),
      ids,
      `${label}: /generate ${i} is not a prefix of the branch`,
    );
  });
  const sample = branchToSample(record, 0);
  const start = sample.tokens.length - sample.response_length;
  const masked: number[] = [];
  const maskedLogprobs: number[] = [];
  sample.loss_mask.forEach((m, i) => {
    if (!m) return;
    masked.push(sample.tokens[start + i]!);
    maskedLogprobs.push(sample.rollout_log_probs[i]!);
  });
  assert.deepEqual(
    masked,
    turns.flatMap((t) => t.completionIds),
    `${label}: sampled ids ≠ loss-masked tokens`,
  );
  assert.deepEqual(
    maskedLogprobs,
    turns.flatMap((t) => t.logprobs),
    `${label}: logprobs differ`,
  );
  assert.equal(run.bridged, turns.length - 1, `${label}: every later turn was bridged, none re-rendered`);
}
