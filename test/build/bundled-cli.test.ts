/**
 * The bundled CLI (packages/cli/dist, scripts/bundle-cli.mjs): an eval loads the core, the
 * engine and their dependencies from the bundle, not as separate files; its data files
 * (datasets, tokenizer data) resolve from the package folders; and a taskset module that
 * imports `envroll` gets the bundle's copy of the library, not a second one.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { evalArgs, onlyRunDir, ROOT } from "../cli/cli-helpers.ts";
import { ensureBuilt, MAIN } from "./built.ts";

/**
 * Preloaded into the CLI: writes every module the process loaded (ESM through a load hook,
 * CommonJS from the require cache) to a file at exit.
 */
const TRACER = `import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
const file = process.env.ENVROLL_TEST_MODULES;
const hook = 'import { appendFileSync } from "node:fs"; let file; export function initialize(d) { file = d.file; } export async function load(url, c, next) { appendFileSync(file, url + "\\\\n"); return next(url, c); }';
register("data:text/javascript," + encodeURIComponent(hook), { data: { file } });
const require = createRequire(import.meta.url);
process.on("exit", () => appendFileSync(file, Object.keys(require.cache).map((p) => "file://" + p + "\\n").join("")));
`;

test("an eval from the bundle loads no core, engine, zod, undici or commander file of its own", (t) => {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), "envroll-bundle-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "tracer.mjs"), TRACER);
  const modules = join(dir, "modules.txt");
  writeFileSync(modules, "");
  const r = spawnSync(
    process.execPath,
    ["--import", pathToFileURL(join(dir, "tracer.mjs")).href, MAIN, ...evalArgs(2, 1)],
    { cwd: dir, encoding: "utf8", timeout: 180_000, env: { ...process.env, ENVROLL_TEST_MODULES: modules } },
  );
  assert.equal(r.status, 0, r.stderr);
  const loaded = readFileSync(modules, "utf8").trim().split("\n");
  assert.ok(
    loaded.some((u) => u.includes("/packages/cli/dist/")),
    `the tracer saw the bundle: ${loaded.join(" ")}`,
  );
  const own = loaded.filter((u) =>
    /\/packages\/(core|engine)\/(src|dist)\/|\/node_modules\/(zod|undici|commander)\//.test(u),
  );
  assert.deepEqual(own, [], "modules loaded from outside the bundle");
  // Nor any of the chunks kept out of main.cjs (scripts/bundle-cli.mjs CHUNKS): an eval of a
  // built-in environment with a native renderer uses none of them (load.cjs is the loader).
  assert.deepEqual(
    loaded.filter((u) => /\/packages\/cli\/dist\/(?!(?:main|load)\.cjs$)[^/]+\.cjs$/.test(u)),
    [],
    "chunks loaded by an eval",
  );
  // The reverse-text dataset and the tokenizer's data came from the core's data/ folder.
  const traces = readFileSync(join(onlyRunDir(join(dir, "outputs")), "traces.jsonl"), "utf8")
    .trim()
    .split("\n");
  assert.equal(traces.length, 2);
  for (const line of traces) assert.deepEqual(JSON.parse(line).errors, []);
});

/**
 * Evaluates `source` as a taskset package from a temp folder, as `npm install envroll` makes it
 * (node_modules/envroll is the core; `links` adds more packages from the repo's node_modules), and
 * returns the errors of its one trace. The tasksets here fail their reward on purpose, so the
 * eval must exit non-zero.
 */
function evalTasksetModule(
  t: { after: (fn: () => void) => void },
  source: string,
  links: string[] = [],
): { type: string; message: string }[] {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), "envroll-bundle-taskset-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(join(ROOT, "packages", "core"), join(dir, "node_modules", "envroll"), "dir");
  for (const name of links)
    symlinkSync(join(ROOT, "node_modules", name), join(dir, "node_modules", name), "dir");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  writeFileSync(join(dir, "index.js"), source);
  const r = spawnSync(process.execPath, [MAIN, "eval", "./index.js", "-n", "1", "-r", "1", "-o", "out"], {
    cwd: dir,
    encoding: "utf8",
    timeout: 180_000,
  });
  assert.notEqual(r.status, 0, "every rollout errored, so the eval fails");
  const [trace] = readFileSync(join(onlyRunDir(join(dir, "out")), "traces.jsonl"), "utf8")
    .trim()
    .split("\n");
  return JSON.parse(trace!).errors;
}

test("a taskset module importing envroll shares the bundle's library (its TaskError is envroll's)", (t) => {
  const errors = evalTasksetModule(
    t,
    `import { defineTaskset, TaskError } from "envroll";
export default defineTaskset({
  id: "shared",
  load: () => [{ idx: 0, prompt: "hi" }],
  rewards: [{ name: "r", weight: 1, fn: () => { throw new TaskError("the taskset's own message"); } }],
});
`,
  );
  // Scoring passes a TaskError through as it is and wraps anything else ("reward r failed: …"):
  // a second copy of the library would make the taskset's TaskError "anything else".
  assert.deepEqual(
    errors.map((e) => [e.type, e.message]),
    [["TaskError", "the taskset's own message"]],
  );
});

test("zod's locales, kept out of main.cjs, are all still there for a taskset's z.locales", (t) => {
  // The reward reports what the taskset saw, as a TaskError (the eval's trace keeps its message).
  const [error] = evalTasksetModule(
    t,
    `import { defineTaskset, TaskError } from "envroll";
import { z } from "zod";
export default defineTaskset({
  id: "locales",
  load: () => [{ idx: 0, prompt: "hi" }],
  rewards: [{ name: "r", weight: 1, fn: () => {
    z.config(z.locales.fr());
    const issue = z.string().safeParse(1).error.issues[0].message;
    throw new TaskError(Object.keys(z.locales).length + " " + issue);
  } }],
});
`,
    ["zod"],
  );
  const [count, ...message] = error!.message.split(" ");
  assert.ok(Number(count) >= 40, `z.locales has ${count} locales`);
  // French, from the locales chunk, not zod's English default.
  assert.match(message.join(" "), /^Entr\u00e9e invalide/);
});
