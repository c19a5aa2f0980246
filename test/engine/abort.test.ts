/**
 * /abort_request (exact live rid, as SGLang's TokenizerManager gates it) and /update_weight_version,
 * over plain HTTP.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startEngine } from "../../packages/engine/src/index.ts";
import { LONG, until, untilStarted } from "./wait.ts";
import { withEngine } from "./with-engine.ts";

const PROMPT = [151644, 872, 198, ...Array(30).fill(9707), 151645, 198, 151644, 77091, 198];

function post(url: string, path: string, body: unknown) {
  return fetch(`${url}${path}`, { method: "POST", body: JSON.stringify(body) });
}

async function generate(url: string, rid: string, sampling_params: object = {}): Promise<any> {
  const res = await post(url, "/generate", { input_ids: PROMPT, rid, return_logprob: true, sampling_params });
  assert.equal(res.status, 200);
  return res.json();
}

test("abort by exact rid: partial tokens, finish abort; a rid that is not live aborts nothing, even as a prefix", async () => {
  // SGLang's TokenizerManager (one tokenizer worker, the default) forwards an abort only for a
  // live rid it knows, so a mere prefix of live rids is dropped there.
  await withEngine({ tokenLatencyMs: 4 }, async (engine) => {
    const rids = ["roll-1:0", "roll-1:1", "roll-2:0"];
    const pending = rids.map((rid) => generate(engine.url, rid, rid === "roll-1:0" ? LONG : {}));
    await untilStarted(engine, 3);
    const res = await post(engine.url, "/abort_request", { rid: "roll-1:" });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "");
    await post(engine.url, "/abort_request", { rid: "roll-1:0" });
    const out = await Promise.all(pending);
    const full = LONG.max_new_tokens;
    const fr = out[0].meta_info.finish_reason;
    assert.equal(fr.type, "abort");
    assert.equal(typeof fr.message, "string");
    assert.ok("status_code" in fr && "err_type" in fr);
    assert.ok(
      out[0].output_ids.length > 0 && out[0].output_ids.length < full,
      `partial ${out[0].output_ids.length}/${full}`,
    );
    assert.equal(out[0].meta_info.output_token_logprobs.length, out[0].output_ids.length);
    assert.equal(out[0].meta_info.completion_tokens, out[0].output_ids.length);
    assert.equal(out[1].meta_info.finish_reason.type, "stop", "the prefix 'roll-1:' aborted nothing");
    assert.equal(out[2].meta_info.finish_reason.type, "stop");
    assert.equal(engine.stats().aborted, 1);
  });
});

test("an exact live rid also aborts the live rids it is a prefix of (the scheduler matches by prefix)", async () => {
  // Why clients must use prefix-free rids: aborting `x:1` on SGLang also stops a live `x:10`.
  await withEngine({ tokenLatencyMs: 4 }, async (engine) => {
    const pending = ["x:1", "x:10", "x:2"].map((rid) => generate(engine.url, rid, LONG));
    await untilStarted(engine, 3);
    await post(engine.url, "/abort_request", { rid: "x:1" });
    await until(() => engine.stats().aborted === 2);
    await post(engine.url, "/abort_request", { rid: "x:2" });
    for (const r of await Promise.all(pending)) assert.equal(r.meta_info.finish_reason.type, "abort");
  });
});

test("a second request with a live rid is refused with 400 'Duplicate request ID detected'", async () => {
  await withEngine({ tokenLatencyMs: 4 }, async (engine) => {
    const first = generate(engine.url, "twin", LONG);
    await untilStarted(engine, 1);
    const res = await post(engine.url, "/generate", { input_ids: PROMPT, rid: "twin" });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /Duplicate request ID detected: twin/);
    await post(engine.url, "/abort_request", { rid: "twin" });
    assert.equal((await first).meta_info.finish_reason.type, "abort");
    // Once finished, the rid is free again.
    assert.equal((await generate(engine.url, "twin")).meta_info.finish_reason.type, "stop");
  });
});

test("an empty rid without abort_all aborts nothing; abort_all aborts everything", async () => {
  await withEngine({ tokenLatencyMs: 4 }, async (engine) => {
    const a = generate(engine.url, "a");
    await untilStarted(engine, 1);
    await post(engine.url, "/abort_request", { rid: "" });
    assert.equal((await a).meta_info.finish_reason.type, "stop");
    const pending = ["x", "y"].map((rid) => generate(engine.url, rid, LONG));
    await untilStarted(engine, 3);
    await post(engine.url, "/abort_request", { rid: "", abort_all: true });
    for (const r of await Promise.all(pending)) assert.equal(r.meta_info.finish_reason.type, "abort");
  });
});

test("/update_weight_version sets the label and aborts in-flight requests by default", async () => {
  await withEngine({ tokenLatencyMs: 4 }, async (engine) => {
    const inflight = generate(engine.url, "w", LONG);
    await untilStarted(engine, 1);
    const res = await post(engine.url, "/update_weight_version", { new_version: "step-7" });
    const body = (await res.json()) as Record<string, unknown>;
    assert.deepEqual([body.success, body.new_version], [true, "step-7"]);
    const aborted = await inflight;
    assert.equal(aborted.meta_info.finish_reason.type, "abort");
    assert.equal((await generate(engine.url, "after")).meta_info.weight_version, "step-7");
    // abort_all_requests: false keeps requests running.
    const kept = generate(engine.url, "kept", { ignore_eos: true, max_new_tokens: 100 });
    await untilStarted(engine, 3);
    await post(engine.url, "/update_weight_version", { new_version: "step-8", abort_all_requests: false });
    const k = await kept;
    assert.equal(k.meta_info.finish_reason.type, "length");
    assert.equal(k.meta_info.weight_version, "step-8", "the version at finish is reported");
  });
});

test("a client that disconnects aborts its request; others are unaffected", async () => {
  await withEngine({ tokenLatencyMs: 4 }, async (engine) => {
    const ac = new AbortController();
    const stays = generate(engine.url, "stays");
    const leaver = fetch(`${engine.url}/generate`, {
      method: "POST",
      body: JSON.stringify({ input_ids: PROMPT, rid: "leaver", sampling_params: LONG }),
      signal: ac.signal,
    }).catch(() => null);
    await untilStarted(engine, 2);
    ac.abort();
    assert.equal(await leaver, null);
    await until(() => engine.stats().aborted === 1);
    assert.equal((await stays).meta_info.finish_reason.type, "stop");
    assert.equal(engine.stats().aborted, 1);
    assert.equal(engine.stats().inFlight, 0);
  });
});

test("pause_generation holds every request until continue_generation; abort mode aborts", async () => {
  const engine = await startEngine({ tokenLatencyMs: 2 });
  try {
    const paused = await post(engine.url, "/pause_generation", { mode: "in_place" });
    assert.deepEqual(await paused.json(), { message: "Generation paused successfully.", status: "ok" });
    const held = ["p1", "p2"].map((rid) => generate(engine.url, rid));
    await until(() => engine.stats().inFlight === 2);
    await new Promise((r) => setTimeout(r, 150));
    // Nothing finishes while paused, though each reply needs well under 150 ms.
    assert.equal(engine.stats().generated, 0);
    await post(engine.url, "/continue_generation", {});
    for (const r of await Promise.all(held)) {
      assert.equal(r.meta_info.finish_reason.type, "stop");
      assert.ok(r.meta_info.e2e_latency >= 0.15, `e2e ${r.meta_info.e2e_latency}`);
    }

    const victim = generate(engine.url, "p3", LONG);
    await untilStarted(engine, 3);
    await post(engine.url, "/pause_generation", { mode: "abort" });
    assert.equal((await victim).meta_info.finish_reason.type, "abort");
    await post(engine.url, "/continue_generation", {});
    assert.equal((await generate(engine.url, "p4")).meta_info.finish_reason.type, "stop");
    assert.equal((await post(engine.url, "/pause_generation", { mode: "nap" })).status, 400);
  } finally {
    await engine.close();
  }
});

test("max_running_requests: beyond the limit /generate answers 503 in SGLang's overload shape", async () => {
  const engine = await startEngine({ tokenLatencyMs: 4, maxRunningRequests: 2 });
  try {
    const pending = ["q1", "q2"].map((rid) =>
      generate(engine.url, rid, { ignore_eos: true, max_new_tokens: 150 }),
    );
    await until(() => engine.stats().inFlight === 2);
    const res = await post(engine.url, "/generate", { input_ids: PROMPT });
    assert.equal(res.status, 503);
    const body = (await res.json()) as Record<string, unknown>;
    assert.deepEqual([body.object, body.code, body.type], ["error", 503, "503"]);
    await Promise.all(pending);
    assert.equal((await post(engine.url, "/generate", { input_ids: PROMPT })).status, 200);
  } finally {
    await engine.close();
  }
});
