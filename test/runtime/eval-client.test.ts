import assert from "node:assert/strict";
import { test } from "node:test";
import type { ModelRequest } from "../../packages/core/src/clients/client.ts";
import { createEvalClient, EvalClient } from "../../packages/core/src/clients/eval.ts";
import type { EvalClientConfig } from "../../packages/core/src/config/schema.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { completion, startProvider, withProvider } from "./helpers/provider.ts";

/** A one-message request with no tools: what the retry and deadline tests send. */
const ask = (content = "q", sampling: Record<string, unknown> = {}): ModelRequest => ({
  messages: [{ role: "user", content }],
  tools: [],
  sampling,
  sessionId: "s",
  turn: 0,
});

test("EvalClient sends OpenAI JSON and parses reasoning and tool calls into envroll messages", async () => {
  await withProvider(
    () => ({
      json: completion(
        {
          content: null,
          reasoning: "let me think",
          tool_calls: [
            { id: "a", type: "function", function: { name: "add", arguments: '{"x":1}' } },
            { type: "function", function: { name: "mul", arguments: { y: 2 } } },
            { id: "c", type: "function", function: { arguments: "{}" } },
          ],
        },
        "tool_calls",
      ),
    }),
    async (provider) => {
      const client = new EvalClient({
        baseUrl: `${provider.baseUrl}/`,
        model: "served",
        apiKey: "sk-1",
        headers: { "x-team": "t" },
      });
      const r = await client.getResponse({
        messages: [
          { role: "user", content: "q" },
          { role: "assistant", content: null, tool_calls: [{ id: "p", name: "add", arguments: "{}" }] },
          { role: "tool", tool_call_id: "p", content: "0" },
        ],
        tools: [{ name: "add", description: "adds", parameters: { type: "object" } }],
        sampling: { temperature: 0.2, max_tokens: 9, extra_body: { top_k: 3 } },
        sessionId: "sess",
        turn: 1,
      });
      const req = provider.requests[0]!;
      assert.equal(req.headers["authorization"], "Bearer sk-1");
      assert.equal(req.headers["x-session-id"], "sess");
      assert.equal(req.headers["x-team"], "t");
      assert.equal(req.body.model, "served");
      assert.equal(req.body.temperature, 0.2);
      assert.deepEqual(req.body.extra_body, { top_k: 3 });
      assert.deepEqual(req.body.tools, [
        { type: "function", function: { name: "add", description: "adds", parameters: { type: "object" } } },
      ]);
      assert.deepEqual(req.body.messages[1].tool_calls, [
        { id: "p", type: "function", function: { name: "add", arguments: "{}" } },
      ]);
      assert.equal(r.tokens, null);
      assert.equal(r.finishReason, "tool_calls");
      assert.equal(r.message.reasoning_content, "let me think");
      // Missing ids get a positional fallback; object arguments become JSON text; a nameless call
      // is kept (name "") so the harness answers it as an unknown tool, as a TrainClient's would be.
      assert.deepEqual(r.message.tool_calls, [
        { id: "a", name: "add", arguments: '{"x":1}' },
        { id: "call_1", name: "mul", arguments: '{"y":2}' },
        { id: "c", name: "", arguments: "{}" },
      ]);
      assert.deepEqual(r.usage, { promptTokens: 12, completionTokens: 3, cachedTokens: undefined });
      await client.close();
    },
  );
});

test("EvalClient maps overlong prompts to OverlongPromptError and aborts on signal", async () => {
  await withProvider(
    (b) =>
      b.messages[0].content === "big"
        ? { status: 400, json: { error: { message: "prompt is too long: 200000 tokens" } } }
        : { json: completion({ content: "x" }), delayMs: 3000 },
    async (provider) => {
      process.env["ENVROLL_TEST_KEY"] = "k";
      const client = createEvalClient(
        {
          type: "eval",
          base_url: provider.baseUrl,
          api_key_var: "ENVROLL_TEST_KEY",
          headers: {},
          timeout: null,
          deadline: { base: 30, per_token: 0.05 },
        },
        "m",
      );
      await assert.rejects(client.getResponse(ask("big")), { name: "OverlongPromptError" });
      assert.equal(provider.requests[0]!.headers["authorization"], "Bearer k");
      const ac = new AbortController();
      const pending = client.getResponse({ ...ask("slow"), signal: ac.signal });
      setTimeout(() => ac.abort(), 50);
      await assert.rejects(pending, { name: "RequestCancelledError" });
      await client.close();
    },
  );
});

test("EvalClient retries a 429 (honouring Retry-After) and a 503 instead of failing the rollout", async () => {
  await withProvider(
    (_, attempt) => {
      if (attempt === 1)
        return { status: 429, json: { error: { message: "slow down" } }, headers: { "retry-after": "0" } };
      if (attempt === 2) return { status: 503, json: { error: { message: "overloaded" } } };
      return { json: completion({ content: "ok" }) };
    },
    async (provider) => {
      const client = new EvalClient({ baseUrl: provider.baseUrl, model: "m", retry: { baseDelayMs: 1 } });
      const r = await client.getResponse(ask());
      assert.equal(r.message.content, "ok");
      assert.equal(provider.requests.length, 3);
      // A request that is wrong is not repeated.
      const bad = await startProvider(() => ({ status: 400, json: { error: { message: "bad key" } } }));
      const c2 = new EvalClient({ baseUrl: bad.baseUrl, model: "m", retry: { baseDelayMs: 1 } });
      await assert.rejects(c2.getResponse(ask()), /400/);
      assert.equal(bad.requests.length, 1);
      await bad.close();
      await client.close();
      await c2.close();
    },
  );
});

test("a stalled provider is cut by the EvalClient's stall deadline and asked again; one that stays stalled is a ProviderTimeoutError", async () => {
  await withProvider(
    // The first attempt hangs far past the deadline, the second answers at once, later ones hang.
    (_, attempt) =>
      attempt !== 2
        ? { json: completion({ content: "late" }), delayMs: 4_000 }
        : { json: completion({ content: "ok" }) },
    async (provider) => {
      const { client: cfg } = await loadConfig(
        '[taskset]\nid = "reverse-text"\n[client]\ntype = "eval"\nbase_url = "http://127.0.0.1:9/v1"\ndeadline = { base = 0.3, per_token = 0.001 }\n',
      );
      assert.equal(cfg.type, "eval");
      const client = createEvalClient({ ...(cfg as EvalClientConfig), base_url: provider.baseUrl }, "m");
      const started = Date.now();
      const r = await client.getResponse(ask("q", { max_tokens: 100 }));
      assert.equal(r.message.content, "ok");
      assert.equal(provider.requests.length, 2, "the stalled attempt was cut and retried");
      assert.ok(Date.now() - started < 10_000, `cut at 0.3 + 100 × 0.001 s, took ${Date.now() - started} ms`);
      await assert.rejects(client.getResponse(ask("q", { max_tokens: 10 })), (e: Error) => {
        assert.equal(e.name, "ProviderTimeoutError");
        assert.match(e.message, /no reply within the stall deadline of 0\.3 s/);
        return true;
      });
      await client.close();
    },
  );
});
