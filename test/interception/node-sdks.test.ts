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

/**
 * These programs echo an empty assistant content as null (the chat stream helper) or key tool
 * outputs by call id (the Agents SDK): they bridge once tool-call ids are unique per rollout
 * and "" / null are one node (the core-correctness issue's trace-identity change).
 */
const NEEDS_TRACE_IDENTITY = new Set(["openai-chat-stream", "agents", "agents-stream"]);

for (const [mode, dialect] of modes) {
  const todo = NEEDS_TRACE_IDENTITY.has(mode) ? 'needs unique tool-call ids and "" = null identity' : false;
  test(`npm SDK agent (${mode}): a 3-turn tool episode is token-exact`, { todo }, async () => {
    const run = await runHarness([process.execPath, join(AGENTS, "node-sdk-agent.mjs"), mode]);
    assertTokenExact(run, mode);
    assert.equal(run.record.num_turns, 3);
    assert.equal(run.record.reward, 1, run.record.last_reply);
    assert.deepEqual(run.record.info["dialects"], { [dialect]: 3 });
  });
}
