/** `envroll init demo` → `envroll validate ./demo` and the scaffold's own `npm test`, in a temp dir. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
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
    "tsconfig.json",
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

test("every command the scaffold's README shows works from inside it, offline; it installs as a taskset package", async () => {
  const dir = mkdtempSync(join(tmpdir(), "envroll-init-"));
  const init = await runCli(["init", "my-task"], dir);
  assert.equal(init.code, 0, init.stderr);
  const pkg = join(dir, "my-task");
  const readme = readFileSync(join(pkg, "README.md"), "utf8");
  const { NODE_TEST_CONTEXT: _ctx, ...env } = process.env;
  const sh = (cmd: string, args: string[], cwd = pkg) =>
    spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: 180_000, env });
  for (const line of [
    "npx envroll validate .",
    "npm test",
    "npm run validate",
    "npm run eval",
    "npm run typecheck",
  ]) {
    assert.ok(readme.includes(line), `the README shows \`${line}\``);
    const [cmd, ...args] = line.split(" ");
    const r = sh(cmd!, args);
    assert.equal(r.status, 0, `${line}\n${r.stdout}\n${r.stderr}`);
    if (line.includes("validate"))
      assert.match(r.stdout, /reward 1\.000.*answered by the taskset's reference solution/, line);
  }
  // Installed into another project (npm links a file: dependency), the package name is a taskset id.
  const proj = join(dir, "proj");
  mkdirSync(join(proj, "node_modules", "@acme"), { recursive: true });
  symlinkSync(pkg, join(proj, "node_modules", "my-task"), "dir");
  symlinkSync(pkg, join(proj, "node_modules", "@acme", "my-env"), "dir");
  const byName = await runCli(["validate", "my-task"], proj);
  assert.equal(byName.code, 0, byName.stdout);
  const hub = await runCli(["eval", "acme/my-env@0.1.0", "-n", "1", "-o", join(proj, "out")], proj);
  assert.equal(hub.code, 0, hub.stderr);
  const missing = await runCli(["eval", "not-installed-env", "--dry-run"], proj);
  assert.equal(missing.code, 2);
  assert.match(
    missing.stderr,
    /no installed package "not-installed-env"; install it with `npm install not-installed-env`/,
  );
});

test("a taskset module outside any package: the error says what to add", async () => {
  const dir = mkdtempSync(join(tmpdir(), "envroll-standalone-"));
  writeFileSync(
    join(dir, "t.ts"),
    'import { defineTaskset } from "envroll";\nexport default defineTaskset({ id: "s", load: () => [] });\n',
  );
  const r = await runCli(["validate", "./t.ts"], dir);
  assert.equal(r.code, 1);
  assert.match(
    r.stdout,
    /needs a package\.json beside it with "type": "module" and envroll installed: `npm init -y && npm pkg set type=module && npm install .*packages\/core/,
  );
});

test("validate reports a broken taskset with ✗ and fails", async () => {
  const lines: string[] = [];
  const ok = await runValidate("no-such-taskset", {}, (l) => lines.push(l));
  assert.equal(ok, false);
  assert.match(lines.join("\n"), /✗ config: .*unknown taskset/);
});
