/**
 * A user-simulator task and a stop condition in each dialect, with the npm SDKs as the harness
 * program, through the TrainClient against the built-in engine: the server injects the
 * simulator's opening and turns whatever wire format the program speaks, and a refusal reaches
 * the program as its dialect's 400.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { defineTaskset } from "../../packages/core/src/task.ts";
import { bisectGame } from "../runtime/helpers/games.ts";
import { AGENTS, assertTokenExact, bisectPolicy, calculator, runHarness } from "./harness-check.ts";

const agent = (mode: string) => [process.execPath, join(AGENTS, "node-sdk-agent.mjs"), mode];
const dialects: [string, string][] = [
  ["openai-chat", "chat"],
  ["openai-responses-stream", "responses+stream"],
  ["openai-responses", "responses"],
  ["anthropic", "anthropic"],
  ["anthropic-stream", "anthropic+stream"],
];

for (const [mode, dialect] of dialects) {
  test(`user simulator (${mode}): the whole game runs inside the program's one request`, async () => {
    const run = await runHarness(agent(mode), { taskset: bisectGame.taskset, policy: bisectPolicy });
    assert.deepEqual(run.record.errors, []);
    assert.equal(run.record.stop_condition, "solved");
    assert.equal(run.record.reward, 1);
    assert.ok(run.record.num_turns >= 3, `${run.record.num_turns} guesses`);
    assert.deepEqual(run.record.info["dialects"], { [dialect]: 1 });
    assertTokenExact(run, mode);
  });

  test(`stop condition (${mode}): the second request is refused with the dialect's 400`, async () => {
    const once = defineTaskset({
      ...calculator,
      id: "calc-once",
      stops: [{ name: "one_turn", fn: ({ trace }) => trace.numTurns >= 1 }],
    });
    const run = await runHarness(agent(mode), { taskset: once });
    assert.deepEqual(run.record.errors, []);
    assert.equal(run.record.stop_condition, "one_turn");
    assert.equal(run.record.num_turns, 1);
    assert.deepEqual(run.record.info["dialects"], { [dialect]: 2 }, "the refused request was counted too");
  });
}
