/** Bridges extend a shared TokenSequence: sharing must never show (immutability, forks). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Qwen3Renderer } from "../../packages/core/src/renderers/qwen3/renderer.ts";
import type { RenderMessage } from "../../packages/core/src/renderers/renderer.ts";

test("bridging from an older turn again (a fork) gives that turn's extension and leaves the newer turns intact", () => {
  const r = new Qwen3Renderer();
  const base: RenderMessage[] = [{ role: "user", content: "q" }];
  const p1 = r.render(base, { addGenerationPrompt: true }).tokenIds;
  const reply = (s: string) => [
    ...r.render([...base, { role: "assistant", content: s }]).tokenIds.slice(p1.length),
  ];
  const a = r.bridge(p1, reply("first"), [{ role: "user", content: "next" }]);
  assert.ok(a);
  const aIds = a.tokenIds.toArray();
  const a2 = r.bridge(a.tokenIds, [...r.tokenizer.encode("x"), 151645], [{ role: "user", content: "more" }]);
  assert.ok(a2);
  // A second, different extension of `a` (another conversation continuing the same turn).
  const b = r.bridge(a.tokenIds, [...r.tokenizer.encode("y"), 151645], [{ role: "user", content: "other" }]);
  assert.ok(b);
  assert.deepEqual(a.tokenIds.toArray(), aIds);
  const a2Ids = a2.tokenIds.toArray();
  assert.ok(
    r.decode(a2Ids).endsWith("x<|im_end|>\n<|im_start|>user\nmore<|im_end|>\n<|im_start|>assistant\n"),
  );
  assert.ok(
    r
      .decode(b.tokenIds.toArray())
      .endsWith("y<|im_end|>\n<|im_start|>user\nother<|im_end|>\n<|im_start|>assistant\n"),
  );
  assert.deepEqual(a2Ids.slice(0, aIds.length), aIds);
  assert.deepEqual(b.tokenIds.slice(0, aIds.length), aIds);
});
