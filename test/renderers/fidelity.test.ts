/**
 * Tokenizer and renderer fidelity (issue 15 items 4 and 9): each test failed before its fix.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import * as jinja from "@huggingface/jinja";
import {
  JinjaShapeError,
  patchJinjaPythonSemantics,
} from "../../packages/core/src/renderers/jinja/python-semantics.ts";
import { JinjaRenderer } from "../../packages/core/src/renderers/jinja/renderer.ts";
import { Qwen3Renderer } from "../../packages/core/src/renderers/qwen3/renderer.ts";
import { loadTokenizer } from "../../packages/core/src/tokenizer/index.ts";

const tok = loadTokenizer("qwen3");
const qwen3 = new Qwen3Renderer({}, tok);
const goldens = JSON.parse(
  readFileSync(new URL("../fixtures/families_render.json", import.meta.url), "utf8"),
);
const tokGoldens = JSON.parse(
  readFileSync(new URL("../fixtures/families_tokenizer.json", import.meta.url), "utf8"),
);

test("decode keeps a leading U+FEFF (TextDecoder would drop it as a byte-order mark)", () => {
  assert.equal(tok.decode(tok.encode("\ufeffhi")), "\ufeffhi");
  assert.equal(tok.decode(tok.encode("\ufeff")), "\ufeff");
});

test("a lone surrogate is an error naming the message, not a silent U+FFFD", () => {
  assert.throws(() => tok.encode("a\ud800b"), /lone UTF-16 surrogate \(U\+D800 at offset 1\)/);
  const msgs = [
    { role: "user", content: "ok" },
    { role: "tool", content: "bad \udc00 tail" },
  ];
  assert.throws(() => qwen3.render(msgs), /message 1 \(tool\) contains a lone UTF-16 surrogate/);
  assert.throws(() => new JinjaRenderer(tok).render(msgs), /message 1 \(tool\)/);
  // A well-formed pair is fine.
  assert.doesNotThrow(() => qwen3.render([{ role: "user", content: "😀" }]));
});

test("NFC and the pre-tokenizer classes follow HF, not this Node's Unicode version", () => {
  // Node composes this Todhri pair (Unicode 16 data); HF's normalizer (older data) does not.
  const pair = "\u{105D2}\u0307";
  assert.notEqual(pair.normalize("NFC"), pair);
  // U+088F is a letter to Node 20.20 (Unicode 17) but unassigned to HF's Oniguruma (Unicode 16);
  // Oniguruma's (?i:'s) also matches 'ſ.
  for (const probe of [pair, "\u088f", "x'ſ", "\u0295"]) {
    const cases = tokGoldens.qwen3.cases.filter((c: { text: string }) => c.text.includes(probe));
    assert.ok(cases.length > 0, `corpus has ${JSON.stringify(probe)}`);
    for (const c of cases) assert.deepEqual(tok.encode(c.text), c.ids, JSON.stringify(c.text));
  }
});

test("a tool message with null content renders the same in a bridge as in a full render", () => {
  const call = { id: "c1", type: "function", function: { name: "f", arguments: { a: 1 } } };
  const all = [
    { role: "user", content: "q" },
    { role: "assistant", content: "", tool_calls: [call] },
    { role: "tool", tool_call_id: "c1", content: null },
  ];
  const prompt = qwen3.render(all.slice(0, 1), { addGenerationPrompt: true }).tokenIds;
  const full = qwen3.render(all, { addGenerationPrompt: true });
  // What the model sampled: the assistant's tokens as the full render has them.
  const completion = full.tokenIds.filter((_, i) => full.messageIndices[i] === 1 && full.sampledMask[i]);
  const bridged = qwen3.bridge(prompt, completion, all.slice(2), { messages: all });
  assert.ok(bridged);
  assert.deepEqual(bridged.tokenIds.toArray(), full.tokenIds);
});

test("bridge and parse agree on where a turn ends: the first stop token", () => {
  const prompt = qwen3.render([{ role: "user", content: "q" }], { addGenerationPrompt: true }).tokenIds;
  const completion = [...tok.encode("first"), 151645, ...tok.encode("after"), 151645];
  assert.equal(qwen3.parse(completion).content, "first");
  const b = qwen3.bridge(prompt, completion, [{ role: "user", content: "next" }]);
  assert.ok(b);
  assert.deepEqual(b.tokenIds.slice(0, prompt.length + 2), [...prompt, ...completion.slice(0, 2)]);
  assert.equal(b.tokenIds.at(prompt.length + 2), 198); // the template's "\n" after <|im_end|>, not "after"
});

test("non-string values where strings belong render as the template renders them", () => {
  for (const c of goldens.qwen3_values) {
    assert.equal(c.hf.error, null, c.id);
    assert.deepEqual(qwen3.render(c.messages).tokenIds, c.hf.token_ids, c.id);
  }
});

test("the @huggingface/jinja patch checks the shape it patches and throws otherwise", () => {
  const lib = jinja as unknown as Parameters<typeof patchJinjaPythonSemantics>[0];
  assert.throws(
    () => patchJinjaPythonSemantics({ ...lib, Interpreter: { prototype: {} } } as typeof lib),
    (e: unknown) => e instanceof JinjaShapeError && /Interpreter\.evaluate/.test(String(e)),
  );
  class NoBuiltins {
    set() {}
    lookupVariable() {
      return { value: "x" };
    }
  }
  assert.throws(
    () => patchJinjaPythonSemantics({ ...lib, Environment: NoBuiltins } as unknown as typeof lib),
    /StringValue\.builtins getter/,
  );
  assert.doesNotThrow(() => patchJinjaPythonSemantics());
});
