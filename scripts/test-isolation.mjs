#!/usr/bin/env node
/**
 * Checks that the grouped node test processes of `npm test` (scripts/test-plan.mjs) give every
 * test the outcome it gets when its file runs in a process of its own: runs the grouped files
 * alone, then in their groups, both with the same concurrency as npm test, and compares per test
 * (pass, fail, skip or todo, by where it was declared and its name). A file that differs depends
 * on process state another file changes (or changes it): fix it, or list it in test/alone.txt.
 * Also prints the CPU each way (user + sys of the whole process tree).
 *
 *   node scripts/test-isolation.mjs [--reuse-alone]
 *
 * --reuse-alone takes the alone outcomes from the last run (after a fix to the grouping only).
 * The run is the node half of the suite twice: use it when the grouping or test/alone.txt
 * changes, not on every commit.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { GROUP_DIR, LOADER, plan, ROOT } from "./test-plan.mjs";

const reuse = process.argv.includes("--reuse-alone");
const groups = Number(process.env.ENVROLL_TEST_GROUPS ?? "12");
const concurrency = process.env.ENVROLL_TEST_CONCURRENCY ?? String(availableParallelism() + 2);
const { runs } = plan({ slow: false, groups });
const grouped = runs.filter((r) => r.path.startsWith(GROUP_DIR));
const REPORTER = join(ROOT, "scripts/test-outcomes.mjs");

function nodeTest(paths) {
  return new Promise((res) => {
    const t0 = performance.now();
    const child = spawn(
      "/usr/bin/time",
      [
        "-f",
        "%U %S",
        process.execPath,
        "--import",
        LOADER,
        "--test",
        `--test-concurrency=${concurrency}`,
        `--test-reporter=${REPORTER}`,
        ...paths,
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("close", () => {
      const [user, sys] = err.trim().split("\n").at(-1).split(" ").map(Number);
      res({ out, cpu: user + sys, wall: (performance.now() - t0) / 1000 });
    });
  });
}

/** outcome lines by file, each file's lines sorted; group entries' own describes left out. */
function byFile(out) {
  const files = new Map();
  for (const line of out.split("\n")) {
    const [outcome, where, name] = line.split("\t");
    if (!name || !where.startsWith("test/")) continue;
    const file = where.replace(/:\d+:\d+$/, "");
    if (!files.has(file)) files.set(file, []);
    files.get(file).push(`${outcome} ${where} ${name}`);
  }
  for (const v of files.values()) v.sort();
  return files;
}

const saved = join(GROUP_DIR, "alone-outcomes.txt");
let alone;
if (reuse && existsSync(saved)) {
  alone = { out: readFileSync(saved, "utf8"), cpu: Number.NaN, wall: Number.NaN };
} else {
  alone = await nodeTest(grouped.flatMap((r) => r.files));
  writeFileSync(saved, alone.out);
}
const together = await nodeTest(grouped.map((r) => r.path));
const a = byFile(alone.out);
const g = byFile(together.out);
let differ = 0;
for (const file of new Set([...a.keys(), ...g.keys()])) {
  const x = a.get(file) ?? [];
  const y = g.get(file) ?? [];
  if (x.join("\n") === y.join("\n")) continue;
  differ++;
  const group = grouped.findIndex((r) => r.files.includes(file));
  console.log(`DIFFERS ${file} (group ${group}):`);
  for (const l of x.filter((l) => !y.includes(l))) console.log(`  alone only:   ${l}`);
  for (const l of y.filter((l) => !x.includes(l))) console.log(`  grouped only: ${l}`);
}
const fails = (m) => [...m.values()].flat().filter((l) => l.startsWith("fail")).length;
const count = (m) => [...m.values()].flat().length;
console.log(
  `alone: ${count(a)} tests, ${fails(a)} failed, CPU ${alone.cpu.toFixed(0)} s, wall ${alone.wall.toFixed(0)} s`,
);
console.log(
  `grouped (${grouped.length} processes for ${grouped.reduce((n, r) => n + r.files.length, 0)} files): ${count(g)} tests, ${fails(g)} failed, CPU ${together.cpu.toFixed(0)} s, wall ${together.wall.toFixed(0)} s`,
);
console.log(differ ? `${differ} files differ` : "every file's outcomes are the same grouped as alone");
process.exitCode = differ ? 1 : 0;
