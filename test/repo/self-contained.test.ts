/**
 * A fresh clone is all the tests need: every golden lives in test/fixtures/, a missing one fails
 * naming the file, and nothing in the repository points outside it.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { FIXTURES_DIR, readFixture } from "../fixtures.ts";
import { loadCases, QWEN3_FIXTURES } from "../renderers/fixture-cases.ts";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));

test("a missing golden fails naming the file and the command that makes it", () => {
  assert.throws(
    () => readFixture("no_such_golden.json"),
    /test\/fixtures\/no_such_golden\.json.*generate\.py/,
  );
});

test("the Qwen3 battery needs both of its files: one missing fails instead of being skipped", () => {
  const dir = mkdtempSync(join(tmpdir(), "envroll-fixtures-"));
  copyFileSync(join(FIXTURES_DIR, QWEN3_FIXTURES[0]!), join(dir, QWEN3_FIXTURES[0]!));
  assert.throws(() => loadCases(dir), new RegExp(QWEN3_FIXTURES[1]!.replace(".", "\\.")));
  assert.deepEqual(
    loadCases().map((f) => f.source),
    QWEN3_FIXTURES,
  );
  assert.ok(loadCases().every((f) => f.cases.length > 0));
});

// Folders that are not the project's own files (installed packages, outputs, caches).
const SKIP = new Set([
  ".git",
  "node_modules",
  ".venv",
  "outputs",
  "__pycache__",
  ".pytest_cache",
  ".scratch",
]);

function* projectFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name) || name.endsWith(".egg-info") || relative(ROOT, join(dir, name)) === "bench/out")
      continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* projectFiles(path);
    else yield path;
  }
}

test("no file reads or names the folder beside the checkout or a path of the machine it was written on", () => {
  // Spelled in pieces so this file does not match itself.
  const forbidden = [
    ["..", "shared"].join("/"),
    ["ENVROLL", "SHARED", "DIR"].join("_"),
    ["", "work", ""].join("/"),
    ...["spec", "fixtures", "miles-stubs"].map((d) => ` ${["shared", d].join("/")}/`),
  ];
  // The CI step that hides that folder while the tests run has to name it.
  const hider = new Set([".ci/run", "scripts/without-shared.sh"]);
  const hits: string[] = [];
  let scanned = 0;
  for (const path of projectFiles(ROOT)) {
    if (hider.has(relative(ROOT, path))) continue;
    const text = readFileSync(path, "latin1");
    scanned++;
    for (const f of forbidden) if (text.includes(f)) hits.push(`${relative(ROOT, path)}: ${f.trim()}`);
  }
  assert.ok(scanned > 100, `scanned only ${scanned} files`);
  assert.deepEqual(hits, []);
});
