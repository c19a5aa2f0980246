/** `envroll score`: offline re-scoring through the real scoring pipeline. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { scoreStream } from "../../packages/cli/src/score.ts";
import { builtinTasksets } from "../../packages/core/src/tasksets/index.ts";
import { readFixture } from "../fixtures.ts";
import { TS_LOADER } from "../ts-loader.ts";

async function score(id: string, lines: unknown[], runtime = true): Promise<{ out: any[]; failed: number }> {
  const taskset = await builtinTasksets[id]!();
  const out: any[] = [];
  async function* input() {
    for (const l of lines) yield typeof l === "string" ? l : JSON.stringify(l);
  }
  // allowUnsandboxed only matters where bubblewrap cannot run (the sandbox suite covers isolation).
  const failed = await scoreStream(taskset, input(), (l) => out.push(JSON.parse(l)), {
    runtime,
    allowUnsandboxed: true,
  });
  return { out, failed };
}

test("reverse-text: every fixture reply re-scores to the recorded lcs", async () => {
  const fx = readFixture("reverse_text_v1.json");
  const { out, failed } = await score(
    "reverse-text",
    fx.cases.map((c: any) => ({ task: { prompt: [...c.answer].reverse().join("") }, reply: c.reply })),
  );
  assert.equal(failed, 0);
  fx.cases.forEach((c: any, i: number) => {
    assert.ok(Math.abs(out[i].rewards.lcs - c.rewards.lcs) <= 1e-12, `case ${i}`);
    assert.equal(out[i].reward, out[i].rewards.lcs);
    assert.deepEqual(out[i].metrics, {});
  });
});

test("code-golf: a group runs each program in a sandbox and gets group rewards (0.2.0 rules on request)", async () => {
  const fx = readFixture("code_golf_v1.json");
  const g = fx.groups[0];
  const { out, failed } = await score("code-golf", [
    { task: { ...g.task, bonus_for_failing: true }, replies: g.rollouts.map((r: any) => r.reply) },
    { task: g.task, replies: g.rollouts.map((r: any) => r.reply) },
    { task: g.task, reply: g.rollouts[0].reply },
  ]);
  assert.equal(failed, 0);
  const [legacy, fixed, single] = out;
  assert.deepEqual(
    legacy.map((r: any) => r.metrics.passed),
    [1, 1, 0, 0],
  );
  // 'print(5050)' and the failing 'print(5051)' tie for shortest under 0.2.0 rules; not by default.
  assert.equal(legacy[2].rewards.most_concise, 0.5);
  assert.equal(fixed[2].rewards.most_concise, 0);
  assert.equal(fixed[0].rewards.most_concise, 0.5);
  for (const r of [...legacy, ...fixed]) assert.ok(r.reward >= 0 && r.reward <= 2);
  assert.deepEqual(Object.keys(single.rewards), ["correct"], "a single reply gets no group rewards");
});

test("--no-runtime skips runtime handlers instead of running programs", async () => {
  const { out } = await score(
    "code-golf",
    [{ task: { prompt: "p", expected: "1" }, reply: "print(1)" }],
    false,
  );
  assert.deepEqual(out[0], { reward: 0, rewards: {}, metrics: {} });
});

test("multi-turn conversations via messages; guess-number scores the transcript", async () => {
  const messages = [
    { role: "user", content: "I'm thinking of a whole number between 1 and 100." },
    { role: "assistant", content: "<guess>50</guess>" },
    { role: "user", content: "Lower." },
    { role: "assistant", content: "<guess>25</guess>" },
  ];
  const { out, failed } = await score("guess-number", [{ task: { secret: 25 }, messages }]);
  assert.equal(failed, 0);
  assert.equal(out[0].rewards.win, 1 - 1 / 7);
  assert.equal(out[0].metrics.guesses, 2);
});

test("bad lines print an error naming the line and scoring continues", async () => {
  const { out, failed } = await score("reverse-text", [
    "{not json",
    { task: { prompt: "ab" } },
    { task: { nope: 1 }, reply: "x" },
    { task: { prompt: "ab" }, reply: "x", replies: ["y"] },
    { task: { prompt: "ab" }, replies: [] },
    "",
    { task: { prompt: "ab" }, reply: "<reversed_text>ba</reversed_text>" },
  ]);
  assert.equal(failed, 5);
  assert.match(out[0].error, /^line 1: invalid JSON/);
  assert.match(out[1].error, /^line 2: give exactly one/);
  assert.match(out[2].error, /^line 3: task: prompt/);
  assert.match(out[3].error, /^line 4: give exactly one/);
  assert.match(out[4].error, /^line 5: "replies" must be/);
  assert.deepEqual(out[5], { reward: 1, rewards: { lcs: 1 }, metrics: {} });
});

test("the command reads stdin and writes one JSON line per input line", () => {
  const driver = `
    import { Command } from "commander";
    import { registerScoreCommand } from "./packages/cli/src/score.ts";
    const p = new Command(); registerScoreCommand(p);
    await p.parseAsync(["node", "envroll", "score", "reverse-text", "--jsonl"]);`;
  const r = spawnSync(process.execPath, ["--import", TS_LOADER, "--input-type=module", "-e", driver], {
    input: '{"task": {"prompt": "abc"}, "reply": "<reversed_text>cba</reversed_text>"}\n{"task": 1}\n',
    encoding: "utf8",
    cwd: new URL("../..", import.meta.url).pathname,
  });
  const lines = r.stdout.trim().split("\n");
  assert.deepEqual(JSON.parse(lines[0]!), { reward: 1, rewards: { lcs: 1 }, metrics: {} });
  assert.match(JSON.parse(lines[1]!).error, /^line 2:/);
  assert.equal(r.status, 1, r.stderr);
});

test("score runs the config's judges: short-answer's reference judge, offline on the built-in engine", () => {
  const bin = new URL("../../packages/cli/bin/envroll.mjs", import.meta.url).pathname;
  const task = { prompt: "What is the capital of France?", answer: ["Paris"] };
  const input = `${JSON.stringify({ task, reply: "Paris" })}\n${JSON.stringify({ task, reply: "Lyon" })}\n`;
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [bin, "score", "short-answer", ...args], { input, encoding: "utf8" });
  const r = run();
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(
    r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l)),
    [
      { reward: 1, rewards: { reference: 1 }, metrics: { exact_match: 1 } },
      { reward: 0, rewards: { reference: 0 }, metrics: { exact_match: 0 } },
    ],
  );
  assert.match(r.stderr, /answered by the built-in engine \(judge policy\)/);
  // Left out on request: only the taskset's own handlers.
  const none = run("--no-judges");
  assert.deepEqual(JSON.parse(none.stdout.split("\n")[0]!), {
    reward: 0,
    rewards: {},
    metrics: { exact_match: 1 },
  });
  // An explicit endpoint is kept; one that is down is each line's JudgeError, never a 0.
  const dead = run("--taskset.task.judges", '[{ id = "reference", base_url = "http://127.0.0.1:9/v1" }]');
  assert.equal(dead.status, 1, dead.stderr);
  for (const l of dead.stdout.trim().split("\n"))
    assert.match(JSON.parse(l).error, /JudgeError: judge reference: no verdict/);
});
