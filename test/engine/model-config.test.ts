/**
 * `/get_model_info`'s `model_type` and `architectures` follow the served checkpoint's
 * config.json; a folder without one is reported as its family's release config, and a
 * config.json that is not what HF writes is refused at start-up, naming the key.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { startEngine } from "../../packages/engine/src/index.ts";
import { checkpointFolder, type FamilyPackage } from "../checkpoint-folders.ts";

async function modelInfo(model?: string): Promise<{ model_type: unknown; architectures: unknown }> {
  const engine = await startEngine(model ? { model } : {});
  try {
    return (await (await fetch(`${engine.url}/get_model_info`)).json()) as never;
  } finally {
    await engine.close();
  }
}

const RELEASES: [FamilyPackage, string, string][] = [
  ["qwen3", "qwen3", "Qwen3ForCausalLM"],
  ["deepseek_v3", "deepseek_v3", "DeepseekV3ForCausalLM"],
  ["llama3_1", "llama", "LlamaForCausalLM"],
  ["gemma3", "gemma3_text", "Gemma3ForCausalLM"],
  ["gptoss", "gpt_oss", "GptOssForCausalLM"],
];

test("without a config.json: the family's release model_type and architectures", async () => {
  const carried = await modelInfo(); // the carried Qwen3 files
  assert.equal(carried.model_type, "qwen3");
  assert.deepEqual(carried.architectures, ["Qwen3ForCausalLM"]);
  for (const [pkg, modelType, arch] of RELEASES) {
    const info = await modelInfo(checkpointFolder(pkg));
    assert.equal(info.model_type, modelType, pkg);
    assert.deepEqual(info.architectures, [arch], pkg);
  }
});

test("a config.json wins over the family: what the checkpoint says it is", async () => {
  for (const pkg of ["llama3_1", "qwen3"] as const) {
    const dir = checkpointFolder(pkg);
    const config = { model_type: "mistral", architectures: ["MistralForCausalLM"], vocab_size: 1 };
    writeFileSync(join(dir, "config.json"), JSON.stringify(config));
    const info = await modelInfo(dir);
    assert.equal(info.model_type, "mistral", pkg);
    assert.deepEqual(info.architectures, ["MistralForCausalLM"], pkg);
  }
});

test("a malformed config.json is refused, naming the file and key", async () => {
  const dir = checkpointFolder("llama3_1");
  writeFileSync(join(dir, "config.json"), JSON.stringify({ architectures: "LlamaForCausalLM" }));
  await assert.rejects(startEngine({ model: dir }), /config\.json architectures: expected a list of strings/);
  writeFileSync(join(dir, "config.json"), "{nope");
  await assert.rejects(startEngine({ model: dir }), /config\.json is not JSON/);
});
