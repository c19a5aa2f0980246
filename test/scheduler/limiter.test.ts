/** The rollout semaphore: its bound, first-come order, and slots freed by failures. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createLimiter } from "../../packages/core/src/limiter.ts";

const tick = () => new Promise((r) => setImmediate(r));

test("at most `concurrency` run; queued calls start in arrival order as slots free", async () => {
  const limit = createLimiter(2);
  const started: number[] = [];
  const gates = new Map<number, () => void>();
  const results = [0, 1, 2, 3, 4].map((i) =>
    limit(async () => {
      started.push(i);
      await new Promise<void>((r) => gates.set(i, r));
      return i * 10;
    }),
  );
  await tick();
  assert.deepEqual(started, [0, 1], "a third call started while two were running");
  gates.get(1)!();
  await tick();
  assert.deepEqual(started, [0, 1, 2]);
  gates.get(0)!();
  await tick();
  assert.deepEqual(started, [0, 1, 2, 3]);
  for (const i of [2, 3]) gates.get(i)!();
  await tick();
  gates.get(4)!();
  assert.deepEqual(await Promise.all(results), [0, 10, 20, 30, 40]);
});

test("a call that throws or rejects is that call's rejection and frees its slot", async () => {
  const limit = createLimiter(1);
  const sync = limit((() => {
    throw new Error("sync boom");
  }) as () => Promise<never>);
  const rejected = limit(async () => {
    throw new Error("async boom");
  });
  const after = limit(async () => "ran");
  await assert.rejects(sync, /sync boom/);
  await assert.rejects(rejected, /async boom/);
  assert.equal(await after, "ran");
});

test("concurrency must be a whole number from 1 (or Infinity)", () => {
  for (const bad of [0, -1, 1.5, Number.NaN]) assert.throws(() => createLimiter(bad), /concurrency/);
  assert.equal(createLimiter(Number.POSITIVE_INFINITY).concurrency, Number.POSITIVE_INFINITY);
});

test("a long queue (past the compaction point) keeps arrival order, the bound and every result", async () => {
  const limit = createLimiter(3);
  const n = 5000;
  const started: number[] = [];
  let active = 0;
  let peak = 0;
  const results = Array.from({ length: n }, (_, i) =>
    limit(async () => {
      started.push(i);
      peak = Math.max(peak, ++active);
      await Promise.resolve();
      active--;
      return i;
    }),
  );
  assert.deepEqual(
    await Promise.all(results),
    Array.from({ length: n }, (_, i) => i),
  );
  assert.deepEqual(
    started,
    Array.from({ length: n }, (_, i) => i),
  );
  assert.equal(peak, 3);
  // The limiter is reusable once drained.
  assert.equal(await limit(async () => "again"), "again");
});
