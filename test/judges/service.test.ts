/**
 * A judged environment through the real `envroll serve` subprocess, as envroll_miles drives it:
 * Miles names the policy engine per request (SGLang /generate), while the judge calls go to the
 * judge endpoint of the environment config — here a second built-in engine with the `judge`
 * policy. Each group's samples carry the judge's reward.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { groupSamples } from "../../packages/core/src/miles/sample.ts";
import { startEngine } from "../../packages/engine/src/index.ts";
import { servedUrl, startCli } from "../cli/cli-helpers.ts";
import { referenceEngine } from "../engine/reference-engine.ts";
import { post } from "../service/http.ts";

async function serve(config: string): Promise<{ url: string; stop(): Promise<void> }> {
  const cli = startCli(["serve", config, "--port", "0"]);
  const child = cli.child;
  const url = await servedUrl(cli);
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

test("a judged group through envroll serve: policy on Miles' engine, verdicts from the judge endpoint", async () => {
  const policy = await referenceEngine();
  const judge = await startEngine({ policy: "judge" });
  const dir = mkdtempSync(join(tmpdir(), "envroll-judged-serve-"));
  const config = join(dir, "env.toml");
  writeFileSync(
    config,
    `model = "Qwen/Qwen3-0.6B"
[taskset]
id = "short-answer"
[[taskset.task.judges]]
id = "reference"
base_url = "${judge.url}/v1"
weight = 2
`,
  );
  const service = await serve(config);
  try {
    const r = await post(`${service.url}/rollout`, {
      rollout_id: 0,
      count: 3,
      n: 4,
      engine_url: policy.url,
      sampling: { max_tokens: 64 },
    });
    assert.equal(r.status, 200);
    const lines = r.body as any[];
    const groups = lines.filter((l) => l.type === "group");
    assert.equal(groups.length, 3);
    const samples = groups.flatMap((g) => groupSamples(g.group));
    assert.equal(samples.length, 12);
    for (const s of samples) {
      const meta = s.metadata.envroll;
      assert.equal(meta.error ?? null, null);
      assert.deepEqual(Object.keys(meta.rewards), ["reference"]);
      assert.ok(
        [0, 2].includes(meta.rewards["reference"]!),
        `weighted verdict, got ${meta.rewards["reference"]}`,
      );
      assert.equal(s.reward, meta.rewards["reference"]);
    }
    const nonEmpty = samples.filter((s) => s.response.trim() !== "").length;
    assert.equal(judge.stats().chatCompletions, nonEmpty, "one judge call per answered rollout");
    assert.equal(judge.stats().requests, 0, "the judge endpoint gets no /generate");
    assert.equal(policy.stats().chatCompletions, 0, "the policy engine gets no judge calls");
    assert.equal(policy.stats().requests, 12);
    assert.equal(lines.at(-1).delivered, 3);
  } finally {
    await service.stop();
    await Promise.all([policy.close(), judge.close()]);
  }
});
