/**
 * `onFirstRequestSent`: the transport's signal that its first `/generate` has gone out (the CLI
 * writes its code cache then). It fires once, while the engine still holds that request, over
 * the keep-alive client and over a stream alike; a request that never got out does not fire it.
 */
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import { loadTokenizer } from "../../packages/core/src/tokenizer/index.ts";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";
import { startEngine } from "../../packages/engine/src/index.ts";

const tok = loadTokenizer();
const PROMPT = tok.encode("<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n");
const sampling = { temperature: 1, max_tokens: 4, seed: 7 };

for (const streaming of [false, true]) {
  test(`${streaming ? "streamed" : "whole-reply"} requests: it fires once, while the first is in flight`, async () => {
    const engine = await startEngine({ latencyMs: 200 });
    const inFlightAtSignal: number[] = [];
    const t = new SglangTransport({
      baseUrl: engine.url,
      contextLength: 4096,
      // The engine counts the request once it has read it: the signal comes after the write,
      // before the 200 ms reply.
      onFirstRequestSent: () => setTimeout(() => inFlightAtSignal.push(engine.stats().inFlight), 50),
    });
    try {
      const ask = (sessionId: string) =>
        t.generate({ inputIds: PROMPT, sampling, sessionId, ...(streaming ? { onTokens: () => {} } : {}) });
      await ask("a");
      await Promise.all([ask("b"), ask("c")]);
      assert.deepEqual(inFlightAtSignal, [1]);
    } finally {
      await t.close();
      await engine.close();
    }
  });
}

test("a request refused at connect does not fire it", async () => {
  // A port that was free a moment ago: the connect is refused.
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  let fired = 0;
  const t = new SglangTransport({
    baseUrl: `http://127.0.0.1:${port}`,
    contextLength: 4096,
    retry: { maxAttempts: 1 },
    onFirstRequestSent: () => fired++,
  });
  try {
    await assert.rejects(t.generate({ inputIds: PROMPT, sampling, sessionId: "x" }));
    assert.equal(fired, 0);
  } finally {
    await t.close();
  }
});
