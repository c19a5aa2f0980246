/** Every code-golf problem is well-posed: its reference solution prints exactly `expected`. */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { SandboxRuntime } from "../../packages/core/src/runtimes/sandbox.ts";
import { evaluateProgram } from "../../packages/core/src/tasksets/code-golf/evaluate.ts";
import { ALL_SPECS, EXTRA_SPECS } from "../../packages/core/src/tasksets/code-golf/specs.ts";

// The sandbox when bubblewrap works (as in CI); rlimits-only elsewhere, so these tests of the
// taskset's logic still run — isolation itself is test/sandbox's job.
const rt = new SandboxRuntime({ type: "sandbox", allow_unsandboxed: true });
after(() => rt.stop());

test("at least a dozen own problems, unique names, descriptions fit 'Print {description}.'", () => {
  assert.ok(EXTRA_SPECS.length >= 12);
  assert.equal(new Set(ALL_SPECS.map((s) => s.name)).size, ALL_SPECS.length);
  for (const s of ALL_SPECS) {
    assert.doesNotMatch(s.description, /\.$/);
    assert.equal(s.expected, s.expected.trim());
  }
});

test("each reference solution passes in the sandbox; a wrong one fails", async () => {
  await rt.start();
  for (const s of ALL_SPECS) {
    const e = await evaluateProgram(s.solution, s.expected, rt);
    assert.equal(e.passed, 1, `${s.name}: solution does not print the expected output`);
  }
  const wrong = await evaluateProgram("print(5051)", "5050", rt);
  assert.equal(wrong.passed, 0);
  const crash = await evaluateProgram("print(5050)\nraise SystemExit(3)", "5050", rt);
  assert.equal(crash.passed, 0, "a non-zero exit fails even with the right output");
});
