/**
 * /generate over real HTTP: response shapes, sampling rules, batch input, 400s.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { loadTokenizer } from "../../packages/core/src/tokenizer/index.ts";
import { type EngineHandle, startEngine } from "../../packages/engine/src/index.ts";

const tok = loadTokenizer();
let engine: EngineHandle;
const chat = (user: string) => `<|im_start|>user\n${user}<|im_end|>\n<|im_start|>assistant\n`;
const PROMPT = tok.encode(chat("The quick brown fox jumps over the lazy dog."));

before(async () => {
  engine = await startEngine({ contextLength: 2048 });
});
after(() => engine.close());

async function gen(body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${engine.url}/generate`, { method: "POST", body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

test("single input_ids request: documented shape, echo reply ending in <|im_end|>", async () => {
  const { status, json } = await gen({
    input_ids: PROMPT,
    sampling_params: { max_new_tokens: 64 },
    return_logprob: true,
    rid: "r-1",
  });
  assert.equal(status, 200);
  assert.deepEqual(Object.keys(json).sort(), ["meta_info", "output_ids", "text"]);
  const m = json.meta_info;
  assert.equal(m.id, "r-1");
  assert.deepEqual(m.finish_reason, { type: "stop", matched: 151645 });
  assert.equal(m.prompt_tokens, PROMPT.length);
  assert.equal(m.completion_tokens, json.output_ids.length);
  assert.equal(m.cached_tokens, 0);
  assert.equal(m.weight_version, "default");
  assert.equal(typeof m.e2e_latency, "number");
  assert.equal(json.output_ids.at(-1), 151645, "stop token kept in output_ids");
  assert.equal(tok.decode(json.output_ids), "The quick brown fox jumps over the lazy dog.<|im_end|>");
  // Defaults: skip_special_tokens=true and no_stop_trim=false → the stop token is not in text.
  assert.equal(json.text, "The quick brown fox jumps over the lazy dog.");
  assert.equal(m.output_token_logprobs.length, json.output_ids.length);
  for (const [i, t] of m.output_token_logprobs.entries()) {
    assert.equal(t.length, 3);
    assert.ok(t[0] <= 0);
    assert.equal(t[1], json.output_ids[i]);
    assert.equal(t[2], null);
  }
});

test("default rid is 32 hex; no logprobs unless return_logprob", async () => {
  const { json } = await gen({ input_ids: PROMPT });
  assert.match(json.meta_info.id, /^[0-9a-f]{32}$/);
  assert.equal("output_token_logprobs" in json.meta_info, false);
});

test("text input is tokenized; return_text_in_logprobs fills the third element", async () => {
  const { json } = await gen({ text: chat("hi there"), return_logprob: true, return_text_in_logprobs: true });
  assert.equal(json.meta_info.prompt_tokens, tok.encode(chat("hi there")).length);
  assert.deepEqual(
    json.meta_info.output_token_logprobs.map((t: unknown[]) => t[2]),
    json.output_ids.map((id: number) => tok.decode([id])),
  );
});

test("max_new_tokens truncates with finish length; max_new_tokens 0 yields nothing", async () => {
  const { json } = await gen({
    input_ids: PROMPT,
    sampling_params: { max_new_tokens: 3 },
    return_logprob: true,
  });
  assert.deepEqual(json.meta_info.finish_reason, { type: "length", length: 3 });
  assert.equal(json.output_ids.length, 3);
  assert.notEqual(json.output_ids.at(-1), 151645);
  const zero = await gen({ input_ids: PROMPT, sampling_params: { max_new_tokens: 0 } });
  assert.deepEqual(zero.json.output_ids, []);
  assert.deepEqual(zero.json.meta_info.finish_reason, { type: "length", length: 0 });
});

test("stop_token_ids end the turn at the matched id (kept in output_ids, kept in text with no_stop_trim)", async () => {
  const ids = tok.encode("The quick brown fox");
  const stopAt = ids[2]; // " brown"
  const { json } = await gen({
    input_ids: PROMPT,
    sampling_params: { stop_token_ids: [stopAt], no_stop_trim: true, skip_special_tokens: false },
  });
  assert.deepEqual(json.meta_info.finish_reason, { type: "stop", matched: stopAt });
  assert.deepEqual(json.output_ids, ids.slice(0, 3));
  assert.equal(json.text, "The quick brown");
  const trimmed = await gen({ input_ids: PROMPT, sampling_params: { stop_token_ids: [stopAt] } });
  assert.equal(trimmed.json.text, "The quick");
});

test("stop strings finish with the matched string; ignore_eos runs to max_new_tokens", async () => {
  const { json } = await gen({ input_ids: PROMPT, sampling_params: { stop: ["fox"] } });
  assert.deepEqual(json.meta_info.finish_reason, { type: "stop", matched: "fox" });
  assert.equal(json.text, "The quick brown ");
  const long = await gen({ input_ids: PROMPT, sampling_params: { ignore_eos: true, max_new_tokens: 40 } });
  assert.equal(long.json.output_ids.length, 40);
  assert.equal(long.json.meta_info.finish_reason.type, "length");
  // EOS is still sampled where the reply ends, but no longer ends the turn.
  const eos = long.json.output_ids.indexOf(151645);
  assert.ok(eos > 0 && eos < 39, `eos at ${eos}`);
});

test("a stop string made of many byte-level tokens is still found (ꙮꙮꙮ is 6 tokens)", async () => {
  const prompt = tok.encode(chat("say ꙮꙮꙮ and then more words"));
  const { json } = await gen({ input_ids: prompt, sampling_params: { stop: ["ꙮꙮꙮ"] } });
  assert.deepEqual(json.meta_info.finish_reason, { type: "stop", matched: "ꙮꙮꙮ" });
  assert.equal(json.text, "say ");
});

test("min_new_tokens masks stops until reached", async () => {
  const short = tok.encode(chat("ok"));
  const { json } = await gen({
    input_ids: short,
    sampling_params: { min_new_tokens: 6, max_new_tokens: 20 },
  });
  assert.ok(json.output_ids.length >= 7, `got ${json.output_ids.length}`);
  assert.equal(json.output_ids.indexOf(151645), json.output_ids.length - 1);
});

test("logprobs are deterministic for a sampling_seed and differ across seeds", async () => {
  const body = (seed: number) => ({
    input_ids: PROMPT,
    sampling_params: { sampling_seed: seed },
    return_logprob: true,
  });
  const a = (await gen(body(1))).json.meta_info.output_token_logprobs;
  const b = (await gen(body(1))).json.meta_info.output_token_logprobs;
  const c = (await gen(body(2))).json.meta_info.output_token_logprobs;
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
});

test("batch input_ids → array response, rid suffixes _i, per-item sampling", async () => {
  const p2 = tok.encode(chat("second"));
  const { status, json } = await gen({
    input_ids: [PROMPT, p2],
    rid: "b",
    sampling_params: [{ max_new_tokens: 2 }, { max_new_tokens: 50 }],
    return_logprob: true,
  });
  assert.equal(status, 200);
  assert.ok(Array.isArray(json));
  assert.deepEqual(
    json.map((r: any) => r.meta_info.id),
    ["b_0", "b_1"],
  );
  assert.equal(json[0].meta_info.finish_reason.type, "length");
  assert.equal(json[1].text, "second");
  const texts = await gen({ text: [chat("x"), chat("y")] });
  assert.deepEqual(
    texts.json.map((r: any) => r.text),
    ["x", "y"],
  );
});

test("top_logprobs_num and logprob_start_len add the optional arrays", async () => {
  const { json } = await gen({
    input_ids: PROMPT,
    return_logprob: true,
    top_logprobs_num: 3,
    logprob_start_len: 0,
  });
  const m = json.meta_info;
  assert.equal(m.input_token_logprobs.length, PROMPT.length);
  assert.equal(m.input_token_logprobs[0][0], null);
  assert.equal(m.output_top_logprobs.length, json.output_ids.length);
  assert.equal(m.output_top_logprobs[0].length, 3);
  assert.equal(m.output_top_logprobs[0][0][1], json.output_ids[0]);
});

test("logprob_start_len k > 0: the entry at k is None, as SGLang pads it", async () => {
  const { json } = await gen({ input_ids: PROMPT, return_logprob: true, logprob_start_len: 2 });
  const inp = json.meta_info.input_token_logprobs;
  assert.deepEqual(
    inp.map((t: unknown[]) => t[1]),
    PROMPT.slice(2),
  );
  assert.equal(inp[0][0], null);
  assert.ok(inp.slice(1).every((t: unknown[]) => typeof t[0] === "number" && (t[0] as number) <= 0));
});

const BAD: [string, unknown, RegExp][] = [
  ["no input", { sampling_params: {} }, /^Either text, input_ids or input_embeds should be provided\.$/],
  ["text and input_ids", { text: "a", input_ids: [1] }, /not both/],
  ["empty input_ids", { input_ids: [] }, /^input_ids cannot be empty\.$/],
  ["empty batch item", { input_ids: [[1], []] }, /input_ids cannot be empty/],
  [
    "temperature < 0",
    { input_ids: [1], sampling_params: { temperature: -1 } },
    /temperature must be non-negative/,
  ],
  ["top_p 0", { input_ids: [1], sampling_params: { top_p: 0 } }, /top_p must be in \(0, 1\]/],
  ["top_p > 1", { input_ids: [1], sampling_params: { top_p: 1.5 } }, /top_p must be in \(0, 1\]/],
  ["top_k 0", { input_ids: [1], sampling_params: { top_k: 0 } }, /top_k must be -1/],
  ["min_p", { input_ids: [1], sampling_params: { min_p: 2 } }, /min_p must be in \[0, 1\]/],
  ["frequency_penalty", { input_ids: [1], sampling_params: { frequency_penalty: 3 } }, /frequency_penalty/],
  ["presence_penalty", { input_ids: [1], sampling_params: { presence_penalty: -3 } }, /presence_penalty/],
  [
    "repetition_penalty",
    { input_ids: [1], sampling_params: { repetition_penalty: 0 } },
    /repetition_penalty/,
  ],
  [
    "max_new_tokens < 0",
    { input_ids: [1], sampling_params: { max_new_tokens: -1 } },
    /max_new_tokens must be at least 0/,
  ],
  [
    "min > max",
    { input_ids: [1], sampling_params: { max_new_tokens: 2, min_new_tokens: 3 } },
    /min_new_tokens/,
  ],
  [
    "unknown key",
    { input_ids: [1], sampling_params: { max_tokens: 5 } },
    /unexpected keyword argument 'max_tokens'/,
  ],
  ["two grammars", { input_ids: [1], sampling_params: { regex: "a", json_schema: "{}" } }, /Only one of/],
  ["duplicate rids", { input_ids: [[1], [2]], rid: ["a", "a"] }, /Duplicate/],
  ["rid list length", { input_ids: [[1], [2]], rid: ["a"] }, /same length/],
  [
    "session_id with session_params",
    { input_ids: [1], session_id: "s", session_params: {} },
    /mutually exclusive/,
  ],
  [
    "prompt over context",
    { input_ids: Array(2048).fill(1) },
    /longer than the model's context length \(2048 tokens\)/,
  ],
  [
    "prompt + max_new over context",
    { input_ids: Array(2000).fill(1), sampling_params: { max_new_tokens: 100 } },
    /exceeds/,
  ],
];

for (const [name, body, message] of BAD) {
  test(`400 {"error":{"message"}} for ${name}`, async () => {
    const { status, json } = await gen(body);
    assert.equal(status, 400);
    assert.deepEqual(Object.keys(json), ["error"]);
    assert.match(json.error.message, message);
  });
}

test("invalid JSON → 400 validation body", async () => {
  const res = await fetch(`${engine.url}/generate`, { method: "POST", body: "{nope" });
  assert.equal(res.status, 400);
  const json = (await res.json()) as Record<string, unknown>;
  assert.equal(json.object, "error");
  assert.equal(json.code, 400);
});

test("info endpoints: health, model info, /v1/models, weight version, 404s", async () => {
  assert.equal((await fetch(`${engine.url}/health`)).status, 200);
  assert.equal((await fetch(`${engine.url}/health_generate`)).status, 200);
  const info = (await (await fetch(`${engine.url}/get_model_info`)).json()) as Record<string, unknown>;
  assert.equal(info.is_generation, true);
  assert.equal(info.weight_version, "default");
  for (const key of [
    "model_path",
    "tokenizer_path",
    "preferred_sampling_params",
    "model_type",
    "architectures",
  ]) {
    assert.ok(key in info, key);
  }
  const models = (await (await fetch(`${engine.url}/v1/models`)).json()) as { object: string; data: any[] };
  assert.equal(models.object, "list");
  assert.equal(models.data[0].owned_by, "sglang");
  assert.equal(models.data[0].max_model_len, 2048);
  assert.equal((await fetch(`${engine.url}/v1/models/${encodeURIComponent(models.data[0].id)}`)).status, 200);
  assert.equal((await fetch(`${engine.url}/v1/models/nope`)).status, 404);
  assert.equal((await fetch(`${engine.url}/nope`)).status, 404);
  const stats = (await (await fetch(`${engine.url}/engine_stats`)).json()) as Record<string, unknown>;
  assert.ok((stats.requests as number) > 0);
  assert.ok((stats.errors400 as number) > 0);
});
