/** `eval --dry-run`: CLI over TOML over defaults, printed as the re-runnable TOML. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "smol-toml";
import { runEval } from "../../packages/cli/src/eval.ts";
import { tempFile } from "../temp-file.ts";
import { runCli } from "./cli-helpers.ts";

test("CLI values win over the TOML, which wins over defaults", async () => {
  const file = tempFile(
    "envroll-cfg-",
    "run.toml",
    'num_tasks = 3\nnum_rollouts = 2\nmax_concurrent = 7\n[taskset]\nid = "reverse-text"\n[sampling]\ntemperature = 0.5\n',
  );
  const res = await runCli([
    "eval",
    file,
    "-n",
    "5",
    "--sampling.temperature",
    "0.9",
    "--sampling.top_p=0.5",
    "--dry-run",
  ]);
  assert.equal(res.code, 0, res.stderr);
  const cfg = parse(res.stdout) as any;
  assert.equal(cfg.num_tasks, 5); // CLI
  assert.equal(cfg.num_rollouts, 2); // TOML
  assert.equal(cfg.max_concurrent, 7); // TOML
  assert.equal(cfg.shuffle, false); // default
  assert.equal(cfg.sampling.temperature, 0.9);
  assert.equal(cfg.sampling.top_p, 0.5);
  assert.equal(cfg.harness.id, "null"); // the taskset's default
});

test("config errors name the key", async () => {
  await assert.rejects(runEval("reverse-text", { dryRun: true }, { max_turnz: "3" }), /max_turnz/);
});
