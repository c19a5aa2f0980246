/**
 * The engine reads prompts back in the served family's format: rendering a conversation with the
 * family's renderer (the template of its checkpoint folder) and reading the decoded prompt gives
 * the conversation back. gpt-oss is read from a hand-written harmony prompt.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import type { RenderMessage } from "../../packages/core/src/renderers/renderer.ts";
import { servedModel } from "../../packages/engine/src/index.ts";
import { checkpointFolder, type FamilyPackage } from "../checkpoint-folders.ts";

const CHAT: RenderMessage[] = [
  { role: "system", content: "Reverse the text." },
  { role: "user", content: "abc\nline two" },
  { role: "assistant", content: "owt enil\ncba" },
  { role: "user", content: "xyz" },
];

function readBack(pkg: FamilyPackage, messages: RenderMessage[]) {
  const model = servedModel(checkpointFolder(pkg));
  const r = createRenderer(model.path, { onWarning: () => {} });
  const text = r.decode(r.render(messages, { addGenerationPrompt: true }).tokenIds);
  return { model, got: model.format!.messages(text) };
}

for (const pkg of ["qwen3", "deepseek_v3", "llama3_1", "gemma3"] as const) {
  test(`${pkg}: a rendered prompt reads back as its conversation`, () => {
    const { got } = readBack(pkg, CHAT);
    assert.deepEqual(got, CHAT);
  });
}

test("deepseek_v3: tool outputs read back as tool messages, tool-call markup stays with the assistant", () => {
  const messages: RenderMessage[] = [
    { role: "user", content: "add 2 and 3" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ type: "function", function: { name: "add", arguments: '{"a": 2, "b": 3}' } }],
    },
    { role: "tool", content: "5" },
    { role: "assistant", content: "It is 5." },
    { role: "user", content: "thanks" },
  ];
  const { got } = readBack("deepseek_v3", messages);
  assert.deepEqual(
    got.map((m) => m.role),
    ["user", "assistant", "tool", "assistant", "user"],
  );
  assert.match(got[1]!.content, /add\n```json\n\{"a": 2, "b": 3\}\n```/);
  assert.deepEqual(got[1]!.tool_calls, [{ name: "add", arguments: { a: 2, b: 3 } }]);
  assert.equal(got[2]!.content, "5");
  assert.equal(got[3]!.content, "It is 5.");
});

// The tools block, the assistant's calls and the tool results, as each renderer writes them.
const TOOLS = [
  {
    type: "function",
    function: {
      name: "math_calculate",
      description: "Evaluate an expression",
      parameters: {
        type: "object",
        properties: { expression: { type: "string" } },
        required: ["expression"],
      },
    },
  },
];
const TOOL_CHAT: RenderMessage[] = [
  { role: "system", content: "Use the tools." },
  { role: "user", content: "What is 2+3?" },
  {
    role: "assistant",
    content: "Step 1.",
    tool_calls: [
      {
        id: "c0",
        type: "function",
        function: { name: "math_calculate", arguments: '{"expression": "2+3"}' },
      },
    ],
  },
  { role: "tool", tool_call_id: "c0", content: "5" },
];

for (const pkg of ["qwen3", "gptoss"] as const) {
  test(`${pkg}: offered tools, tool calls and tool results read back from a rendered prompt`, () => {
    const model = servedModel(checkpointFolder(pkg));
    const r = model.renderer;
    const text = r.decode(r.render(TOOL_CHAT, { addGenerationPrompt: true, tools: TOOLS }).tokenIds);
    assert.deepEqual(model.format!.tools!(text), ["math_calculate"]);
    const got = model.format!.messages(text);
    const calls = got.flatMap((m) => m.tool_calls ?? []);
    assert.deepEqual(calls, [{ name: "math_calculate", arguments: { expression: "2+3" } }]);
    assert.deepEqual(
      got.filter((m) => m.role === "tool"),
      [{ role: "tool", content: "5" }],
    );
  });
}

test("deepseek_v3 and llama3_1: the reference's reply ids are what the renderer marks sampled", () => {
  for (const pkg of ["deepseek_v3", "llama3_1"] as const) {
    const model = servedModel(checkpointFolder(pkg));
    const ids = model.replyIds({ content: "cba", tool_calls: [] });
    assert.equal(ids.at(-1), model.closeId, pkg);
    assert.equal(model.tokenizer.decode(ids.slice(0, -1)), "cba", pkg);
  }
});

test("gpt-oss harmony: developer instructions are the system prompt, analysis is not a message", async () => {
  const { harmonyFormat } = await import("../../packages/engine/src/formats/harmony.ts");
  const text =
    "<|start|>system<|message|>You are ChatGPT.\nReasoning: medium<|end|>" +
    "<|start|>developer<|message|># Instructions\n\nReverse the text.<|end|>" +
    "<|start|>user<|message|>abc<|end|>" +
    "<|start|>assistant<|channel|>analysis<|message|>Reverse it.<|end|>" +
    "<|start|>assistant<|channel|>commentary to=functions.rev <|constrain|>json<|message|>{}<|call|>" +
    "<|start|>functions.rev to=assistant<|channel|>commentary<|message|>cba<|end|>" +
    "<|start|>assistant<|channel|>final<|message|>cba<|end|>" +
    "<|start|>user<|message|>xyz<|end|><|start|>assistant";
  assert.deepEqual(harmonyFormat.messages(text), [
    { role: "system", content: "Reverse the text." },
    { role: "user", content: "abc" },
    { role: "assistant", content: "{}", tool_calls: [{ name: "rev", arguments: {} }] },
    { role: "tool", content: "cba" },
    { role: "assistant", content: "cba" },
    { role: "user", content: "xyz" },
  ]);
});
