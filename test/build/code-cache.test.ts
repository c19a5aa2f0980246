/**
 * The built CLI's V8 code cache (packages/cli/dist/load.cjs, scripts/cli-bundle-loader.cjs): one
 * entry per command in ENVROLL_CACHE_DIR, written by the first run and used by the next; a
 * damaged entry is refused by V8 and rewritten, never run; an entry of an earlier build of the
 * bundle is replaced; `off` writes nothing. Each run must still print what the command prints.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../cli/cli-helpers.ts";
import { ensureBuilt, MAIN } from "./built.ts";

function run(cacheDir: string, args: string[]) {
  const r = spawnSync(process.execPath, [MAIN, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, ENVROLL_CACHE_DIR: cacheDir },
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, "", "no warnings");
  return r.stdout;
}

const entries = (dir: string) => readdirSync(dir).filter((f) => f.endsWith(".v8"));

test("a command's code cache is written once, used, and a damaged or stale entry is replaced", (t) => {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), "envroll-code-cache-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const help = run(dir, ["validate", "--help"]);
  assert.match(help, /Usage: envroll validate/);
  const [entry, ...more] = entries(dir);
  assert.ok(entry, "the first run wrote an entry");
  assert.deepEqual(more, []);
  assert.match(entry, /^cli-[0-9a-f]+-validate-[0-9a-f]+\.v8$/);
  const written = readFileSync(join(dir, entry));

  // A run that found a usable entry leaves it as it was.
  assert.equal(run(dir, ["validate", "--help"]), help);
  assert.deepEqual(readFileSync(join(dir, entry)), written);

  // Another command has an entry of its own.
  assert.match(run(dir, ["score", "--help"]), /Usage: envroll score/);
  assert.equal(entries(dir).length, 2);

  // Garbage of the same size: V8 refuses it, the command runs from source text and rewrites it.
  const garbage = Buffer.alloc(written.length, 7);
  writeFileSync(join(dir, entry), garbage);
  assert.equal(run(dir, ["validate", "--help"]), help);
  const rewritten = readFileSync(join(dir, entry));
  assert.ok(rewritten.length > 1000 && !rewritten.equals(garbage), "the refused entry was rewritten");

  // An entry of an earlier build (same bundle path and command, other build key) is removed
  // when this build's entry is written.
  const stale = entry.replace(/-[0-9a-f]+\.v8$/, "-0000000000000000.v8");
  writeFileSync(join(dir, stale), "old");
  rmSync(join(dir, entry));
  assert.equal(run(dir, ["validate", "--help"]), help);
  assert.ok(entries(dir).includes(entry));
  assert.ok(!entries(dir).includes(stale), "the stale entry was removed");
});

test("ENVROLL_CACHE_DIR=off: the CLI runs and writes no cache", (t) => {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), "envroll-code-cache-off-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const r = spawnSync(process.execPath, [MAIN, "--version"], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, ENVROLL_CACHE_DIR: "off", TMPDIR: dir },
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), "0.1.0");
  assert.deepEqual(readdirSync(dir), []);
});
