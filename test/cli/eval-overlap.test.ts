/**
 * `envroll eval` overlaps the endpoint check (a round trip to another process) with loading
 * the tasks and the tokenizer: openBackend loads the environment while the check is in flight,
 * makes the client only once it is done, and reports its failure first.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { openBackend } from "../../packages/cli/src/eval-backend.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { defineTaskset } from "../../packages/core/src/task.ts";

const events: string[] = [];
const taskset = defineTaskset({
  id: "overlap",
  defaults: { harness: { id: "null" } },
  configSchema: z.object({ fail: z.boolean().default(false) }),
  load: (c: { fail: boolean }) => {
    events.push("load");
    if (c.fail) throw new Error("no rows today");
    return [{ idx: 0, prompt: "p" }];
  },
});

const CLIENT = 'client = { type = "train", base_url = "http://127.0.0.1:9", renderer = "qwen3" }\n';
const config = (extra = "") => loadConfig(`taskset.id = "overlap"\n${CLIENT}${extra}`, {}, { taskset });

function gate() {
  let open!: () => void;
  let fail!: (e: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

test("the tasks load while the endpoint check is in flight; the client waits for it", async () => {
  events.length = 0;
  const c = await config();
  const check = gate();
  let settled = false;
  const opening = openBackend(c, { kind: "client", client: c.client }, () => {}, taskset, check.promise).then(
    (b) => {
      settled = true;
      return b;
    },
  );
  // Let the loading run as far as it can without the check
  // (generous: a loaded machine compiling the sources under tsx may take seconds).
  for (let i = 0; i < 600 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(events, ["load"], "the environment loaded before the check finished");
  assert.equal(settled, false, "no backend (no client) before the check finished");
  check.open();
  const backend = await opening;
  assert.deepEqual(backend.taskIndices, [0]);
  await backend.close();
});

test("a failed endpoint check is reported before a taskset that fails to load", async () => {
  const c = await config("taskset.fail = true\n");
  const check = gate();
  const opening = openBackend(c, { kind: "client", client: c.client }, () => {}, taskset, check.promise);
  setTimeout(() => check.fail(new Error("cannot reach http://127.0.0.1:9: ECONNREFUSED")), 50);
  await assert.rejects(opening, /cannot reach http:\/\/127\.0\.0\.1:9: ECONNREFUSED/);
});
