/**
 * Judges in a rollout, against the built-in engine's OpenAI route with its `judge` policy as the
 * judge endpoint: scored after the rewards, recorded as value × weight, the exchange kept in
 * `trace.info.judge`, and every failure (outage, unparseable verdict) a JudgeError on the trace —
 * retried per `retries.rollout` — never a 0.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { JUDGE_RETRY, type JudgeCallRecord } from "../../packages/core/src/judges/call.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { defineTaskset } from "../../packages/core/src/task.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { resolveRetry } from "../../packages/core/src/transport/retry.ts";
import { type EngineHandle, startEngine } from "../../packages/engine/src/index.ts";
import { ScriptedClient, say } from "../runtime/helpers/scripted-client.ts";
import { tempFile } from "../temp-file.ts";
import { startFlaky } from "./flaky.ts";

const FAST = resolveRetry({ maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5, onTimeout: true });
const ORDER_JUDGE = join(import.meta.dirname, "fixtures", "order-judge.ts");

const taskset = defineTaskset({
  id: "capitals",
  load: () => [{ idx: 0, prompt: "What is the capital of France?", answer: ["Paris", "Paname"] }],
  metrics: [{ name: "words", fn: ({ trace }) => trace.lastReply.split(" ").length }],
  rewards: [{ name: "polite", weight: 2, fn: ({ trace }) => (trace.lastReply.startsWith("The") ? 1 : 0) }],
  stops: [{ name: "single_turn", fn: ({ trace }) => trace.numTurns >= 1 }],
});

async function run(reply: string, judges: string, extra = "", retry = FAST): Promise<TraceRecord> {
  const config = await loadConfig(
    `${extra}\n[taskset]\nid = "capitals"\n[harness]\nid = "null"\n${judges}`,
    {},
    { taskset },
  );
  const env = await loadEnvironment(config, { taskset, judges: { retry } });
  try {
    const [trace] = await env.runGroup(0, 1, { client: new ScriptedClient(() => say(reply)) });
    return trace!;
  } finally {
    await env.close();
  }
}

const calls = (t: TraceRecord) => (t.info["judge"] ?? []) as JudgeCallRecord[];
const judgeAt = (url: string) => `[[taskset.task.judges]]\nid = "reference"\nbase_url = "${url}"\n`;

/** Runs `fn` with a judge endpoint that fails the first `failures` calls, then closes it. */
async function withFlaky<T>(
  target: string,
  failures: number,
  status: number | "reset",
  fn: (flaky: Awaited<ReturnType<typeof startFlaky>>) => Promise<T>,
): Promise<T> {
  const flaky = await startFlaky(target, failures, status);
  try {
    return await fn(flaky);
  } finally {
    await flaky.close();
  }
}

describe("judges in a rollout", { concurrency: true }, () => {
  let engine: EngineHandle;
  let url: string;
  before(async () => {
    engine = await startEngine({ policy: "judge" });
    url = `${engine.url}/v1`;
  });
  after(() => engine.close());

  const reference = (more = "") =>
    `[[taskset.task.judges]]\nid = "reference"\nbase_url = "${url}"\n${more}\n`;

  test("judges run after metrics and rewards and are recorded as value × weight", async () => {
    const t = await run(
      "The capital is Paris.",
      `${reference("weight = 0.5\nmodel = 'grader-1'\nsampling = { temperature = 0.0, max_tokens = 8 }")}[[taskset.task.judges]]\nid = "${ORDER_JUDGE}"\nweight = 3\n`,
    );
    assert.deepEqual(t.errors, []);
    assert.deepEqual(t.info["order_seen"], { rewards: ["polite"], metrics: ["words"] });
    assert.deepEqual(t.rewards, { polite: 2, reference: 0.5, "order-judge": 3 });
    assert.equal(t.reward, 5.5);
    const [call] = calls(t);
    assert.equal(call!.judge, "reference");
    assert.equal(call!.request["model"], "grader-1");
    assert.equal(call!.request["temperature"], 0);
    assert.equal(call!.request["max_tokens"], 8);
    const prompt = (call!.request["messages"] as { content: string }[])[0]!.content;
    assert.match(prompt, /```\nWhat is the capital of France\?\n```/);
    assert.match(prompt, /```\nParis\nPaname\n```/);
    assert.match(prompt, /```\nThe capital is Paris\.\n```/);
    assert.equal((call!.response as any).choices[0].message.content, "yes");
    assert.deepEqual([call!.text, call!.parsed, call!.attempts], ["yes", 1, 1]);
    // The judge's tokens are on the trace's usage, beside (not inside) the policy's.
    const reported = (call!.response as any).usage;
    assert.ok(reported.prompt_tokens > 0, "the engine reports usage");
    assert.equal(t.usage.judge_prompt_tokens, reported.prompt_tokens);
    assert.equal(t.usage.judge_completion_tokens, reported.completion_tokens);
    assert.equal(t.usage.total_tokens, t.usage.prompt_tokens + t.usage.completion_tokens);
  });

  test("a wrong answer scores 0 with a recorded verdict; an empty reply scores 0 with no call", async () => {
    const wrong = await run("Lyon", reference());
    assert.deepEqual([wrong.rewards["reference"], calls(wrong)[0]!.text], [0, "no"]);
    const empty = await run("  ", reference());
    assert.equal(empty.rewards["reference"], 0);
    assert.deepEqual(calls(empty), []);
    assert.deepEqual(empty.errors, []);
  });

  test("an unparseable verdict errors the rollout (JudgeError), keeps the task's rewards, and is retried", async () => {
    const rambler = await startEngine({ policy: () => "It is hard to say." });
    try {
      const t = await run(
        "Paris",
        judgeAt(`${rambler.url}/v1`),
        '[retries.rollout]\nmax_retries = 2\ninclude = ["JudgeError"]',
      );
      assert.equal(t.attempts, 2);
      assert.deepEqual(
        t.errors.map((e) => e.type),
        ["JudgeError", "JudgeError", "JudgeError"],
      );
      assert.match(
        t.errors[0]!.message,
        /judge reference: judge returned no yes\/no verdict: "It is hard to say\."/,
      );
      assert.equal(t.is_completed, false);
      assert.equal(
        t.stop_condition,
        "error",
        "a judge-errored rollout ends as V1's does, not agent_completed",
      );
      assert.ok(!("reference" in t.rewards), "a failed judge records no score");
      assert.deepEqual(t.rewards, { polite: 0 });
      const [call] = calls(t);
      assert.deepEqual([call!.text, call!.parsed, call!.attempts], ["It is hard to say.", null, 1]);
      assert.match(call!.error!, /no yes\/no verdict/);
    } finally {
      await rambler.close();
    }
  });

  test("transient judge failures are retried by the shared policy and then score", () =>
    withFlaky(engine.url, 2, 503, async (flaky) => {
      const t = await run("Paris", judgeAt(flaky.url));
      assert.deepEqual(t.errors, []);
      assert.equal(t.rewards["reference"], 1);
      assert.equal(calls(t)[0]!.attempts, 3);
      assert.equal(flaky.requests, 3);
    }));

  test("a judge outage is a JudgeError after the retries, then a rollout retry, never a 0", () =>
    withFlaky(engine.url, Number.POSITIVE_INFINITY, "reset", async (flaky) => {
      const t = await run(
        "Paris",
        judgeAt(flaky.url),
        '[retries.rollout]\nmax_retries = 1\ninclude = ["JudgeError"]',
      );
      assert.equal(t.attempts, 1);
      assert.deepEqual(
        t.errors.map((e) => e.type),
        ["JudgeError", "JudgeError"],
      );
      assert.match(
        t.errors[1]!.message,
        /judge reference: no verdict after 3 attempt\(s\): cannot reach provider/,
      );
      assert.equal(flaky.requests, 6, "3 attempts per rollout, 2 rollouts");
      assert.ok(!("reference" in t.rewards));
      const [call] = calls(t);
      assert.deepEqual([call!.response, call!.parsed, call!.attempts], [null, null, 3]);
    }));

  test("a 4xx from the judge endpoint is not retried", () =>
    withFlaky(engine.url, 1, 401, async (flaky) => {
      const t = await run("Paris", judgeAt(flaky.url));
      assert.deepEqual(
        t.errors.map((e) => e.type),
        ["JudgeError"],
      );
      assert.match(t.errors[0]!.message, /after 1 attempt\(s\): provider returned 401: scripted outage 1/);
      assert.equal(flaky.requests, 1);
    }));

  test("the default policy makes 3 attempts with backoff against a dead endpoint", async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, "127.0.0.1", r));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    const started = Date.now();
    const t = await run("Paris", judgeAt(`http://127.0.0.1:${port}/v1`), "", JUDGE_RETRY);
    assert.deepEqual(
      t.errors.map((e) => e.type),
      ["JudgeError"],
    );
    assert.equal(calls(t)[0]!.attempts, 3);
    // Two backoffs of at least half of 0.5 s and 1 s.
    assert.ok(Date.now() - started >= 750, `retried too fast: ${Date.now() - started} ms`);
  });

  test("rubric: one metric per criterion, the weighted mean as reward, batches as separate calls", async () => {
    const path = tempFile(
      "envroll-rubric-",
      "rubric.toml",
      [
        '[[criteria]]\nname = "correct"\ntext = "Names the right city."\nweight = 3\n',
        '[[criteria]]\nname = "tone"\ntext = "Answers politely."\nchoices = ["rude", "flat", "warm"]\n',
      ].join("\n"),
    );
    const rubric = (more: string) =>
      `[[taskset.task.judges]]\nid = "rubric"\nbase_url = "${url}"\npath = "${path}"\nanswer_field = "answer"\n${more}`;
    const good = await run("The capital is Paris.", rubric("max_criteria = 1"));
    assert.deepEqual(good.errors, []);
    assert.deepEqual({ c: good.metrics["rubric/correct"], t: good.metrics["rubric/tone"] }, { c: 1, t: 1 });
    assert.equal(good.rewards["rubric"], 1);
    assert.equal(calls(good).length, 2);
    const prompt = (calls(good)[1]!.request["messages"] as { content: string }[])[0]!.content;
    assert.match(prompt, /- tone: Answers politely\. \(options, worst to best: rude, flat, warm\)/);
    assert.match(prompt, /Reference answer \(a correct solution, for comparison\):\n```\nParis\nPaname\n```/);
    assert.match(prompt, /\[assistant\]\nThe capital is Paris\./, "full_trace view by default");
    const bad = await run("Lyon", rubric("structured_output = true\nweights = { tone = 1 }"));
    assert.deepEqual(
      [bad.metrics["rubric/correct"], bad.metrics["rubric/tone"], bad.rewards["rubric"]],
      [0, 0, 0],
    );
    assert.equal((calls(bad)[0]!.request["response_format"] as any).json_schema.name, "RubricVerdicts");
  });
});
