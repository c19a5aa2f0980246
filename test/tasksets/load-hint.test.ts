/**
 * Start-up of a short eval: the environment tells `Taskset.load` how many rows the run uses,
 * and validates only those rows (by their place in the dataset, shuffled or not).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { z } from "zod";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { mulberry32, shuffle } from "../../packages/core/src/random.ts";
import { defineTaskset, type LoadHint } from "../../packages/core/src/task.ts";
import { builtinDatasetPath, readPrompts } from "../../packages/core/src/tasksets/reverse-text/dataset.ts";
import reverseText from "../../packages/core/src/tasksets/reverse-text/index.ts";

const SIZE = 20;
const hints: (LoadHint | undefined)[] = [];
let parsed = 0;
/** Row 7 is invalid (no prompt). */
const taskset = defineTaskset({
  id: "hinted",
  defaults: { harness: { id: "null" } },
  dataSchema: z.object({ idx: z.number(), prompt: z.string() }).transform((d) => {
    parsed++;
    return d;
  }),
  load: (_c: Record<string, unknown>, hint?: LoadHint) => {
    hints.push(hint);
    return Array.from({ length: SIZE }, (_, i) => (i === 7 ? { idx: i } : { idx: i, prompt: `p${i}` })) as {
      idx: number;
      prompt: string;
    }[];
  },
});
const env = async (toml: string) =>
  loadEnvironment(await loadConfig(`taskset.id = "hinted"\n${toml}`, {}, { taskset }), { taskset });

test("load gets num_tasks as its limit, and only the rows used are validated", async () => {
  hints.length = 0;
  parsed = 0;
  const e = await env("num_tasks = 3");
  assert.deepEqual(hints, [{ limit: 3 }]);
  assert.equal(parsed, 3, "rows past num_tasks are not parsed");
  assert.deepEqual(
    e.tasks.map((t) => t.idx),
    [0, 1, 2],
  );
  // The invalid row 7 lies past the run: no error.
  await env("num_tasks = 7");
  await assert.rejects(env("num_tasks = 8"), /taskset: row 7 of "hinted" is invalid/);
});

test("a shuffled run asks for every row, keeps the seeded order and names bad rows by dataset index", async () => {
  hints.length = 0;
  const e = await env("shuffle = true\nnum_tasks = 4");
  assert.deepEqual(hints, [{ limit: null }]);
  const all = Array.from({ length: SIZE }, (_, i) => i);
  const expected = shuffle(all, mulberry32(0)).slice(0, 4);
  if (expected.includes(7)) assert.fail("pick a size whose first shuffled rows avoid row 7");
  assert.deepEqual(
    e.tasks.map((t) => t.idx),
    expected,
  );
  await assert.rejects(env("shuffle = true"), /taskset: row 7 of "hinted" is invalid/);
});

test("reverse-text reads only the rows asked for, the same ones a full load starts with", async () => {
  const full = await reverseText.load({ split: "train", dataset_path: null }, { limit: null });
  const three = await reverseText.load({ split: "train", dataset_path: null }, { limit: 3 });
  assert.ok(full.length > 1000);
  assert.deepEqual(three, full.slice(0, 3));
  const dir = mkdtempSync(join(tmpdir(), "envroll-load-hint-"));
  const path = join(dir, "rows.jsonl");
  writeFileSync(path, '{"prompt": "a"}\n\n{"prompt": "b"}\nnot json\n');
  assert.deepEqual(await readPrompts(path, 2), ["a", "b"], "the bad line 4 lies past the limit");
  await assert.rejects(readPrompts(path, 3), /rows\.jsonl:4: invalid JSON/);
  await assert.rejects(readPrompts(path), /rows\.jsonl:4: invalid JSON/);
});

test("reverse-text's rows read line by line equal the whole file's, across its 64 KiB chunks", async () => {
  const path = builtinDatasetPath("train");
  const whole = readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l).prompt as string);
  assert.ok(Buffer.byteLength(readFileSync(path)) > 4 * 64 * 1024, "the file spans several chunks");
  assert.ok(
    whole.some((p) => /[^\x00-\x7f]/.test(p)),
    "multi-byte text crosses chunk edges",
  );
  assert.deepEqual(await readPrompts(path), whole);
  assert.deepEqual(await readPrompts(path, 700), whole.slice(0, 700));
  const dir = mkdtempSync(join(tmpdir(), "envroll-load-hint-"));
  const last = join(dir, "no-final-newline.jsonl");
  writeFileSync(last, '{"prompt": "\u00e9t\u00e9"}\r\n{"prompt": "z"}');
  assert.deepEqual(await readPrompts(last), ["\u00e9t\u00e9", "z"]);
  await assert.rejects(readPrompts(join(dir, "missing.jsonl"), 0), /ENOENT/);
});
