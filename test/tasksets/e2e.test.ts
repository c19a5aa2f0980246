/**
 * Every built-in taskset through the real Environment (config → load → rollouts → scoring →
 * group rewards), answered by the built-in engine's reference solvers.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { readGuess } from "../../packages/core/src/tasksets/guess-number/game.ts";
import { builtinTasksets } from "../../packages/core/src/tasksets/index.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { contentText } from "../../packages/core/src/types.ts";
import { SolverClient } from "./solver-client.ts";

async function runGroups(id: string, toml: string, groups: number, n: number, seed = 1, tasksetKeys = "") {
  const config = await loadConfig(`taskset = { id = "${id}"${tasksetKeys} }\n${toml}`);
  const env = await loadEnvironment(config);
  const client = new SolverClient(seed);
  const out: TraceRecord[][] = [];
  for (let t = 0; t < groups; t++) out.push(await env.runGroup(t, n, { client }));
  return { env, out, client };
}

const flat = (g: TraceRecord[][]) => g.flat();

test("registry: the five built-in ids load lazily", async () => {
  assert.deepEqual(Object.keys(builtinTasksets).sort(), [
    "code-golf",
    "guess-number",
    "reverse-text",
    "short-answer",
    "tool-math",
  ]);
  for (const [id, load] of Object.entries(builtinTasksets)) assert.equal((await load()).id, id);
});

test("reverse-text: one turn under the null harness, lcs in [0, 1], mostly exact", async () => {
  const { env, out, client } = await runGroups(
    "reverse-text",
    "num_rollouts = 2",
    10,
    2,
    1,
    ', split = "test"',
  );
  assert.equal(env.harness.id, "null");
  const traces = flat(out);
  assert.equal(traces.length, 20);
  for (const t of traces) {
    assert.deepEqual(t.errors ?? [], []);
    assert.ok(t.rewards["lcs"]! >= 0 && t.rewards["lcs"]! <= 1);
  }
  assert.ok(traces.filter((t) => t.rewards["lcs"] === 1).length >= 8);
  assert.equal(client.prompts.length, 20, "exactly one model call per rollout");
  assert.match(client.prompts[0]!, /^<\|im_start\|>system\nReverse the text character-by-character\./);
});

test("code-golf: programs run in the sandbox; correct + bonuses within [0, 2]", async () => {
  // allow_unsandboxed only matters where bubblewrap cannot run; the runtime type stays the taskset's.
  const { env, out } = await runGroups(
    "code-golf",
    "num_rollouts = 4\nharness.runtime.allow_unsandboxed = true",
    5,
    4,
    7,
  );
  assert.equal(env.config.harness.runtime.type, "sandbox");
  for (const group of out) {
    for (const t of group) {
      assert.deepEqual(t.errors ?? [], [], JSON.stringify(t.errors));
      assert.ok(t.reward >= 0 && t.reward <= 2);
      assert.ok(["passed", "latency"].every((k) => k in t.metrics));
      assert.equal(t.rewards["correct"], t.metrics["passed"]);
    }
    // Passing-only default: a bonus never goes to a failing program.
    for (const t of group) if (t.metrics["passed"] === 0) assert.equal(t.reward, 0);
    if (group.some((t) => t.metrics["passed"] === 1))
      assert.ok(group.some((t) => t.rewards["most_concise"] === 0.5));
  }
  const all = flat(out);
  assert.ok(all.some((t) => t.metrics["passed"] === 1) && all.some((t) => t.metrics["passed"] === 0));
});

test("tool-math: tool calls executed by the default harness, answers checked", async () => {
  const { env, out } = await runGroups("tool-math", "num_rollouts = 1", 12, 1, 3);
  assert.equal(env.harness.id, "default");
  const traces = flat(out);
  for (const t of traces) assert.deepEqual(t.errors ?? [], []);
  const solved = traces.filter((t) => t.rewards["correct"] === 1);
  assert.ok(solved.length >= 8, `solved ${solved.length}/12`);
  for (const [i, t] of traces.entries()) {
    const planCalls = Number(env.tasks[i]!["plan_calls"]);
    if (t.metrics["tool_calls"]! > 0) assert.equal(t.metrics["tool_calls"], planCalls);
  }
});

test("guess-number: the simulated user opens, the stop fires on a hit, reward by guesses used", async () => {
  const { out } = await runGroups("guess-number", "num_rollouts = 2", 8, 2, 5);
  const traces = flat(out);
  for (const t of traces) {
    assert.deepEqual(t.errors ?? [], []);
    assert.ok(["guessed", "out_of_guesses"].includes(t.stop_condition!), String(t.stop_condition));
    const guesses = t.metrics["guesses"]!;
    if (t.stop_condition === "guessed") assert.equal(t.rewards["win"], 1 - (guesses - 1) / 7);
    else assert.equal(t.rewards["win"], 0);
  }
  // The outcome is the truth about each game, replayed here from the transcript: a hit stops
  // the game at the guess that hit, a miss only after every guess was used.
  for (const t of traces) {
    const { secret, max_guesses } = t.task.data as unknown as { secret: number; max_guesses: number };
    const guesses = t.nodes.filter((n) => n.sampled).map((n) => readGuess(contentText(n.message.content)));
    assert.equal(guesses.length, t.num_turns);
    const hit = guesses.indexOf(secret);
    if (t.stop_condition === "guessed") assert.equal(hit, guesses.length - 1, JSON.stringify(guesses));
    else assert.deepEqual([hit, guesses.length], [-1, max_guesses], JSON.stringify(guesses));
  }
  // Both outcomes occur (the draws depend only on the prompts: see SolverClient).
  assert.ok(traces.some((t) => t.stop_condition === "guessed"));
  assert.ok(traces.some((t) => t.stop_condition === "out_of_guesses"));
});
