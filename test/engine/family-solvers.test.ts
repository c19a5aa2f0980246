/**
 * The built-in engine's own solvers (code-golf, tool-math) answer every family it can read: per
 * checkpoint folder, the real Environment runs through a TrainClient with the folder's renderer
 * against `startEngine({ model: folder, policy: "reference" })` (no taskset references handed in,
 * so every reply is a solver's). The solver reads the conversation in the family's format —
 * messages, tool calls, tool results and the tools the prompt offers — and answers in it. Where
 * the template writes tools (Qwen3, gpt-oss, the Llama 3.1 release template) the plan's calls are
 * made and their results read back; where it renders calls but offers no tools (DeepSeek-V3's)
 * the solver answers unaided; where it has no tool support at all (Gemma 3's, the minimal Llama 3
 * one) the tool-using tasks are refused with a typed error instead of running without tools.
 * Every check is a consistency one: the answer is one the solver can give for that task, and the
 * reward agrees with it.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { TrainClient } from "../../packages/core/src/clients/train.ts";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import { ALL_SPECS } from "../../packages/core/src/tasksets/code-golf/specs.ts";
import { parseAnswer } from "../../packages/core/src/tasksets/tool-math/answer.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";
import { type EngineHandle, startEngine } from "../../packages/engine/src/index.ts";
import { checkpointFolder, llama31Folder } from "../checkpoint-folders.ts";

type Tools = "offered" | "unoffered" | "refused";
const CASES: { name: string; dir: () => string; tools: Tools }[] = [
  { name: "qwen3", dir: () => checkpointFolder("qwen3"), tools: "offered" },
  { name: "gptoss", dir: () => checkpointFolder("gptoss"), tools: "offered" },
  { name: "llama3.1 (release template)", dir: llama31Folder, tools: "offered" },
  { name: "deepseek_v3", dir: () => checkpointFolder("deepseek_v3"), tools: "unoffered" },
  { name: "llama3_1 (minimal template)", dir: () => checkpointFolder("llama3_1"), tools: "refused" },
  { name: "gemma3", dir: () => checkpointFolder("gemma3"), tools: "refused" },
];

/** Every rollout of a template without tool support ends in the renderer's typed refusal. */
function checkRefused(groups: TraceRecord[][]) {
  for (const t of groups.flat()) {
    assert.equal(t.errors.length, 1, JSON.stringify(t.errors));
    assert.equal(t.errors[0]!.type, "UnsupportedError");
    assert.match(t.errors[0]!.message, /no tool support/);
  }
}

const TASKS = 4;

async function run(engine: EngineHandle, dir: string, toml: string, rollouts: number) {
  const client = new TrainClient({
    renderer: createRenderer(dir, { onWarning: () => {} }),
    transport: new SglangTransport({ baseUrl: engine.url, contextLength: 40_960 }),
  });
  const config = await loadConfig(`model = "m"\nnum_tasks = ${TASKS}\nnum_rollouts = ${rollouts}\n${toml}`);
  const env = await loadEnvironment(config);
  try {
    const groups: TraceRecord[][] = [];
    for (let t = 0; t < TASKS; t++) groups.push(await env.runGroup(t, rollouts, { client }));
    return { env, groups };
  } finally {
    await env.close();
    await client.close();
  }
}

/** The tool calls the trace's assistant turns made (as the client parsed them from the sampled ids). */
const toolCalls = (t: TraceRecord) =>
  t.nodes.flatMap((n) => (n.message.role === "assistant" ? (n.message.tool_calls ?? []) : []));

async function checkToolMath(engine: EngineHandle, dir: string, tools: Tools) {
  const { env, groups } = await run(engine, dir, '[taskset]\nid = "tool-math"', 1);
  if (tools === "refused") return checkRefused(groups);
  const writesTools = tools === "offered";
  for (const [i, [t]] of groups.entries()) {
    assert.deepEqual(t!.errors, [], JSON.stringify(t!.errors));
    const truth = Number(env.tasks[i]!["answer"]);
    const given = parseAnswer(t!.last_reply);
    // Right, the seeded wrong final answer, or the seeded guess: never "no problem found" (0) or an echo.
    const right = given !== null && given.toFixed(2) === truth.toFixed(2);
    const wrong = given !== null && given.toFixed(2) === (truth * 1.1 + 1).toFixed(2);
    const guess = given === 100 && t!.last_reply.startsWith("That is roughly");
    assert.ok(right || wrong || guess, `task ${i}: ${JSON.stringify(t!.last_reply)} (truth ${truth})`);
    assert.equal(t!.rewards["correct"], right ? 1 : 0);
    const calls = toolCalls(t!).length;
    if (!writesTools || guess) assert.equal(calls, 0, "no tools offered, none called");
    else
      assert.equal(calls, Number(env.tasks[i]!["plan_calls"]), "the whole plan, read back result by result");
  }
}

async function checkCodeGolf(engine: EngineHandle, dir: string, tools: Tools) {
  const toml = '[taskset]\nid = "code-golf"\n[harness.runtime]\nallow_unsandboxed = true';
  const { env, groups } = await run(engine, dir, toml, 2);
  if (tools === "refused") return checkRefused(groups);
  const writesTools = tools === "offered";
  for (const [i, group] of groups.entries()) {
    const spec = ALL_SPECS.find((s) => s.name === env.tasks[i]!["name"])!;
    const lit = JSON.stringify(spec.expected);
    // The programs the solver writes for this task, and whether each prints the expected output.
    const outcomes = new Map([
      [spec.solution, true],
      [`result = ${lit}\nprint(result)`, true],
      [`print(${JSON.stringify(`${spec.expected}?`)})`, false],
      [`${spec.solution}\nraise SystemExit(1)`, false],
    ]);
    for (const t of group) {
      assert.deepEqual(t.errors, [], JSON.stringify(t.errors));
      const program = /```python\n([\s\S]*?)\n```/.exec(t.last_reply)?.[1];
      if (program === undefined) {
        assert.equal(t.last_reply, "I am not sure how to solve this one.");
        assert.equal(t.rewards["correct"], 0);
        continue;
      }
      assert.ok(outcomes.has(program), `task ${spec.name}: ${JSON.stringify(t.last_reply)}`);
      assert.equal(t.rewards["correct"], outcomes.get(program) ? 1 : 0, program);
      const bash = toolCalls(t).filter((c) => c.name.endsWith("bash"));
      if (writesTools) assert.ok(bash.length >= 1, "the program was run through bash first");
      else assert.equal(toolCalls(t).length, 0);
    }
  }
}

describe("the engine's code-golf and tool-math solvers, per checkpoint family", () => {
  for (const { name, dir: folder, tools } of CASES) {
    test(`${name}: tool-math and code-golf read back and answered in the family's format`, async () => {
      const dir = folder();
      const engine = await startEngine({ model: dir, policy: "reference" });
      try {
        await checkToolMath(engine, dir, tools);
        await checkCodeGolf(engine, dir, tools);
      } finally {
        await engine.close();
      }
    });
  }
});
