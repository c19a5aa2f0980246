/**
 * Python V1 tasksets through the rollout service (`envroll serve`, what envroll_miles calls):
 * token-level Miles samples whose rewards include the Python group rewards. The fake taskset runs
 * in CI (fake_v1/, a FAKE V1-shaped verifiers); code_golf_v1 needs the real verifiers.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { groupSamples, type MilesSample } from "../../packages/core/src/miles/sample.ts";
import { EnvironmentBackend } from "../../packages/core/src/service/environment-backend.ts";
import { startService } from "../../packages/core/src/service/server.ts";
import { trainClientFactory } from "../../packages/core/src/service/train-client-factory.ts";
import { type PolicyFn, startEngine } from "../../packages/engine/src/index.ts";
import { needsRealV1, real } from "./real-v1.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const VENV = join(resolve(HERE, "../.."), ".venv", "bin", "python");
const FAKE_PYTHON = [VENV, "python3"].find(
  (p) => (!p.includes("/") || existsSync(p)) && spawnSync(p, ["-c", "import pydantic"]).status === 0,
);

async function serveGroups(toml: string, policy: PolicyFn, count: number, n: number) {
  const env = await loadEnvironment(await loadConfig(`${toml}\nnum_rollouts = ${n}`));
  const engine = await startEngine({ policy });
  const backend = new EnvironmentBackend(env);
  const service = await startService({ env: backend, makeClient: trainClientFactory(backend.model) });
  try {
    const res = await fetch(`${service.url}/rollout`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ rollout_id: 0, count, n, engine_url: engine.url, sampling: { max_tokens: 64 } }),
    });
    assert.equal(res.status, 200);
    const lines = (await res.text())
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const info = (await (await fetch(`${service.url}/info`)).json()) as Record<string, unknown>;
    return { groups: lines.filter((l) => l.type === "group"), summary: lines.at(-1), info };
  } finally {
    await service.close();
    await env.close();
    await engine.close();
  }
}

const MODEL = 'model = "Qwen/Qwen3-0.6B"';

test(
  "envroll serve: a Python taskset's groups come back as Miles samples with its group rewards",
  FAKE_PYTHON ? {} : { skip: "no Python with pydantic (node scripts/py-env.mjs)" },
  async () => {
    const toml = [
      MODEL,
      'harness = { id = "null" }',
      `python = { executable = ${JSON.stringify(FAKE_PYTHON)}, path = ${JSON.stringify([join(HERE, "fake_v1")])} }`,
      'taskset = { id = "fake_env_v1", size = 3 }',
    ].join("\n");
    const { groups, summary, info } = await serveGroups(toml, () => "ans0 ans1 ans2", 2, 3);
    assert.equal(info["requires_group_scoring"], true);
    assert.equal(summary.delivered, 2);
    for (const g of groups) {
      const samples: MilesSample[] = groupSamples(g.group);
      assert.equal(samples.length, 3);
      if (g.task_index === 1) continue; // FAIL-SETUP: every rollout of that task errors by design
      const rewards = samples.map((s) => s.reward as number).sort();
      // exact (0.5 × 1) on every rollout, `first` (0.25) on exactly one of the group.
      assert.deepEqual(rewards, [0.5, 0.5, 0.75]);
      for (const s of samples) {
        assert.ok(s.response_length > 0 && s.loss_mask.some((m) => m === 1), "token-level sample");
        assert.ok(s.tokens.length > s.response_length, "prompt tokens before the response");
      }
    }
  },
);

const PROGRAMS: [RegExp, string][] = [
  [/sum of the integers/, "print(5050)"],
  [/Fibonacci/, 'print("0 1 1 2 3 5 8 13 21 34")'],
  [/HELLO reversed/, 'print("OLLEH")'],
];

test(
  "envroll serve: code_golf_v1 (real verifiers): correct, most_concise and fastest on every sample",
  needsRealV1,
  async () => {
    const v1 = real();
    const toml = [
      MODEL,
      'harness = { id = "null" }',
      v1.pythonToml("code_golf_v1"),
      'taskset = { id = "code_golf_v1" }',
    ].join("\n");
    const policy: PolicyFn = (ctx) => {
      const program = PROGRAMS.find(([re]) => re.test(ctx.promptText))?.[1] ?? "print()";
      return `\`\`\`python\n${program}\n\`\`\``;
    };
    const { groups, summary } = await serveGroups(toml, policy, 3, 2);
    assert.equal(summary.delivered, 3);
    for (const g of groups) {
      const samples: MilesSample[] = groupSamples(g.group);
      assert.equal(samples.length, 2);
      for (const s of samples) assert.equal(s.status, "completed", JSON.stringify(s.metadata.envroll));
      const rewards = samples.map((s) => s.reward as number);
      // correct 1 each, the same program ties most_concise (0.5 each), fastest goes to ≥ 1.
      for (const r of rewards) assert.ok(r === 1.5 || r === 2, `reward ${r}`);
      assert.ok(rewards.some((r) => r === 2));
    }
  },
);
