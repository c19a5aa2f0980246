/**
 * With the EvalClient (`--openai`), a program in any dialect is served by translating its turn
 * to the provider's chat completions and the reply back; reasoning survives both ways, and a
 * program echoing it lands on the recorded turn.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { EvalClient } from "../../packages/core/src/clients/eval.ts";
import { envFor } from "../runtime/helpers/env.ts";
import { completion, startProvider } from "../runtime/helpers/provider.ts";
import { AGENTS, calculator } from "./harness-check.ts";

test("EvalClient: Responses and Anthropic programs run on a chat-completions provider", async () => {
  const provider = await startProvider((body) => {
    const results = body.messages.filter((m: any) => m.role === "tool").map((m: any) => m.content);
    const call = (name: string, args: string, id: string) => ({
      content: null,
      reasoning_content: `thinking ${results.length}`,
      tool_calls: [{ id, type: "function", function: { name, arguments: args } }],
    });
    if (results.length === 0) return { json: completion(call("add", '{"a":2,"b":3}', "c1"), "tool_calls") };
    if (results.length === 1)
      return { json: completion(call("mul", `{"a":${results[0]},"b":4}`, "c2"), "tool_calls") };
    return { json: completion({ content: results[1], reasoning_content: "done" }) };
  });
  try {
    for (const mode of ["openai-responses", "anthropic-stream"]) {
      provider.requests.length = 0;
      const env = await envFor(
        calculator,
        `harness.command = [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(AGENTS, "node-sdk-agent.mjs"))}, "${mode}"]`,
      );
      const client = new EvalClient({ baseUrl: provider.baseUrl, model: "provider-model" });
      try {
        const [r] = await env.runGroup(0, 1, { client });
        assert.deepEqual(r!.errors, [], mode);
        assert.equal(r!.reward, 1, mode);
        assert.equal(
          r!.branches.length,
          1,
          `${mode}: the echoed turns (reasoning included) land on one path`,
        );
        const last = provider.requests.at(-1)!.body;
        assert.equal(last.model, "provider-model");
        const assistants = last.messages.filter((m: any) => m.role === "assistant");
        assert.deepEqual(
          assistants.map((m: any) => m.reasoning_content),
          ["thinking 0", "thinking 1"],
          `${mode}: reasoning reached the provider again`,
        );
        assert.equal(last.tools[0].function.name, "add");
      } finally {
        await env.close();
        await client.close();
      }
    }
  } finally {
    await provider.close();
  }
});
