/**
 * verifiers v0.2.0's glossary_v1, unchanged: its task declares a `vf.Toolset` (`facts`, tool
 * `lookup`), which the host serves with FastMCP's own tool wrapper; envroll's default harness
 * offers it as `facts_lookup`, the model calls it, and the task's `looked_up` reward checks the
 * fact reached the answer — 1 when the model used the tool's result, 0 when it did not, as
 * verifiers' own reward says for the same replies. Needs the real verifiers (real-v1.ts).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Client, ModelRequest, ModelResponse } from "../../packages/core/src/clients/client.ts";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { contentText } from "../../packages/core/src/types.ts";
import { needsRealV1, real } from "./real-v1.ts";

/** Calls `facts_lookup` for the entity in the prompt, then answers with what the tool said (or guesses). */
class LookupClient implements Client {
  readonly kind = "eval" as const;
  readonly tools: string[][] = [];
  constructor(private readonly useTool: boolean) {}
  async getResponse(req: ModelRequest): Promise<ModelResponse> {
    this.tools.push(req.tools.map((t) => t.name));
    const last = req.messages.at(-1)!;
    const entity = /look up "([^"]+)"/.exec(
      contentText(req.messages.find((m) => m.role === "user")!.content),
    )![1]!;
    const message =
      this.useTool && last.role !== "tool"
        ? {
            role: "assistant" as const,
            content: "",
            tool_calls: [{ id: "call_0", name: "facts_lookup", arguments: JSON.stringify({ name: entity }) }],
          }
        : {
            role: "assistant" as const,
            content: `<answer>${last.role === "tool" ? contentText(last.content) : "no idea"}</answer>`,
          };
    return {
      id: "g",
      model: "m",
      message,
      finishReason: "stop",
      usage: { promptTokens: 1, completionTokens: 1 },
      tokens: null,
    };
  }
  async abort(): Promise<void> {}
  async close(): Promise<void> {}
}

test(
  "glossary_v1: the task's MCP toolset is offered, called, and rewarded as verifiers does",
  needsRealV1,
  async () => {
    const v1 = real();
    const facts: Record<string, string> = JSON.parse(
      readFileSync(join(v1.src, "environments/glossary_v1/glossary_v1/servers/facts.json"), "utf8"),
    );
    const env = await loadEnvironment(
      await loadConfig(
        [
          'model = "m"',
          'harness = { id = "default" }',
          `python = { executable = ${JSON.stringify(v1.python)}, path = ${JSON.stringify(v1.path("glossary_v1"))} }`,
          'taskset = { id = "glossary_v1" }',
        ].join("\n"),
      ),
    );
    assert.equal(env.tasks.length, Object.keys(facts).length);
    for (const [i, task] of env.tasks.entries()) {
      const client = new LookupClient(true);
      const [t] = await env.runGroup(i, 1, { client });
      assert.deepEqual(t!.errors, [], `task ${i}`);
      assert.ok(client.tools[0]!.includes("facts_lookup"), client.tools[0]!.join(","));
      const tool = t!.nodes.find((n) => n.message.role === "tool")!;
      assert.equal(contentText(tool.message.content as string), (task as { answer?: string }).answer);
      assert.deepEqual(t!.rewards, { looked_up: 1 });
      const [skip] = await env.runGroup(i, 1, { client: new LookupClient(false) });
      assert.deepEqual(skip!.rewards, { looked_up: 0 });
    }
    assert.deepEqual(
      env.tasks.map((t) => (t as { answer?: string }).answer),
      Object.values(facts),
    );
  },
);

/** Calls `scratchpad_roundtrip` with the word in the prompt, then answers with the tool's result. */
class RoundtripClient implements Client {
  readonly kind = "eval" as const;
  async getResponse(req: ModelRequest): Promise<ModelResponse> {
    const last = req.messages.at(-1)!;
    const word = /word="([^"]+)"/.exec(
      contentText(req.messages.find((m) => m.role === "user")!.content),
    )![1]!;
    const message =
      last.role !== "tool"
        ? {
            role: "assistant" as const,
            content: "",
            tool_calls: [{ id: "call_0", name: "scratchpad_roundtrip", arguments: JSON.stringify({ word }) }],
          }
        : { role: "assistant" as const, content: contentText(last.content) };
    return {
      id: "s",
      model: "m",
      message,
      finishReason: "stop",
      usage: { promptTokens: 1, completionTokens: 1 },
      tokens: null,
    };
  }
  async abort(): Promise<void> {}
  async close(): Promise<void> {}
}

test(
  "scratchpad_v1: a taskset-level shared toolset keeps each rollout's state apart",
  needsRealV1,
  async () => {
    const v1 = real();
    const env = await loadEnvironment(
      await loadConfig(
        [
          'model = "m"',
          'harness = { id = "default" }',
          `python = { executable = ${JSON.stringify(v1.python)}, path = ${JSON.stringify(v1.path("scratchpad_v1"))} }`,
          'taskset = { id = "scratchpad_v1" }',
        ].join("\n"),
      ),
    );
    // Eight rollouts at once on the one shared server instance: each must read back its own word.
    const runs = await Promise.all(
      env.tasks.slice(0, 8).map((_, i) => env.runGroup(i, 1, { client: new RoundtripClient() })),
    );
    for (const [t] of runs) {
      assert.deepEqual(t!.errors, []);
      assert.deepEqual(t!.rewards, { isolated: 1 });
    }
  },
);
