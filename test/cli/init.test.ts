/** `envroll init demo` → `envroll validate ./demo` and the scaffold's own `npm test`, in a temp dir. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { scaffold } from "../../packages/cli/src/init.ts";
import { runValidate } from "../../packages/cli/src/validate.ts";
import { runCli } from "./cli-helpers.ts";

test("init refuses bad names and non-empty directories", () => {
  const dir = mkdtempSync(join(tmpdir(), "envroll-init-"));
  assert.throws(() => scaffold("Bad Name", { path: dir, link: false }), /invalid name/);
  scaffold("x", { path: dir, link: false });
  assert.throws(() => scaffold("x", { path: dir, link: false }), /not empty/);
});

test("the scaffold lists its files and depends on this envroll checkout", () => {
  const dir = mkdtempSync(join(tmpdir(), "envroll-init-"));
  const { files } = scaffold("my-task", { path: dir, link: false });
  assert.deepEqual(files, [
    "README.md",
    "data/tasks.jsonl",
    "index.ts",
    "package.json",
    "rewards.ts",
    "test/taskset.test.ts",
  ]);
  const pkg = JSON.parse(readFileSync(join(dir, "my-task", "package.json"), "utf8"));
  assert.equal(pkg.name, "my-task");
  assert.match(pkg.dependencies.envroll, /^file:/);
  assert.match(readFileSync(join(dir, "my-task", "index.ts"), "utf8"), /export interface MyTaskData/);
});

test("envroll init demo && envroll validate ./demo passes, and so does the scaffold's own test", async (_t) => {
  const dir = mkdtempSync(join(tmpdir(), "envroll-init-"));
  const init = await runCli(["init", "demo"], dir);
  assert.equal(init.code, 0, init.stderr);
  const validate = await runCli(["validate", "./demo"], dir);
  assert.equal(validate.code, 0, `${validate.stdout}\n${validate.stderr}`);
  assert.match(validate.stdout, /✓ dry rollout/);
  // Without NODE_TEST_CONTEXT the nested `node --test` reports in TAP instead of to this runner.
  const { NODE_TEST_CONTEXT: _ctx, ...env } = process.env;
  const own = spawnSync("npm", ["test"], { cwd: join(dir, "demo"), encoding: "utf8", timeout: 60_000, env });
  assert.equal(own.status, 0, `${own.stdout}\n${own.stderr}`);
  assert.match(own.stdout, /# pass 4/);
});

test("validate reports a broken taskset with ✗ and fails", async () => {
  const lines: string[] = [];
  const ok = await runValidate("no-such-taskset", {}, (l) => lines.push(l));
  assert.equal(ok, false);
  assert.match(lines.join("\n"), /✗ config: .*unknown taskset/);
});
