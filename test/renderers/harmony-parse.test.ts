/**
 * Parsing sampled gpt-oss completions: hand-checked harmony completions (test/fixtures/
 * gpt_oss.json `parse`) parse to their messages; every golden that ends on an assistant turn
 * round-trips (the completion the template renders for it parses back to it); and random token
 * soup never throws and keeps spans inside the ids.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { mulberry32 } from "../../packages/core/src/random.ts";
import { HARMONY_IDS } from "../../packages/core/src/renderers/harmony/format.ts";
import type { RenderMessage } from "../../packages/core/src/renderers/renderer.ts";
import { goldens, gptOssTokenizer, rendererFor } from "./harmony-fixtures.ts";

test("gpt-oss parse: hand-checked harmony completions", () => {
  const r = rendererFor();
  assert.ok(goldens.parse.length >= 12);
  for (const c of goldens.parse) {
    assert.deepEqual(gptOssTokenizer().encode(c.completion_text), c.completion_ids, `${c.id}: tokenizer`);
    const p = r.parse(c.completion_ids);
    assert.equal(p.content, c.expected.content, c.id);
    assert.equal(p.reasoningContent, c.expected.reasoning_content, c.id);
    assert.deepEqual(
      p.toolCalls.map((t) => ({ name: t.name, arguments: t.arguments, status: t.status })),
      c.expected.tool_calls,
      c.id,
    );
    for (const t of p.toolCalls) {
      assert.ok(0 <= t.tokenSpan[0] && t.tokenSpan[0] < t.tokenSpan[1], c.id);
      assert.ok(t.tokenSpan[1] <= c.completion_ids.length, c.id);
      assert.equal(t.id, null);
    }
  }
});

function hasCalls(m: RenderMessage): boolean {
  return Array.isArray(m.tool_calls) && m.tool_calls.length > 0;
}

test("gpt-oss parse: the completion of every golden ending on an assistant turn parses back to it", () => {
  let checked = 0;
  for (const c of goldens.render) {
    const last = c.messages.at(-1)!;
    if (c.hf.error !== null || c.add_generation_prompt || last.role !== "assistant") continue;
    if (hasCalls(last) && (last.tool_calls as unknown[]).length > 1) continue; // the engine stops at the first <|call|>
    // Text spelling a special token ("<|end|>") is tokenized as that token by HF too: not text the model wrote.
    if (JSON.stringify(last).includes("<|")) continue;
    const r = rendererFor(c);
    const opts = { tools: c.tools };
    const prompt = r.render(c.messages.slice(0, -1), { ...opts, addGenerationPrompt: true }).tokenIds;
    const full = r.render(c.messages, opts).tokenIds;
    // Only where the history renders the same both ways (a final answer drops earlier reasoning).
    if (full.slice(0, prompt.length).join() !== prompt.join()) continue;
    const p = r.parse(full.slice(prompt.length));
    const content = typeof last.content === "string" ? last.content : "";
    const thinking = (last.thinking ?? last.reasoning_content) as string | undefined;
    if (hasCalls(last)) {
      assert.equal(p.content, "", c.id);
      assert.equal(p.reasoningContent, content || thinking || null, c.id);
      const fn = (last.tool_calls as { function: { name: string; arguments: unknown } }[])[0]!.function;
      assert.equal(p.toolCalls.length, 1, c.id);
      const got = p.toolCalls[0]!;
      assert.equal(got.status, "ok", c.id);
      assert.equal(got.name, fn.name, c.id);
      const args = typeof fn.arguments === "string" ? JSON.parse(fn.arguments) : fn.arguments;
      assert.deepEqual(got.arguments, JSON.parse(JSON.stringify(args)), c.id);
    } else {
      assert.equal(p.content, content, c.id);
      assert.equal(p.reasoningContent, thinking ?? null, c.id);
      assert.deepEqual(p.toolCalls, [], c.id);
    }
    checked++;
  }
  assert.ok(checked >= 20, `${checked} round trips`);
});

test("gpt-oss parse: random harmony token soup never throws; spans are ordered and inside the ids", () => {
  const r = rendererFor();
  const rand = mulberry32(20);
  const pool = [
    ...Object.values(HARMONY_IDS),
    ...gptOssTokenizer().encode(' to=functions.get_weather commentary json {"a": 1} analysis final hello'),
  ];
  for (let i = 0; i < 2000; i++) {
    const ids = Array.from(
      { length: Math.floor(rand() * 40) },
      () => pool[Math.floor(rand() * pool.length)]!,
    );
    const p = r.parse(ids);
    assert.equal(typeof p.content, "string");
    let prevEnd = 0;
    for (const t of p.toolCalls) {
      assert.ok(t.tokenSpan[0] >= prevEnd && t.tokenSpan[0] < t.tokenSpan[1], JSON.stringify(ids));
      assert.ok(t.tokenSpan[1] <= ids.length);
      prevEnd = t.tokenSpan[1];
    }
  }
});
