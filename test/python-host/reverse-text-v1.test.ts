/**
 * verifiers v0.2.0's own reverse_text_v1, unchanged, hosted in Python and run by envroll: every
 * reply of the golden battery (test/fixtures/reverse_text_v1.json, recorded from the real
 * `Task.score`) scores the same, and the run says which taskset ran. Needs the real verifiers
 * (see real-v1.ts); the dataset is given locally through the environment's own `dataset_name`.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { ConfigError } from "../../packages/core/src/errors.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { readFixture } from "../fixtures.ts";
import { needsRealV1, real } from "./real-v1.ts";
import { ReplayClient } from "./replay-client.ts";

const fx = readFixture("reverse_text_v1.json");
const reverse = (s: string) => [...s].reverse().join("");

function dataset(prompts: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), "envroll-rt-v1-"));
  writeFileSync(
    join(dir, "train.jsonl"),
    prompts.map((prompt) => `${JSON.stringify({ prompt })}\n`).join(""),
  );
  return dir;
}

function toml(dir: string, extra = ""): string {
  const v1 = real();
  return [
    'model = "Qwen/Qwen3-8B"',
    'harness = { id = "null" }',
    v1.pythonToml("reverse_text_v1"),
    `taskset = { id = "reverse_text_v1", dataset_name = ${JSON.stringify(dir)}${extra} }`,
  ].join("\n");
}

test("reverse_text_v1: every golden reply gets verifiers' own reward", needsRealV1, async () => {
  // One dataset row per golden case: the prompt is the reversal of the recorded answer.
  const dir = dataset(fx.cases.map((c: { answer: string }) => reverse(c.answer)));
  const env = await loadEnvironment(await loadConfig(toml(dir)));
  assert.equal(env.taskset.origin?.language, "python");
  assert.equal(env.taskset.origin?.module, "reverse_text_v1");
  assert.equal(env.taskset.origin?.version, "0.1.0");
  assert.equal(env.tasks.length, fx.cases.length);
  const traces = await Promise.all(
    fx.cases.map((c: { reply: string }, i: number) =>
      env.runGroup(i, 1, { client: new ReplayClient([c.reply]) }),
    ),
  );
  for (const [i, c] of fx.cases.entries()) {
    const t = traces[i]![0]!;
    assert.deepEqual(t.errors, [], `case ${i}`);
    assert.deepEqual(t.rewards, c.rewards, `case ${i} (${c.reply_kind})`);
    assert.equal(t.reward, c.reward_total, `case ${i}`);
    assert.equal(t.num_turns, 1);
  }
  // The task rows are the environment's own TaskData dumps (system prompt, answer).
  assert.equal(env.tasks[0]!.system_prompt, fx.SYSTEM);
  assert.equal((env.tasks[0] as { answer?: string }).answer, fx.cases[0].answer);
});

test("reverse_text_v1: the taskset's pydantic config names the TOML key", needsRealV1, async () => {
  const dir = dataset(["abc"]);
  await assert.rejects(loadConfig(toml(dir, ", dataset_nam = 1")), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    assert.match(e.message, /taskset\.dataset_nam: unknown key \(did you mean "dataset_name"\?\)/);
    return true;
  });
  await assert.rejects(loadConfig(toml(dir, ", dataset_split = 3")), (e: unknown) => {
    assert.ok(e instanceof ConfigError, String(e));
    assert.equal(e.path, "taskset.dataset_split");
    assert.match(e.message, /taskset\.dataset_split: Input should be a valid string/);
    return true;
  });
});
