/** The one worker-pool loop: lazy pulls, first error stops pulling, abort stops pulling. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runPulled } from "../../packages/core/src/workers.ts";

function* counted(n: number, pulled: number[]): Generator<number> {
  for (let i = 0; i < n; i++) {
    pulled.push(i);
    yield i;
  }
}

test("items are pulled only when a worker is free", async () => {
  const pulled: number[] = [];
  let running = 0;
  let peak = 0;
  const gates: (() => void)[] = [];
  const done = runPulled(counted(10, pulled), 3, async () => {
    running++;
    peak = Math.max(peak, running);
    await new Promise<void>((r) => gates.push(r));
    running--;
  });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(pulled, [0, 1, 2], "a fourth item was taken before a worker was free");
  while (pulled.length < 10 || gates.length > 0) {
    gates.shift()?.();
    await new Promise((r) => setImmediate(r));
  }
  await done;
  assert.equal(peak, 3);
});

test("the first error stops further pulls and is rethrown after running items finish", async () => {
  const pulled: number[] = [];
  const finished: number[] = [];
  await assert.rejects(
    runPulled(counted(100, pulled), 2, async (i) => {
      if (i === 1) throw new Error("boom");
      await new Promise((r) => setTimeout(r, 5));
      finished.push(i);
    }),
    /boom/,
  );
  assert.ok(pulled.length <= 3, `pulled ${pulled.length} items after the failure`);
  assert.ok(finished.includes(0), "an item already running was not allowed to finish");
});

test("an aborted signal stops pulling; zero items and zero workers are fine", async () => {
  const pulled: number[] = [];
  const ac = new AbortController();
  await runPulled(
    counted(50, pulled),
    2,
    async (i) => {
      if (i === 3) ac.abort();
    },
    ac.signal,
  );
  assert.ok(pulled.length < 50 && pulled.length >= 4);
  const none: number[] = [];
  await runPulled(counted(0, none), 0, async () => assert.fail("nothing to run"));
  assert.deepEqual(none, []);
});
