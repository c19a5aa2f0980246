import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { runExport } from "../../packages/cli/src/export.ts";
import { errored, grid } from "../outputs/fixtures.ts";

function tracesFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "envroll-export-"));
  const traces = [...grid(2, 2, (t, r) => t + r / 2), errored(2, 0)];
  const path = join(dir, "traces.jsonl");
  writeFileSync(path, traces.map((t) => `${JSON.stringify(t)}\n`).join(""));
  return path;
}

test("jsonl export: one Miles sample per branch, grouped per task", () => {
  const path = tracesFile();
  const out = runExport(path, { format: "jsonl" });
  assert.equal(out.path, join(path, "..", "samples.jsonl"));
  const rows = readFileSync(out.path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.equal(rows.length, 5);
  assert.deepEqual(
    rows.map((r) => r.group_index),
    [0, 0, 1, 1, 2],
  );
  assert.deepEqual(rows[0].tokens, [10, 11, 1, 2, 3]);
  assert.deepEqual(rows[0].loss_mask, [1, 1]);
  assert.deepEqual(rows[0].rollout_log_probs, [-0.5, -0.25]);
  assert.equal(rows[4].status, "failed");
  const skipped = runExport(path, {
    format: "jsonl",
    skipErrored: true,
    output: join(path, "..", "ok.jsonl"),
  });
  assert.equal(skipped.samples, 4);
});

test("parquet export has real list columns that read back as arrays", async () => {
  const path = tracesFile();
  const out = runExport(path, { format: "parquet", rewardKey: "lcs" });
  const buf = readFileSync(out.path);
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const schema = parquetMetadata(ab).schema;
  const byName = (name: string) => schema.findIndex((e) => e.name === name);
  for (const [col, type] of [
    ["tokens", "INT32"],
    ["loss_mask", "INT32"],
    ["rollout_log_probs", "DOUBLE"],
  ] as const) {
    const i = byName(col);
    assert.equal(schema[i]!.converted_type, "LIST", `${col} is a LIST`);
    assert.equal(schema[i + 1]!.repetition_type, "REPEATED");
    assert.equal(schema[i + 2]!.type, type, `${col} elements are ${type}`);
  }
  const rows = (await parquetReadObjects({ file: ab })) as any[];
  assert.equal(rows.length, 5);
  assert.deepEqual(Array.from(rows[0].tokens), [10, 11, 1, 2, 3]);
  assert.deepEqual(Array.from(rows[0].loss_mask), [1, 1]);
  assert.deepEqual(Array.from(rows[0].rollout_log_probs), [-0.5, -0.25]);
  assert.equal(rows[1].reward, 0.5);
  // JSON columns hold objects, encoded once: the reader's own decode gives the object back.
  assert.deepEqual(rows[1].rewards, { lcs: 0.5, reward: 0.5 });
  assert.equal(typeof rows[0].metadata, "object");
  assert.equal(rows[0].metadata.envroll.task_index, 0);
  assert.equal(rows[4].status, "failed");
  assert.equal(typeof rows[4].remove_sample, "boolean");
});
