/**
 * The learning run on its short configuration (`npm run learn -- --steps 8`: the first 8 steps of
 * the documented run, which is reproducible; e2e/LEARN.md): the
 * reward moves the way the reward says, every turn's rollout logprobs match teacher forcing
 * with the weights of the version that sampled it (< 1e-4 at every step), and episodes in flight
 * at an update survive it with turns from two versions. Needs the project's .venv (torch CPU);
 * CI builds it before `npm test`. ≈ 2–6 min wall on 2 busy cores (330 s at load average 10).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const hasPython = Boolean(process.env.PYTHON) || existsSync(join(ROOT, ".venv/bin/python"));

interface Step {
  step: number;
  reward_mean: number;
  logprob_max_abs_diff: number;
  weight_version: string;
  batch_spanning: number;
}

test(
  "short learning run: reward rises, mismatch < 1e-4 per step, episodes span updates",
  { skip: hasPython ? false : "no .venv (run `node scripts/py-env.mjs`); CI builds it", timeout: 600_000 },
  () => {
    const out = mkdtempSync(join(tmpdir(), "envroll-learn-test-"));
    try {
      const args = ["--steps", "8"];
      const r = spawnSync(
        process.execPath,
        ["--import", "tsx", "e2e/learn.ts", ...args, "--min-rise=-1", "--out", out],
        { cwd: ROOT, encoding: "utf8", timeout: 580_000 },
      );
      assert.equal(r.status, 0, r.stderr.slice(-3000));
      const lines = r.stdout.trim().split("\n");
      assert.equal(lines.at(-1), join(out, "learn.json"), "the path of learn.json is printed last");
      const report = JSON.parse(readFileSync(join(out, "learn.json"), "utf8")) as {
        steps: Step[];
        episodes_spanning_updates: number;
        turns_by_version: Record<string, number>;
      };
      assert.equal(report.steps.length, 8);
      report.steps.forEach((s, i) => {
        assert.equal(s.weight_version, String(i + 1), "each step pushed the next version");
        assert.ok(s.logprob_max_abs_diff < 1e-4, `step ${s.step}: mismatch ${s.logprob_max_abs_diff}`);
      });
      const rewards = report.steps.map((s) => s.reward_mean);
      const first = (rewards[0]! + rewards[1]!) / 2;
      const last = (rewards[6]! + rewards[7]!) / 2;
      assert.ok(last >= first + 0.2, `reward ${rewards.map((x) => x.toFixed(3)).join(" ")}`);
      // Pipelined schedule: after the first batch every trained episode spans one update.
      for (const s of report.steps.slice(1))
        assert.ok(s.batch_spanning > 0, `step ${s.step} spanned nothing`);
      assert.ok(report.episodes_spanning_updates >= 1, "an episode ran through a weight update");
      assert.ok(Object.keys(report.turns_by_version).length >= 3, JSON.stringify(report.turns_by_version));
      assert.ok(existsSync(join(out, "learn.html")) && existsSync(join(out, "learn.svg")));
      assert.match(readFileSync(join(out, "learn.html"), "utf8"), /<svg[^>]*>.*<polyline/s);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
);
