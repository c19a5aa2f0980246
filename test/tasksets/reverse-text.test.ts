/** reverse-text against verifiers 0.2.0's recorded rewards (fixtures/reverse_text_v1.json). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { mulberry32 } from "../../packages/core/src/random.ts";
import reverseText, {
  makeTask,
  ReverseTextDataSchema,
  SYSTEM,
} from "../../packages/core/src/tasksets/reverse-text/index.ts";
import { extractReversed } from "../../packages/core/src/tasksets/reverse-text/reward.ts";
import { pyStrip, reverseCodePoints } from "../../packages/core/src/text/python-str.ts";
import { readFixture } from "../fixtures.ts";
import { named } from "./named.ts";
import { traceView } from "./trace-view.ts";

const fx = readFixture("reverse_text_v1.json");
const lcs = named(reverseText.rewards, "lcs");
const singleTurn = named(reverseText.stops, "single_turn");

test("prompt format and handler set match the reference", () => {
  assert.equal(SYSTEM, fx.SYSTEM);
  assert.equal(lcs.weight, 1.0);
  assert.deepEqual(
    reverseText.rewards!.map((r) => r.name),
    fx.decorated.reward.map((r: { name: string }) => r.name),
  );
  assert.deepEqual(
    reverseText.stops!.map((s) => s.name),
    fx.decorated.stop.map((s: { name: string }) => s.name),
  );
  for (const t of fx.tasks_sample) {
    const mine = makeTask(t.idx, t.prompt);
    assert.equal(mine.answer, t.answer);
    assert.equal(mine.system_prompt, t.system_prompt);
  }
});

test(`every recorded reply scores as in verifiers (${fx.cases.length} cases)`, async () => {
  assert.ok(fx.cases.length > 100);
  for (const [i, c] of fx.cases.entries()) {
    assert.equal(pyStrip(c.reply), c.trace_last_reply, `case ${i} strip`);
    const task = makeTask(c.task_idx, reverseCodePoints(c.answer));
    assert.equal(task.answer, c.answer);
    const got = await lcs.fn({ task, trace: traceView({ lastReply: c.trace_last_reply }), runtime: null });
    assert.ok(
      Math.abs(got - c.rewards.lcs) <= 1e-12,
      `case ${i} (${c.reply_kind}): ${got} vs ${c.rewards.lcs}`,
    );
    const before = await singleTurn.fn({ task, trace: traceView({ numTurns: 0 }), runtime: null });
    const after = await singleTurn.fn({
      task,
      trace: traceView({ lastReply: c.reply, numTurns: 1 }),
      runtime: null,
    });
    assert.equal(before, c.stop_single_turn_before_reply);
    assert.equal(after, c.stop_single_turn_after_reply);
  }
});

test("tag extraction: first pair, DOTALL, case-sensitive, stripped, '' when absent", () => {
  assert.equal(
    extractReversed("<reversed_text> a\nb </reversed_text><reversed_text>x</reversed_text>"),
    "a\nb",
  );
  assert.equal(extractReversed("<REVERSED_TEXT>a</REVERSED_TEXT>"), "");
  assert.equal(extractReversed("<reversed_text>unclosed"), "");
  assert.equal(extractReversed("<reversed_text>\u00a0x\u2003</reversed_text>"), "x");
});

test("tag extraction agrees with the reference's non-greedy DOTALL regex on tag soup", () => {
  // The verifiers reward's pattern, as Python's re reads it with DOTALL.
  const reference = (reply: string): string => {
    const m = /<reversed_text>([\s\S]*?)<\/reversed_text>/.exec(reply);
    return m ? pyStrip(m[1]!) : "";
  };
  const rng = mulberry32(7);
  const parts = [
    "<reversed_text>",
    "</reversed_text>",
    "<reversed_text",
    "/reversed_text>",
    "<",
    ">",
    " ",
    "\n",
    "ab",
    "é",
  ];
  let withPair = 0;
  for (let c = 0; c < 3000; c++) {
    let reply = "";
    const n = Math.floor(rng() * 8);
    for (let k = 0; k < n; k++) reply += parts[Math.floor(rng() * parts.length)]!;
    const want = reference(reply);
    assert.equal(extractReversed(reply), want, JSON.stringify(reply));
    if (/<reversed_text>[\s\S]*<\/reversed_text>/.test(reply)) withPair++;
  }
  assert.ok(withPair > 100, `only ${withPair} replies held a tag pair`);
});

test("two empty strings score 1.0", async () => {
  const task = makeTask(0, "");
  assert.equal(
    await lcs.fn({ task, trace: traceView({ lastReply: "<reversed_text></reversed_text>" }), runtime: null }),
    1,
  );
});

test("score rows without answer get it derived from the prompt", () => {
  const row = ReverseTextDataSchema.parse({ prompt: "a👩‍💻b" });
  assert.equal(row.answer, "b💻\u200d👩a");
  assert.equal(row.idx, 0);
  assert.equal(row.system_prompt, SYSTEM);
});

test("load: split selects the shipped train/test prompts; dataset_path loads a user file", async () => {
  const train = await reverseText.load({ split: "train" } as never);
  const testSplit = await reverseText.load({ split: "test" } as never);
  assert.ok(train.length >= 2000);
  assert.ok(testSplit.length >= 200);
  const trainSet = new Set(train.map((t) => t.prompt));
  assert.ok(
    testSplit.every((t) => !trainSet.has(t.prompt)),
    "held-out prompts must not be in train",
  );
  assert.deepEqual(
    train.slice(0, 3).map((t) => t.idx),
    [0, 1, 2],
  );
  assert.ok(train.every((t) => t.answer === reverseCodePoints(t.prompt) && t.system_prompt === SYSTEM));
  assert.throws(() => reverseText.configSchema!.parse({ splt: "test" }));
  const { mkdtempSync, writeFileSync } = await import("node:fs");
  const dir = mkdtempSync("/tmp/envroll-rt-");
  writeFileSync(`${dir}/d.jsonl`, '{"prompt": "abc"}\n\n{"prompt": "é🙂"}\n');
  const own = await reverseText.load({ dataset_path: `${dir}/d.jsonl` } as never);
  assert.deepEqual(
    own.map((t) => t.answer),
    ["cba", "🙂é"],
  );
  writeFileSync(`${dir}/bad.jsonl`, '{"prompt": "abc"}\n{"text": 1}\n');
  await assert.rejects(
    () => Promise.resolve(reverseText.load({ dataset_path: `${dir}/bad.jsonl` } as never)),
    /:2:/,
  );
});
