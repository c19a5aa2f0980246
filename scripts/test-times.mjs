#!/usr/bin/env node
/**
 * Per-file cost of the node test suite: runs each test file as its own `node --test` process
 * (N at a time) under /usr/bin/time and prints wall seconds, CPU seconds (user + sys of the file's
 * whole process tree, which is what a loaded machine cannot hide) and pass/fail, slowest first.
 * Used to decide which files belong behind `npm run test:slow` and to record before/after figures.
 *
 *   node scripts/test-times.mjs [-j N] [--json out.json] [--costs] [--tsx] [files or folders…]
 *
 * Default: every test file under test/. Files run under the suite's loader (scripts/ts-loader, as
 * scripts/test.mjs runs them); --tsx runs them under tsx instead, for a side-by-side figure.
 * --costs writes test/costs.txt (CPU seconds per file, which scripts/test.mjs starts costliest
 * first): run it over the whole of test/ on a machine that is as quiet as you can get.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const args = process.argv.slice(2);
let jobs = 2;
let jsonOut;
let writeCosts = false;
let loader = pathToFileURL(fileURLToPath(new URL("./ts-loader/register.mjs", import.meta.url))).href;
const roots = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "-j") jobs = Number(args[++i]);
  else if (args[i] === "--json") jsonOut = args[++i];
  else if (args[i] === "--costs") writeCosts = true;
  else if (args[i] === "--tsx") loader = "tsx";
  else roots.push(args[i]);
}
if (!Number.isInteger(jobs) || jobs < 1) {
  console.error("test-times: -j needs a positive integer");
  process.exit(2);
}

function collect(p, out) {
  if (statSync(p).isDirectory()) {
    for (const e of readdirSync(p).sort()) collect(join(p, e), out);
  } else if (p.endsWith(".test.ts")) out.push(p);
  return out;
}
const files = (roots.length ? roots : ["test"]).flatMap((r) => collect(r, []));
// As scripts/test.mjs: files that run the CLI would otherwise time a stale dist/ (a file measured
// 26.8 s of CPU instead of 6.9 s right after a rebase, before the build caught up).
const build = spawnSync(process.execPath, [fileURLToPath(new URL("./build.mjs", import.meta.url))], {
  stdio: "inherit",
});
if (build.status !== 0) process.exit(build.status ?? 1);
const tmp = mkdtempSync(join(tmpdir(), "test-times-"));

function runOne(file, idx) {
  const timeFile = join(tmp, `${idx}.time`);
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(
      "/usr/bin/time",
      ["-f", "%e %U %S", "-o", timeFile, process.execPath, "--import", loader, "--test", file],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      out += d;
    });
    child.on("close", (code) => {
      const wall = (performance.now() - t0) / 1000;
      const [, user, sys] = readFileSync(timeFile, "utf8").trim().split("\n").at(-1).split(" ").map(Number);
      const count = (k) => Number(out.match(new RegExp(`^# ${k} (\\d+)`, "m"))?.[1] ?? 0);
      resolve({
        file,
        wall,
        cpu: user + sys,
        code,
        pass: count("pass"),
        fail: count("fail"),
        skip: count("skipped"),
      });
    });
  });
}

const results = [];
const load0 = loadavg()[0];
const t0 = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: jobs }, async () => {
    while (next < files.length) {
      const i = next++;
      const r = await runOne(files[i], i);
      results.push(r);
      process.stderr.write(
        `${r.code === 0 ? "ok  " : "FAIL"} ${r.wall.toFixed(1).padStart(6)}s wall ${r.cpu.toFixed(1).padStart(6)}s cpu  ${r.file}\n`,
      );
    }
  }),
);
const total = (performance.now() - t0) / 1000;
results.sort((a, b) => b.wall - a.wall);
for (const r of results) {
  console.log(
    `${r.wall.toFixed(1).padStart(7)} ${r.cpu.toFixed(1).padStart(7)}  ${String(r.pass).padStart(3)}p ${String(r.fail).padStart(2)}f ${String(r.skip).padStart(2)}s  ${r.file}`,
  );
}
const cpu = results.reduce((s, r) => s + r.cpu, 0);
const sum = results.reduce((s, r) => s + r.wall, 0);
console.log(
  `files ${results.length}, -j ${jobs}: wall ${total.toFixed(0)} s, sum of file walls ${sum.toFixed(0)} s, CPU ${cpu.toFixed(0)} s, load ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}, failed ${results.filter((r) => r.code !== 0).length}`,
);
if (jsonOut)
  writeFileSync(
    jsonOut,
    `${JSON.stringify({ jobs, total, cpu, load: [load0, loadavg()[0]], results }, null, 1)}\n`,
  );
if (writeCosts) {
  const header = [
    "# CPU seconds per node test file (user + sys of its process tree), written by",
    `# \`node scripts/test-times.mjs --costs\` at load ${load0.toFixed(1)}. scripts/test.mjs starts the costliest`,
    "# first; a file not listed counts as average. Ordering only: a stale figure costs time, not coverage.",
  ];
  const lines = [...results].sort((a, b) => b.cpu - a.cpu).map((r) => `${r.cpu.toFixed(1)} ${r.file}`);
  writeFileSync(
    fileURLToPath(new URL("../test/costs.txt", import.meta.url)),
    `${[...header, ...lines].join("\n")}\n`,
  );
}
process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;
