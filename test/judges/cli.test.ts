/**
 * Judged evals through the real CLI (a subprocess of packages/cli/bin/envroll.mjs): offline with
 * the built-in engine answering both the model and the judge; with `--openai` against one engine
 * and the judge on another; and a dead judge endpoint, which errors rollouts instead of scoring 0.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { JudgeCallRecord } from "../../packages/core/src/judges/call.ts";
import { readTraces } from "../../packages/core/src/outputs/traces-file.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { startEngine } from "../../packages/engine/src/index.ts";
import { evalArgs, onlyRunDir, runCli } from "../cli/cli-helpers.ts";
import { referenceEngine } from "../engine/reference-engine.ts";

function runOutputs(out: string) {
  const dir = onlyRunDir(out);
  const { traces, badLines } = readTraces(join(dir, "traces.jsonl"));
  assert.deepEqual(badLines, []);
  const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
  const report = readFileSync(join(dir, "report.html"), "utf8");
  return { traces: traces as TraceRecord[], summary, report };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const judgeCalls = (t: TraceRecord) => (t.info["judge"] ?? []) as JudgeCallRecord[];

describe("judged evals through the CLI", { concurrency: true }, () => {
  test("offline: the built-in engine answers the questions and the judge; summary and report show it", async () => {
    const out = mkdtempSync(join(tmpdir(), "envroll-judged-"));
    const res = await runCli([...evalArgs(8, 3, "short-answer"), "-o", out]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stderr, /built-in engine .* for the model and the judges/);
    assert.match(res.stdout, /reward reference: /);
    const { traces, summary, report } = runOutputs(out);
    assert.equal(traces.length, 24);
    for (const t of traces) {
      assert.deepEqual(t.errors, []);
      assert.deepEqual(Object.keys(t.rewards), ["reference"]);
      const [call] = judgeCalls(t);
      assert.equal(call!.request["model"], "openai/gpt-5.4-nano");
      const verdict = (call!.response as any).choices[0].message.content;
      assert.equal(t.rewards["reference"], verdict === "yes" ? 1 : 0);
      assert.equal(t.reward, t.rewards["reference"]);
    }
    const judged = traces.map((t) => t.rewards["reference"]!);
    // The reference policy answers wrongly on purpose about a third of the time.
    assert.ok(judged.includes(0) && judged.includes(1), `verdicts do not vary: ${judged}`);
    assert.equal(summary.rewards.reference, mean(judged));
    assert.equal(summary.reward.mean, mean(judged));
    assert.equal(summary.metrics.exact_match, mean(traces.map((t) => t.metrics["exact_match"]!)));
    const rewardsSection = report.slice(report.indexOf("Rewards by key"), report.indexOf("Metrics (means)"));
    assert.match(rewardsSection, /<title>reference: [\d.]+<\/title>/);
  });

  test("--openai: the policy on one engine's /v1/chat/completions, the judge on another's", async () => {
    const policy = await referenceEngine();
    const judge = await startEngine({ policy: "judge" });
    try {
      const out = mkdtempSync(join(tmpdir(), "envroll-judged-openai-"));
      const res = await runCli([
        "eval",
        "short-answer",
        "--openai",
        `${policy.url}/v1`,
        "-n",
        "4",
        "-r",
        "2",
        "-o",
        out,
        "--taskset.task.judges",
        `[{ id = "reference", base_url = "${judge.url}/v1", model = "judge-model" }]`,
      ]);
      assert.equal(res.code, 0, res.stderr);
      const { traces, summary } = runOutputs(out);
      assert.equal(traces.length, 8);
      assert.equal(policy.stats().chatCompletions, 8);
      assert.equal(policy.stats().requests, 0, "no /generate: the EvalClient speaks OpenAI");
      const nonEmpty = traces.filter((t) => t.last_reply.trim() !== "").length;
      assert.equal(judge.stats().chatCompletions, nonEmpty);
      for (const t of traces) assert.deepEqual(t.errors, []);
      assert.equal(summary.rewards.reference, mean(traces.map((t) => t.rewards["reference"]!)));
    } finally {
      await Promise.all([policy.close(), judge.close()]);
    }
  });

  test("a dead judge endpoint errors every rollout (JudgeError, retried) and scores no judge reward", async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, "127.0.0.1", r));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    const out = mkdtempSync(join(tmpdir(), "envroll-judged-dead-"));
    const res = await runCli([
      ...evalArgs(2, 1, "short-answer"),
      "-o",
      out,
      "--taskset.task.judges",
      `[{ id = "reference", base_url = "http://127.0.0.1:${port}/v1" }]`,
      "--retries.rollout.max_retries",
      "1",
      "--retries.rollout.include",
      '["JudgeError"]',
    ]);
    // Every rollout errored: the run is not a result (exit 1, the common error named).
    assert.equal(res.code, 1, res.stderr);
    assert.match(res.stderr, /all 2 rollouts errored\nmost common error: JudgeError \(2 of 2\)\nexample: /);
    const { traces, summary } = runOutputs(out);
    const final = traces.filter((t) => t.attempts === 1);
    assert.equal(final.length, 2);
    for (const t of final) {
      assert.deepEqual(
        t.errors.map((e) => e.type),
        ["JudgeError", "JudgeError"],
      );
      assert.ok(!("reference" in t.rewards));
    }
    assert.equal(summary.errors_by_type.JudgeError > 0, true);
    assert.equal(summary.rewards.reference, undefined, "an outage is no score, not a 0");
  });
});
