/**
 * verifiers v0.2.0's code_golf_v1, unchanged: its `@vf.metric evaluate` runs each program in the
 * rollout's envroll runtime (write + run through the host's runtime callbacks), `correct` reads
 * that metric, and the group rewards `most_concise` and `fastest` compare the group. Against
 * test/fixtures/code_golf_v1.json (recorded with the real verifiers): the tasks, every
 * per-rollout metric and reward, `most_concise` per rollout, and `fastest` — wall-clock
 * dependent — by its per-task mean. Needs the real verifiers (real-v1.ts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { readFixture } from "../fixtures.ts";
import { needsRealV1, real } from "./real-v1.ts";
import { GroupReplayClient } from "./replay-client.ts";

const fx = readFixture("code_golf_v1.json");
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

test("code_golf_v1: runtime metrics and group rewards equal verifiers' own", needsRealV1, async () => {
  const v1 = real();
  const env = await loadEnvironment(
    await loadConfig(
      [
        'model = "m"',
        "num_rollouts = 4",
        'harness = { id = "null", runtime = { type = "subprocess" } }',
        v1.pythonToml("code_golf_v1"),
        'taskset = { id = "code_golf_v1" }',
      ].join("\n"),
    ),
  );
  assert.deepEqual(env.tasks, fx.tasks, "the environment's own three tasks");
  for (const [g, group] of fx.groups.entries()) {
    const replies = group.rollouts.map((r: { reply: string }) => r.reply);
    const traces = await env.runGroup(g, 4, { client: new GroupReplayClient(replies) });
    const fastest: number[] = [];
    for (const t of traces) {
      assert.deepEqual(t.errors, [], `group ${g}`);
      const reply = (t.nodes.at(-1)!.message as { content: string }).content;
      const j = replies.indexOf(reply);
      const want = group.rollouts[j];
      assert.equal(t.metrics["passed"], want.passed, `group ${g} rollout ${j}`);
      assert.equal(t.rewards["correct"], want.correct_reward);
      assert.equal(t.rewards["most_concise"], group.most_concise_winner_indices.includes(j) ? 0.5 : 0);
      if (!want.extracted_program) assert.equal(t.metrics["latency"], 1e6);
      fastest.push(t.rewards["fastest"]!);
    }
    const measured = group.measured_fastest_winner_indices.length;
    assert.equal(mean(fastest), (0.5 * measured) / 4, `group ${g}: fastest by its per-task mean`);
  }
});
