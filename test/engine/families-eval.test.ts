/**
 * The built-in engine serves whatever checkpoint folder it is given: its renderer comes from the
 * folder's chat template, as the client's does. Per family, `envroll eval reverse-text --engine
 * URL --model DIR` runs through the real CLI, the reference policy solves the tasks (read back
 * from that family's prompts, answered in its format), and every token id in the trace is the
 * one sent or sampled: each /generate input is a prefix of its branch, equal to a fresh render
 * of the trace's messages, and the masked ids are exactly the completion after it, ending in the
 * family's stop token (gpt-oss: a final-channel message ending in <|return|>).
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { readTraces } from "../../packages/core/src/outputs/traces-file.ts";
import { createRenderer, GptOssRenderer, identifyTemplate } from "../../packages/core/src/renderers/index.ts";
import { loadTokenizer } from "../../packages/core/src/tokenizer/index.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { checkpointFolder, type FamilyPackage } from "../checkpoint-folders.ts";
import { onlyRunDir, runCli } from "../cli/cli-helpers.ts";
import { referenceEngine } from "./reference-engine.ts";

const CASES: { pkg: FamilyPackage; family: string }[] = [
  { pkg: "qwen3", family: "qwen3" },
  { pkg: "deepseek_v3", family: "deepseek-v3" },
  { pkg: "llama3_1", family: "llama-3" },
  { pkg: "gemma3", family: "gemma-3" },
  { pkg: "gptoss", family: "gpt-oss" },
];

function checkTrace(trace: TraceRecord, dir: string, inputs: number[][]): void {
  assert.deepEqual(trace.errors, [], JSON.stringify(trace.errors));
  assert.ok(trace.reward > 0.8, `reward ${trace.reward}: ${trace.last_reply}`);
  assert.match(trace.last_reply, /^<reversed_text>\n[\s\S]+\n<\/reversed_text>$/);
  const renderer = createRenderer(dir, { onWarning: () => {} });
  const tok = loadTokenizer(dir);
  assert.equal(trace.branches.length, 1);
  const branch = trace.branches[0]!;
  const firstSampled = branch.sampled_mask.indexOf(true);
  assert.ok(firstSampled > 0);
  const prompt = branch.token_ids.slice(0, firstSampled);
  const completion = branch.token_ids.slice(firstSampled);
  assert.ok(branch.sampled_mask.slice(firstSampled).every(Boolean), "one sampled run after the prompt");
  // The engine saw exactly this prompt, and it is what the family's renderer makes of the messages.
  assert.ok(
    inputs.some((ids) => ids.length === prompt.length && ids.every((id, i) => id === prompt[i])),
    "the prompt is a /generate input",
  );
  const messages = trace.nodes.filter((n) => !n.sampled).map((n) => n.message);
  assert.deepEqual(renderer.render(messages, { addGenerationPrompt: true }).tokenIds, prompt);
  // The sampled ids are the reply in the family's format, closed by its stop token.
  assert.ok(renderer.stopTokenIds.includes(completion.at(-1)!), `ends with a stop id: ${completion.at(-1)}`);
  const parsed = renderer.parse(completion);
  assert.equal(parsed.content, trace.last_reply);
  assert.deepEqual(parsed.toolCalls, []);
  assert.ok(tok.decode(completion).includes(trace.last_reply));
  const harmony = identifyTemplate(tok).family === "gpt-oss";
  assert.equal(renderer instanceof GptOssRenderer, harmony, "gpt-oss folders get the harmony renderer");
  if (harmony) {
    // Harmony: the prompt opens the assistant's message, the reply is closed by <|return|>.
    assert.equal(renderer.decode(prompt.slice(-2)), "<|start|>assistant");
    assert.equal(completion.at(-1), 200002, "closed by <|return|>");
  }
}

// One at a time: each is a CLI process loading a large tokenizer (about 12 s on a loaded machine).
describe("eval reverse-text on the built-in engine, per checkpoint family", () => {
  for (const { pkg, family } of CASES) {
    test(`${family}: the CLI eval runs token-exact and the reference solves it`, async () => {
      const dir = checkpointFolder(pkg);
      assert.equal(identifyTemplate(loadTokenizer(dir)).family, family);
      const inputs: number[][] = [];
      const engine = await referenceEngine({
        model: dir,
        onRequest: (body) => inputs.push((body as { input_ids: number[] }).input_ids),
      });
      try {
        const out = mkdtempSync(join(tmpdir(), "envroll-families-"));
        // (temp paths hold no spaces)
        const res = await runCli(
          `eval reverse-text --engine ${engine.url} --model ${dir} -n 2 -r 2 -o ${out}`.split(" "),
        );
        assert.equal(res.code, 0, res.stderr);
        const { traces } = readTraces(join(onlyRunDir(out), "traces.jsonl"));
        assert.equal(traces.length, 4);
        for (const t of traces) checkTrace(t, dir, inputs);
        assert.equal(inputs.length, 4);
      } finally {
        await engine.close();
      }
    });
  }

  test("without --engine, the in-process engine serves the --model folder", async () => {
    const dir = checkpointFolder("llama3_1");
    const out = mkdtempSync(join(tmpdir(), "envroll-families-"));
    const res = await runCli(["eval", "reverse-text", "--model", dir, "-n", "2", "-r", "1", "-o", out]);
    assert.equal(res.code, 0, res.stderr);
    const { traces } = readTraces(join(onlyRunDir(out), "traces.jsonl"));
    assert.equal(traces.length, 2);
    for (const t of traces) {
      assert.deepEqual(t.errors, []);
      assert.ok(t.reward > 0.8, `reward ${t.reward}`);
      assert.equal(t.branches[0]!.token_ids[0], 128000, "Llama 3's <|begin_of_text|>");
    }
  });
});
