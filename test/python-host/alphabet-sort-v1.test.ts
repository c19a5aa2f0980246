/**
 * verifiers v0.2.0's alphabet_sort_v1, unchanged: the task has no prompt, its `vf.User`
 * simulator opens the conversation and drives every follow-up, `@vf.stop user_finished` ends it.
 * Run by envroll on the replies of test/fixtures/alphabet_sort_v1.json (made by
 * test/fixtures/gen_v1_real.py with the real verifiers), the model sees the same user turns and
 * every rollout gets verifiers' own reward. The hub dataset is served from a local datasets
 * cache (hf_cache.py). Needs the real verifiers (real-v1.ts).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { contentText } from "../../packages/core/src/types.ts";
import { readFixture } from "../fixtures.ts";
import { needsRealV1, real } from "./real-v1.ts";
import { ReplayClient } from "./replay-client.ts";

const fx = readFixture("alphabet_sort_v1.json");
const HERE = dirname(fileURLToPath(import.meta.url));

/** A local datasets cache with the fixture's rows under the hub name, for the host to read. */
function localCache(python: string): string {
  const tmp = mkdtempSync(join(tmpdir(), "envroll-as-v1-"));
  const rows = join(tmp, "rows.jsonl");
  writeFileSync(rows, fx.rows.map((r: unknown) => `${JSON.stringify(r)}\n`).join(""));
  const cache = join(tmp, "cache");
  const r = spawnSync(python, [join(HERE, "hf_cache.py"), fx.dataset, rows, cache], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return cache;
}

test(
  "alphabet_sort_v1: the user simulator opens and drives; rewards equal verifiers' own",
  needsRealV1,
  async () => {
    const v1 = real();
    // Read by the host process, which starts on the first request below and inherits them.
    process.env["HF_DATASETS_CACHE"] = localCache(v1.python);
    process.env["HF_DATASETS_OFFLINE"] = "1";
    process.env["HF_HUB_OFFLINE"] = "1";
    const config = await loadConfig(
      [
        'model = "m"',
        'harness = { id = "null" }',
        v1.pythonToml("alphabet_sort_v1"),
        'taskset = { id = "alphabet_sort_v1", task = { similarity_power = 4 } }',
      ].join("\n"),
    );
    const env = await loadEnvironment(config);
    assert.equal(env.tasks.length, fx.num_tasks);
    assert.equal(env.tasks[0]!.prompt, null, "the task has no prompt: the simulator opens");
    const runs: { t: TraceRecord; client: ReplayClient }[] = await Promise.all(
      fx.cases.map(async (c: { task_idx: number; replies: string[] }) => {
        const client = new ReplayClient(c.replies);
        const [t] = await env.runGroup(c.task_idx, 1, { client });
        return { t: t!, client };
      }),
    );
    for (const [i, c] of fx.cases.entries()) {
      const { t, client } = runs[i]!;
      assert.deepEqual(t.errors, [], `case ${i}`);
      assert.equal(client.requests.length, c.replies.length, `case ${i}: one model call per user turn`);
      const seen = client.requests
        .at(-1)!
        .filter((m) => m.role === "user")
        .map((m) => contentText(m.content));
      assert.deepEqual(seen, c.user_turns, `case ${i}: the simulator's turns`);
      assert.deepEqual(t.rewards, c.rewards, `case ${i} (${c.kind})`);
      assert.equal(t.num_turns, c.replies.length);
    }
  },
);
