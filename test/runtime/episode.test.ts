import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { shouldRetry } from "../../packages/core/src/retries.ts";
import { defineTaskset, type Taskset } from "../../packages/core/src/task.ts";
import { contentText } from "../../packages/core/src/types.ts";
import { envFor } from "./helpers/env.ts";
import { bisectGame } from "./helpers/games.ts";
import { callTool, ScriptedClient, say } from "./helpers/scripted-client.ts";

const rows = [{ idx: 0, prompt: "go" }];
const hi = () => new ScriptedClient(() => say("hi"));

test("retry matching: exclude beats include; empty include means any type", () => {
  const p = { max_retries: 1, include: ["TaskError"], exclude: ["TaskError"] };
  assert.equal(shouldRetry("TaskError", p), false);
  assert.equal(shouldRetry("HarnessError", { ...p, include: [], exclude: [] }), true);
  assert.equal(shouldRetry("HarnessError", { ...p, exclude: [] }), false);
});

/** Setup fails with the given error names, one per attempt, then succeeds. */
function flaky(failures: string[]): Taskset<any, any> & { calls: () => number } {
  let n = 0;
  const ts = defineTaskset({
    id: "flaky",
    load: () => rows,
    setup: () => {
      const name = failures[n++];
      if (name) {
        const e = new Error(`attempt ${n} failed`);
        e.name = name;
        throw Object.assign(e);
      }
    },
    rewards: [{ name: "ok", fn: () => 1 }],
  });
  return Object.assign(ts, { calls: () => n });
}

test("retries rerun the whole rollout and prepend earlier attempts' errors", async () => {
  // Plain exceptions in setup become TaskError at the boundary; retry on that type.
  const ts = flaky(["Error", "Error"]);
  const env = await envFor(ts, 'retries.rollout = { max_retries = 2, include = ["TaskError"] }', {
    "harness.id": "null",
  });
  const [r] = await env.runGroup(0, 1, { client: hi() });
  assert.equal(ts.calls(), 3);
  assert.equal(r!.attempts, 2);
  assert.deepEqual(
    r!.errors.map((e) => e.type),
    ["TaskError", "TaskError"],
  );
  assert.match(r!.errors[0]!.message, /attempt 1 failed/);
  assert.equal(r!.reward, 1, "the last attempt succeeded and was scored");
  assert.equal(r!.is_completed, true);
});

test("exclude wins over include; retries stop at max_retries", async () => {
  const excluded = flaky(["Error", "Error"]);
  const env = await envFor(
    excluded,
    'retries.rollout = { max_retries = 3, include = ["TaskError"], exclude = ["TaskError"] }',
    {
      "harness.id": "null",
    },
  );
  const [r] = await env.runGroup(0, 1, { client: hi() });
  assert.equal(excluded.calls(), 1);
  assert.equal(r!.attempts, 0);
  const capped = flaky(["Error", "Error", "Error"]);
  const env2 = await envFor(capped, "retries.rollout.max_retries = 1", { "harness.id": "null" });
  const [r2] = await env2.runGroup(0, 1, { client: hi() });
  assert.equal(capped.calls(), 2);
  assert.equal(r2!.attempts, 1);
  assert.equal(r2!.errors.length, 2);
  assert.equal(r2!.reward, 0);
});

test("harness timeout stops the rollout as harness_timeout and still scores it", async () => {
  const ts = defineTaskset({
    id: "slow",
    load: () => rows,
    rewards: [{ name: "r", fn: ({ trace }) => trace.numTurns + 0.5 }],
  });
  const env = await envFor(ts, "timeout.rollout = 0.2", { "harness.id": "null" });
  const started = Date.now();
  const [r] = await env.runGroup(0, 1, {
    client: new ScriptedClient(() => say("late"), { latencyMs: 10_000 }),
  });
  assert.ok(Date.now() - started < 3000, "the in-flight call was abandoned");
  assert.equal(r!.stop_condition, "harness_timeout");
  assert.deepEqual(r!.errors, []);
  assert.equal(r!.is_truncated, true);
  assert.equal(r!.reward, 0.5);
  assert.equal(r!.is_completed, true);
});

test("the task's harness timeout applies when the config sets none; stage timeouts are TaskErrors", async () => {
  const ts = defineTaskset({
    id: "slow2",
    load: () => [{ idx: 0, prompt: "go", timeout: { harness: 0.1 } }],
  });
  const env = await envFor(ts, "", { "harness.id": "null" });
  const [r] = await env.runGroup(0, 1, { client: new ScriptedClient(() => say("x"), { latencyMs: 10_000 }) });
  assert.equal(r!.stop_condition, "harness_timeout");

  const slowSetup = defineTaskset({ id: "slow3", load: () => rows, setup: () => delay(2000) });
  const env2 = await envFor(slowSetup, "timeout.setup = 0.1", { "harness.id": "null" });
  const [r2] = await env2.runGroup(0, 1, { client: hi() });
  assert.equal(r2!.errors[0]!.type, "TaskError");
  assert.match(r2!.errors[0]!.message, /setup timed out after 0.1s/);
  assert.equal(r2!.num_turns, 0);
});

const toolLoop = (stops: Taskset["stops"]) =>
  defineTaskset({
    id: "loop",
    load: () => rows,
    tools: [{ name: "noop", description: "", parameters: { type: "object" }, execute: () => "ok" }],
    stops,
  });

test("stop conditions: limits are checked first, then @stop in priority order", async () => {
  const always = () => new ScriptedClient(() => callTool("noop", {}));
  const both = toolLoop([{ name: "two_turns", fn: ({ trace }) => trace.numTurns >= 2 }]);
  const [r] = await (await envFor(both, "max_turns = 2")).runGroup(0, 1, { client: always() });
  assert.equal(r!.stop_condition, "max_turns");
  assert.equal(r!.num_turns, 2);
  assert.equal(r!.is_truncated, true);

  const ranked = toolLoop([
    { name: "a_low", fn: ({ trace }) => trace.numTurns >= 1 },
    { name: "z_high", priority: 10, fn: ({ trace }) => trace.numTurns >= 1 },
  ]);
  const [r2] = await (await envFor(ranked, "max_turns = 5")).runGroup(0, 1, { client: always() });
  assert.equal(r2!.stop_condition, "z_high");
  assert.equal(r2!.num_turns, 1);
  assert.equal(r2!.is_truncated, false);

  const tokens = toolLoop([]);
  const [r3] = await (await envFor(tokens, "max_total_tokens = 40")).runGroup(0, 1, {
    client: new ScriptedClient(() => callTool("noop", {}), { promptTokens: 10, completionTokens: 5 }),
  });
  assert.equal(r3!.stop_condition, "max_total_tokens");
  assert.equal(r3!.num_turns, 3, "soft by one turn: 15, 30 < 40, then 45 ≥ 40 refuses the 4th");
});

test("tools harness: bad tool calls become error tool messages, not crashes", async () => {
  const ts = defineTaskset({
    id: "tools",
    load: () => rows,
    tools: [
      {
        name: "add",
        description: "",
        parameters: { type: "object" },
        execute: (a: { x: number; y: number }) => String(a.x + a.y),
      },
      {
        name: "fail",
        description: "",
        parameters: { type: "object" },
        execute: () => {
          throw new Error("tool broke");
        },
      },
    ],
  });
  const script = [
    callTool("add", "{not json"),
    callTool("add", "[1,2]"),
    callTool("nope", {}),
    callTool("fail", {}),
    callTool("add", { x: 2, y: 3 }),
    say("5"),
  ];
  let i = 0;
  const [r] = await (await envFor(ts, 'harness.id = "tools"')).runGroup(0, 1, {
    client: new ScriptedClient(() => script[i++]!),
  });
  assert.deepEqual(r!.errors, []);
  const toolTexts = r!.nodes
    .filter((n) => n.message.role === "tool")
    .map((n) => contentText(n.message.content as string));
  assert.match(toolTexts[0]!, /not valid JSON/);
  assert.match(toolTexts[1]!, /must be a JSON object/);
  assert.match(toolTexts[2]!, /unknown tool "nope"/);
  assert.match(toolTexts[3]!, /Error: tool broke/);
  assert.equal(toolTexts[4], "5");
  assert.equal(r!.num_turns, 6);
  assert.equal(r!.last_reply, "5");
});

test("a user-simulator task plays a multi-turn game end to end", async () => {
  const client = new ScriptedClient(bisectGame.policy);
  const env = await envFor(bisectGame.taskset, "", { "harness.id": "null" });
  const [r] = await env.runGroup(0, 1, { client });
  assert.deepEqual(r!.errors, []);
  assert.equal(r!.stop_condition, "solved");
  assert.equal(r!.reward, 1);
  assert.equal(r!.last_reply, "37");
  // 50, 25, 37
  assert.equal(r!.num_turns, 3);
  assert.equal(r!.metrics["guesses"], 3);
  const first = client.requests[0]!.messages;
  assert.deepEqual(
    first.map((m) => m.role),
    ["system", "user"],
    "the simulator opened after the system prompt",
  );
  assert.equal(r!.branches.length, 1, "injected turns extend one path");
  const roles = r!.nodes.map((n) => n.message.role).join(",");
  assert.equal(roles, "system,user,assistant,user,assistant,user,assistant");
});
