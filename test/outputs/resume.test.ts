import assert from "node:assert/strict";
import { test } from "node:test";
import { planResume } from "../../packages/core/src/outputs/resume.ts";
import { effectiveTraces } from "../../packages/core/src/outputs/trace-set.ts";
import { errored, makeTrace } from "./fixtures.ts";

test("missing and errored rollouts are rerun; done ones are kept", () => {
  const traces = [
    makeTrace({ task_index: 0, rollout_index: 0 }),
    makeTrace({ task_index: 0, rollout_index: 1 }),
    makeTrace({ task_index: 1, rollout_index: 0 }),
    errored(1, 1),
  ];
  const plan = planResume(traces, { taskIndices: [0, 1, 2], numRollouts: 2, isGroupTask: () => false });
  assert.deepEqual(plan.work, [
    { taskIndex: 1, rolloutIndices: [1] },
    { taskIndex: 2, rolloutIndices: [0, 1] },
  ]);
  assert.equal(plan.done, 3);
  assert.equal(plan.todo, 3);
});

test("group-reward tasks rerun as whole groups", () => {
  const traces = [
    makeTrace({ task_index: 0, rollout_index: 0 }),
    errored(0, 1),
    makeTrace({ task_index: 0, rollout_index: 2 }),
  ];
  const plan = planResume(traces, { taskIndices: [0], numRollouts: 3, isGroupTask: () => true });
  assert.deepEqual(plan.work, [{ taskIndex: 0, rolloutIndices: [0, 1, 2] }]);
  assert.equal(plan.done, 0);
});

test("a later successful attempt supersedes an errored one", () => {
  const traces = [errored(0, 0), makeTrace({ task_index: 0, rollout_index: 0, reward: 0.5 })];
  assert.equal(planResume(traces, { taskIndices: [0], numRollouts: 1, isGroupTask: () => false }).todo, 0);
  const eff = effectiveTraces(traces);
  assert.equal(eff.length, 1);
  assert.equal(eff[0]!.reward, 0.5);
});
