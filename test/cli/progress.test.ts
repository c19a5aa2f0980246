import assert from "node:assert/strict";
import { test } from "node:test";
import { formatDuration, formatLine, Progress } from "../../packages/cli/src/progress.ts";

function fakeStream() {
  const chunks: string[] = [];
  return {
    stream: { isTTY: false, write: (s: string) => chunks.push(s) } as unknown as NodeJS.WriteStream,
    chunks,
  };
}

test("durations", () => {
  assert.equal(formatDuration(null), "?");
  assert.equal(formatDuration(42), "42s");
  assert.equal(formatDuration(125), "2m05s");
  assert.equal(formatDuration(3 * 3600 + 7 * 60), "3h07m");
});

test("state: done/total, mean reward, errors, rate and ETA from a fake clock", () => {
  let now = 0;
  const p = new Progress({ total: 10, initial: 2, now: () => now, tty: false, stream: fakeStream().stream });
  assert.equal(p.state().meanReward, null);
  now = 2000;
  p.add(1, false);
  p.add(0, true);
  const s = p.state();
  assert.equal(s.done, 4);
  assert.equal(s.meanReward, 0.5);
  assert.equal(s.errors, 1);
  assert.equal(s.ratePerSec, 1); // 2 fresh rollouts in 2 s (resumed ones do not count)
  assert.equal(s.etaSec, 6);
  assert.equal(formatLine(s), "4/10 rollouts | reward 0.500 | errors 1 | 1.00/s | ETA 6s");
});

test("without a TTY it prints plain lines (periodic, and a final one)", async () => {
  const { stream, chunks } = fakeStream();
  const p = new Progress({ total: 2, stream, intervalMs: 10 });
  p.start();
  p.add(1, false);
  await new Promise((r) => setTimeout(r, 35));
  p.add(1, false);
  p.stop();
  assert.ok(chunks.length >= 2);
  assert.ok(chunks.every((c) => c.endsWith("\n") && !c.includes("\r")));
  assert.match(chunks[chunks.length - 1]!, /^2\/2 rollouts \| reward 1\.000/);
});
