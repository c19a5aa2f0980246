import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { readTraces, TracesWriter } from "../../packages/core/src/outputs/traces-file.ts";
import { makeTrace } from "./fixtures.ts";

test("writer appends whole lines and the reader reads them back", () => {
  const path = join(mkdtempSync(join(tmpdir(), "envroll-traces-")), "traces.jsonl");
  const w = new TracesWriter(path);
  w.append(makeTrace({ task_index: 0, rollout_index: 0 }));
  w.append(makeTrace({ task_index: 0, rollout_index: 1, last_reply: "line\nbreak </script>" }));
  w.close();
  w.close();
  const text = readFileSync(path, "utf8");
  assert.equal(text.split("\n").length, 3);
  const { traces, badLines } = readTraces(path);
  assert.equal(traces.length, 2);
  assert.deepEqual(badLines, []);
  assert.equal(traces[1]!.last_reply, "line\nbreak </script>");
});

test("a partial last line is skipped by the reader and cut before appending", () => {
  const path = join(mkdtempSync(join(tmpdir(), "envroll-traces-")), "traces.jsonl");
  const w = new TracesWriter(path);
  w.append(makeTrace({ task_index: 0, rollout_index: 0 }));
  w.close();
  appendFileSync(path, '{"task_index": 1, "rollout_ind');
  assert.deepEqual(readTraces(path).badLines, [2]);
  const w2 = new TracesWriter(path);
  w2.append(makeTrace({ task_index: 1, rollout_index: 0 }));
  w2.close();
  const { traces, badLines } = readTraces(path);
  assert.deepEqual(badLines, []);
  assert.deepEqual(
    traces.map((t) => t.task_index),
    [0, 1],
  );
});

test("lines longer than the read chunk and multi-byte characters across chunk edges survive", () => {
  const path = join(mkdtempSync(join(tmpdir(), "envroll-traces-")), "traces.jsonl");
  const w = new TracesWriter(path);
  const big = "é✓".repeat(700_000); // ~3.5 MB of multi-byte text in one line
  w.append(makeTrace({ task_index: 0, rollout_index: 0, last_reply: big }));
  w.append(makeTrace({ task_index: 0, rollout_index: 1 }));
  w.close();
  const { traces, badLines } = readTraces(path);
  assert.deepEqual(badLines, []);
  assert.equal(traces[0]!.last_reply, big);
  assert.equal(traces.length, 2);
});

test("slim reading drops token arrays but keeps messages and sizes", () => {
  const path = join(mkdtempSync(join(tmpdir(), "envroll-traces-")), "traces.jsonl");
  const w = new TracesWriter(path);
  w.append(makeTrace({ task_index: 0, rollout_index: 0 }));
  w.close();
  const [t] = readTraces(path, { slim: true }).traces;
  assert.equal(t!.nodes[2]!.token_ids, undefined);
  assert.equal((t!.nodes[2] as any).num_tokens, 3);
  assert.equal(t!.nodes[2]!.message.role, "assistant");
  assert.deepEqual(t!.branches[0]!.token_ids, []);
  assert.equal((t!.branches[0] as any).num_tokens, 5);
});

test("repairTail on a file that is one partial line empties it", () => {
  const path = join(mkdtempSync(join(tmpdir(), "envroll-traces-")), "traces.jsonl");
  appendFileSync(path, '{"partial');
  new TracesWriter(path).close();
  assert.equal(readFileSync(path, "utf8"), "");
});
