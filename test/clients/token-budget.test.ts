/**
 * No silent 128-token default. SGLang's SamplingParams default `max_new_tokens` is 128, so a
 * request that names no budget is cut at 128 tokens on a real engine. When neither the config
 * nor the program sets one, a TrainClient turn may use the rest of the context (learned from the
 * server's `/v1/models` when not configured), and the trace says which cap set the budget.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startEngine } from "../../packages/engine/src/index.ts";
import { bareSession } from "../runtime/helpers/session.ts";
import { qwen3TrainClient } from "./qwen3-client.ts";

const LONG_REPLY = "word ".repeat(300).trim();

/** A Qwen3 TrainClient on an engine with a 4096-token context that always answers LONG_REPLY. */
async function withLongReplies(fn: (s: ReturnType<typeof bareSession>) => Promise<void>): Promise<void> {
  const engine = await startEngine({ policy: () => LONG_REPLY, contextLength: 4096 });
  const client = qwen3TrainClient(engine.url);
  try {
    await fn(bareSession(client));
  } finally {
    await client.close();
    await engine.close();
  }
}

test("without any max-tokens setting a turn is not cut at SGLang's 128-token default", async () => {
  await withLongReplies(async ({ session, trace }) => {
    const r = await session.complete([{ role: "user", content: "talk" }], [], {});
    assert.equal(r.kind, "completion");
    const response = r.kind === "completion" ? r.response : null;
    assert.equal(response?.finishReason, "stop", "ran to its own end");
    assert.ok((response?.tokens?.completionIds.length ?? 0) > 128, "more than 128 tokens");
    const node = trace.toRecord().nodes.find((n) => n.sampled);
    const prompt = response.tokens!.promptIds.length;
    assert.deepEqual(node?.token_budget, { max_new_tokens: 4096 - prompt, capped_by: "context_length" });
  });
});

test("a program's max_tokens is kept and recorded as the cap", async () => {
  await withLongReplies(async ({ session, trace }) => {
    const r = await session.complete([{ role: "user", content: "talk" }], [], { max_tokens: 50 });
    assert.equal(r.kind === "completion" && r.response.finishReason, "length");
    const node = trace.toRecord().nodes.find((n) => n.sampled);
    assert.deepEqual(node?.token_budget, { max_new_tokens: 50, capped_by: "requested" });
  });
});
