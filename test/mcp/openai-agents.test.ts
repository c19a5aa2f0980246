/**
 * A real SDK agent as the harness: the `@openai/agents` program reaches the task's tools and
 * bash over MCP and trains through the TrainClient against the built-in engine (reference
 * policy). Token-exact: every /generate input is a prefix of its trace's branch, the history the
 * SDK re-sends never forks the trace, and every sampled id and logprob is a loss-masked token
 * of the Miles sample.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { TrainClient } from "../../packages/core/src/clients/train.ts";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { branchToSample } from "../../packages/core/src/miles/convert.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import { extractProgram } from "../../packages/core/src/tasksets/code-golf/program.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";
import { startEngine } from "../../packages/engine/src/index.ts";

interface Generated {
  sessionId: string;
  inputIds: number[];
  outputIds: number[];
  logprobs: number[];
}

async function runAgent(taskset: string, toml: string) {
  const engine = await startEngine({ policy: "reference", seed: 5 });
  const transport = new SglangTransport({ baseUrl: engine.url });
  const generated: Generated[] = [];
  const generate = transport.generate.bind(transport);
  transport.generate = async (req) => {
    const r = await generate(req);
    generated.push({
      sessionId: req.sessionId,
      inputIds: [...req.inputIds],
      outputIds: r.outputIds,
      logprobs: r.logprobs,
    });
    return r;
  };
  const client = new TrainClient({ renderer: createRenderer("qwen3"), transport });
  const config = await loadConfig(
    `model = "Qwen/Qwen3-0.6B"\nmax_turns = 12\nnum_rollouts = 2\n${toml}\n[taskset]\nid = "${taskset}"\n[harness]\nid = "openai-agents"\n`,
  );
  const env = await loadEnvironment(config);
  try {
    const traces = (await Promise.all([0, 1].map((i) => env.runGroup(i, 2, { client })))).flat();
    return { traces, generated };
  } finally {
    await client.close();
    await env.close();
    await engine.close();
  }
}

function assertTokenExact(traces: TraceRecord[], generated: Generated[]): void {
  for (const t of traces) {
    assert.equal(t.branches.length, 1, `trace ${t.id} forked: the SDK's re-sent history did not match`);
    const branch = t.branches[0]!;
    const turns = generated.filter((g) => g.sessionId === t.id);
    assert.equal(turns.length, t.num_turns);
    for (const g of turns)
      assert.deepEqual(
        branch.token_ids.slice(0, g.inputIds.length),
        g.inputIds,
        "a /generate input is not a prefix",
      );
    const sample = branchToSample(t, 0);
    const start = sample.tokens.length - sample.response_length;
    const masked = sample.tokens.slice(start).filter((_, i) => sample.loss_mask[i] === 1);
    const maskedLogprobs = sample.rollout_log_probs.filter((_, i) => sample.loss_mask[i] === 1);
    assert.deepEqual(
      masked,
      turns.flatMap((g) => g.outputIds),
    );
    assert.deepEqual(
      maskedLogprobs,
      turns.flatMap((g) => g.logprobs),
    );
  }
}

test("openai-agents: tool-math over MCP (math_calculate, math_convert), token-exact through the TrainClient", async () => {
  const { traces, generated } = await runAgent("tool-math", "");
  assert.equal(traces.length, 4);
  for (const t of traces) {
    assert.deepEqual(t.errors, [], JSON.stringify(t.errors));
    assert.equal(t.stop_condition, "agent_completed");
  }
  const calls = traces.flatMap((t) => (t.info["tool_calls"] as { server: string; tool: string }[]) ?? []);
  assert.ok(calls.length > 0 && calls.every((c) => c.server === "math"), JSON.stringify(calls));
  // A rollout the reference policy answers without tools (its seeded noise) records no calls at all.
  for (const t of traces)
    assert.equal(t.metrics["tool_calls"], (t.info["tool_calls"] as unknown[] | undefined)?.length ?? 0);
  // Whether a rollout is solved is the reference policy's seeded noise; that its reward tells the
  // truth about its final answer is not.
  for (const t of traces) {
    const given = Number(/<answer>([^<]*)<\/answer>\W*$/.exec(t.last_reply)?.[1] ?? Number.NaN);
    const expected = Number(t.task.data["answer"]);
    assert.equal(t.reward, Math.abs(given - expected) <= 0.01 ? 1 : 0, `trace ${t.id}: ${t.last_reply}`);
  }
  assertTokenExact(traces, generated);
});

test("openai-agents: code-golf runs its program with coding_bash in the sandbox before answering, token-exact", async () => {
  const { traces, generated } = await runAgent(
    "code-golf",
    '[harness.runtime]\ntype = "sandbox"\nallow_unsandboxed = true',
  );
  for (const t of traces) {
    assert.deepEqual(t.errors, [], JSON.stringify(t.errors));
    assert.ok(["passed", "latency"].every((k) => k in t.metrics));
  }
  // The reference policy's noise is seeded by each request's rid, which carries random bits, so
  // which rollouts give up in prose differs between runs (~5 % each). What must hold in every
  // rollout: a program is only ever answered after it was run with bash.
  const runsOf = (t: TraceRecord) => (t.info["tool_calls"] as { server: string; tool: string }[]) ?? [];
  for (const t of traces)
    if (t.last_reply.includes("```"))
      assert.ok(runsOf(t).length > 0, `trace ${t.id} answered a program without running it`);
  const bashRuns = traces.flatMap(runsOf);
  assert.ok(bashRuns.length > 0, "no rollout ran its program");
  assert.ok(bashRuns.every((c) => c.server === "coding" && c.tool === "bash"));
  // The reference policy's seeded noise decides which rollouts answer with a wrong or crashing
  // program, so "some passed" is chance; what must hold is that every score is the truth about
  // the program the agent answered with, checked here by running it outside the sandbox.
  for (const t of traces) {
    const program = extractProgram(t.last_reply);
    const expected = String(t.task.data["expected"]);
    const run = spawnSync("python3", ["-c", program], { encoding: "utf8", timeout: 60_000 });
    const correct = program !== "" && run.status === 0 && run.stdout.trim() === expected;
    assert.equal(t.metrics["passed"], correct ? 1 : 0, `trace ${t.id}: ${JSON.stringify(program)}`);
  }
  assertTokenExact(traces, generated);
});
