/**
 * Tool calls that do not parse are counted, per renderer family and parser status (issue 33
 * item 3): the built-in engine plays a model that writes a broken call, then another kind of
 * broken call, then a valid one, then the answer — in Qwen3's format and in Llama 3.1's (through
 * the generic renderer) — under the real TrainClient and the `tools` harness running tool-math.
 * The counts are on each failed turn's node, on the trace, in the summary and in the report;
 * `tool_call_failures.action = "error"` ends the rollout with ToolCallParseError at the first
 * failed turn, and `"penalty"` costs the reward `penalty` per failed turn.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { TrainClient } from "../../packages/core/src/clients/train.ts";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { renderReport } from "../../packages/core/src/outputs/report/report.ts";
import { summarize } from "../../packages/core/src/outputs/summary.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import { loadTokenizer } from "../../packages/core/src/tokenizer/index.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";
import { type PolicyContext, startEngine } from "../../packages/engine/src/index.ts";
import { llama31Folder } from "../checkpoint-folders.ts";

type Tok = { encode(s: string): number[] };

/** Per family: how to count tool results in the prompt, and the sampled ids of each turn. */
const FAMILIES = {
  qwen3: {
    dir: () => "qwen3",
    results: "<tool_response>",
    turns: (tok: Tok) => [
      [151657, ...tok.encode('\n{"name": "calculate", "arguments": {"expression": "1+}\n'), 151658, 151645],
      [...tok.encode("Let me compute."), 151657, ...tok.encode('\n{"name": "calc'), 151645],
      [
        151657,
        ...tok.encode('\n{"name": "calculate", "arguments": {"expression": "6*7"}}\n'),
        151658,
        151645,
      ],
    ],
    reasons: { invalid_json: 1, unclosed_block: 1 },
  },
  "llama-3": {
    dir: llama31Folder,
    results: "ipython<|end_header_id|>",
    turns: (tok: Tok) => [
      [...tok.encode('{"name": "calculate", "parameters": {"expression": "1+'), 128009],
      [...tok.encode("<|python_tag|>print(6*7)"), 128008],
      [...tok.encode('{"name": "calculate", "parameters": {"expression": "6*7"}}'), 128009],
    ],
    reasons: { invalid_json: 1, malformed_structure: 1 },
  },
} as const;

async function run(family: keyof typeof FAMILIES, extra = ""): Promise<TraceRecord[]> {
  const f = FAMILIES[family];
  const dir = f.dir();
  const tok = loadTokenizer(dir);
  const turns = f.turns(tok);
  const policy = (ctx: PolicyContext) => {
    const turn = ctx.promptText.split(f.results).length - 1;
    return turn < turns.length ? { ids: turns[turn]! } : "The answer is 42.";
  };
  const engine = await startEngine({ ...(dir === "qwen3" ? {} : { model: dir }), policy });
  const config = await loadConfig(
    `model = "m"\nnum_rollouts = 2\nnum_tasks = 1\nmax_turns = 10\n${extra}\n[harness]\nid = "tools"\n[taskset]\nid = "tool-math"\n`,
  );
  const env = await loadEnvironment(config);
  const client = new TrainClient({
    renderer: createRenderer(dir, { onWarning: () => {} }),
    transport: new SglangTransport({ baseUrl: engine.url }),
  });
  try {
    return await env.runGroup(0, 2, { client });
  } finally {
    await client.close();
    await env.close();
    await engine.close();
  }
}

const meta = {
  taskset: "tool-math",
  model: "m",
  harness: "tools",
  run_id: "r",
  num_tasks: 1,
  num_rollouts: 2,
};

test("failed tool-call turns are counted per family and reason: nodes, trace, summary, report", async () => {
  const all: TraceRecord[] = [];
  for (const family of Object.keys(FAMILIES) as (keyof typeof FAMILIES)[]) {
    const traces = await run(family);
    for (const t of traces) {
      assert.deepEqual(t.errors, [], JSON.stringify(t.errors));
      assert.equal(t.last_reply, "The answer is 42.");
      assert.deepEqual(t.tool_call_failures, { [family]: FAMILIES[family].reasons });
      const failedTurns = t.nodes.filter((n) => n.tool_call_failures?.length);
      assert.equal(failedTurns.length, 2);
      assert.ok(failedTurns.every((n) => n.sampled && n.tool_call_failures![0]!.family === family));
      // The harness answered each broken call, and the valid one ran.
      const results = t.nodes.filter((n) => n.message.role === "tool").map((n) => String(n.message.content));
      assert.equal(results.length, 3, JSON.stringify(results));
      assert.equal(results[2], "42");
    }
    all.push(...traces.map((t) => ({ ...t, task_index: all.length })));
  }
  const summary = summarize(all, { ...meta, num_tasks: 2 });
  assert.deepEqual(summary.tool_call_failures, {
    turns: 8,
    attempts: 8,
    by_family: {
      qwen3: { invalid_json: 2, unclosed_block: 2 },
      "llama-3": { invalid_json: 2, malformed_structure: 2 },
    },
  });
  const html = renderReport(summary, all, { generatedAt: new Date(0) });
  assert.match(html, /Tool calls that did not parse/);
  assert.match(html, /<td>llama-3<\/td><td>malformed_structure<\/td><td class="num">2<\/td>/);
  const clean = summarize(
    all.map(({ tool_call_failures: _, ...t }) => ({
      ...t,
      nodes: t.nodes.map(({ tool_call_failures: __, ...n }) => n),
    })),
    meta,
  );
  assert.deepEqual(clean.tool_call_failures, { turns: 0, attempts: 0, by_family: {} });
  assert.doesNotMatch(renderReport(clean, []), /Tool calls that did not parse/);
});

test('tool_call_failures.action = "error" ends the rollout at the failed turn with ToolCallParseError', async () => {
  for (const t of await run("llama-3", '[tool_call_failures]\naction = "error"')) {
    assert.equal(t.errors.at(-1)?.type, "ToolCallParseError", JSON.stringify(t.errors));
    assert.match(t.errors.at(-1)!.message, /turn 1: a tool call did not parse \(llama-3 invalid_json/);
    assert.equal(t.num_turns, 1);
  }
});

test('tool_call_failures.action = "penalty" costs the reward per failed turn', async () => {
  const [plain] = await run("qwen3");
  const [penalized] = await run("qwen3", '[tool_call_failures]\naction = "penalty"\npenalty = 0.25');
  assert.equal(penalized!.rewards["tool_call_failure_penalty"], -0.5);
  assert.equal(plain!.rewards["tool_call_failure_penalty"], undefined);
  assert.ok(Math.abs(penalized!.reward - (plain!.reward - 0.5)) < 1e-9);
});

test("the config key is checked", async () => {
  await assert.rejects(
    loadConfig('[taskset]\nid = "tool-math"\n[tool_call_failures]\naction = "ignore"\n'),
    /tool_call_failures\.action/,
  );
});
