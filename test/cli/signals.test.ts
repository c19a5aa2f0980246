/**
 * Signals through `npx`: npm runs the bin under `sh -c`, and a SIGTERM sent to npx dies with the
 * shell. The eval must still stop the way Ctrl-C stops it, and leave no process behind.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { referenceEngine } from "../engine/reference-engine.ts";
import { evalArgs, lineCount, ROOT, waitFor } from "./cli-helpers.ts";

/** Processes whose command line names `marker` (a fresh temp dir), for the orphan check. */
function processesNaming(marker: string): string[] {
  try {
    return execFileSync("pgrep", ["-f", marker], { encoding: "utf8" }).split("\n").filter(Boolean);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

test("SIGTERM to the npx process stops the eval like Ctrl-C: summary written, nothing left running", async () => {
  const engine = await referenceEngine({
    latencyMs: 150,
    modelName: "Qwen/Qwen3-8B",
  });
  try {
    const out = mkdtempSync(join(tmpdir(), "envroll-npx-sigterm-"));
    const npx = spawn("npx", ["envroll", ...evalArgs(8, 4), "-c", "1", "-o", out, "--engine", engine.url], {
      cwd: ROOT,
      stdio: "ignore",
    });
    const traces = () => {
      const [combo] = existsSync(out) ? readdirSync(out) : [];
      if (!combo) return null;
      const [run] = readdirSync(join(out, combo));
      return run ? join(out, combo, run) : null;
    };
    await waitFor(
      () => {
        const dir = traces();
        return dir !== null && lineCount(join(dir, "traces.jsonl")) >= 2;
      },
      120_000,
      "first traces",
    );
    npx.kill("SIGTERM");
    const dir = traces()!;
    await waitFor(() => processesNaming(out).length === 0, 20_000, "the eval to stop");
    assert.ok(existsSync(join(dir, "summary.json")), "the summary was written on the way out");
    assert.ok(lineCount(join(dir, "traces.jsonl")) < 32, "it stopped instead of running to the end");
  } finally {
    await engine.close();
  }
});
