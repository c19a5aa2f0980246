#!/usr/bin/env node
/**
 * The test suite, split by cost. `npm test` runs every node test file and every pytest test
 * except the slow end-to-end ones listed in test/slow.txt; `npm run test:slow` runs exactly those.
 * CI runs both, so together they are the whole suite, and nothing can fall between them: the fast
 * set is "everything not listed", and a listed entry that no longer exists is an error here.
 *
 *   node scripts/test.mjs              the fast suite (npm test)
 *   node scripts/test.mjs --slow       the slow suite (npm run test:slow)
 *   node scripts/test.mjs --node|--py  only one side of the chosen suite
 *   node scripts/test.mjs --list       print what the chosen suite would run, run nothing
 *
 * The node files and pytest run at the same time: most node tests wait on subprocesses and
 * sockets, and pytest mostly on torch in its engine subprocesses, so on 2 cores the overlap fills
 * time each leaves idle. pytest's output is held and printed after the node runner's, so the two
 * never interleave. ENVROLL_TEST_CONCURRENCY sets how many node test files run at once.
 *
 * What keeps `npm test` within 5 minutes on 2 cores (each measured in the commit that made it):
 *  - node test files run under scripts/ts-loader (esbuild with a disk cache) instead of tsx,
 *    which cost ~1 s of CPU per file in loader work, ~150 files;
 *  - they start in order of their measured cost (test/costs.txt, written by
 *    `node scripts/test-times.mjs --costs`), the costliest first, so no long file starts last
 *    and runs alone at the end; a file not listed there counts as average;
 *  - pytest runs on two xdist workers (whole files per worker, --dist loadfile), so its
 *    engine-bound tests are no longer one serial chain that outlasts the node files.
 *    ENVROLL_PYTEST_WORKERS=0 runs it in one process (the default for `--slow`, whose ids
 *    are timing-sensitive engine runs).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const MANIFEST = "test/slow.txt";
const COSTS = "test/costs.txt";
const LOADER = pathToFileURL(join(ROOT, "scripts/ts-loader/register.mjs")).href;
const PY_ROOTS = ["python/envroll_engine/tests", "python/envroll_miles/tests", "test/fixtures"];

const argv = process.argv.slice(2);
for (const a of argv) {
  if (!["--slow", "--node", "--py", "--list"].includes(a)) {
    console.error(`test: unknown option ${a} (--slow, --node, --py, --list)`);
    process.exit(2);
  }
}
const slow = argv.includes("--slow");
const sides = argv.includes("--node") || argv.includes("--py") ? argv : ["--node", "--py"];
const list = argv.includes("--list");

/** test/slow.txt: one node test file or pytest node id a line; `#` starts a comment. */
function readManifest() {
  const entries = [];
  readFileSync(join(ROOT, MANIFEST), "utf8")
    .split("\n")
    .forEach((raw, i) => {
      const line = raw.replace(/#.*/, "").trim();
      if (!line) return;
      const file = line.split("::")[0];
      if (!existsSync(join(ROOT, file))) {
        console.error(`test: ${MANIFEST}:${i + 1}: ${file} does not exist (moved? update the list)`);
        process.exit(2);
      }
      entries.push(line);
    });
  return entries;
}

function testFiles(dir, out = []) {
  for (const e of readdirSync(join(ROOT, dir)).sort()) {
    const p = `${dir}/${e}`;
    if (statSync(join(ROOT, p)).isDirectory()) testFiles(p, out);
    else if (p.endsWith(".test.ts")) out.push(p);
  }
  return out;
}

const manifest = readManifest();
const slowNode = new Set(manifest.filter((e) => e.endsWith(".test.ts")));
const slowPy = manifest.filter((e) => !e.endsWith(".test.ts"));
/** test/costs.txt: `<CPU seconds> <file>` a line; ordering only, so a stale entry costs time, not coverage. */
function readCosts() {
  const costs = new Map();
  if (!existsSync(join(ROOT, COSTS))) return costs;
  for (const raw of readFileSync(join(ROOT, COSTS), "utf8").split("\n")) {
    const m = raw
      .replace(/#.*/, "")
      .trim()
      .match(/^([\d.]+)\s+(\S+)$/);
    if (m) costs.set(m[2], Number(m[1]));
  }
  return costs;
}
const costs = readCosts();
const meanCost = costs.size ? [...costs.values()].reduce((a, b) => a + b, 0) / costs.size : 0;
const costOf = (f) => costs.get(f) ?? meanCost;
const nodeFiles = testFiles("test")
  .filter((f) => slowNode.has(f) === slow)
  .sort((a, b) => costOf(b) - costOf(a));
// The slow ids stay in one process: they are engines and trainers that each want the CPU, and
// the Ray replica test kills a replica while its group is in flight, a window that contention
// beside a torch test on the other worker closed in two CI runs (a fault of 0 where 1 was due).
const pytestWorkers = process.env.ENVROLL_PYTEST_WORKERS ?? (slow ? "0" : "2");
const xdist = pytestWorkers === "0" ? [] : ["-n", pytestWorkers, "--dist", "loadfile"];
const pytestArgs = [
  ...xdist,
  ...(slow ? slowPy : [...PY_ROOTS, ...slowPy.flatMap((id) => ["--deselect", id])]),
];
if (list) {
  if (sides.includes("--node")) for (const f of nodeFiles) console.log(f);
  if (sides.includes("--py") && (!slow || slowPy.length > 0)) console.log(`pytest ${pytestArgs.join(" ")}`);
  process.exit(0);
}

function run(cmd, args, capture) {
  return new Promise((res) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: capture ? ["ignore", "pipe", "pipe"] : "inherit" });
    let out = "";
    if (capture) {
      child.stdout.on("data", (d) => {
        out += d;
      });
      child.stderr.on("data", (d) => {
        out += d;
      });
    }
    // When it ended, not when its line is printed: pytest's is printed after the node runner's.
    child.on("close", (code, signal) =>
      res({ code: code ?? (signal ? 1 : 0), out, ended: performance.now() }),
    );
  });
}

const jobs = [];
const started = performance.now();
if (sides.includes("--py") && (!slow || slowPy.length > 0)) {
  const env = spawnSync(process.execPath, [join(ROOT, "scripts/py-env.mjs")], { stdio: "inherit" });
  if (env.status !== 0) process.exit(env.status ?? 1);
  jobs.push({
    name: "pytest",
    promise: run(
      join(ROOT, ".venv/bin/python"),
      ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", ROOT, ...pytestArgs],
      true,
    ),
  });
}
if (sides.includes("--node") && nodeFiles.length > 0) {
  const build = spawnSync(process.execPath, [join(ROOT, "scripts/build.mjs")], { stdio: "inherit" });
  if (build.status !== 0) process.exit(build.status ?? 1);
  const concurrency = process.env.ENVROLL_TEST_CONCURRENCY ?? String(availableParallelism() + 2);
  jobs.unshift({
    name: "node",
    promise: run(
      process.execPath,
      ["--import", LOADER, "--test", `--test-concurrency=${concurrency}`, ...nodeFiles],
      false,
    ),
  });
}

let failed = false;
for (const job of jobs) {
  const { code, out, ended } = await job.promise;
  if (out) process.stdout.write(out);
  const secs = ((ended - started) / 1000).toFixed(0);
  console.log(
    `test: ${job.name} ${code === 0 ? "passed" : `FAILED (exit ${code})`} (ended ${secs} s after start)`,
  );
  failed ||= code !== 0;
}
console.log(`test: all done ${((performance.now() - started) / 1000).toFixed(0)} s after start`);
process.exitCode = failed ? 1 : 0;
