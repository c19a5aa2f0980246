/** Run outputs through the real CLI: the saved pass threshold, the run id across --resume, validate's checks. */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { test } from "node:test";
import { EVAL_2X2, onlyRunDir, runCli } from "./cli-helpers.ts";

test("--pass-threshold is saved with the run; --resume DIR/ keeps it and the run id in summary and report", async () => {
  const out = mkdtempSync(join(tmpdir(), "envroll-outputs-"));
  const first = await runCli([...EVAL_2X2, "-o", out, "--pass-threshold", "0.999"]);
  assert.equal(first.code, 0, first.stderr);
  const dir = onlyRunDir(out);
  const runId = basename(dir);
  assert.match(readFileSync(join(dir, "config.toml"), "utf8"), /^pass_threshold = 0\.999$/m);
  const again = await runCli(["eval", "--resume", `${dir}/`]);
  assert.equal(again.code, 0, again.stderr);
  const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
  assert.equal(summary.run_id, runId);
  assert.equal(summary.pass_threshold, 0.999);
  assert.ok(readFileSync(join(dir, "report.html"), "utf8").includes(runId), "the report names the run");
});

test("validate applies eval's checks: group rewards with num_rollouts = 1 fail validate too", async () => {
  const evalRun = await runCli([
    "eval",
    "code-golf",
    "--num_rollouts",
    "1",
    "-n",
    "1",
    "-o",
    mkdtempSync(join(tmpdir(), "envroll-cg-")),
  ]);
  assert.notEqual(evalRun.code, 0);
  const r = await runCli(["validate", "code-golf", "--num_rollouts", "1"]);
  assert.equal(r.code, 1, r.stdout);
  assert.match(r.stdout, /✗ config: num_rollouts: taskset "code-golf" has group rewards/);
});
