/**
 * What an eval over plain HTTP loads, from the built CLI's bin: `/generate` and the preflight go
 * through the transport's own HTTP/1.1 client, so none of Node's HTTP stack, TLS or HTTP/2 (which
 * undici loads) is loaded — each was part of the start-up cost before the first rollout — and
 * the bin, the loader and the bundle are CommonJS, so no ES module is loaded either.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startEngine } from "../../packages/engine/src/index.ts";
import { ROOT } from "../cli/cli-helpers.ts";
import { ensureBuilt } from "./built.ts";

/** Preloaded into the CLI: Node's list of the built-in modules it loaded, written at exit. */
const LISTER = `process.on("exit", () => require("node:fs").writeFileSync(process.env.ENVROLL_TEST_BUILTINS, process.moduleLoadList.join("\\n")));\n`;

test("an eval over plain HTTP loads neither node:http, TLS, HTTP/2 nor an ES module", async (t) => {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), "envroll-lean-"));
  const engine = await startEngine({ modelName: "Qwen/Qwen3-8B" });
  t.after(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });
  writeFileSync(join(dir, "lister.cjs"), LISTER);
  const list = join(dir, "builtins.txt");
  const evalArgs = `eval reverse-text -n 2 -r 2 --engine ${engine.url}`.split(" ");
  const args = ["-r", join(dir, "lister.cjs"), join(ROOT, "packages/cli/bin/envroll.cjs"), ...evalArgs];
  const child = spawn(process.execPath, args, {
    cwd: dir,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ENVROLL_TEST_BUILTINS: list },
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const code = await new Promise((resolve) => child.on("close", resolve));
  assert.equal(code, 0, stderr);
  const loaded = new Set(readFileSync(list, "utf8").split("\n"));
  assert.ok(loaded.has("NativeModule net"), "the list is Node's module list (net carries /generate)");
  const unwanted = ["http", "https", "_http_client", "tls", "http2"].filter((m) =>
    loaded.has(`NativeModule ${m}`),
  );
  assert.deepEqual(unwanted, [], "built-in modules an eval over plain HTTP has no use for");
  // Node loads its ES-module job runner only to run an ES module (the bin used to be one).
  assert.ok(!loaded.has("NativeModule internal/modules/esm/module_job"), "an ES module was loaded");
});
