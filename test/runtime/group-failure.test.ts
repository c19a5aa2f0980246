/**
 * `retries.group`: what an episode does with members whose final attempt failed — drop the
 * group (default), re-run failed members or the whole group, or shrink it to its survivors —
 * recorded on every member's `info.group_failure`, counted in the summary, and honoured by the
 * Miles conversion (excluded members train nothing and carry the survivors' mean reward).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { GroupFailureInfo } from "../../packages/core/src/group-failure.ts";
import { SampleCounter, tracesToGroup } from "../../packages/core/src/miles/convert.ts";
import type { MilesSample } from "../../packages/core/src/miles/sample.ts";
import { SummaryBuilder } from "../../packages/core/src/outputs/summary.ts";
import { defineTaskset } from "../../packages/core/src/task.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { envFor } from "./helpers/env.ts";
import { ScriptedClient, say } from "./helpers/scripted-client.ts";

/**
 * Setup fails on the calls `script` marks (rollouts start in member order; re-runs come after),
 * the reward is 1, and the group reward (when `group`) records how many members it scored.
 */
function scripted(script: boolean[], group = false) {
  let calls = 0;
  const scored: number[] = [];
  const ts = defineTaskset({
    id: "scripted",
    load: () => [{ idx: 0, prompt: "go" }],
    setup: () => {
      if (script[calls++]) throw new Error(`setup call ${calls} failed`);
    },
    rewards: [{ name: "ok", fn: () => 1 }],
    ...(group
      ? {
          groupRewards: [
            {
              name: "rank",
              fn: ({ traces }: { traces: readonly unknown[] }) => {
                scored.push(traces.length);
                return traces.map(() => 0.5);
              },
            },
          ],
        }
      : {}),
  });
  return { ts, calls: () => calls, scored };
}

async function run(script: boolean[], toml: string, n = 3, group = false) {
  const s = scripted(script, group);
  const env = await envFor(s.ts, `num_rollouts = ${n}\n${toml}`, { "harness.id": "null" });
  const records = await env.runGroup(0, n, { client: new ScriptedClient(() => say("hi")) });
  return { records, calls: s.calls(), scored: s.scored };
}

const outcome = (r: TraceRecord) => (r.info.group_failure as GroupFailureInfo | undefined)?.outcome;
const F = true;
const _ = false;

test("default drop-group: one failed member marks the whole group dropped; nothing re-runs", async () => {
  const { records, calls } = await run([F, _, _], "");
  assert.equal(calls, 3);
  assert.deepEqual(records.map(outcome), ["dropped", "dropped", "dropped"]);
  const summary = new SummaryBuilder({
    taskset: "t",
    model: "m",
    harness: "null",
    run_id: "r",
    num_tasks: 1,
    num_rollouts: 3,
  });
  for (const r of records) summary.add(r);
  assert.deepEqual(summary.result().group_failure, {
    groups_dropped: 1,
    groups_retried: 0,
    members_excluded: 0,
    member_retries: 0,
  });
});

test("a group with no failed member is left untouched", async () => {
  const { records, calls } = await run([_, _, _], 'retries.group.policy = "retry-group"');
  assert.equal(calls, 3);
  assert.deepEqual(records.map(outcome), [undefined, undefined, undefined]);
});

test("retry re-runs only the failed member, keeping its earlier errors", async () => {
  const { records, calls } = await run(
    [F, _, _, F, _],
    'retries.group = { policy = "retry", max_retries = 2 }',
  );
  assert.equal(calls, 5, "3 members + 2 re-runs of member 0");
  assert.deepEqual(records.map(outcome), ["kept", "kept", "kept"]);
  const m0 = records[0]!;
  assert.equal((m0.info.group_failure as GroupFailureInfo).member_retries, 2);
  assert.equal(m0.errors.length, 2);
  assert.equal(m0.reward, 1);
  assert.equal(m0.is_completed, true);
  assert.equal((records[1]!.info.group_failure as GroupFailureInfo).member_retries, 0);
});

test("retry falls back (shrink) once its re-runs are spent", async () => {
  const { records } = await run(
    [F, _, _, F],
    'retries.group = { policy = "retry", max_retries = 1, fallback = "shrink" }',
  );
  assert.deepEqual(records.map(outcome), ["excluded", "kept", "kept"]);
});

test("retry-group re-runs every member while any fails", async () => {
  const { records, calls } = await run([_, F, _, _, _, _], 'retries.group.policy = "retry-group"');
  assert.equal(calls, 6);
  assert.deepEqual(records.map(outcome), ["kept", "kept", "kept"]);
  for (const r of records) assert.equal((r.info.group_failure as GroupFailureInfo).group_retries, 1);
  assert.ok(records.every((r) => r.reward === 1));
});

test("shrink scores group rewards over the survivors only; under two survivors it drops", async () => {
  const shrunk = await run([F, _, _], 'retries.group.policy = "shrink"', 3, true);
  assert.deepEqual(shrunk.scored, [2]);
  assert.deepEqual(shrunk.records.map(outcome), ["excluded", "kept", "kept"]);
  assert.equal(shrunk.records[0]!.rewards.rank, undefined);
  assert.equal(shrunk.records[1]!.rewards.rank, 0.5);
  const lone = await run([F, F, _], 'retries.group.policy = "shrink"', 3, true);
  assert.deepEqual(lone.records.map(outcome), ["dropped", "dropped", "dropped"]);
});

test("Miles conversion: excluded members train nothing and carry the survivors' mean reward", async () => {
  const { records } = await run([F, _, _], 'retries.group.policy = "shrink"');
  records[1]!.reward = 1;
  records[2]!.reward = 0;
  const group = tracesToGroup(records, new SampleCounter()) as MilesSample[];
  assert.equal(group.length, 3, "the group keeps n samples");
  assert.equal(group[0]!.remove_sample, true);
  assert.ok(group[0]!.loss_mask.every((m) => m === 0));
  assert.equal(group[0]!.reward, 0.5);
  assert.equal(group[0]!.metadata.envroll.group_failure, "excluded");
  // (A survivor keeps its own reward and no exclusion mark; these text-level traces sampled no
  // token, so every sample here is a masked pad either way.)
  assert.equal(group[1]!.metadata.envroll.group_failure, undefined);
  assert.equal(group[1]!.reward, 1);
});

test("a bad policy names its key", async () => {
  await assert.rejects(run([], 'retries.group.policy = "keep"'), /retries\.group\.policy/);
});
