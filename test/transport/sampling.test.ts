import assert from "node:assert/strict";
import { test } from "node:test";
import {
  buildSamplingParams,
  capMaxNewTokens,
  OverlongPromptError,
  unionIds,
} from "../../packages/core/src/transport/index.ts";
import { requestedMaxTokens } from "../../packages/core/src/transport/sampling.ts";

const ctx = {
  stopTokenIds: [151645, 151643],
  defaultStop: undefined,
  skipSpecialTokens: false,
  maxNewTokens: 50,
};

test("renames OpenAI keys, drops logprobs/n, forces the fidelity keys", () => {
  const out = buildSamplingParams(
    {
      temperature: 0.8,
      top_p: 0.9,
      max_tokens: 999,
      min_tokens: 2,
      seed: 7,
      logprobs: true,
      n: 4,
      top_k: 20,
    },
    ctx,
  );
  assert.deepEqual(out, {
    temperature: 0.8,
    top_p: 0.9,
    max_new_tokens: 50,
    min_new_tokens: 2,
    sampling_seed: 7,
    top_k: 20,
    stop_token_ids: [151645, 151643],
    skip_special_tokens: false,
    no_stop_trim: true,
    spaces_between_special_tokens: false,
    n: 1,
  });
});

test("stop ids are the ordered union of renderer, configured and request ids; default stop strings apply", () => {
  assert.deepEqual(unionIds([1, 2], [2, 3, 1]), [1, 2, 3]);
  const out = buildSamplingParams(
    { stop_token_ids: [151643, 9] },
    { ...ctx, stopTokenIds: [151645, 151643, 42], defaultStop: ["</answer>"], maxNewTokens: null },
  );
  assert.deepEqual(out.stop_token_ids, [151645, 151643, 42, 9]);
  assert.deepEqual(out.stop, ["</answer>"]);
  assert.equal("max_new_tokens" in out, false);
  const own = buildSamplingParams({ stop: "END" }, { ...ctx, defaultStop: ["</answer>"] });
  assert.equal(own.stop, "END");
});

test("max_new_tokens = min(requested, context − prompt, max_response); ≤ 0 is OverlongPromptError", () => {
  const limits = { contextLength: 100, maxResponseLength: 30 };
  assert.equal(capMaxNewTokens(50, 10, limits), 30);
  assert.equal(capMaxNewTokens(50, 80, limits), 20);
  assert.equal(capMaxNewTokens(5, 10, limits), 5);
  assert.equal(
    capMaxNewTokens(undefined, 10, { contextLength: undefined, maxResponseLength: undefined }),
    null,
  );
  assert.throws(
    () => capMaxNewTokens(50, 100, limits),
    (e: unknown) => {
      assert.ok(e instanceof OverlongPromptError);
      assert.equal(e.name, "OverlongPromptError");
      assert.equal(e.promptTokens, 100);
      return true;
    },
  );
});

test("chat-level keys are not sent as sampling params; extra_body entries are", () => {
  const out = buildSamplingParams(
    {
      temperature: 0.7,
      top_k: 10,
      reasoning_effort: "low",
      chat_template_kwargs: { enable_thinking: false },
      extra_body: { top_k: 20, min_p: 0.05, chat_template_kwargs: { enable_thinking: false } },
    },
    ctx,
  );
  assert.equal(out.temperature, 0.7);
  assert.equal(out.top_k, 20, "extra_body wins, as the OpenAI SDK merges it last");
  assert.equal(out.min_p, 0.05);
  for (const key of ["reasoning_effort", "chat_template_kwargs", "extra_body"]) assert.ok(!(key in out), key);
  assert.equal(requestedMaxTokens({ extra_body: { max_tokens: 33 } }), 33);
  assert.ok(!("extra_body" in buildSamplingParams({ extra_body: null }, ctx)));
});
