/**
 * A rollout retried after a failure keeps the earlier attempts' errors on its trace. For Miles,
 * only the final attempt decides: a retry that completed is a trainable sample, not "failed"
 * (the fault suite saw most retried rollouts dropped before this was fixed).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { finalAttemptFailed, SampleCounter, tracesToGroup } from "../../packages/core/src/miles/convert.ts";
import { groupSamples } from "../../packages/core/src/miles/sample.ts";
import { trace } from "../miles/traces.ts";

const aborted = [{ type: "TurnAbortedError", message: "generation aborted by the engine" }];

test("the final attempt decides a trace's Miles status", () => {
  const cases = [
    { over: { errors: aborted, attempts: 1, is_completed: true }, failed: false },
    { over: { errors: [...aborted, ...aborted], attempts: 2, is_completed: true }, failed: false },
    { over: { errors: aborted, attempts: 1, is_completed: false }, failed: true },
    { over: { errors: aborted, attempts: 0, is_completed: false }, failed: true },
    // Not retried: any recorded error fails the sample, as before.
    { over: { errors: aborted, attempts: 0, is_completed: true }, failed: true },
    { over: { errors: [], attempts: 0, is_completed: true }, failed: false },
  ];
  for (const { over, failed } of cases) {
    const t = trace(over);
    assert.equal(finalAttemptFailed(t), failed, JSON.stringify(over));
    const [s] = groupSamples(tracesToGroup([t], new SampleCounter()));
    assert.equal(s!.status === "failed", failed, JSON.stringify(over));
    // The earlier failure stays visible in the sample's metadata either way.
    if (over.errors.length > 0) assert.match(s!.metadata.envroll.error ?? "", /^TurnAbortedError: /);
  }
});
