/**
 * `envroll eval` on verifiers' own reverse_text_v1 (hosted in Python) with the built-in engine:
 * the run says which taskset ran, and the traces are token-level: for the same prompt rows the
 * rendered prompt ids equal those of the TypeScript reverse-text (same system prompt and text, so
 * the Python taskset changes nothing below the taskset). Needs the real verifiers (real-v1.ts).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { onlyRunDir, runCli } from "../cli/cli-helpers.ts";
import { needsRealV1, real } from "./real-v1.ts";

const PROMPTS = ["hello world", "Straße ✓ café", "a\nb c", "🙂 emoji 🙂 text"];

function promptIds(t: TraceRecord): number[] {
  const b = t.branches[0]!;
  const first = b.sampled_mask.indexOf(true);
  return b.token_ids.slice(0, first);
}

function traces(dir: string): TraceRecord[] {
  return readFileSync(join(onlyRunDir(dir), "traces.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as TraceRecord)
    .sort((a, b) => a.task_index - b.task_index);
}

test("envroll eval runs reverse_text_v1's own code, token-level, and says so", needsRealV1, async () => {
  const v1 = real();
  const tmp = mkdtempSync(join(tmpdir(), "envroll-eval-v1-"));
  const data = join(tmp, "data");
  const rows = PROMPTS.map((prompt) => `${JSON.stringify({ prompt })}\n`).join("");
  const { mkdirSync } = await import("node:fs");
  mkdirSync(data);
  writeFileSync(join(data, "train.jsonl"), rows);
  const cfg = join(tmp, "rt.toml");
  writeFileSync(
    cfg,
    [
      v1.pythonToml("reverse_text_v1"),
      `taskset = { id = "PrimeIntellect/reverse-text-v1@0.1.0", dataset_name = ${JSON.stringify(data)} }`,
      'harness = { id = "null" }',
    ].join("\n"),
  );
  const py = await runCli(["eval", cfg, "-o", join(tmp, "py"), "--no-rich", "-r", "2"]);
  assert.equal(py.code, 0, py.stderr);
  assert.match(
    py.stderr,
    /taskset PrimeIntellect\/reverse-text-v1@0\.1\.0: python module reverse_text_v1 0\.1\.0 \(ReverseTextTaskset\)/,
  );
  const summary = JSON.parse(readFileSync(join(onlyRunDir(join(tmp, "py")), "summary.json"), "utf8"));
  assert.equal(summary.taskset_origin.module, "reverse_text_v1");
  assert.equal(summary.num_traces, PROMPTS.length * 2);

  writeFileSync(join(tmp, "rows.jsonl"), rows);
  const ts = await runCli([
    "eval",
    "reverse-text",
    "--taskset.dataset_path",
    join(tmp, "rows.jsonl"),
    "-o",
    join(tmp, "ts"),
    "--no-rich",
  ]);
  assert.equal(ts.code, 0, ts.stderr);
  const pyTraces = traces(join(tmp, "py"));
  const tsTraces = traces(join(tmp, "ts"));
  for (const t of pyTraces) {
    assert.deepEqual(t.errors, []);
    assert.ok(t.branches[0]!.sampled_mask.some(Boolean), "sampled tokens recorded");
    assert.deepEqual(promptIds(t), promptIds(tsTraces[t.task_index]!), `task ${t.task_index}`);
    assert.equal(t.task.data["answer"], [...PROMPTS[t.task_index]!].reverse().join(""));
  }
});
