/**
 * A model that emits broken `<tool_call>` blocks, end to end: the built-in engine plays a policy
 * that tries one kind of broken call per turn; the real TrainClient (renderer, bridge, transport)
 * and the `tools` harness (the task's tools under their own names) run tool-math's tools. Every broken call must come back as an error
 * tool message and the episode must go on to the final answer — no crash, no early stop.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { TrainClient } from "../../packages/core/src/clients/train.ts";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import { loadTokenizer } from "../../packages/core/src/tokenizer/index.ts";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";
import type { Message } from "../../packages/core/src/types.ts";
import { type PolicyContext, startEngine } from "../../packages/engine/src/index.ts";

const TOOL_CALL = 151657;
const TOOL_CALL_END = 151658;
const IM_END = 151645;

/** One broken call per turn, in this order, then a valid call, then the answer. */
const TURNS: { what: string; body: string | null; expect: RegExp }[] = [
  {
    what: "invalid JSON",
    body: '{"name": "calculate", "arguments": {"expression": "1+}',
    expect: /^Error: the tool call could not be parsed/,
  },
  {
    what: "unknown tool",
    body: '{"name": "launch_missiles", "arguments": {}}',
    expect: /^Error: unknown tool "launch_missiles"/,
  },
  { what: "numeric name", body: '{"name": 5, "arguments": {}}', expect: /^Error: unknown tool/ },
  {
    what: "array arguments",
    body: '{"name": "calculate", "arguments": [1, 2]}',
    expect: /^Error: tool arguments must be a JSON object/,
  },
  {
    what: "schema mismatch",
    body: '{"name": "calculate", "arguments": {"expr": "1+1"}}',
    expect: /^Error: invalid arguments for calculate/,
  },
  { what: "not an object", body: '"calculate"', expect: /^Error: the tool call could not be parsed/ },
  { what: "no closing tag", body: null, expect: /^Error: the tool call could not be parsed/ },
  { what: "valid call", body: '{"name": "calculate", "arguments": {"expression": "6*7"}}', expect: /^42$/ },
];

function brokenToolPolicy(tok: { encode(s: string): number[] }) {
  return (ctx: PolicyContext) => {
    // The turn number is the number of tool replies already in the prompt.
    const turn = ctx.promptText.split("<tool_response>").length - 1;
    const step = TURNS[turn];
    if (!step) return "The answer is 42.";
    if (step.body === null)
      return {
        ids: [...tok.encode("Let me compute."), TOOL_CALL, ...tok.encode('\n{"name": "calc'), IM_END],
      };
    return { ids: [TOOL_CALL, ...tok.encode(`\n${step.body}\n`), TOOL_CALL_END, IM_END] };
  };
}

test("broken tool calls through TrainClient + engine + tools harness: error tool messages, the episode continues", async () => {
  const renderer = createRenderer("qwen3");
  const engine = await startEngine({ policy: brokenToolPolicy(loadTokenizer("qwen3")) });
  const config = await loadConfig(
    'model = "Qwen/Qwen3-0.6B"\nnum_rollouts = 2\nnum_tasks = 2\nmax_turns = 20\n[harness]\nid = "tools"\n[taskset]\nid = "tool-math"\n',
  );
  const env = await loadEnvironment(config);
  const transport = new SglangTransport({ baseUrl: engine.url });
  const client = new TrainClient({ renderer, transport });
  try {
    assert.equal(env.harness.id, "tools");
    const traces = (await Promise.all([0, 1].map((i) => env.runGroup(i, 2, { client })))).flat();
    assert.equal(traces.length, 4);
    for (const t of traces) {
      assert.deepEqual(t.errors, [], JSON.stringify(t.errors));
      assert.equal(t.stop_condition, "agent_completed");
      assert.equal(t.num_turns, TURNS.length + 1, "the episode stopped early");
      const messages = t.nodes.map((n) => n.message as Message);
      const toolReplies = messages.filter((m) => m.role === "tool").map((m) => String(m.content));
      assert.equal(toolReplies.length, TURNS.length);
      if (t.task_index === 0 && t.rollout_index === 0)
        console.log(JSON.stringify({ suite: "broken_tool_calls", toolReplies }));
      for (const [i, step] of TURNS.entries())
        assert.match(toolReplies[i]!, step.expect, `${step.what}: ${toolReplies[i]}`);
      assert.equal(t.last_reply, "The answer is 42.");
      // The whole episode stayed one token-exact branch (every turn bridged from the sampled ids).
      assert.equal(t.branches.length, 1);
    }
    assert.equal(client.counts.rendered, 4, "only each rollout's first turn is a full render");
  } finally {
    await client.close();
    await env.close();
    await engine.close();
  }
});
