/**
 * The built CLI's V8 code cache (packages/cli/dist/load.cjs, scripts/cli-bundle-loader.cjs): one
 * entry per command in ENVROLL_CACHE_DIR, written by the first run and used by the next; a
 * damaged entry is refused by V8 and rewritten, never run; an entry of an earlier build of the
 * bundle is replaced; `off` writes nothing. Each run must still print what the command prints.
 * An eval writes its entry once its first model request has gone out, not at exit.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startEngine } from "../../packages/engine/src/index.ts";
import { evalArgs, ROOT } from "../cli/cli-helpers.ts";
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

test("an eval writes its entry when its first request has gone out, and not again at exit", async (t) => {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), "envroll-code-cache-eval-"));
  // The first /generate is answered after 1.5 s: the entry must appear while it waits.
  const engine = await startEngine({ modelName: "Qwen/Qwen3-8B", latencyMs: 1500 });
  t.after(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const evalEntry = () => entries(dir).find((f) => /^cli-[0-9a-f]+-eval-[0-9a-f]+\.v8$/.test(f));
  const runEval = () =>
    new Promise<{ code: number | null; stderr: string; seen: Buffer | null; early: number }>((resolve) => {
      const child = spawn(
        process.execPath,
        [MAIN, ...evalArgs(1, 1), "--engine", engine.url, "-o", join(dir, "out")],
        { cwd: ROOT, env: { ...process.env, ENVROLL_CACHE_DIR: dir }, stdio: ["ignore", "ignore", "pipe"] },
      );
      let stderr = "";
      child.stderr.on("data", (b) => {
        stderr += b;
      });
      let seen: Buffer | null = null;
      let seenAt = Number.NaN;
      const poll = setInterval(() => {
        const name = evalEntry();
        if (name && seen === null) {
          seen = readFileSync(join(dir, name));
          seenAt = performance.now();
        }
      }, 20);
      child.on("close", (code) => {
        clearInterval(poll);
        // How long before the eval ended the entry was there.
        resolve({ code, stderr, seen, early: performance.now() - seenAt });
      });
    });

  const first = await runEval();
  assert.equal(first.code, 0, first.stderr);
  const name = evalEntry();
  assert.ok(name, "the eval wrote an entry");
  assert.ok(first.seen !== null && first.seen.length > 1000, "an entry was written");
  // Written at exit it would appear only as the process ends, not while the reply is awaited.
  assert.ok(first.early > 1000, `the entry appeared only ${first.early.toFixed(0)} ms before the eval ended`);
  assert.deepEqual(readFileSync(join(dir, name)), first.seen, "and not rewritten at exit");

  // The next eval takes it (V8 accepts an entry written mid-run) and leaves it as it was.
  const mtime = statSync(join(dir, name)).mtimeMs;
  const second = await runEval();
  assert.equal(second.code, 0, second.stderr);
  assert.equal(statSync(join(dir, name)).mtimeMs, mtime);
  assert.deepEqual(entries(dir), [name]);
});
