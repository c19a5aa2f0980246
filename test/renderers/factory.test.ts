import assert from "node:assert/strict";
import { test } from "node:test";
import {
  createRenderer,
  isQwen3Model,
  JinjaRenderer,
  Qwen3Renderer,
} from "../../packages/core/src/renderers/index.ts";
import { qwen3TokenizerDir } from "../../packages/core/src/tokenizer/index.ts";

test("qwen3 names get the hand-written renderer with the given config", () => {
  for (const name of ["qwen3", "Qwen/Qwen3-8B", "Qwen/Qwen3-0.6B", "qwen/qwen3-30b-a3b"]) {
    assert.ok(createRenderer(name) instanceof Qwen3Renderer, name);
  }
  const r = createRenderer("qwen3", { enableThinking: false, preserveAllThinking: true }) as Qwen3Renderer;
  assert.equal(r.config.enableThinking, false);
  assert.equal(r.config.preserveAllThinking, true);
  assert.deepEqual(r.stopTokenIds, [151645, 151643]);
  const ids = r.render([{ role: "user", content: "x" }], { addGenerationPrompt: true }).tokenIds;
  assert.deepEqual(ids.slice(-6), [77091, 198, 151667, 271, 151668, 271]);
});

test("other formats in the Qwen3 name space are not taken for Qwen3", () => {
  for (const name of ["Qwen/Qwen3.5-35B", "Qwen/Qwen3-VL-8B", "Qwen/Qwen3-Coder-30B"])
    assert.equal(isQwen3Model(name), false);
  assert.throws(() => createRenderer("Qwen/Qwen3.5-35B"), /no renderer/);
});

test("unknown models need a tokenizer path (then the Jinja renderer); the error lists known names", () => {
  assert.throws(
    () => createRenderer("meta-llama/Llama-3.2-1B"),
    /no renderer for model "meta-llama\/Llama-3.2-1B".*qwen3/,
  );
  const j = createRenderer("some/model", { tokenizerPath: qwen3TokenizerDir() });
  assert.ok(j instanceof JinjaRenderer);
  assert.equal(j.name, "some/model");
  assert.equal(j.bridge([1], [2], [{ role: "user", content: "x" }]), null);
});
