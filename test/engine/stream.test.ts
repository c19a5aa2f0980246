/**
 * Streaming: `text/event-stream`, cumulative chunks by default, deltas in incremental mode,
 * `index` on batch chunks, and `data: [DONE]` at the end.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadTokenizer } from "../../packages/core/src/tokenizer/index.ts";
import { startEngine } from "../../packages/engine/src/index.ts";
import { readSse } from "./sse.ts";
import { untilStarted } from "./wait.ts";

const tok = loadTokenizer();
const chat = (user: string) => `<|im_start|>user\n${user}<|im_end|>\n<|im_start|>assistant\n`;
const PROMPT = tok.encode(chat("one two three four five six"));

async function stream(url: string, body: Record<string, unknown>) {
  const res = await fetch(`${url}/generate`, {
    method: "POST",
    body: JSON.stringify({ ...body, stream: true }),
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
  const events = await readSse(res);
  assert.equal(events.at(-1), "[DONE]");
  return events.slice(0, -1).map((e) => JSON.parse(e));
}

test("cumulative chunks grow to the full reply; only the last carries finish_reason", async () => {
  const engine = await startEngine();
  try {
    const chunks = await stream(engine.url, { input_ids: PROMPT, return_logprob: true });
    assert.ok(chunks.length > 3);
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1].output_ids;
      assert.deepEqual(
        chunks[i].output_ids.slice(0, prev.length),
        prev,
        "each chunk extends the previous one",
      );
    }
    const last = chunks.at(-1);
    assert.deepEqual(last.meta_info.finish_reason, { type: "stop", matched: 151645 });
    assert.ok(chunks.slice(0, -1).every((c) => c.meta_info.finish_reason === null));
    assert.equal(last.meta_info.output_token_logprobs.length, last.output_ids.length);
    assert.equal(tok.decode(last.output_ids), "one two three four five six<|im_end|>");
  } finally {
    await engine.close();
  }
});

test("incremental mode sends deltas that concatenate to the full reply", async () => {
  const engine = await startEngine({ incrementalStreaming: true });
  try {
    const chunks = await stream(engine.url, { input_ids: PROMPT, return_logprob: true, rid: "inc" });
    const ids = chunks.flatMap((c) => c.output_ids);
    const lps = chunks.flatMap((c) => c.meta_info.output_token_logprobs);
    assert.equal(tok.decode(ids), "one two three four five six<|im_end|>");
    assert.equal(lps.length, ids.length);
    assert.ok(
      chunks.every((c) => c.output_ids.length <= 1 || c === chunks.at(-1)),
      "one token per delta",
    );
  } finally {
    await engine.close();
  }
});

test("batch streams tag each chunk with its index; an aborted stream ends with finish abort", async () => {
  const engine = await startEngine({ tokenLatencyMs: 3 });
  try {
    const chunks = await stream(engine.url, { input_ids: [PROMPT, tok.encode(chat("seven"))], rid: "bs" });
    const finals = chunks.filter((c) => c.meta_info.finish_reason !== null);
    assert.deepEqual(finals.map((c) => c.index).sort(), [0, 1]);
    assert.ok(chunks.every((c) => c.index === 0 || c.index === 1));
    const pending = stream(engine.url, {
      input_ids: PROMPT,
      rid: "victim",
      sampling_params: { ignore_eos: true, max_new_tokens: 500 },
    });
    await untilStarted(engine, 2);
    await fetch(`${engine.url}/abort_request`, { method: "POST", body: JSON.stringify({ rid: "victim" }) });
    const aborted = await pending;
    const last = aborted.at(-1);
    assert.equal(last.meta_info.finish_reason.type, "abort");
    assert.ok(last.output_ids.length > 0 && last.output_ids.length < 500);
  } finally {
    await engine.close();
  }
});
