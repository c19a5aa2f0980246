/**
 * Acceptance: the official npm SDKs (openai, @anthropic-ai/sdk, @openai/agents; devDependencies
 * pinned to versions that run on Node 20) as harness programs, through the TrainClient against
 * the built-in engine, token-exact in every dialect and streaming mode.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { AGENTS, assertTokenExact, runHarness } from "./harness-check.ts";

const modes: [string, string][] = [
  ["openai-chat", "chat"],
  ["openai-chat-stream", "chat+stream"],
  ["openai-responses", "responses"],
  ["openai-responses-stream", "responses+stream"],
  ["anthropic", "anthropic"],
  ["anthropic-stream", "anthropic+stream"],
  ["agents", "responses"],
  ["agents-stream", "responses+stream"],
];

for (const [mode, dialect] of modes) {
  test(`npm SDK agent (${mode}): a 3-turn tool episode is token-exact`, async () => {
    const run = await runHarness([process.execPath, join(AGENTS, "node-sdk-agent.mjs"), mode]);
    assertTokenExact(run, mode);
    assert.equal(run.record.num_turns, 3);
    assert.equal(run.record.reward, 1, run.record.last_reply);
    assert.deepEqual(run.record.info["dialects"], { [dialect]: 3 });
  });
}
