import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { positiveInt, resolveTarget, splitArgs, UsageError } from "../../packages/cli/src/args.ts";

test("splitArgs separates positionals from dotted overrides", () => {
  const { positionals, overrides } = splitArgs([
    "--sampling.temperature",
    "0.7",
    "reverse-text",
    "--max-turns=3",
    "--harness.id",
    "null",
    "--verbose",
    "--no-shuffle",
    "--sampling.stop",
    '["x"]',
  ]);
  assert.deepEqual(positionals, ["reverse-text"]);
  assert.deepEqual(overrides, {
    "sampling.temperature": "0.7",
    max_turns: "3",
    "harness.id": "null",
    verbose: true,
    shuffle: false,
    "sampling.stop": '["x"]',
  });
});

test("a switch followed by another option is boolean; malformed keys are rejected", () => {
  assert.deepEqual(splitArgs(["--dry_run", "--model", "m"]).overrides, { dry_run: true, model: "m" });
  assert.throws(() => splitArgs(["--a..b", "1"]), UsageError);
});

test("positiveInt", () => {
  assert.equal(positiveInt("-n")("8"), 8);
  assert.throws(() => positiveInt("-n")("0"), UsageError);
  assert.throws(() => positiveInt("-n")("2.5"), UsageError);
});

test("resolveTarget: config files, package directories, module paths, ids", () => {
  assert.deepEqual(resolveTarget("run.toml"), { kind: "config", path: "run.toml" });
  assert.deepEqual(resolveTarget("reverse-text"), { kind: "taskset", id: "reverse-text" });
  const dir = mkdtempSync(join(tmpdir(), "envroll-args-"));
  const pkg = join(dir, "pkg");
  mkdirSync(pkg);
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ main: "main.ts" }));
  writeFileSync(join(pkg, "main.ts"), "");
  assert.deepEqual(resolveTarget(pkg), { kind: "taskset", id: join(pkg, "main.ts") });
  const bare = join(dir, "bare");
  mkdirSync(bare);
  writeFileSync(join(bare, "index.ts"), "");
  assert.deepEqual(resolveTarget(bare), { kind: "taskset", id: join(bare, "index.ts") });
  mkdirSync(join(dir, "empty"));
  assert.throws(() => resolveTarget(join(dir, "empty")), UsageError);
});
