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
 *   node scripts/test.mjs --groups     print the node processes (files per process), run nothing
 *
 * The node files and pytest run at the same time: most node tests wait on subprocesses and
 * sockets, and pytest mostly on torch in its engine subprocesses, so on 2 cores the overlap fills
 * time each leaves idle. pytest's output is held and printed after the node runner's, so the two
 * never interleave. ENVROLL_TEST_CONCURRENCY sets how many node test processes run at once,
 * ENVROLL_TEST_GROUPS how many processes the fast set's node files are packed into (0: one per
 * file, as before groups).
 *
 * What keeps `npm test` within 5 minutes on 2 cores (each measured in the commit that made it):
 *  - node test files run under scripts/ts-loader (esbuild with a disk cache) instead of tsx,
 *    which cost ~1 s of CPU per file in loader work, ~150 files; the cache is filled here in one
 *    batch before they start (on a fresh clone each of the first processes started its own
 *    esbuild and transformed the same sources);
 *  - they run in 12 long-lived processes instead of one each (scripts/test-plan.mjs): each
 *    process spent ~0.5 s of CPU importing the sources before its first test, and the node
 *    side's CPU went from 268 to 191 s with the grouping (scripts/test-isolation.mjs, which also
 *    checks that every test's outcome is the same grouped as alone); files that change
 *    process-wide state stay alone (test/alone.txt);
 *  - the groups are packed and started by measured cost (test/costs.txt, written by
 *    `node scripts/test-times.mjs --costs`), the costliest first, so no long one starts last
 *    and runs alone at the end; a file not listed there counts as average;
 *  - the node side runs at nice 5 (ENVROLL_TEST_NODE_NICE), so pytest, whose work is a few
 *    serial chains, gets the cores when both want them (pytest ended at 270 s instead of 400 s, the node side at
 *    322 s instead of 349 s; one run each on a shared machine, load ~8 before, 2 to 8 after);
 *  - pytest runs on two xdist workers (whole files per worker, --dist loadgroup with the repo's
 *    conftest.py), so its engine-bound tests are no longer one serial chain that outlasts the
 *    node files; the envroll_engine files that share the session's tiny engines are one group
 *    on one worker, which starts the engines once instead of once per worker.
 *    ENVROLL_PYTEST_WORKERS=0 runs it in one process (the default for `--slow`, whose ids
 *    are timing-sensitive engine runs).
 */
import { spawn, spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { LOADER, plan, ROOT } from "./test-plan.mjs";
import { warm } from "./ts-loader/cache.mjs";

const argv = process.argv.slice(2);
for (const a of argv) {
  if (!["--slow", "--node", "--py", "--list", "--groups"].includes(a)) {
    console.error(`test: unknown option ${a} (--slow, --node, --py, --list, --groups)`);
    process.exit(2);
  }
}
const slow = argv.includes("--slow");
const sides = argv.includes("--node") || argv.includes("--py") ? argv : ["--node", "--py"];
const list = argv.includes("--list");
const groups = Number(process.env.ENVROLL_TEST_GROUPS ?? "12");
if (!Number.isInteger(groups) || groups < 0) {
  console.error("test: ENVROLL_TEST_GROUPS must be a whole number (0: every file alone)");
  process.exit(2);
}
const { nodeFiles, runs, pytestArgs, hasPy } = plan({ slow, groups });
if (list) {
  if (sides.includes("--node")) for (const f of nodeFiles) console.log(f);
  if (sides.includes("--py") && hasPy) console.log(`pytest ${pytestArgs.join(" ")}`);
  process.exit(0);
}
if (argv.includes("--groups")) {
  for (const r of runs) console.log(`${r.cost.toFixed(1).padStart(6)} s  ${r.files.join(" ")}`);
  process.exit(0);
}

/** Every .ts/.mts file under `dirs` (not declarations, node_modules or dist/): what the loader may load. */
function typeScriptSources(dirs, out = []) {
  for (const dir of dirs) {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const p = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (e.name !== "node_modules" && e.name !== "dist") typeScriptSources([p], out);
      } else if (/\.m?ts$/.test(e.name) && !/\.d\.m?ts$/.test(e.name)) out.push(join(ROOT, p));
    }
  }
  return out;
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

// Node 20 parses the certificates named by NODE_EXTRA_CA_CERTS at every process start, before any
// JavaScript runs (a system bundle of ~150 certificates: ~45 ms of CPU per process where it is
// set), and the suite starts ~300 node processes. No test opens a TLS connection (every server
// is on loopback), so the children start without it.
delete process.env.NODE_EXTRA_CA_CERTS;

const jobs = [];
const started = performance.now();
if (sides.includes("--py") && hasPy) {
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
  await warm(typeScriptSources(["packages", "test"]));
  const concurrency = process.env.ENVROLL_TEST_CONCURRENCY ?? String(availableParallelism() + 2);
  // pytest's work is a few serial chains (engines and services one after another on two
  // workers); the node side has more processes to share the CPU among. So the node side runs a
  // few nice levels down: pytest gets the cores when both want them and ends early, and the node
  // side keeps both cores busy after it.
  const nice = process.env.ENVROLL_TEST_NODE_NICE ?? (slow ? "0" : "5");
  jobs.unshift({
    name: "node",
    promise: run(
      "nice",
      [
        "-n",
        nice,
        process.execPath,
        "--import",
        LOADER,
        "--test",
        `--test-concurrency=${concurrency}`,
        ...runs.map((r) => r.path),
      ],
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
