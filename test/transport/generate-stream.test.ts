/**
 * Streaming `/generate` through the transport: the tokens reach the listener while the engine
 * samples, and the turn assembled from the stream is the unstreamed turn — same ids, same
 * logprobs bit for bit, same counts — whether the engine sends cumulative chunks (SGLang's
 * default) or deltas (`--incremental-streaming-output`).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadTokenizer } from "../../packages/core/src/tokenizer/index.ts";
import { GenerateStreamReader } from "../../packages/core/src/transport/generate-stream.ts";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";
import { startEngine } from "../../packages/engine/src/index.ts";

const tok = loadTokenizer();
const PROMPT = tok.encode("<|im_start|>user\nwrite a long story<|im_end|>\n<|im_start|>assistant\n");
const sampling = { temperature: 1, max_tokens: 40, seed: 7 };

for (const incrementalStreaming of [false, true]) {
  const mode = incrementalStreaming ? "incremental" : "cumulative";
  test(`${mode} chunks: the streamed turn equals the unstreamed one; tokens arrive before it ends`, async () => {
    const engine = await startEngine({
      incrementalStreaming,
      tokenLatencyMs: 3,
      policy: () => "a story that goes on and on ".repeat(20),
    });
    const t = new SglangTransport({ baseUrl: engine.url, contextLength: 4096 });
    try {
      const plain = await t.generate({ inputIds: PROMPT, sampling, sessionId: "plain" });
      const seen: number[][] = [];
      const rids = new Set<string>();
      // Whether the engine was still sampling this request when its first tokens arrived: a
      // condition, not a clock, so a loaded machine cannot fail it.
      let engineBusyAtFirst = false;
      const streamed = await t.generate({
        inputIds: PROMPT,
        sampling,
        sessionId: "streamed",
        onTokens: (ids, rid) => {
          if (seen.length === 0) engineBusyAtFirst = engine.stats().inFlight > 0;
          seen.push([...ids]);
          rids.add(rid);
        },
      });
      assert.equal(plain.outputIds.length, 40);
      assert.deepEqual(streamed.outputIds, plain.outputIds);
      // Bit-exact: the same doubles, not merely close ones.
      assert.deepEqual(
        streamed.logprobs.map((x) => x.toString()),
        plain.logprobs.map((x) => x.toString()),
      );
      assert.equal(streamed.finishReason, plain.finishReason);
      assert.equal(streamed.completionTokens, plain.completionTokens);
      assert.equal(streamed.promptTokens, plain.promptTokens);
      assert.ok(seen.length > 5, `${seen.length} deliveries`);
      for (let i = 1; i < seen.length; i++)
        assert.deepEqual(
          seen[i]!.slice(0, seen[i - 1]!.length),
          seen[i - 1],
          "each delivery extends the last",
        );
      assert.deepEqual(seen.at(-1), streamed.outputIds);
      assert.deepEqual([...rids], [streamed.rid]);
      assert.ok(engineBusyAtFirst, "the first tokens arrived while the engine was still sampling");
      assert.ok(seen[0]!.length < streamed.outputIds.length, `first delivery: ${seen[0]!.length} tokens`);
    } finally {
      await t.close();
      await engine.close();
    }
  });
}

test("stream reader: split events, an error chunk, a stream cut short, a chunk that does not add up", () => {
  const tuple = (id: number) => [-0.5, id, null];
  const chunk = (ids: number[], total: number, finish: unknown = null) =>
    `data: ${JSON.stringify({ text: "", output_ids: ids, meta_info: { finish_reason: finish, completion_tokens: total, output_token_logprobs: ids.map(tuple) } })}\n\n`;
  const got: number[] = [];
  const r = new GenerateStreamReader((ids) => got.push(ids.length));
  const text = chunk([1], 1) + chunk([1, 2], 2) + chunk([1, 2, 3], 3, { type: "length", length: 3 });
  for (let i = 0; i < text.length; i += 7) r.push(text.slice(i, i + 7));
  assert.throws(() => r.finish(), /without data: \[DONE\]/);
  r.push("data: [DONE]\n\n");
  assert.deepEqual(r.finish().ids, [1, 2, 3]);
  assert.deepEqual(got, [1, 2, 3]);

  // A burst of cumulative chunks is read by its newest; a burst of deltas by each of them.
  const bursts: number[] = [];
  const cumulative = new GenerateStreamReader((ids) => bursts.push(ids.length));
  cumulative.push(
    chunk([1], 1) + chunk([1, 2], 2) + chunk([1, 2, 3], 3, { type: "stop", matched: 3 }) + "data: [DONE]\n\n",
  );
  assert.deepEqual(cumulative.finish().ids, [1, 2, 3]);
  assert.deepEqual(bursts, [3]);
  const deltas = new GenerateStreamReader(() => {});
  deltas.push(
    chunk([1], 1) + chunk([2], 2) + chunk([3], 3, { type: "stop", matched: 3 }) + "data: [DONE]\n\n",
  );
  assert.deepEqual(deltas.finish().ids, [1, 2, 3]);

  const failed = new GenerateStreamReader(() => {});
  assert.throws(() => failed.push('data: {"error":{"message":"bad sampling"}}\n\n'), /bad sampling/);
  const short = new GenerateStreamReader(() => {});
  short.push(chunk([1], 1));
  assert.throws(() => short.finish(), /before its final chunk/);
  const odd = new GenerateStreamReader(() => {});
  odd.push(chunk([1, 2], 2));
  assert.throws(() => odd.push(chunk([3], 5)), /1 logprobs after 2 read, completion_tokens 5/);
});

test("close() ends a streaming call in flight, as it ends a whole-body one", async () => {
  const engine = await startEngine({ tokenLatencyMs: 20, policy: () => "slow words ".repeat(50) });
  const t = new SglangTransport({ baseUrl: engine.url, contextLength: 4096 });
  try {
    let firstTokens!: () => void;
    const started = new Promise<void>((resolve) => {
      firstTokens = resolve;
    });
    const call = t.generate({ inputIds: PROMPT, sampling, sessionId: "s", onTokens: () => firstTokens() });
    await started;
    await t.close();
    await assert.rejects(call, /transport is closed/);
  } finally {
    await engine.close();
  }
});
