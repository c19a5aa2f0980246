import assert from "node:assert/strict";
import { test } from "node:test";
import { mulberry32 } from "../../packages/core/src/random.ts";
import { expandBridged } from "../../packages/core/src/renderers/common/bridge.ts";
import { JinjaRenderer } from "../../packages/core/src/renderers/jinja/renderer.ts";
import { Qwen3Renderer } from "../../packages/core/src/renderers/qwen3/renderer.ts";
import { loadTokenizer } from "../../packages/core/src/tokenizer/index.ts";
import { ConversationGen, TOOLS } from "./random-conversations.ts";

const tok = loadTokenizer();
const jinja = new JinjaRenderer(tok);

test("random conversations: render ids == encode(real template text) and decode back to it", () => {
  for (const enableThinking of [true, false]) {
    const r = new Qwen3Renderer({ enableThinking });
    const gen = new ConversationGen(mulberry32(enableThinking ? 11 : 12));
    for (let i = 0; i < 120; i++) {
      const messages = gen.conversation(1 + Math.floor(gen.rand() * 4));
      const opts = {
        tools: gen.pick([null, [], TOOLS]),
        addGenerationPrompt: gen.rand() < 0.6,
        enableThinking,
      };
      const text = jinja.renderText(messages, opts);
      const got = r.render(messages, opts);
      assert.deepEqual(got.tokenIds, tok.encode(text), `case ${i}: ${JSON.stringify(messages)}`);
      assert.equal(r.decode(got.tokenIds), text);
      assert.equal(got.messageIndices.length, got.tokenIds.length);
      // Every sampled token belongs to an assistant message and is body.
      got.sampledMask.forEach((s, k) => {
        if (s) assert.ok(messages[got.messageIndices[k]!]!.role === "assistant" && got.isContent[k]);
      });
    }
  }
});

/** The completion the model would have sampled for assistant message k (its sampled tokens). */
function sampledTokens(r: Qwen3Renderer, messages: any[], k: number, tools: any): number[] {
  const full = r.render(messages.slice(0, k + 1), { tools });
  return full.tokenIds.filter((_, i) => full.messageIndices[i] === k && full.sampledMask[i]);
}

test("random conversations: bridge keeps the sampled prefix exactly and appends the new turn's rendering", () => {
  const r = new Qwen3Renderer();
  const gen = new ConversationGen(mulberry32(99));
  let checked = 0;
  for (let i = 0; i < 150; i++) {
    const tools = gen.pick([null, TOOLS]);
    const prefix = gen.conversation(Math.floor(gen.rand() * 3));
    const asst = gen.assistant();
    const next = gen.followUps(asst);
    const k = prefix.length;
    const prompt = r.render(prefix, { tools, addGenerationPrompt: true }).tokenIds;
    let completion = sampledTokens(r, [...prefix, asst], k, tools);
    const mode = gen.pick(["exact", "truncated", "trailing"] as const);
    if (mode === "truncated") completion = completion.slice(0, -1); // engine hit max_tokens before <|im_end|>
    if (mode === "trailing") completion = [...completion, ...tok.encode("junk")];
    const promptBefore = prompt.slice();
    const completionBefore = completion.slice();
    const bridged = r.bridge(prompt, completion, next, { tools });
    assert.ok(bridged, `case ${i}`);
    const b = expandBridged(bridged);
    // Histories may be shared read-only between turns: the bridge must not modify its inputs.
    assert.deepEqual(prompt, promptBefore);
    assert.deepEqual(completion, completionBefore);
    const n = b.tokenIds.length;
    assert.ok(b.messageIndices.length === n && b.sampledMask.length === n && b.isContent.length === n);
    // Expected cut: after the completion's FIRST close token (where parse ends the turn), or a
    // synthesized <|im_end|>.
    const firstClose = completion.findIndex((id) => id === 151645 || id === 151643);
    const prior =
      firstClose >= 0
        ? [...prompt, ...completion.slice(0, firstClose + 1)]
        : [...prompt, ...completion, 151645];
    assert.deepEqual(b.tokenIds.slice(0, prior.length), prior, `case ${i}: prefix`);
    assert.ok(b.sampledMask.every((s) => !s));
    assert.ok(b.messageIndices.slice(0, prior.length).every((m) => m === -1));
    // The new part equals what a full render puts after that assistant's <|im_end|>.
    const full = r.render([...prefix, asst, ...next], { tools, addGenerationPrompt: true });
    const lastOfAsst = full.messageIndices.lastIndexOf(k);
    const tail = b.tokenIds.slice(prior.length);
    assert.deepEqual(tail, full.tokenIds.slice(lastOfAsst), `case ${i}: new part`);
    assert.deepEqual(
      b.messageIndices.slice(prior.length + 1),
      full.messageIndices.slice(lastOfAsst + 1).map((m) => (m < 0 ? -1 : m - k - 1)),
    );
    assert.deepEqual(b.isContent.slice(prior.length), full.isContent.slice(lastOfAsst));
    // `prefixLength` marks the carried history: everything before the `\n` the bridge adds.
    assert.equal(bridged.prefixLength, prior.length);
    // Each call returns arrays of its own (consumers shift or slice them in place).
    const again = r.bridge(prompt, completion, next, { tools });
    assert.ok(again && again.tail.messageIndices !== bridged.tail.messageIndices);
    again.tail.messageIndices.fill(7);
    again.tail.isContent.fill(true);
    again.tail.sampledMask.fill(true);
    const third = r.bridge(prompt, completion, next, { tools });
    assert.ok(third);
    assert.deepEqual(expandBridged(third).messageIndices, b.messageIndices);
    assert.deepEqual(expandBridged(third).isContent, b.isContent);
    assert.ok(third.tail.sampledMask.every((s) => !s));
    // Bridging the same prompt again (a fork of it) leaves the first result intact.
    assert.deepEqual(bridged.tokenIds.toArray(), b.tokenIds);
    checked++;
  }
  assert.equal(checked, 150);
});

test("random completions: parse never throws, spans are ordered and inside the truncated ids", () => {
  const r = new Qwen3Renderer();
  const rand = mulberry32(5);
  const vocab = [
    151657, 151658, 151645, 151643, 151667, 151668, 198, 4913, 606, 788, 330, 69, 497, 16370, 5212, 532, 92,
  ];
  for (let i = 0; i < 500; i++) {
    const ids = Array.from(
      { length: Math.floor(rand() * 30) },
      () => vocab[Math.floor(rand() * vocab.length)]!,
    );
    const p = r.parse(ids);
    const stop = ids.findIndex((x) => x === 151645 || x === 151643);
    const n = stop < 0 ? ids.length : stop;
    let last = 0;
    for (const c of p.toolCalls) {
      assert.ok(c.tokenSpan[0] >= last && c.tokenSpan[1] <= n && ids[c.tokenSpan[0]] === 151657);
      assert.equal(c.status === "ok", c.name !== null);
      last = c.tokenSpan[1];
    }
  }
});
