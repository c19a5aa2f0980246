/**
 * packages/cli/dist/load.cjs (copied there by scripts/bundle-cli.mjs): runs the CLI's bundle,
 * main.cjs, through V8's code cache. Compiling the bundle's ~2 MB of JavaScript was a quarter
 * of the CPU an eval spent before its first model call; with the cache V8 deserializes the
 * functions an earlier run of the same command compiled instead of compiling them again. The
 * cache is one file per command (so `--help` does not decide what `eval` gets), keyed by the
 * bundle's path, size and mtime and by the Node version and architecture (V8 itself checks
 * only the source's length and its flags); it is written at exit by rename when it was missing
 * or V8 refused it, replacing the entries of earlier builds, and anything unreadable is a miss.
 * `ENVROLL_CACHE_DIR=off` turns it off (the bundle is then plainly required).
 */
"use strict";
const { join } = require("node:path");
// By absolute path: see v8-flags.cjs on what may run before it.
require(join(__dirname, "../bin/v8-flags.cjs"));
const { createHash } = require("node:crypto");
const { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } = require("node:fs");
const { createRequire } = require("node:module");
const vm = require("node:vm");
// The bin hands over the module it found (a package lookup loads part of Node's ES-module loader).
const { defaultCacheDir, readWhole } =
  globalThis[Symbol.for("envroll.cli.cacheDir")] ?? require("envroll/cache-dir.cjs");

const BUNDLE = join(__dirname, "main.cjs");

// Code run by a vm.Script may not call import() without an experimental flag, and CommonJS has
// no import.meta: the bundle imports (user modules, tsx) through this module, which sits in the
// same folder, so what it gets is what it would get itself; and it resolves as an ES module
// would through resolve.mjs beside it, loaded on first use (only a user module or the
// openai-agents harness asks, so an eval of a built-in environment never starts Node's
// ES-module loader).
globalThis[Symbol.for("envroll.cli.resolve")] = (specifier) =>
  import("./resolve.mjs").then((m) => m.resolve(specifier));
globalThis[Symbol.for("envroll.cli.import")] = (specifier) => import(specifier);

const hash = (...parts) => createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, 16);

/** `cli-<bundle path>-<command>-<build, Node>.v8`: a rebuild replaces its command's entry. */
function cacheFile(dir) {
  const st = statSync(BUNDLE);
  const command = /^[a-z][a-z-]*$/.test(process.argv[2] ?? "") ? process.argv[2] : "other";
  const prefix = `cli-${hash(BUNDLE)}-${command}-`;
  return {
    dir,
    prefix,
    file: join(dir, `${prefix}${hash(st.size, st.mtimeMs, process.version, process.arch)}.v8`),
  };
}

function writeCache({ dir, prefix, file }, script) {
  try {
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, script.createCachedData());
    renameSync(tmp, file);
    // Entries of earlier builds of this bundle are dead (each rebuild has a new mtime).
    for (const name of readdirSync(dir))
      if (name.startsWith(prefix) && name.endsWith(".v8") && join(dir, name) !== file)
        rmSync(join(dir, name), { force: true });
  } catch {
    // A cache that cannot be written only costs the next start-up its speed.
  }
}

/** Runs the bundle: main.cjs is its CommonJS module wrapper, a function expression (see bundle-cli.mjs). */
function run(script) {
  const module = { exports: {}, filename: BUNDLE, id: BUNDLE, loaded: false };
  script.runInThisContext()(module.exports, createRequire(BUNDLE), module, BUNDLE, __dirname);
}

const dir = defaultCacheDir();
if (dir === null) {
  run(new vm.Script(readFileSync(BUNDLE, "latin1"), { filename: BUNDLE }));
} else {
  const entry = cacheFile(dir);
  // Both files are read side by side on libuv's threads, which copy them and fault their pages
  // in (~15 µs a fresh page on the machines measured); the bin started the bundle's read before
  // its build-stamp check.
  Promise.all([readWhole(entry.file), globalThis[Symbol.for("envroll.cli.bundle")] ?? readWhole(BUNDLE)]).then(
    ([cachedData, bundle]) => {
      // The bundle is ASCII (scripts/bundle-cli.mjs checks): Latin-1 reads it without decoding.
      // Compiled as read: a string built around it would be copied once more when V8 flattens it.
      const script = new vm.Script((bundle ?? readFileSync(BUNDLE)).toString("latin1"), {
        filename: BUNDLE,
        cachedData,
      });
      // Written at exit, so the cache holds every function this command compiled.
      if (cachedData === undefined || script.cachedDataRejected)
        process.once("exit", () => writeCache(entry, script));
      run(script);
    },
  );
}
