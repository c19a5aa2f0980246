/** The shipped dataset: reproducible from its generator, and the spread the issue asks for. */
import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import { test } from "node:test";
import { COUNTS, generate, toJsonl } from "../../packages/core/data/reverse-text/generate.ts";

const dir = new URL("../../packages/core/data/reverse-text/", import.meta.url);

test("train/test.jsonl are byte-identical to a fresh run of the seeded generator", () => {
  const { train, test: held } = generate();
  assert.equal(readFileSync(new URL("train.jsonl", dir), "utf8"), toJsonl(train));
  assert.equal(readFileSync(new URL("test.jsonl", dir), "utf8"), toJsonl(held));
  assert.notEqual(toJsonl(generate(1).train), toJsonl(train), "the seed must matter");
});

test("counts, lengths and Unicode coverage", () => {
  const { train, test: held } = generate();
  assert.equal(train.length, COUNTS.train);
  assert.equal(held.length, COUNTS.test);
  const all = [...train, ...held];
  const lens = all.map((p) => Array.from(p).length);
  assert.ok(Math.max(...lens) >= 300 && Math.max(...lens) <= 500);
  assert.ok(lens.filter((n) => n < 40).length > 100, "short prompts");
  assert.ok(lens.filter((n) => n > 200).length > 300, "long prompts");
  const has = (re: RegExp) => all.filter((p) => re.test(p)).length;
  assert.ok(has(/[àâçéèêëîïôûùüÿñæœäöß]/i) > 100, "accents");
  assert.ok(has(/[\u4e00-\u9fff]/) > 50, "CJK");
  assert.ok(has(/\u200d/) > 50, "ZWJ sequences");
  assert.ok(has(/[\u0590-\u06ff]/) > 50, "RTL");
  assert.ok(has(/[\u{1f300}-\u{1faff}]/u) > 100, "emoji");
  const bytes = statSync(new URL("train.jsonl", dir)).size + statSync(new URL("test.jsonl", dir)).size;
  assert.ok(bytes < 1_000_000, `data is ${bytes} bytes`);
});
