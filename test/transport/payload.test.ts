/**
 * The exact bytes the transport puts on the wire, captured by the engine's request hook.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  OverlongPromptError,
  SglangTransport,
  type SglangTransportOptions,
} from "../../packages/core/src/transport/index.ts";
import { type EngineHandle, startEngine } from "../../packages/engine/src/index.ts";

let engine: EngineHandle;
const seen: { body: Record<string, unknown>; headers: Record<string, unknown> }[] = [];
const PROMPT = [151644, 872, 198, 9707, 151645, 198, 151644, 77091, 198];
const STOPS = [151645, 151643];

before(async () => {
  engine = await startEngine({
    onRequest: (body, headers) => seen.push({ body: body as Record<string, unknown>, headers }),
  });
});
after(() => engine.close());

async function capture(
  opts: Partial<SglangTransportOptions>,
  req: Parameters<SglangTransport["generate"]>[0],
) {
  const t = new SglangTransport({ baseUrl: engine.url, ...opts });
  seen.length = 0;
  try {
    const result = await t.generate(req);
    assert.equal(seen.length, 1, "exactly one request on the wire");
    return { ...seen[0], result };
  } finally {
    await t.close();
  }
}

test("default: input_ids, renamed sampling, forced keys, rid per turn, no routing header", async () => {
  const { body, headers, result } = await capture(
    { contextLength: 4096, maxResponseLength: 256 },
    {
      inputIds: PROMPT,
      sessionId: "trace-1",
      sampling: { temperature: 0.7, max_tokens: 1000 },
      stopTokenIds: STOPS,
    },
  );
  assert.deepEqual(body, {
    input_ids: PROMPT,
    sampling_params: {
      temperature: 0.7,
      max_new_tokens: 256,
      stop_token_ids: STOPS,
      skip_special_tokens: false,
      no_stop_trim: true,
      spaces_between_special_tokens: false,
      n: 1,
    },
    return_logprob: true,
    rid: body!.rid,
  });
  // Session and turn, then a nonce that keeps concurrent calls' rids distinct and prefix-free.
  assert.match(String(body.rid), /^trace-1:0:[0-9a-f]{8}$/);
  assert.equal(headers!["x-smg-routing-key"], undefined);
  assert.equal(headers!["content-type"], "application/json");
  assert.equal(result.rid, body.rid);
  assert.equal(result.maxNewTokens, 256);
});

for (const policy of ["consistent_hashing", "manual"] as const) {
  test(`routing policy ${policy} sends X-SMG-Routing-Key = session id`, async () => {
    const { headers } = await capture({ routingPolicy: policy }, { inputIds: PROMPT, sessionId: "sess-42" });
    assert.equal(headers!["x-smg-routing-key"], "sess-42");
  });
}

for (const policy of ["cache_aware", "round_robin"] as const) {
  test(`routing policy ${policy} sends no routing key`, async () => {
    const { headers } = await capture({ routingPolicy: policy }, { inputIds: PROMPT, sessionId: "sess-42" });
    assert.equal(headers!["x-smg-routing-key"], undefined);
  });
}

test("LoRA, seed, min_tokens, priority, extra_key, configured stops and skip_special_tokens", async () => {
  const { body } = await capture(
    { lora: "miles_lora", extraStopTokenIds: [151643, 99], skipSpecialTokens: true, stop: ["</s>"] },
    {
      inputIds: PROMPT,
      sessionId: "s",
      turn: 3,
      sampling: { seed: 1234, min_tokens: 2, max_new_tokens: 40, top_k: 5 },
      stopTokenIds: STOPS,
      priority: 2,
      extraKey: "miles_lora:v3",
    },
  );
  assert.match(String(body!.rid), /^s:3:/);
  assert.deepEqual(body, {
    input_ids: PROMPT,
    sampling_params: {
      sampling_seed: 1234,
      min_new_tokens: 2,
      max_new_tokens: 40,
      top_k: 5,
      stop: ["</s>"],
      stop_token_ids: [151645, 151643, 99],
      skip_special_tokens: true,
      no_stop_trim: true,
      spaces_between_special_tokens: false,
      n: 1,
    },
    return_logprob: true,
    rid: body!.rid,
    lora_path: "miles_lora",
    priority: 2,
    extra_key: "miles_lora:v3",
  });
});

test("per-request lora null overrides the transport adapter; explicit rid wins", async () => {
  const { body } = await capture(
    { lora: "miles_lora" },
    { inputIds: PROMPT, sessionId: "s", lora: null, rid: "custom" },
  );
  assert.equal("lora_path" in body!, false);
  assert.equal(body!.rid, "custom");
});

test("turn counter advances per session: rids s:0:…, s:1:… and t:0:…", async () => {
  const t = new SglangTransport({ baseUrl: engine.url });
  seen.length = 0;
  await t.generate({ inputIds: PROMPT, sessionId: "s" });
  await t.generate({ inputIds: PROMPT, sessionId: "s" });
  await t.generate({ inputIds: PROMPT, sessionId: "t" });
  await t.close();
  assert.deepEqual(
    seen.map((s) => String(s.body.rid).replace(/:[0-9a-f]{8}$/, "")),
    ["s:0", "s:1", "t:0"],
  );
});

test("overlong prompt: no request is sent, typed error; prompt cap only on a session's first request", async () => {
  const t = new SglangTransport({
    baseUrl: engine.url,
    contextLength: 20,
    maxPromptLength: 10,
    maxResponseLength: 8,
  });
  seen.length = 0;
  const long = Array.from({ length: 12 }, () => 100);
  await assert.rejects(t.generate({ inputIds: long, sessionId: "a" }), (e: unknown) => {
    assert.ok(e instanceof OverlongPromptError);
    assert.equal((e as Error).name, "OverlongPromptError");
    assert.equal((e as OverlongPromptError).limit, 10);
    return true;
  });
  await assert.rejects(
    t.generate({ inputIds: Array(20).fill(100), sessionId: "b", turn: 1 }),
    OverlongPromptError,
  );
  assert.equal(seen.length, 0);
  // A later turn may exceed the prompt cap as long as the context leaves room.
  await t.generate({ inputIds: PROMPT, sessionId: "c" });
  const r = await t.generate({ inputIds: Array(16).fill(100), sessionId: "c" });
  assert.equal(seen.length, 2);
  assert.equal((seen[1]!.body.sampling_params as Record<string, unknown>).max_new_tokens, 4);
  assert.equal(r.maxNewTokens, 4);
  assert.equal(t.stats.overlongPrompts, 2);
  await t.close();
});

test("result: ids and logprobs from output_token_logprobs, weight version, finish, cached tokens", async () => {
  const t = new SglangTransport({ baseUrl: engine.url });
  const prompt = [151644, 872, 198, ...Array(30).fill(9707), 151645, 198, 151644, 77091, 198];
  const a = await t.generate({ inputIds: prompt, sessionId: "w", stopTokenIds: STOPS });
  assert.equal(a.finishReason, "stop");
  assert.equal(a.matchedStop, 151645);
  assert.equal(a.outputIds.at(-1), 151645);
  assert.equal(a.outputIds.length, a.completionTokens);
  assert.equal(a.logprobs.length, a.completionTokens);
  assert.ok(a.logprobs.every((x) => x <= 0));
  assert.equal(a.weightVersion, "default");
  assert.equal(a.promptTokens, prompt.length);
  assert.equal(a.cachedTokens, 0);
  // Turn 2 extends turn 1's prompt+completion: the engine's prefix cache reports a hit.
  const next = [...prompt, ...a.outputIds, ...Array(20).fill(100)];
  const b = await t.generate({ inputIds: next, sessionId: "w" });
  assert.ok(b.cachedTokens >= 32, `cached ${b.cachedTokens}`);
  assert.ok(b.cachedTokens <= prompt.length + a.outputIds.length);
  await t.close();
});

test("bearer token is sent when configured", async () => {
  const { headers } = await capture({ apiKey: "k1" }, { inputIds: PROMPT, sessionId: "s" });
  assert.equal(headers!.authorization, "Bearer k1");
});

test("every routing × LoRA × seed combination puts exactly the expected body and headers on the wire", async () => {
  let combos = 0;
  for (const routingPolicy of ["cache_aware", "consistent_hashing", "manual"] as const) {
    for (const lora of [null, "miles_lora"]) {
      for (const seed of [undefined, 7]) {
        const { body, headers } = await capture(
          { routingPolicy, lora, contextLength: 1000, maxResponseLength: 64 },
          {
            inputIds: PROMPT,
            sessionId: "grp-3/r1",
            turn: 2,
            sampling: { temperature: 1, top_p: 1, seed },
            stopTokenIds: STOPS,
          },
        );
        const sampling: Record<string, unknown> = { temperature: 1, top_p: 1 };
        if (seed !== undefined) sampling.sampling_seed = seed;
        Object.assign(sampling, {
          max_new_tokens: 64,
          stop_token_ids: STOPS,
          skip_special_tokens: false,
          no_stop_trim: true,
          spaces_between_special_tokens: false,
          n: 1,
        });
        const expected: Record<string, unknown> = {
          input_ids: PROMPT,
          sampling_params: sampling,
          return_logprob: true,
          rid: body!.rid,
        };
        assert.match(String(body!.rid), /^grp-3\/r1:2:[0-9a-f]{8}$/);
        if (lora) expected.lora_path = lora;
        const label = `${routingPolicy}/${lora}/${seed}`;
        assert.deepEqual(body, expected, label);
        assert.equal(
          headers!["x-smg-routing-key"],
          routingPolicy === "cache_aware" ? undefined : "grp-3/r1",
          label,
        );
        combos++;
      }
    }
  }
  assert.equal(combos, 12);
});
