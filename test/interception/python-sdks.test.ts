/**
 * Acceptance: the official Python SDKs as harness programs, through the TrainClient against the
 * built-in engine, token-exact in every dialect and streaming mode (skipped, with the reason,
 * when the SDK is not installed in the project venv).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { AGENTS, assertTokenExact, missingPython, python, runHarness } from "./harness-check.ts";

const cases: [string, string, string][] = [
  ["openai", "openai_agent.py", "chat"],
  ["openai", "openai_agent.py", "chat-stream"],
  ["openai", "openai_agent.py", "responses"],
  ["openai", "openai_agent.py", "responses-stream"],
  ["anthropic", "anthropic_agent.py", "messages"],
  ["anthropic", "anthropic_agent.py", "messages-stream"],
];

for (const [pkg, script, mode] of cases) {
  const skip = missingPython(pkg);
  test(
    `python ${pkg} SDK (${mode}): a 3-turn tool episode is token-exact`,
    { skip: skip ?? false },
    async () => {
      // On the host: the project venv's interpreter is often a pyenv build under /root, which the
      // sandbox user cannot open when envroll runs as root (README, "Which runtime the model's
      // tools get by default"); what this checks is the dialect, not the isolation.
      const run = await runHarness([python(), join(AGENTS, script), mode], {
        harness: 'runtime = { type = "subprocess" }',
      });
      assertTokenExact(run, mode);
      assert.equal(run.record.num_turns, 3);
      assert.equal(run.record.reward, 1, run.record.last_reply);
      const dialect = pkg === "anthropic" ? "anthropic" : mode.startsWith("chat") ? "chat" : "responses";
      const key = mode.endsWith("-stream") ? `${dialect}+stream` : dialect;
      assert.deepEqual(run.record.info["dialects"], { [key]: 3 });
    },
  );
}
