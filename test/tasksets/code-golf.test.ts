/** code-golf against verifiers 0.2.0's records (fixtures/code_golf_v1.json) and its bonus rules. */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { SandboxRuntime } from "../../packages/core/src/runtimes/sandbox.ts";
import type { TraceView } from "../../packages/core/src/task.ts";
import codeGolf, {
  type CodeGolfData,
  makeTask,
  SYSTEM,
} from "../../packages/core/src/tasksets/code-golf/index.ts";
import { extractProgram, PROGRAM_RE } from "../../packages/core/src/tasksets/code-golf/program.ts";
import { REFERENCE_SPECS } from "../../packages/core/src/tasksets/code-golf/specs.ts";
import { readFixture } from "../fixtures.ts";
import { named } from "./named.ts";
import { traceView } from "./trace-view.ts";

const fx = readFixture("code_golf_v1.json");
const metric = named(codeGolf.metrics, "evaluate");
const correct = named(codeGolf.rewards, "correct");
const group = (name: string) => named(codeGolf.groupRewards, name);

/** Per-rollout weighted rewards and totals, as the scoring pipeline would record them. */
async function scoreGroup(task: CodeGolfData, traces: TraceView[]) {
  const concise = await group("most_concise").fn({ task, traces });
  const fast = await group("fastest").fn({ task, traces });
  return traces.map((t, i) => {
    const rewards = {
      correct: (t.metrics["passed"] ?? 0) * correct.weight!,
      fastest: fast[i]! * group("fastest").weight!,
      most_concise: concise[i]! * group("most_concise").weight!,
    };
    return { rewards, total: rewards.correct + rewards.fastest + rewards.most_concise };
  });
}

function forcedTraces(g: any): TraceView[] {
  return g.rollouts.map((r: any, i: number) =>
    traceView({
      lastReply: r.reply.trim(),
      metrics: { passed: r.passed, latency: r.extracted_program === "" ? 1e6 : g.forced_latencies[i] },
    }),
  );
}

test("tasks, prompt format and handler weights match the reference", () => {
  assert.equal(SYSTEM, fx.SYSTEM);
  assert.deepEqual(
    REFERENCE_SPECS.map((s) => [s.name, s.description, s.expected]),
    fx.SPECS,
  );
  fx.tasks.forEach((t: any, i: number) => {
    const mine = makeTask(i, REFERENCE_SPECS[i]!);
    assert.equal(mine.prompt, t.prompt);
    assert.equal(mine.expected, t.expected);
    assert.equal(mine.system_prompt, null);
    assert.equal(mine.name, t.name);
  });
  assert.equal(PROGRAM_RE.source, fx.extract_program_regex.replaceAll("(.*?)", "([\\s\\S]*?)"));
  assert.equal(correct.weight, 1);
  assert.equal(group("fastest").weight, 0.5);
  assert.equal(group("most_concise").weight, 0.5);
});

test("extract_program equals the reference on every recorded reply", () => {
  for (const g of fx.groups)
    for (const r of g.rollouts) assert.equal(extractProgram(r.reply), r.extracted_program);
  assert.equal(extractProgram("```python\nprint(1)\n```\n```python\nprint(2)\n```"), "print(1)");
  assert.equal(extractProgram("  no fence  "), "no fence");
});

test("bonus_for_failing = true reproduces 0.2.0's forced-latency rewards exactly", async () => {
  for (const g of fx.groups) {
    const task = { ...makeTask(g.task.idx, REFERENCE_SPECS[g.task.idx]!), bonus_for_failing: true };
    const got = await scoreGroup(task, forcedTraces(g));
    got.forEach((r, i) => {
      assert.deepEqual(r.rewards, g.forced[i].rewards, `task ${g.task.idx} rollout ${i}`);
      assert.equal(r.total, g.forced[i].reward_total);
    });
  }
});

test("default: only passing programs compete for the bonuses", async () => {
  // Worked by hand from the fixture's replies and forced latencies [0.3, 0.1, 0.2, 0.1].
  const want = [
    [1.5, 1.5, 0, 0], // failing 'print(5051)' (as short) and 'sys.exit(1)' (as fast) no longer win
    [1, 2, 1.5, 0], // the two equal-length passing programs tie for most_concise
    [1, 2, 0, 0],
  ];
  for (const [k, g] of fx.groups.entries()) {
    const task = makeTask(g.task.idx, REFERENCE_SPECS[g.task.idx]!);
    const got = await scoreGroup(task, forcedTraces(g));
    assert.deepEqual(
      got.map((r) => r.total),
      want[k],
      `task ${g.task.idx}`,
    );
  }
});

test("empty programs: nobody wins by default; everybody ties under 0.2.0 rules", async () => {
  const traces = [traceView({ lastReply: "" }), traceView({ lastReply: "```python\n```" })].map((t) =>
    traceView({ ...t, metrics: { passed: 0, latency: 1e6 } }),
  );
  const task = makeTask(0, REFERENCE_SPECS[0]!);
  assert.deepEqual(
    (await scoreGroup(task, traces)).map((r) => r.total),
    [0, 0],
  );
  assert.deepEqual(
    (await scoreGroup({ ...task, bonus_for_failing: true }, traces)).map((r) => r.total),
    [1, 1],
  );
});

test("ties all win; no passing program means no bonus; rewards stay in {0,.5,1,1.5,2}", async () => {
  const task = makeTask(0, REFERENCE_SPECS[0]!);
  const mk = (prog: string, passed: number, latency: number) =>
    traceView({ lastReply: `\`\`\`python\n${prog}\n\`\`\``, metrics: { passed, latency } });
  const tie = await scoreGroup(task, [
    mk("print(1)", 1, 0.1),
    mk("print(2)", 1, 0.1),
    mk("print(33)", 1, 0.2),
  ]);
  assert.deepEqual(
    tie.map((r) => r.total),
    [2, 2, 1],
  );
  const none = await scoreGroup(task, [mk("print(1)", 0, 0.1), mk("print(22)", 0, 0.2)]);
  assert.deepEqual(
    none.map((r) => r.total),
    [0, 0],
  );
  let seed = 7;
  const rand = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  for (let n = 0; n < 200; n++) {
    const traces = Array.from({ length: 2 + Math.floor(rand() * 5) }, () =>
      mk("x".repeat(Math.floor(rand() * 4)), rand() < 0.5 ? 1 : 0, Math.floor(rand() * 3) / 10),
    );
    for (const bff of [false, true])
      for (const r of await scoreGroup({ ...task, bonus_for_failing: bff }, traces)) {
        assert.ok([0, 0.5, 1, 1.5, 2].includes(r.total), `total ${r.total}`);
      }
  }
});

test("config: specs and bonus_for_failing select tasks and rules; typos are refused", async () => {
  const ref = await codeGolf.load({ specs: "reference" } as never);
  assert.equal(ref.length, 3);
  const all = await codeGolf.load({ bonus_for_failing: true } as never);
  assert.ok(all.length >= 15);
  assert.ok(all.every((t) => t.bonus_for_failing === true));
  assert.deepEqual(
    all.map((t) => t.idx),
    all.map((_, i) => i),
  );
  assert.throws(() => codeGolf.configSchema!.parse({ bonus_for_failling: true }));
  assert.deepEqual(codeGolf.runtime, { type: "sandbox" });
});

// The sandbox when bubblewrap works (as in CI); rlimits-only elsewhere, so these tests of the
// taskset's logic still run — isolation itself is test/sandbox's job.
const rt = new SandboxRuntime({ type: "sandbox", allow_unsandboxed: true });
after(() => rt.stop());

test("evaluate runs every recorded reply in the sandbox with the recorded outcome", async () => {
  await rt.start();
  for (const g of fx.groups) {
    const task = makeTask(g.task.idx, REFERENCE_SPECS[g.task.idx]!);
    for (const r of g.rollouts) {
      const m = (await metric.fn({
        task,
        trace: traceView({ lastReply: r.reply.trim() }),
        runtime: rt,
      })) as Record<string, number>;
      assert.equal(m["passed"], r.passed, `${task.name}: ${r.reply}`);
      if (r.extracted_program === "") assert.equal(m["latency"], 1e6);
      else assert.ok(m["latency"]! > 0 && m["latency"]! < 5, `latency ${m["latency"]}`);
    }
  }
});
