import assert from "node:assert/strict";
import { test } from "node:test";
import { GroupRewardError } from "../../packages/core/src/errors.ts";
import { ordered } from "../../packages/core/src/scoring.ts";
import { defineTaskset, type Taskset } from "../../packages/core/src/task.ts";
import { envFor } from "./helpers/env.ts";
import { ScriptedClient, say } from "./helpers/scripted-client.ts";

const rows = [{ idx: 0, prompt: "say hi", answer: "hi" }];
const hi = () => new ScriptedClient(() => say("hi"));
const kaput = () => {
  throw new Error("kaput");
};

/** The one rollout of a one-row taskset with these handlers, under the null harness. */
async function scoreOne(id: string, handlers: Pick<Taskset, "metrics" | "rewards">) {
  const env = await envFor(defineTaskset({ id, load: () => rows, ...handlers }), "", {
    "harness.id": "null",
  });
  const [r] = await env.runGroup(0, 1, { client: hi() });
  return r!;
}

test("handlers run in (-priority, name) order", () => {
  const names = ordered([
    { name: "b" },
    { name: "a" },
    { name: "z", priority: 5 },
    { name: "c", priority: -1 },
  ]).map((h) => h.name);
  assert.deepEqual(names, ["z", "a", "b", "c"]);
});

test("metrics run before rewards (a reward reads a metric); rewards are weighted, metrics not", async () => {
  const r = await scoreOne("order", {
    metrics: [{ name: "m", fn: ({ trace }) => ({ passed: trace.lastReply === "hi" ? 1 : 0, latency: 7 }) }],
    rewards: [
      { name: "correct", weight: 2, fn: ({ trace }) => trace.metrics["passed"]! },
      { name: "half", weight: 0.5, fn: () => 1 },
    ],
  });
  assert.deepEqual(r.metrics, { passed: 1, latency: 7 });
  assert.deepEqual(r.rewards, { correct: 2, half: 0.5 });
  assert.equal(r.reward, 2.5);
  assert.equal(r.is_completed, true);
  assert.equal(r.stop_condition, "agent_completed");
});

test("a handler exception marks the rollout errored (TaskError), keeping earlier phases", async () => {
  const r = await scoreOne("boom", {
    metrics: [{ name: "m", fn: () => 1 }],
    rewards: [{ name: "r", fn: kaput }],
  });
  assert.equal(r.errors.length, 1);
  assert.equal(r.errors[0]!.type, "TaskError");
  assert.match(r.errors[0]!.message, /reward r failed: kaput/);
  assert.equal(r.metrics["m"], 1);
  assert.equal(r.is_completed, false);
  // The program finished, but the rollout's result is the scoring failure.
  assert.equal(r.stop_condition, "error");
});

test("a failing handler does not drop its siblings' scores: every other one in the phase is recorded", async () => {
  const r = await scoreOne("boom-sibling", {
    rewards: [
      { name: "a_fails", fn: kaput },
      { name: "b_ok", weight: 2, fn: () => 1 },
    ],
  });
  assert.match(r.errors[0]!.message, /reward a_fails failed: kaput/);
  assert.deepEqual(
    r.rewards,
    { b_ok: 2 },
    "b_ok ran and is recorded although a_fails (earlier in order) threw",
  );
});

function groupTaskset(
  fn: NonNullable<Taskset["groupRewards"]>[number]["fn"],
  extra: Partial<Taskset> = {},
): Taskset {
  return defineTaskset({
    id: "grp",
    load: () => rows,
    rewards: [{ name: "base", fn: () => 1 }],
    groupRewards: [{ name: "rank", weight: 0.5, fn }],
    ...extra,
  });
}

test("group rewards: n numbers recorded as score × weight, after every runtime stopped, errored traces included", async () => {
  const workdirs: string[] = [];
  let seen: { errors: number; n: number; dirsGone: boolean } | null = null;
  const { existsSync } = await import("node:fs");
  const ts = groupTaskset(
    ({ traces }) => {
      seen = {
        errors: traces.filter((t) => t.errors.length > 0).length,
        n: traces.length,
        dirsGone: workdirs.every((d) => !existsSync(d)),
      };
      return traces.map((_, i) => i);
    },
    {
      setup: ({ runtime }) => {
        workdirs.push(runtime!.workdir);
        if (workdirs.length === 2) throw new Error("setup broke");
      },
    },
  );
  const env = await envFor(ts, "num_rollouts = 3\nmax_concurrent = 1", { "harness.id": "null" });
  const records = await env.runGroup(0, undefined, { client: hi() });
  assert.deepEqual(seen, { errors: 1, n: 3, dirsGone: true });
  assert.deepEqual(
    records.map((r) => r.rewards["rank"]),
    [0, 0.5, 1],
  );
  assert.equal(records[1]!.errors[0]!.type, "TaskError");
  assert.equal(records[2]!.reward, 2, "base 1 + 0.5 × 2");
});

test("group reward returning the wrong count fails the group loudly", async () => {
  const env = await envFor(
    groupTaskset(() => [1]),
    "num_rollouts = 2",
    { "harness.id": "null" },
  );
  await assert.rejects(env.runGroup(0, 2, { client: hi() }), (e: Error) => {
    assert.ok(e instanceof GroupRewardError);
    assert.match(e.message, /rank returned 1 values for 2 traces/);
    return true;
  });
  const throwing = await envFor(
    groupTaskset(() => {
      throw new Error("nope");
    }),
    "num_rollouts = 2",
    { "harness.id": "null" },
  );
  await assert.rejects(
    throwing.runGroup(0, 2, { client: hi() }),
    /GroupRewardError|group reward rank failed: nope/,
  );
});

test("a group reward with n < 2 is a config error raised before anything runs", async () => {
  const client = hi();
  await assert.rejects(
    envFor(
      groupTaskset(() => [1]),
      "",
      { "harness.id": "null" },
    ),
    /num_rollouts: .*at least 2 rollouts/,
  );
  const env = await envFor(
    groupTaskset(() => [1, 1]),
    "num_rollouts = 2",
    { "harness.id": "null" },
  );
  await assert.rejects(env.runGroup(0, 1, { client }), /at least 2/);
  assert.equal(client.requests.length, 0);
});

test("offline scoring skips runtime-bound handlers", async () => {
  const { scoreTrace } = await import("../../packages/core/src/scoring.ts");
  const { Trace } = await import("../../packages/core/src/trace/trace.ts");
  const t = Trace.fromReplies({ idx: 0 }, [{ role: "user", content: "q" }, say("ans")]);
  await scoreTrace(
    {
      metrics: [{ name: "run", needsRuntime: true, fn: () => 1 }],
      rewards: [{ name: "len", fn: ({ trace }) => trace.lastReply.length }],
    },
    t,
    { task: { idx: 0 }, runtime: null },
  );
  assert.deepEqual(t.metrics, {});
  assert.deepEqual(t.rewards, { len: 3 });
});
