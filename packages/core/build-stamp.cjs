/**
 * Whether a package's built JavaScript (dist/) was made from the sources now in its src/. The
 * build (scripts/build.mjs) writes dist/.source-stamp, one line per source file (path, size,
 * mtime); a checkout compares it with src/ before running dist/, so an edited, added, removed
 * or checked-out source file makes the build stale. A copy installed under node_modules, or one
 * published without src/, runs its dist/ as shipped. Plain JavaScript: it runs before anything
 * is built or compiled; CommonJS, so the CLI's bin starts without Node's ES-module loader
 * (build-stamp.mjs re-exports it for ES modules).
 */
"use strict";
const { existsSync, readdirSync, readFileSync, statSync } = require("node:fs");
const { join, sep } = require("node:path");
const { fileURLToPath } = require("node:url");

const STAMP_FILE = join("dist", ".source-stamp");

/** Bumped whenever scripts/build.mjs changes what it emits, so older builds count as stale. */
const FORMAT = "envroll-build 2";

/**
 * `relative path \t size \t mtime` of every file under `dir`. A plain walk: every CLI start
 * runs this over three src/ trees, and `readdirSync({ recursive: true })` plus `path.relative`
 * cost five times as much CPU in a fresh process (~25 ms against ~5 ms for 300 files).
 */
function listFiles(dir, prefix, lines) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}${sep}${entry.name}`;
    const rel = prefix === "" ? entry.name : `${prefix}${sep}${entry.name}`;
    if (entry.isDirectory()) listFiles(path, rel, lines);
    else if (entry.isFile()) {
      const st = statSync(path);
      lines.push(`${rel}\t${st.size}\t${st.mtimeMs}`);
    }
  }
  return lines;
}

function sourceStamp(pkgDir) {
  return `${FORMAT}\n${listFiles(join(pkgDir, "src"), "", []).sort().join("\n")}\n`;
}

function builtIsCurrent(pkgDir) {
  const stamp = join(pkgDir, STAMP_FILE);
  if (!existsSync(stamp)) return false;
  if (pkgDir.split(sep).includes("node_modules") || !existsSync(join(pkgDir, "src"))) return true;
  return readFileSync(stamp, "utf8") === sourceStamp(pkgDir);
}

/** Throws unless the package holding `moduleUrl` (a file in its dist/) is current; dist entries call it. */
function assertBuiltIsCurrent(moduleUrl) {
  const pkgDir = fileURLToPath(new URL("../", moduleUrl));
  if (!builtIsCurrent(pkgDir))
    throw new Error(
      `${join(pkgDir, "dist")} was built from other sources than ${join(pkgDir, "src")}: run \`npm run build\`, or run from source (node --conditions=envroll-source --import tsx …)`,
    );
}

exports.STAMP_FILE = STAMP_FILE;
exports.sourceStamp = sourceStamp;
exports.builtIsCurrent = builtIsCurrent;
exports.assertBuiltIsCurrent = assertBuiltIsCurrent;
