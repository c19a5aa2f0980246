/**
 * The built-in engine's OpenAI route, `POST /v1/chat/completions`: rendered with the Qwen3
 * template, answered by the same policy and sampler as /generate, parsed back into an assistant
 * message; SGLang's request mapping (`max_tokens`, `seed` → `sampling_seed`) and 400s.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { EvalClient } from "../../packages/core/src/clients/eval.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import { SYSTEM } from "../../packages/core/src/tasksets/reverse-text/index.ts";
import { type EngineHandle, startEngine } from "../../packages/engine/src/index.ts";
import { referenceEngine } from "./reference-engine.ts";

async function chat(url: string, body: unknown) {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const TOOL = {
  type: "function",
  function: { name: "add", description: "adds", parameters: { type: "object", properties: {} } },
};

describe("engine /v1/chat/completions", { concurrency: true }, () => {
  let echo: EngineHandle;
  let scripted: EngineHandle;
  before(async () => {
    echo = await startEngine({ policy: "echo" });
    scripted = await startEngine({
      policy: (ctx) => {
        const last = ctx.lastMessage?.content ?? "";
        if (last === "call")
          return '<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>';
        if (last === "think") return "<think>\nhmm\n</think>\n\nfine";
        return last;
      },
    });
  });
  after(() => Promise.all([echo.close(), scripted.close()]));

  test("answers in the OpenAI shape; usage counts the rendered prompt", async () => {
    const messages = [
      { role: "system", content: "be brief" },
      { role: "user", content: "hello there" },
    ];
    const r = await chat(echo.url, { model: "any-name", messages });
    assert.equal(r.status, 200);
    assert.equal(r.body.object, "chat.completion");
    assert.equal(r.body.model, "any-name");
    const [choice] = r.body.choices;
    assert.deepEqual(choice.message, { role: "assistant", content: "hello there" });
    assert.equal(choice.finish_reason, "stop");
    const rendered = createRenderer("qwen3").render(messages, { addGenerationPrompt: true });
    assert.equal(r.body.usage.prompt_tokens, rendered.tokenIds.length);
    assert.equal(r.body.usage.total_tokens, r.body.usage.prompt_tokens + r.body.usage.completion_tokens);
    assert.equal(echo.stats().chatCompletions >= 1, true);
  });

  test("the policy sees the same prompt as on /generate: same seed, same reply", async () => {
    const engine = await referenceEngine();
    try {
      const messages = [
        { role: "system", content: SYSTEM },
        { role: "user", content: "a reasonably long sentence to reverse" },
      ];
      const ids = createRenderer("qwen3").render(messages, { addGenerationPrompt: true }).tokenIds;
      for (const seed of [1, 2, 3, 4, 5]) {
        const viaChat = await chat(engine.url, { messages, seed, max_tokens: 200 });
        const res = await fetch(`${engine.url}/generate`, {
          method: "POST",
          body: JSON.stringify({
            input_ids: ids,
            sampling_params: { sampling_seed: seed, max_new_tokens: 200 },
          }),
        });
        const viaGenerate = (await res.json()) as { text: string };
        assert.equal(viaChat.body.choices[0].message.content, viaGenerate.text.trim());
      }
    } finally {
      await engine.close();
    }
  });

  test("tool calls and reasoning are parsed out of the completion", async () => {
    const call = await chat(scripted.url, { messages: [{ role: "user", content: "call" }], tools: [TOOL] });
    const [c] = call.body.choices;
    assert.equal(c.finish_reason, "tool_calls");
    assert.equal(c.message.tool_calls.length, 1);
    assert.equal(c.message.tool_calls[0].type, "function");
    assert.equal(c.message.tool_calls[0].function.name, "add");
    assert.deepEqual(JSON.parse(c.message.tool_calls[0].function.arguments), { a: 1, b: 2 });
    const think = await chat(scripted.url, { messages: [{ role: "user", content: "think" }] });
    assert.equal(think.body.choices[0].message.reasoning_content.trim(), "hmm");
    assert.equal(think.body.choices[0].message.content, "fine");
  });

  test("max_tokens cuts with finish_reason length", async () => {
    const r = await chat(echo.url, {
      messages: [{ role: "user", content: "one two three four five six" }],
      max_tokens: 2,
    });
    assert.equal(r.body.choices[0].finish_reason, "length");
    assert.equal(r.body.usage.completion_tokens, 2);
  });

  test("bad requests are 400 with the reason", async () => {
    const cases: [unknown, RegExp][] = [
      [{ messages: [] }, /messages: expected a non-empty array/],
      [{ messages: [{ role: "wizard", content: "x" }] }, /messages\[0\]/],
      [{ messages: [{ role: "user", content: "x" }], stream: true }, /stream is not supported/],
      [{ messages: [{ role: "user", content: "x" }], n: 2 }, /n > 1/],
      [{ messages: [{ role: "user", content: "x" }], temperature: -1 }, /temperature must be non-negative/],
      [{ messages: [{ role: "user", content: "x" }], max_tokens: 50_000 }, /maximum context length/],
    ];
    for (const [body, re] of cases) {
      const r = await chat(echo.url, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.body.error.message, re);
    }
  });

  test("the router forwards it to a worker; the EvalClient talks to it", async () => {
    const routed = await startEngine({ policy: "echo", workers: 2 });
    try {
      const client = new EvalClient({ baseUrl: `${routed.url}/v1`, model: "m" });
      const r = await client.getResponse({
        messages: [{ role: "user", content: "through the router" }],
        tools: [],
        sampling: { temperature: 0 },
        sessionId: "s1",
        turn: 0,
      });
      assert.equal(r.message.content, "through the router");
      assert.equal(r.finishReason, "stop");
      assert.ok(r.usage.promptTokens > 0);
      assert.equal(routed.stats().chatCompletions, 1);
      await client.close();
    } finally {
      await routed.close();
    }
  });
});
