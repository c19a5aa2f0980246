/**
 * The preflight's deadline counts loop-free time only: an eval loading its environment holds the
 * event loop, and that must not use up the endpoint's time to answer (a CI run reported a healthy
 * in-process engine as "no answer within 5 s" when three CLIs started at once at load 10).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { idleDeadline } from "../../packages/cli/src/idle-deadline.ts";

function holdLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {}
}

test("an idle loop expires the deadline, not before its time", async () => {
  const started = performance.now();
  await new Promise<void>((resolve) => idleDeadline(300, resolve));
  assert.ok(performance.now() - started >= 300, "not before the deadline");
});

test("time the loop was held counts as one tick, so an answer read right after still wins", async () => {
  let expired = false;
  const cancel = idleDeadline(300, () => {
    expired = true;
  });
  holdLoop(1_000);
  // The overdue tick runs in the timers phase; an answer waiting on a socket is read in the poll
  // phase after it, and this check runs after both.
  await new Promise((r) => setImmediate(r));
  assert.equal(expired, false, "a held loop did not use up the deadline");
  cancel();
});

test("a cancelled deadline never fires", async () => {
  let expired = false;
  const cancel = idleDeadline(150, () => {
    expired = true;
  });
  cancel();
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(expired, false);
});
