/**
 * What a streaming program is sent of a turn never has to be taken back: for each shipped family
 * with its own parser (Qwen3, gpt-oss harmony, Llama 3.1, DeepSeek-V3), replies with text,
 * reasoning and tool calls are fed token by token (every prefix parsed), and the text sent is
 * always a prefix of the finished turn's content, the reasoning sent a prefix of its reasoning
 * (all of it once content starts),
 * and nothing of a tool call's markup is ever sent as text.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { StreamDelta } from "../../packages/core/src/clients/client.ts";
import { LiveContent } from "../../packages/core/src/clients/live-content.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import type { Renderer } from "../../packages/core/src/renderers/renderer.ts";
import { loadTokenizer } from "../../packages/core/src/tokenizer/index.ts";
import { checkpointFolder, llama31Folder } from "../checkpoint-folders.ts";
import { gptOssCheckpoint } from "../renderers/harmony-fixtures.ts";

const TOOLS = [
  { type: "function", function: { name: "f", description: "d", parameters: { type: "object" } } },
];

const FAMILIES: Record<string, { folder: () => string; replies: string[] }> = {
  qwen3: {
    folder: () => checkpointFolder("qwen3"),
    replies: [
      "Plain words, then more words.<|im_end|>",
      "<think>\nLet me think < a bit.\n</think>\n\nThe answer is 4.<|im_end|>",
      'Let me check.\n<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call><|im_end|>',
    ],
  },
  "gpt-oss": {
    folder: gptOssCheckpoint,
    replies: [
      "<|channel|>analysis<|message|>Think first.<|end|><|start|>assistant<|channel|>final<|message|>Hello there, the final answer.<|return|>",
      '<|channel|>analysis<|message|>Need f.<|end|><|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1}<|call|>',
    ],
  },
  llama3_1: {
    folder: llama31Folder,
    replies: [
      "Hi there, plain text.<|eot_id|>",
      '<|python_tag|>{"name": "f", "parameters": {"a": 1}}<|eom_id|>',
      '{"name": "f", "parameters": {"a": 1}}<|eot_id|>',
    ],
  },
  deepseek_v3: {
    folder: () => checkpointFolder("deepseek_v3"),
    replies: [
      "Just text here.<｜end▁of▁sentence｜>",
      'Sure.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{"a": 1}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>',
    ],
  },
};

function walk(r: Renderer, ids: number[]) {
  const sent: StreamDelta[] = [];
  const live = new LiveContent(r, TOOLS, 10, (d) => sent.push(d), 0);
  for (let i = 1; i <= ids.length; i++) live.tokens(ids.slice(0, i), "rid");
  return sent;
}

for (const [family, { folder, replies }] of Object.entries(FAMILIES)) {
  test(`${family}: streamed text is always a prefix of the finished turn; calls are never streamed`, () => {
    const dir = folder();
    const r = createRenderer(dir);
    const tok = loadTokenizer(dir);
    let streamedSomething = false;
    let streamedReasoning = false;
    for (const reply of replies) {
      const ids = tok.encode(reply);
      const final = r.parse(ids, { tools: TOOLS });
      const sent = walk(r, ids);
      const text = sent.map((d) => d.content ?? "").join("");
      assert.ok(
        final.content.startsWith(text),
        `${family} ${JSON.stringify(reply)}: sent ${JSON.stringify(text)}`,
      );
      const reasoning = sent.map((d) => d.reasoning ?? "").join("");
      assert.ok(
        (final.reasoningContent ?? "").startsWith(reasoning),
        `${family}: reasoning ${JSON.stringify(reasoning)}`,
      );
      // Reasoning all comes before content, and is whole once content starts.
      const firstText = sent.findIndex((d) => d.content !== undefined);
      if (firstText >= 0) {
        assert.ok(sent.slice(firstText + 1).every((d) => d.reasoning === undefined));
        assert.equal(reasoning, final.reasoningContent ?? "");
      }
      if (final.reasoningContent) streamedReasoning ||= reasoning.length > 0;
      assert.doesNotMatch(text, /"name"|tool|\{"a"/, "no call markup as text");
      if (final.toolCalls.length === 0 && final.content !== "") {
        assert.ok(text.length > 0, `${family}: plain text streams`);
        streamedSomething = true;
      }
    }
    assert.ok(streamedSomething);
    if (family === "qwen3" || family === "gpt-oss")
      assert.ok(streamedReasoning, `${family}: reasoning streams`);
  });
}
