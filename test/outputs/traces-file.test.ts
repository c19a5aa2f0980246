import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { readTraces, TracesWriter } from "../../src/outputs/traces-file.ts";
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
