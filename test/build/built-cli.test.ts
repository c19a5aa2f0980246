/**
 * The built CLI (packages/cli/dist, plain Node, no tsx) and the CLI from source give the same
 * run: every rollout completes, with the same prompt token ids. Builds first when dist/ is
 * missing or stale.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { builtIsCurrent } from "../../packages/core/build-stamp.mjs";
import { BIN, evalArgs, onlyRunDir, ROOT } from "../cli/cli-helpers.ts";

const PACKAGES = ["packages/core", "packages/engine", "packages/cli"].map((d) => join(ROOT, d));

function ensureBuilt(): void {
  if (PACKAGES.every(builtIsCurrent)) return;
  const r = spawnSync(process.execPath, [join(ROOT, "scripts", "build.mjs")], {
    cwd: ROOT,
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
}

function evalRun(argv: string[], out: string) {
  const r = spawnSync(process.execPath, [...argv, ...evalArgs(3, 2), "-c", "1", "-o", out], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 180_000,
    env: { ...process.env, ENVROLL_FROM_SOURCE: "1" },
  });
  assert.equal(r.status, 0, `${argv.join(" ")}: ${r.stderr}`);
  return readFileSync(join(onlyRunDir(out), "traces.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line))
    .map((t) => ({
      task: t.task_index,
      rollout: t.rollout_index,
      errors: t.errors,
      // The reference policy's reply noise is not reproducible between runs; the rendered
      // prompt (every node the model did not sample) is.
      prompt: t.nodes
        .filter((n: { sampled: boolean }) => !n.sampled)
        .map((n: { token_ids: number[]; mask: number[] }) => [n.token_ids, n.mask]),
      sampled: t.nodes.filter((n: { sampled: boolean }) => n.sampled).length,
    }))
    .sort((a, b) => a.task - b.task || a.rollout - b.rollout);
}

test("dist/load.cjs runs without tsx and matches the source CLI rollout for rollout", (t) => {
  ensureBuilt();
  const base = mkdtempSync(join(tmpdir(), "envroll-built-"));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const built = evalRun([join(ROOT, "packages", "cli", "dist", "load.cjs")], join(base, "built"));
  const source = evalRun([BIN], join(base, "source"));
  assert.equal(built.length, 6);
  assert.deepEqual(built, source);
});
